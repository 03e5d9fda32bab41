package engine

// FOREIGN KEY enforcement (sqlite.org/foreignkeys.html), when the session's PRAGMA foreign_keys
// is on. Invariants:
//   - A statement decides once, when it starts, whether it pays anything: execCtx.fk is nil
//     unless foreign_keys is on and the statement's table has foreign keys in either direction
//     (fkBegin). Every hook returns at once on a nil fk.
//   - Violations are counted as SQLite counts them: a child row whose parent is missing adds
//     one, the removal of such a child row (or the arrival of its parent) takes one away. A
//     removal only takes away while the counter it would change is not zero (SQLite's
//     OP_FkIfZero), so orphans made while foreign_keys was off are not subtracted. Immediate
//     constraints count in fkStmt.imm, checked when the statement ends; DEFERRABLE INITIALLY
//     DEFERRED ones in Session.fkDeferred, checked at COMMIT (and at the end of an autocommit
//     statement); with PRAGMA defer_foreign_keys every constraint counts in
//     Session.fkDeferredImm. A statement that fails, and ROLLBACK TO, put the session counters
//     back as they were; COMMIT and ROLLBACK clear them and defer_foreign_keys.
//   - The parent key is the parent's rowid, the primary key of a WITHOUT ROWID parent, or a
//     UNIQUE index (not partial, on columns, with the columns' own collations) on exactly the
//     parent columns; anything else is SQLite's "foreign key mismatch". Parent lookups go
//     through that key; child lookups use an index whose leading columns are the child columns
//     (with the parent columns' affinity and collation), else a scan of the child table.
//   - Parent-side actions run after the parent row changed, newest foreign key first (the
//     order of SQLite's list of references): RESTRICT fails at once when a child exists (unless
//     defer_foreign_keys), CASCADE deletes or updates the children, SET NULL and SET DEFAULT
//     update them; the changes made by actions are checked and cascaded in turn. ON UPDATE
//     actions run when the parent key's value changes.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// errFK is SQLite's message for a violated foreign key constraint.
var errFK = errors.New("FOREIGN KEY constraint failed")

// fkStmt is the foreign key state of one statement.
type fkStmt struct {
	imm int64 // immediate violations counted by the statement
	// asChild and asParent cache each table's links: where it is the child, where the parent.
	asChild, asParent map[*Table][]*fkLink
	// writers are the row writers of the child tables actions update.
	writers map[*Table]*rowWriter
	// dropping: DROP TABLE's implicit DELETE, which passes over links to missing tables.
	dropping bool
	// single: an INSERT of one row (one VALUES row, no UPSERT or REPLACE), which fails at once
	// on an immediate violation, before the row counts as inserted (SQLite's special case).
	single bool
}

// fkLink is one foreign key, resolved against the schema.
type fkLink struct {
	child    *Table
	fk       *ast.ForeignKey
	id       int // its id in PRAGMA foreign_key_list
	deferred bool
	cols     []int // the child columns
	parent   *Table
	// pcols are the parent key columns (len(parent.Columns) for the rowid), in fk order; idx is
	// the parent's UNIQUE index on them, nil when the key is the rowid or a WITHOUT ROWID
	// table's primary key.
	pcols []int
	idx   *Index
	err   error // the mismatch or missing table, reported when the link is used
	// childIdx is an index of the child whose leading columns are the child columns (nil: scan);
	// childOrder maps its leading columns to positions in cols.
	childIdx   *Index
	childOrder []int
}

// Statements fkBegin prepares for.
const (
	fkInsert    = iota
	fkInsertOne // an INSERT of one row (fkStmt.single)
	fkUpdate
	fkDelete
)

// fkBegin decides whether the statement on t pays for foreign keys (x.fk). Called once per
// statement, before its first row. It reports the errors SQLite reports when it prepares the
// statement: a mismatch or a missing parent table of the foreign keys the statement may
// check (for an UPDATE, those on the columns in set, which hold its SET columns).
func (x *execCtx) fkBegin(t *Table, op int, set []setColumn) error {
	if !x.sess.foreignKeys || x.fk != nil {
		return nil
	}
	f := x.newFKStmt()
	children, parents := f.childLinks(x, t), f.parentLinks(x, t)
	if len(children) == 0 && len(parents) == 0 {
		return nil
	}
	x.fk = f
	f.single = op == fkInsertOne
	touches := func(cols []int) bool {
		if op != fkUpdate {
			return true
		}
		for _, s := range set {
			if slices.Contains(cols, s.col) || s.col == len(t.Columns) && slices.Contains(cols, t.RowidColumn) {
				return true
			}
		}
		return false
	}
	for _, l := range children {
		if l.err != nil && touches(l.cols) {
			return l.err
		}
	}
	for _, l := range parents {
		if l.err == nil || !touches(l.pcols) {
			continue
		}
		if op == fkInsertOne && !l.deferred && !x.sess.deferFK {
			continue // SQLite does not look at these for one row
		}
		return l.err
	}
	return nil
}

// fkCache keeps a session's resolved foreign keys for one schema and set of TEMP tables, so
// that a statement resolves them once per schema version, not each time it runs.
type fkCache struct {
	schema            *Schema
	temp              *tempState
	asChild, asParent map[*Table][]*fkLink
}

// newFKStmt returns a statement state sharing the session's resolved links for x's schema.
func (x *execCtx) newFKStmt() *fkStmt {
	c := &x.sess.fkCache
	if c.asChild == nil || c.schema != x.schema || c.temp != x.sess.temp {
		*c = fkCache{schema: x.schema, temp: x.sess.temp, asChild: map[*Table][]*fkLink{}, asParent: map[*Table][]*fkLink{}}
	}
	return &fkStmt{asChild: c.asChild, asParent: c.asParent}
}

// fkEnd is the check at the end of a statement that ran with x.fk: immediate violations fail
// it, and in autocommit mode (where the statement's end is the commit) deferred ones too; so
// they do in a session attached to its caller's transaction (attach.go), whose commit the
// session never sees.
func (x *execCtx) fkEnd() error {
	s := x.sess
	if x.fk != nil && x.fk.imm > 0 {
		return errFK
	}
	if (!s.inTx || s.attached) && s.fkDeferred+s.fkDeferredImm > 0 {
		return errFK
	}
	return nil
}

// fkTables returns the tables a foreign key may name: the schema's and the session's TEMP
// tables, in the order they were made.
func (x *execCtx) fkTables() []*Table {
	var out []*Table
	for _, t := range x.schema.tables {
		out = append(out, t)
	}
	if x.sess.temp != nil {
		for _, t := range x.sess.temp.tables {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *Table) int {
		if a.temp != b.temp {
			if a.temp {
				return 1
			}
			return -1
		}
		return int(a.ID - b.ID)
	})
	return out
}

// childLinks returns the foreign keys of t (t the child), in id order.
func (f *fkStmt) childLinks(x *execCtx, t *Table) []*fkLink {
	if l, ok := f.asChild[t]; ok {
		return l
	}
	var out []*fkLink
	n := len(t.ForeignKeys)
	for id := 0; id < n; id++ {
		out = append(out, x.resolveFK(t, &t.ForeignKeys[n-1-id], id))
	}
	f.asChild[t] = out
	return out
}

// parentLinks returns the foreign keys that reference t, newest first.
func (f *fkStmt) parentLinks(x *execCtx, t *Table) []*fkLink {
	if l, ok := f.asParent[t]; ok {
		return l
	}
	var out []*fkLink
	tables := x.fkTables()
	for i := len(tables) - 1; i >= 0; i-- {
		c := tables[i]
		if c.temp != t.temp {
			continue // a foreign key references a table of its own database
		}
		for _, l := range f.childLinks(x, c) {
			if strings.EqualFold(l.fk.Table, t.Name) {
				out = append(out, l)
			}
		}
	}
	f.asParent[t] = out
	return out
}

// resolveFK resolves the foreign key fk of child.
func (x *execCtx) resolveFK(child *Table, fk *ast.ForeignKey, id int) *fkLink {
	l := &fkLink{child: child, fk: fk, id: id, deferred: fk.Deferred}
	mismatch := fmt.Errorf("foreign key mismatch - %q referencing %q", child.Name, fk.Table)
	for _, name := range fk.Columns {
		c := child.columnIndex(name)
		if c < 0 {
			l.err = mismatch
			return l
		}
		l.cols = append(l.cols, c)
	}
	// The parent is in the child's database: a TEMP table's among the TEMP tables.
	var p *Table
	db := "main"
	if child.temp {
		p, db = x.sess.temp.table(fk.Table), "temp"
	} else {
		p = x.schema.table(fk.Table)
	}
	if p == nil {
		l.err = fmt.Errorf("no such table: %s.%s", db, fk.Table)
		return l
	}
	l.parent = p
	if fk.RefColumns == nil {
		switch {
		case p.RowidColumn >= 0:
			l.pcols = []int{p.RowidColumn}
		case len(p.PrimaryKey) > 0:
			for _, c := range p.PrimaryKey {
				l.pcols = append(l.pcols, c.Column)
			}
		default:
			l.err = mismatch
			return l
		}
	} else {
		for _, name := range fk.RefColumns {
			c := p.columnIndex(name)
			if c < 0 {
				l.err = mismatch
				return l
			}
			l.pcols = append(l.pcols, c)
		}
	}
	if len(l.pcols) != len(l.cols) {
		l.err = mismatch
		return l
	}
	// The parent key: the rowid, a WITHOUT ROWID primary key, or a UNIQUE index on exactly
	// these columns with their own collations.
	sameSet := func(ic []IndexColumn) bool {
		if len(ic) != len(l.pcols) {
			return false
		}
		for _, c := range ic {
			if c.Column < 0 || c.Column >= len(p.Columns) || !slices.Contains(l.pcols, c.Column) ||
				c.Collation != p.Columns[c.Column].Collation {
				return false
			}
		}
		return true
	}
	switch {
	case len(l.pcols) == 1 && l.pcols[0] == p.RowidColumn && p.RowidColumn >= 0:
	case p.WithoutRowid && sameSet(p.PrimaryKey):
	default:
		for _, ix := range p.Indexes {
			if ix.Unique && ix.where == nil && !ix.primary && sameSet(ix.Columns) {
				l.idx = ix
				break
			}
		}
		if l.idx == nil {
			l.err = mismatch
			return l
		}
	}
	// An index of the child for the scans of parent changes.
	for _, ix := range child.Indexes {
		if ix.where != nil || len(ix.Columns) < len(l.cols) {
			continue
		}
		order := make([]int, len(l.cols))
		ok := true
		for i := range l.cols {
			c := ix.Columns[i]
			k := slices.Index(l.cols, c.Column)
			if c.Column < 0 || k < 0 || slices.Contains(order[:i], k) {
				ok = false
				break
			}
			pc := p.Columns[l.pcols[k]]
			if c.Collation != pc.Collation || child.Columns[c.Column].Affinity != pc.Affinity {
				ok = false
				break
			}
			order[i] = k
		}
		if ok {
			l.childIdx, l.childOrder = ix, order
			break
		}
	}
	return l
}

// counter returns the counter a violation of l changes, and whether it is zero (the removal of
// a violation changes nothing then).
func (x *execCtx) counter(l *fkLink) (*int64, bool) {
	s := x.sess
	if l.deferred {
		zero := s.fkDeferred+s.fkDeferredImm == 0
		if s.deferFK {
			return &s.fkDeferredImm, zero
		}
		return &s.fkDeferred, zero
	}
	zero := x.fk.imm == 0 && s.fkDeferredImm == 0
	if s.deferFK {
		return &s.fkDeferredImm, zero
	}
	return &x.fk.imm, zero
}

// childKey returns the child key of row for l, with the parent columns' affinities applied;
// ok false when a column is NULL (the row is exempt).
func (l *fkLink) childKey(row []value.Value) ([]value.Value, bool) {
	key := make([]value.Value, len(l.cols))
	for i, c := range l.cols {
		v := row[c]
		if v.IsNull() {
			return nil, false
		}
		if pc := l.pcols[i]; pc < len(l.parent.Columns) {
			v = l.parent.Columns[pc].Affinity.Apply(v)
		}
		key[i] = v
	}
	return key, true
}

// parentExists reports whether the parent of l has a row with key (childKey's).
func (x *execCtx) parentExists(l *fkLink, key []value.Value) (bool, error) {
	p := l.parent
	vals := make([]value.Value, len(p.Columns)+1)
	for i, c := range l.pcols {
		vals[c] = key[i]
	}
	switch {
	case l.idx != nil:
		k, err := x.conflicting(l.idx, vals, nil)
		return k != nil, err
	case p.WithoutRowid:
		_, ok, err := x.readRow(p, p.rowKey(vals, 0))
		return ok, err
	}
	id, ok := value.MustBeInt(key[0])
	if !ok {
		return false, nil
	}
	_, ok, err := x.readRow(p, codec.AppendRowid(nil, id))
	return ok, err
}

// children returns the rows of l's child table whose child key equals pkey (the parent key
// values, in l's order), and their number, leaving out the row at key self (nil: none).
func (x *execCtx) children(l *fkLink, pkey []value.Value, self []byte) ([][]value.Value, int64, error) {
	c := l.child
	for _, v := range pkey {
		if v.IsNull() {
			return nil, 0, nil
		}
	}
	var rows [][]value.Value
	var n int64
	match := func(key []byte, row []value.Value) {
		if self != nil && bytes.Equal(key, self) {
			return
		}
		for i, col := range l.cols {
			v := row[col]
			if v.IsNull() {
				return
			}
			pc := l.parent.Columns[min(l.pcols[i], len(l.parent.Columns)-1)]
			coll := pc.Collation
			if l.pcols[i] < len(l.parent.Columns) {
				v = pc.Affinity.Apply(v)
			} else {
				coll = value.Binary
			}
			if value.Compare(v, pkey[i], coll) != 0 {
				return
			}
		}
		n++
		rows = append(rows, cloneRow(row))
	}
	if ix := l.childIdx; ix != nil {
		var prefix []byte
		for i, k := range l.childOrder {
			ic := ix.Columns[i]
			v := c.Columns[ic.Column].Affinity.Apply(pkey[k])
			prefix = codec.AppendKey(prefix, v, ic.Desc, ic.Collation)
		}
		ib, err := x.bucket(ix.bucket)
		if err != nil {
			return nil, 0, err
		}
		cur := ib.Cursor()
		var keys [][]byte
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			rk, err := indexRowKey(nil, ix, k)
			if err != nil {
				return nil, 0, err
			}
			keys = append(keys, rk)
		}
		if err := cur.Err(); err != nil {
			return nil, 0, err
		}
		for _, rk := range keys {
			row, ok, err := x.readRow(c, rk)
			if err != nil {
				return nil, 0, err
			}
			if ok {
				match(rk, row)
			}
		}
		return rows, n, nil
	}
	b, err := x.bucket(c.bucket)
	if err != nil {
		return nil, 0, err
	}
	var buf []value.Value
	for k, v := range b.Range(nil, nil) {
		var rowid int64
		if !c.WithoutRowid {
			if rowid, err = codec.Rowid(k); err != nil {
				return nil, 0, err
			}
		}
		if buf, err = decodeRow(c, rowid, v, buf); err != nil {
			return nil, 0, err
		}
		match(k, buf)
	}
	return rows, n, x.tx.Err()
}

// linkUsable reports whether a statement checks link l: a broken link (its parent key is no
// key: l.err, SQLite's mismatch error) fails the statement, except under DROP TABLE, which
// passes over broken links.
func (x *execCtx) linkUsable(l *fkLink) (bool, error) {
	if l.err == nil {
		return true, nil
	}
	if x.fk.dropping {
		return false, nil
	}
	return false, l.err
}

// parentKey returns the parent key values of l in a row of the parent.
func (l *fkLink) parentKey(row []value.Value) []value.Value {
	key := make([]value.Value, len(l.pcols))
	for i, c := range l.pcols {
		key[i] = row[c]
	}
	return key
}

// fkChildAdded counts the violation of a row added to t as a child: inserted (sets nil), or
// the new version of a row an UPDATE setting sets changed, for the foreign keys whose child
// columns it sets (SQLite's rule: the SET list decides, not whether the value changed).
func (x *execCtx) fkChildAdded(t *Table, row []value.Value, sets []setColumn) error {
	return x.fkChildCount(t, row, sets, +1)
}

// fkChildRemoved takes away the violation of a child row of t being removed: deleted (sets
// nil), or the old version of a row an UPDATE setting sets changes (as fkChildAdded).
func (x *execCtx) fkChildRemoved(t *Table, row []value.Value, sets []setColumn) error {
	return x.fkChildCount(t, row, sets, -1)
}

// fkChildCount adds delta (+1: row added, -1: row removed) to the violation counter of each
// foreign key of t that sets touches and for which row, a child, has no parent. An added
// violation of an immediate constraint in a single-row statement fails at once (errFK); a
// removal is skipped while nothing is counted.
func (x *execCtx) fkChildCount(t *Table, row []value.Value, sets []setColumn, delta int64) error {
	for _, l := range x.fk.childLinks(x, t) {
		if sets != nil && !setsTouch(t, l.cols, sets) {
			continue
		}
		if ok, err := x.linkUsable(l); !ok {
			if err != nil {
				return err
			}
			continue
		}
		c, zero := x.counter(l)
		if delta < 0 && zero {
			continue
		}
		key, ok := l.childKey(row)
		if !ok {
			continue
		}
		found, err := x.parentExists(l, key)
		if err != nil {
			return err
		}
		if found {
			continue
		}
		if delta > 0 && x.fk.single && !l.deferred && !x.sess.deferFK {
			return errFK
		}
		*c += delta
	}
	return nil
}

// setsTouch reports whether an UPDATE setting sets changes one of t's columns cols (the rowid
// counts as its alias column).
func setsTouch(t *Table, cols []int, sets []setColumn) bool {
	for _, s := range sets {
		c := s.col
		if c == len(t.Columns) {
			c = t.RowidColumn
		}
		if c >= 0 && slices.Contains(cols, c) {
			return true
		}
	}
	return false
}

// sameValues reports whether a and b hold the same values (IS) in cols.
func sameValues(cols []int, a, b []value.Value) bool {
	for _, c := range cols {
		if a[c].IsNull() != b[c].IsNull() || a[c].Kind() != b[c].Kind() || value.Compare(a[c], b[c], value.Binary) != 0 {
			return false
		}
	}
	return true
}

// fkParentRemoved counts the children of a parent row of t that goes: deleted (sets nil), or
// updated by an UPDATE whose sets name the parent key; self is its table key.
func (x *execCtx) fkParentRemoved(t *Table, row []value.Value, sets []setColumn, self []byte) error {
	return x.fkParentCount(t, row, sets, self, +1)
}

// fkParentAdded takes away the violations of the children a new parent row of t satisfies:
// inserted (sets nil), or the new version of a row an UPDATE setting its parent key changed;
// self is its table key.
func (x *execCtx) fkParentAdded(t *Table, row []value.Value, sets []setColumn, self []byte) error {
	return x.fkParentCount(t, row, sets, self, -1)
}

// fkParentCount adds sign times the number of children of row, a parent row of t, to the
// violation counter of each foreign key whose parent key sets touches (+1: the parent goes, -1:
// it comes; a row of t itself, at table key self, is not its own child here). Taking away is
// skipped while nothing is counted.
func (x *execCtx) fkParentCount(t *Table, row []value.Value, sets []setColumn, self []byte, sign int64) error {
	for _, l := range x.fk.parentLinks(x, t) {
		if sets != nil && !setsTouch(t, l.pcols, sets) {
			continue
		}
		c, zero := x.counter(l)
		if sign < 0 && zero {
			continue
		}
		if ok, err := x.linkUsable(l); !ok {
			if err != nil {
				return err
			}
			continue
		}
		var skip []byte
		if l.child == t {
			skip = self
		}
		_, n, err := x.children(l, l.parentKey(row), skip)
		if err != nil {
			return err
		}
		*c += sign * n
	}
	return nil
}

// fkActions runs the ON DELETE (updated nil) or ON UPDATE actions of the parent row old of t.
func (x *execCtx) fkActions(t *Table, old, updated []value.Value) error {
	for _, l := range x.fk.parentLinks(x, t) {
		action := l.fk.OnDelete
		if updated != nil {
			if sameValues(l.pcols, old, updated) {
				continue
			}
			action = l.fk.OnUpdate
		}
		if action == "NO ACTION" || action == "" || (action == "RESTRICT" && x.sess.deferFK) {
			continue
		}
		if ok, err := x.linkUsable(l); !ok {
			if err != nil {
				return err
			}
			continue
		}
		rows, _, err := x.children(l, l.parentKey(old), nil)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			continue
		}
		switch action {
		case "RESTRICT":
			return errFK
		case "CASCADE":
			if updated == nil {
				if err := x.fkCascadeDelete(l.child, rows); err != nil {
					return err
				}
				continue
			}
		}
		sets := setsOf(l.child, l.cols)
		slot := rowidSetSlot(l.child, sets)
		var ts *trigSet
		if x.hasTriggers() {
			cols, rowidSlot := tableTriggerCols(l.child)
			if ts, err = x.triggersFor(l.child.Name, ast.TriggerUpdate, cols, rowidSlot, updateOfFunc(l.child, sets)); err != nil {
				return err
			}
		}
		w, err := x.fkWriter(l.child)
		if err != nil {
			return err
		}
		for _, row := range rows {
			cur, ok, err := x.readRow(l.child, l.child.rowKey(row, rowidOfRow(l.child, row)))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			cur = cloneRow(cur)
			vals := cloneRow(cur)
			for i, c := range l.cols {
				switch action {
				case "CASCADE":
					vals[c] = updated[l.pcols[i]]
				case "SET NULL":
					vals[c] = value.Value{}
				case "SET DEFAULT":
					vals[c] = value.Value{}
					if d := l.child.Columns[c].Default; d != nil {
						if vals[c], err = constDefault(d, x); err != nil {
							return err
						}
					}
				}
			}
			if ts != nil && len(ts.before) > 0 {
				if cur, ok, err = x.triggerUpdateBefore(l.child, ts, cur, vals, sets, slot); err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			w.sets = sets
			written, err := x.updateRow(w, cur, vals, slot)
			if err != nil {
				return err
			}
			if !written {
				continue
			}
			x.sess.totalChanges++ // as SQLite's: at once, kept if the statement fails
			if ts != nil && len(ts.after) > 0 {
				if err := x.fire(ts.after, vals, cur); err != nil && !errors.Is(err, errSkipRow) {
					return err
				}
			}
		}
	}
	return nil
}

// fkCascadeDelete deletes the child rows of t an ON DELETE CASCADE removes, firing t's DELETE
// triggers as the DELETE statement SQLite runs for the action does.
func (x *execCtx) fkCascadeDelete(t *Table, rows [][]value.Value) error {
	var ts *trigSet
	if x.hasTriggers() {
		cols, rowidSlot := tableTriggerCols(t)
		var err error
		if ts, err = x.triggersFor(t.Name, ast.TriggerDelete, cols, rowidSlot, nil); err != nil {
			return err
		}
	}
	for _, row := range rows {
		// The row as it is now: an earlier action or trigger may have changed or deleted it.
		if ts != nil {
			var ok bool
			var err error
			if row, ok, err = x.triggerDeleteBefore(t, ts, row); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
		} else {
			cur, ok, err := x.readRow(t, t.rowKey(row, rowidOfRow(t, row)))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			row = cloneRow(cur)
		}
		if err := x.removeRow(t, row, rowidOfRow(t, row)); err != nil {
			return err
		}
		x.sess.totalChanges++ // as SQLite's: at once, kept if the statement fails
		if ts != nil && len(ts.after) > 0 {
			if err := x.fire(ts.after, nil, row); err != nil && !errors.Is(err, errSkipRow) {
				return err
			}
		}
	}
	return nil
}

// setsOf returns cols as the SET list of an action's update (for rowidSetSlot).
func setsOf(t *Table, cols []int) []setColumn {
	out := make([]setColumn, len(cols))
	for i, c := range cols {
		out[i].col = c
	}
	return out
}

// fkWriter returns the row writer of the updates actions make on t (ABORT).
func (x *execCtx) fkWriter(t *Table) (*rowWriter, error) {
	if w := x.fk.writers[t]; w != nil {
		return w, nil
	}
	w, err := newRowWriter(x, t, ast.ConflictAbort, nil)
	if err != nil {
		return nil, err
	}
	if x.fk.writers == nil {
		x.fk.writers = map[*Table]*rowWriter{}
	}
	x.fk.writers[t] = w
	return w, nil
}

// removeRow deletes a row of t as a DELETE does (and REPLACE, and CASCADE): with foreign keys in
// force, it counts and acts for them around the deletion.
func (x *execCtx) removeRow(t *Table, row []value.Value, rowid int64) error {
	if x.fk == nil {
		return x.deleteRow(t, row, rowid)
	}
	key := t.rowKey(row, rowid)
	if err := x.fkChildRemoved(t, row, nil); err != nil {
		return err
	}
	if err := x.fkParentRemoved(t, row, nil, key); err != nil {
		return err
	}
	if err := x.deleteRow(t, row, rowid); err != nil {
		return err
	}
	return x.fkActions(t, row, nil)
}

// fkInserted counts for a row just written to t by an INSERT.
func (x *execCtx) fkInserted(t *Table, row []value.Value, rowid int64) error {
	if x.fk == nil {
		return nil
	}
	if err := x.fkChildAdded(t, row, nil); err != nil {
		return err
	}
	return x.fkParentAdded(t, row, nil, t.rowKey(row, rowid))
}

// fkUpdating counts for the old version of a row of t an UPDATE setting sets is about to
// replace.
func (x *execCtx) fkUpdating(t *Table, old, vals []value.Value, oldKey []byte, sets []setColumn) error {
	if x.fk == nil || len(sets) == 0 {
		return nil
	}
	if err := x.fkChildRemoved(t, old, sets); err != nil {
		return err
	}
	return x.fkParentRemoved(t, old, sets, oldKey)
}

// fkUpdated counts and acts for a row of t an UPDATE setting sets has just replaced (old by
// vals, at key).
func (x *execCtx) fkUpdated(t *Table, old, vals []value.Value, key []byte, sets []setColumn) error {
	if x.fk == nil || len(sets) == 0 {
		return nil
	}
	if err := x.fkChildAdded(t, vals, sets); err != nil {
		return err
	}
	if err := x.fkParentAdded(t, vals, sets, key); err != nil {
		return err
	}
	return x.fkActions(t, old, vals)
}

// fkDropTable is the implicit DELETE FROM t that DROP TABLE runs first when foreign keys are
// on and t is a parent (or has deferred foreign keys): it fails, or acts, as that DELETE does.
func (x *execCtx) fkDropTable(t *Table) error {
	if !x.sess.foreignKeys {
		return nil
	}
	x.fk = x.newFKStmt()
	x.fk.dropping = true
	need := len(x.fk.parentLinks(x, t)) > 0 || x.sess.deferFK
	n := int64(0)
	for _, l := range x.fk.childLinks(x, t) {
		need = need || l.deferred
	}
	if !need {
		x.fk = nil
		return nil
	}
	// The rows first, then each deletion; a row an action deleted is skipped. Links with a
	// mismatch or a missing parent table are passed over, as SQLite does here.
	b, err := x.bucket(t.bucket)
	if err != nil {
		return err
	}
	var keys [][]byte
	for k := range b.Range(nil, nil) {
		keys = append(keys, append([]byte(nil), k...))
	}
	if err := x.tx.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		row, ok, err := x.readRow(t, k)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		row = cloneRow(row)
		if err := x.removeRow(t, row, rowidOfRow(t, row)); err != nil {
			return err
		}
		n++
	}
	if !x.sess.deferFK && x.fk.imm > 0 {
		return errFK
	}
	// The implicit DELETE counts as SQLite's does: DROP TABLE reports its rows as changes().
	x.sess.changes = n
	x.sess.totalChanges += n
	return nil
}

// foreignKeyCheck runs PRAGMA foreign_key_check [table]: a row (table, rowid, parent, fkid) for
// each child row whose parent is missing; tables in the order they were made, rows in key
// order, the foreign keys of a row by id.
func foreignKeyCheck(cx *execCtx, p *ast.Pragma) (pragmaResult, error) {
	res := pragmaResult{names: []string{"table", "rowid", "parent", "fkid"}}
	saved := cx.fk
	defer func() { cx.fk = saved }()
	cx.fk = &fkStmt{asChild: map[*Table][]*fkLink{}, asParent: map[*Table][]*fkLink{}}
	tables := cx.fkTables()
	if p.HasValue {
		t := cx.table(p.Value)
		if t == nil {
			return res, fmt.Errorf("no such table: %s", p.Value)
		}
		tables = []*Table{t}
	}
	for _, t := range tables {
		links := cx.fk.childLinks(cx, t)
		if len(links) == 0 {
			continue
		}
		for _, l := range links {
			if l.err != nil && l.parent != nil {
				return res, l.err
			}
		}
		b, err := cx.bucket(t.bucket)
		if err != nil {
			return res, err
		}
		var buf []value.Value
		for k, v := range b.Range(nil, nil) {
			var rowid int64
			if !t.WithoutRowid {
				if rowid, err = codec.Rowid(k); err != nil {
					return res, err
				}
			}
			if buf, err = decodeRow(t, rowid, v, buf); err != nil {
				return res, err
			}
			for _, l := range links {
				found := false
				if l.parent != nil {
					key, ok := l.childKey(buf)
					if !ok {
						continue
					}
					if found, err = cx.parentExists(l, key); err != nil {
						return res, err
					}
				} else if !hasAll(buf, l) {
					continue
				}
				if found {
					continue
				}
				id := value.Value{}
				if !t.WithoutRowid {
					id = value.Int(rowid)
				}
				res.rows = append(res.rows, []value.Value{value.TextString(t.Name), id,
					value.TextString(l.fk.Table), value.Int(int64(l.id))})
			}
		}
		if err := cx.tx.Err(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// hasAll reports whether row has a value in every child column of l that exists (a link to a
// missing table: each row with its key set is a violation).
func hasAll(row []value.Value, l *fkLink) bool {
	for _, name := range l.fk.Columns {
		c := l.child.columnIndex(name)
		if c >= 0 && row[c].IsNull() {
			return false
		}
	}
	return true
}

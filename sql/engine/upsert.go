package engine

// UPSERT (lang_upsert.html): INSERT ... ON CONFLICT [(target)] DO NOTHING | DO UPDATE SET ...
// [WHERE ...], in SQLite's way:
//   - A target names the columns of the PRIMARY KEY or of a UNIQUE index (in any order; a
//     COLLATE there must be the index column's); only the last clause may have none, and
//     then it takes any uniqueness conflict. A target that matches nothing is an error.
//   - Only uniqueness conflicts are upserted: NOT NULL and CHECK fail as without ON CONFLICT.
//   - The uniqueness constraints of each new row are checked in this order: the targets' in the
//     order of the clauses, then the rest in the usual order (dml.go, uniqueOrder). The rowid
//     of a rowid table comes first if the first clause targets it or has no target, else right
//     after the targets (SQLite defers its check so). The first conflict found decides: with a
//     clause (the first that targets the constraint, else the one without a target) the row is
//     not inserted, and DO UPDATE updates the conflicting row; without one, the statement's
//     conflict algorithm handles it as in a plain INSERT.
//   - DO UPDATE reads the existing row by the table's name or the INSERT's alias and the row
//     that was to be inserted (defaults, affinities and the new rowid applied) as excluded.COL;
//     a false WHERE leaves the row alone. The update is checked with ABORT, whatever the
//     statement's OR clause or the constraints' ON CONFLICT say. Each updated row counts as a
//     change; last_insert_rowid() does not move.

import (
	"errors"
	"fmt"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// Constraint checks of an upsert, besides positions in Table.Indexes.
const (
	checkPrimary = -1 // a WITHOUT ROWID table's primary key
	checkRowid   = -2 // a rowid table's rowid
)

// upsertPlan is the bound ON CONFLICT clauses of an INSERT.
type upsertPlan struct {
	clauses []upsertClause
	// order lists the uniqueness checks of a new row (positions in t.Indexes, checkPrimary,
	// checkRowid), each with the clause that handles its conflicts (-1: none).
	order []upsertCheck
	// checks and uniques are the table's CHECK constraints and UNIQUE order, for DO UPDATE.
	checks  []expr
	uniques []int
}

type upsertCheck struct {
	check, clause int
}

type upsertClause struct {
	doNothing bool
	sets      []setColumn
	where     expr // nil: every conflicting row is updated
	slot      int  // rowidSetSlot of sets
}

// excludedSource is the pseudo-table excluded: t's columns (and rowid), by qualified names only.
func excludedSource(t *Table) *source {
	src := tableSource(t, "excluded")
	for i := range src.cols {
		src.cols[i].hidden = true
	}
	return src
}

// planUpsert binds st's ON CONFLICT clauses over t.
func planUpsert(pc *planCtx, t *Table, st *ast.Insert) (*upsertPlan, error) {
	name := t.Name
	if st.Alias != "" {
		name = st.Alias
	}
	p := &upsertPlan{uniques: uniqueOrder(t)}
	var err error
	if p.checks, err = bindChecks(pc, t); err != nil {
		return nil, err
	}
	targets := make([]int, len(st.Upserts)) // each clause's constraint; checkNone for none
	const checkNone = -3
	for ci, u := range st.Upserts {
		targets[ci] = checkNone
		if u.Target != nil {
			tgt, err := upsertTarget(t, u.Target)
			if err != nil {
				return nil, err
			}
			if tgt == checkNone {
				what := "ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint"
				if len(st.Upserts) > 1 {
					what = ordinal(ci+1) + " " + what
				}
				return nil, errors.New(what)
			}
			targets[ci] = tgt
			if u.TargetWhere != nil {
				// Bound for its names; it selects among partial indexes, which cairn has not.
				sc := &scope{sources: []*source{tableSource(t, t.Name)}}
				if _, _, err := (&binder{pc: pc, sc: sc, noAgg: "WHERE"}).bind(u.TargetWhere); err != nil {
					return nil, err
				}
			}
		}
		c := upsertClause{doNothing: u.DoNothing}
		if !u.DoNothing {
			sc := &scope{sources: []*source{tableSource(t, name), excludedSource(t)}}
			b := &binder{pc: pc, sc: sc}
			for _, a := range u.Set {
				col := t.columnIndex(a.Columns[0])
				if col < 0 {
					if isRowidName(a.Columns[0]) && !t.WithoutRowid {
						col = len(t.Columns)
					} else {
						return nil, fmt.Errorf("no such column: %s", a.Columns[0])
					}
				}
				x, _, err := b.bind(a.Expr)
				if err != nil {
					return nil, err
				}
				c.sets = append(c.sets, setColumn{col, x})
			}
			if u.Where != nil {
				wb := &binder{pc: pc, sc: sc, noAgg: "WHERE"}
				x, _, err := wb.bind(u.Where)
				if err != nil {
					return nil, err
				}
				shortCircuit(x)
				c.where = x
			}
			c.slot = rowidSetSlot(t, c.sets)
		}
		p.clauses = append(p.clauses, c)
	}
	clauseFor := func(check int) int {
		other := -1
		for ci, tgt := range targets {
			if tgt == check {
				return ci
			}
			if tgt == checkNone {
				other = ci
			}
		}
		return other
	}
	seen := map[int]bool{}
	add := func(check int) {
		if !seen[check] {
			seen[check] = true
			p.order = append(p.order, upsertCheck{check: check, clause: clauseFor(check)})
		}
	}
	rowidFirst := targets[0] == checkRowid || targets[0] == checkNone
	if !t.WithoutRowid && rowidFirst {
		add(checkRowid)
	}
	for _, tgt := range targets {
		if tgt >= checkPrimary {
			add(tgt)
		}
	}
	if !t.WithoutRowid {
		add(checkRowid)
	}
	for _, i := range p.uniques {
		add(i)
	}
	return p, nil
}

// upsertTarget returns the constraint of t whose columns a conflict target names: checkRowid,
// checkPrimary or a position in t.Indexes; -3 if none.
func upsertTarget(t *Table, target []ast.IndexedColumn) (int, error) {
	cols := make([]IndexColumn, len(target))
	explicit := make([]bool, len(target)) // a COLLATE must be the index's; none matches any
	for i, tc := range target {
		c := t.columnIndex(tc.Name)
		if c < 0 {
			if isRowidName(tc.Name) && !t.WithoutRowid {
				c = len(t.Columns)
			} else {
				return 0, fmt.Errorf("no such column: %s", tc.Name)
			}
		}
		cols[i].Column = c
		if tc.Collation != "" {
			coll, ok := value.CollationByName(tc.Collation)
			if !ok {
				return 0, fmt.Errorf("no such collation sequence: %s", tc.Collation)
			}
			cols[i].Collation, explicit[i] = coll, true
		}
	}
	if !t.WithoutRowid && len(cols) == 1 && (cols[0].Column == len(t.Columns) || cols[0].Column == t.RowidColumn) {
		return checkRowid, nil
	}
	matches := func(key []IndexColumn) bool {
		if len(key) != len(cols) {
			return false
		}
		for _, k := range key {
			found := false
			for i, c := range cols {
				if c.Column == k.Column && (!explicit[i] || c.Collation == k.Collation) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if t.WithoutRowid && matches(t.PrimaryKey) {
		return checkPrimary, nil
	}
	for i, ix := range t.Indexes {
		if ix.Unique && matches(ix.Columns) {
			return i, nil
		}
	}
	return -3, nil
}

// upserter runs the ON CONFLICT clauses of one execution of an INSERT.
type upserter struct {
	x   *execCtx
	p   *upsertPlan
	w   *rowWriter // DO UPDATE's checks: ABORT
	e   *env       // rows[0]: the existing row, rows[1]: excluded
	ret *returner
	// updated counts the rows DO UPDATE changed since the caller last reset it.
	updated int64
}

func (x *execCtx) newUpserter(p *upsertPlan, t *Table, params []value.Value, ret *returner) *upserter {
	run := &runState{cx: x, params: params, subqCache: map[*subquery]*subqResult{}}
	return &upserter{x: x, p: p, ret: ret,
		w: newPlannedRowWriter(x, t, ast.ConflictAbort, params, p.checks, p.uniques),
		e: &env{rows: make([][]value.Value, 2), params: params, run: run}}
}

// insertRow checks and writes one new row of w's table as insertRow does, with the ON CONFLICT
// clauses in force. It reports whether the row was inserted; when it was not, u.updated counts
// the row DO UPDATE changed, if any.
func (u *upserter) insertRow(w *rowWriter, vals []value.Value, rowid int64) (bool, error) {
	t, x := w.t, u.x
	t.setRowid(vals, rowid)
	if err := w.prepare(vals); err != nil {
		if errors.Is(err, errSkipRow) {
			return false, nil
		}
		return false, err
	}
	self := t.rowKey(vals, rowid)
	for _, c := range u.p.order {
		var other []byte
		if c.check < 0 {
			_, ok, err := x.readRow(t, self)
			if err != nil {
				return false, err
			}
			if ok {
				other = self
			}
		} else {
			var err error
			if other, err = x.conflicting(t.Indexes[c.check], vals, nil); err != nil {
				return false, err
			}
		}
		if other == nil {
			continue
		}
		if c.clause >= 0 {
			return false, u.fire(&u.p.clauses[c.clause], t, other, vals)
		}
		var err error
		if c.check < 0 {
			err = w.resolveKey(self)
		} else {
			err = w.resolveIndex(t.Indexes[c.check], other)
		}
		if errors.Is(err, errSkipRow) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	if err := x.writeRow(t, vals, rowid); err != nil {
		return false, err
	}
	return true, x.fkInserted(t, vals, rowid)
}

// fire runs clause c for the existing row at key, which the new row excluded conflicts with.
func (u *upserter) fire(c *upsertClause, t *Table, key []byte, excluded []value.Value) error {
	if c.doNothing {
		return nil
	}
	old, ok, err := u.x.readRow(t, key)
	if err != nil || !ok {
		return err
	}
	old = cloneRow(old)
	u.e.rows[0], u.e.rows[1] = old, excluded
	if c.where != nil {
		v, err := c.where.eval(u.e)
		if err != nil {
			return err
		}
		if ok, known := value.Truth(v); !known || !ok {
			return nil
		}
	}
	vals := append([]value.Value(nil), old...)
	for _, s := range c.sets {
		v, err := s.x.eval(u.e)
		if err != nil {
			return err
		}
		vals[s.col] = v.Clone()
	}
	ts, err := u.x.upsertTriggers(t, c.sets)
	if err != nil {
		return err
	}
	if ts != nil && len(ts.before) > 0 {
		if old, ok, err = u.x.triggerUpdateBefore(t, ts, old, vals, c.sets, c.slot); err != nil || !ok {
			return err
		}
	}
	u.w.sets = c.sets
	written, err := u.x.updateRow(u.w, old, vals, c.slot)
	if err != nil || !written {
		return err
	}
	u.updated++
	if ts != nil && len(ts.after) > 0 {
		if err := u.x.fire(ts.after, vals, old); err != nil && !errors.Is(err, errSkipRow) {
			return err
		}
	}
	if u.ret != nil {
		return u.ret.add(vals)
	}
	return nil
}

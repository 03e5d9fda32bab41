package engine

// ALTER TABLE: RENAME TO, RENAME COLUMN, ADD COLUMN and DROP COLUMN, as SQLite runs them
// (lang_altertable.html). The schema is its SQL texts, so each form edits the stored CREATE texts
// where they name the table or column (parse.Refs finds the names), and the schema is then
// rebuilt from the edited texts; an object that no longer builds fails the statement with
// SQLite's "error in KIND NAME after ACTION: ..." Invariants:
//   - Table ids, and so buckets, never change: RENAME changes texts and schema entries only.
//   - ADD COLUMN writes no row: records written before it end before the new column, which reads
//     its constant default (Table.missing). DROP COLUMN rewrites every row of the table without
//     the column (index entries, which cannot hold it, stay).

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/parse"
	"github.com/cairndb/cairn/sql/value"
)

// literalDefault returns the value of a DEFAULT that is a constant as SQLite's ALTER TABLE ADD
// COLUMN means it: a literal, optionally signed, or a name in double quotes (a string).
func literalDefault(e ast.Expr) (value.Value, bool) {
	switch e := e.(type) {
	case *ast.Literal:
		return e.Value, true
	case *ast.Unary:
		v, ok := literalDefault(e.X)
		switch {
		case !ok:
			return value.Value{}, false
		case e.Op == ast.Neg:
			return value.Negate(v), true
		case e.Op == ast.Plus:
			return v, true
		}
	case *ast.ColumnRef:
		if e.Table == "" && e.DoubleQuoted {
			return value.TextString(e.Column), true
		}
	}
	return value.Value{}, false
}

func (x *execCtx) alterTable(st *ast.AlterTable) error {
	if x.sess.temp.table(st.Table) != nil {
		return fmt.Errorf("unsupported: ALTER TABLE of TEMP table %s", st.Table)
	}
	t := x.schema.table(st.Table)
	if t == nil {
		if x.schema.view(st.Table) != nil || x.sess.tempViews[fold(st.Table)] != nil {
			if st.Kind == ast.AddColumn {
				return errors.New("Cannot add a column to a view")
			}
			return fmt.Errorf("view %s may not be altered", st.Table)
		}
		return fmt.Errorf("no such table: %s", st.Table)
	}
	if equalFoldPrefix(t.Name, "sqlite_") {
		return fmt.Errorf("table %s may not be altered", t.Name)
	}
	if tr := x.triggerNaming(t.Name, st.Kind == ast.RenameTable || st.Kind == ast.RenameColumn); tr != nil && st.Kind != ast.AddColumn {
		return fmt.Errorf("unsupported: ALTER TABLE of table %s, which trigger %s names (drop the trigger first)", t.Name, tr.Name)
	}
	switch st.Kind {
	case ast.RenameTable:
		return x.renameTable(t, st.NewName)
	case ast.RenameColumn:
		return x.renameColumn(t, st.Column, st.NewName)
	case ast.AddColumn:
		return x.addColumn(t, st)
	}
	return x.dropColumn(t, st.Column)
}

// schemaObject is an object of the schema with its stored entry, as ALTER TABLE edits them.
type schemaObject struct {
	schemaEntry
	old string // the entry's name before the statement ("" for none)
}

// objects returns every object of s with its entry: tables (with their automatic indexes), then
// explicit indexes, then views, then triggers.
func (s *Schema) objects() []*schemaObject {
	var tables, indexes, views []*schemaObject
	for _, t := range s.tables {
		tables = append(tables, &schemaObject{schemaEntry{kind: "table", name: t.Name, table: t.Name, id: t.ID, sql: t.SQL}, t.Name})
		for _, ix := range t.Indexes {
			o := &schemaObject{schemaEntry{kind: "index", name: ix.Name, table: t.Name, id: ix.ID, sql: ix.SQL}, ix.Name}
			if ix.SQL == "" {
				tables = append(tables, o)
			} else {
				indexes = append(indexes, o)
			}
		}
	}
	for _, v := range s.views {
		views = append(views, &schemaObject{schemaEntry{kind: "view", name: v.Name, table: v.Name, sql: v.SQL}, v.Name})
	}
	var triggers []*schemaObject
	for _, tr := range s.triggers {
		triggers = append(triggers, &schemaObject{schemaEntry{kind: "trigger", name: tr.Name, table: tr.Table, id: tr.ID, sql: tr.SQL}, tr.Name})
	}
	byID := func(a, b *schemaObject) int {
		if a.id != b.id {
			return int(a.id - b.id)
		}
		return strings.Compare(a.name, b.name)
	}
	slices.SortFunc(tables, byID)
	slices.SortFunc(indexes, byID)
	slices.SortFunc(views, byID)
	slices.SortFunc(triggers, byID)
	return append(append(append(tables, indexes...), views...), triggers...)
}

// rebuild makes the schema of the edited objects and writes their entries: entries whose name
// changed or whose object went are deleted, the others written again. action names the change
// in errors ("rename", "drop column").
func (x *execCtx) rebuild(objs []*schemaObject, action string) error {
	s := emptySchema()
	for _, pass := range []string{"table", "index", "view", "trigger"} {
		for _, o := range objs {
			if o.kind != pass {
				continue
			}
			if err := s.addEntry(o.schemaEntry); err != nil {
				return fmt.Errorf("error in %s %s after %s: %s", o.kind, o.name, action, plainError(err))
			}
		}
	}
	// Views and CHECK constraints must still bind.
	pc := &planCtx{schema: s, sess: x.sess}
	for _, o := range objs {
		switch {
		case o.kind == "view":
			if _, err := planSelect(pc, s.view(o.name).Select, &scope{}); err != nil {
				return fmt.Errorf("error in view %s after %s: %s", o.name, action, plainError(err))
			}
		case o.kind == "table":
			t := s.table(o.name)
			refs, _, err := parse.Refs(o.sql)
			if err != nil {
				return fmt.Errorf("error in table %s after %s: %s", o.name, action, plainError(err))
			}
			for _, r := range refs {
				if r.ForeignKey && t.columnIndex(r.Name) < 0 {
					return fmt.Errorf("error in table %s after %s: unknown column %q in foreign key definition", o.name, action, r.Name)
				}
			}
			if _, err := bindChecks(pc, t); err != nil {
				return fmt.Errorf("error in table %s after %s: %s", o.name, action, plainError(err))
			}
		}
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	for _, o := range objs {
		if o.old != "" && fold(o.old) != fold(o.name) {
			if err := b.Delete([]byte(fold(o.old))); err != nil {
				return err
			}
		}
	}
	for _, o := range objs {
		if err := putSchemaEntry(b, o.schemaEntry); err != nil {
			return err
		}
	}
	return x.changed(b, s)
}

// plainError is an error's text without the parser's position prefix ("1:8: ").
func plainError(err error) string {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe.Msg
	}
	return err.Error()
}

// edit is a replacement of the bytes [start, end) of a text.
type edit struct {
	start, end int
	text       string
}

// applyEdits applies non-overlapping edits to s.
func applyEdits(s string, edits []edit) string {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out strings.Builder
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // the same name found twice
		}
		out.WriteString(s[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.WriteString(s[at:])
	return out.String()
}

// resolveSource returns the FROM item a qualifier names, searching the select cores outward
// from scope, or nil.
func resolveSource(scopes []parse.Scope, scope int, qual string) *parse.Source {
	for sc := scope; sc >= 0; sc = scopes[sc].Parent {
		for i := range scopes[sc].Sources {
			src := &scopes[sc].Sources[i]
			if (src.Alias != "" && fold(src.Alias) == fold(qual)) || (src.Alias == "" && fold(src.Table) == fold(qual)) {
				return src
			}
		}
	}
	return nil
}

// columnOwner returns the table (its name as written in FROM) an unqualified column name of a
// SELECT belongs to: the first FROM item, from the innermost core outward, whose table (in s)
// has that column; "" when none does (a view, a subquery, an alias of the result).
func columnOwner(s *Schema, scopes []parse.Scope, scope int, col string) string {
	for sc := scope; sc >= 0; sc = scopes[sc].Parent {
		for _, src := range scopes[sc].Sources {
			if t := s.table(src.Table); t != nil && t.columnIndex(col) >= 0 {
				return src.Table
			}
		}
	}
	return ""
}

// isPlainName reports whether a name can be written without quotes.
func isPlainName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			return false
		}
	}
	return !parse.IsKeyword(s)
}

func (x *execCtx) renameTable(t *Table, newName string) error {
	if x.schema.objectExists(newName) || x.sess.tempViews[fold(newName)] != nil {
		return fmt.Errorf("there is already another table or index with this name: %s", newName)
	}
	if equalFoldPrefix(newName, "sqlite_") {
		return fmt.Errorf("object name reserved for internal use: %s", newName)
	}
	objs := x.schema.objects()
	quoted := quoteIdent(newName)
	for _, o := range objs {
		if o.sql != "" {
			refs, scopes, err := parse.Refs(o.sql)
			if err != nil {
				return fmt.Errorf("error in %s %s: %w", o.kind, o.name, err)
			}
			var edits []edit
			for _, r := range refs {
				if r.Kind != parse.RefTable || fold(r.Name) != fold(t.Name) {
					continue
				}
				if r.Qualifier && r.Scope >= 0 {
					src := resolveSource(scopes, r.Scope, r.Name)
					if src == nil || src.Alias != "" {
						continue // an alias, or a name of something else
					}
				}
				edits = append(edits, edit{r.Start, r.End, quoted})
			}
			o.sql = applyEdits(o.sql, edits)
		}
		if fold(o.table) == fold(t.Name) {
			o.table = newName
			switch {
			case o.kind == "table":
				o.name = newName
			case o.sql == "": // an automatic index: named after its table
				o.name = "sqlite_autoindex_" + newName + o.name[len("sqlite_autoindex_")+len(t.Name):]
			}
		}
	}
	if err := x.rebuild(objs, "rename"); err != nil {
		return err
	}
	return x.renameSeq(t.Name, newName)
}

// renameSeq renames the sqlite_sequence row of an AUTOINCREMENT table, as SQLite does.
func (x *execCtx) renameSeq(old, newName string) error {
	seqT := x.schema.table(seqTableName)
	if seqT == nil {
		return nil
	}
	return x.rewriteRowsWhere(seqT, func(row []value.Value) bool {
		if name := row[0]; name.Kind() == value.Text && string(name.Bytes()) == old {
			row[0] = value.TextString(newName)
			return true
		}
		return false
	})
}

func (x *execCtx) renameColumn(t *Table, col, newName string) error {
	ci := t.columnIndex(col)
	if ci < 0 {
		return fmt.Errorf("no such column: %q", col)
	}
	old := t.Columns[ci].Name
	objs := x.schema.objects()
	for _, o := range objs {
		if o.sql == "" {
			continue
		}
		refs, scopes, err := parse.Refs(o.sql)
		if err != nil {
			return fmt.Errorf("error in %s %s: %w", o.kind, o.name, err)
		}
		var edits []edit
		for _, r := range refs {
			if r.Kind != parse.RefColumn || fold(r.Name) != fold(old) {
				continue
			}
			owner := r.Table
			switch {
			case r.Scope >= 0 && owner != "":
				src := resolveSource(scopes, r.Scope, owner)
				if src == nil {
					continue
				}
				owner = src.Table
			case r.Scope >= 0:
				owner = columnOwner(x.schema, scopes, r.Scope, r.Name)
			}
			if fold(owner) != fold(t.Name) {
				continue
			}
			text := newName
			if !isPlainName(newName) || !isPlainName(o.sql[r.Start:r.End]) {
				text = quoteIdent(newName)
			}
			edits = append(edits, edit{r.Start, r.End, text})
		}
		o.sql = applyEdits(o.sql, edits)
	}
	return x.rebuild(objs, "rename")
}

// tableHasRows reports whether t has a row.
func (x *execCtx) tableHasRows(t *Table) (bool, error) {
	b, err := x.bucket(t.bucket)
	if err != nil {
		return false, err
	}
	c := b.Cursor()
	k, _ := c.First()
	return k != nil, c.Err()
}

func (x *execCtx) addColumn(t *Table, st *ast.AlterTable) error {
	def := st.Def
	switch {
	case def.PrimaryKey:
		return errors.New("Cannot add a PRIMARY KEY column")
	case def.Unique:
		return errors.New("Cannot add a UNIQUE column")
	case def.Generated != nil && def.Stored:
		return errors.New("cannot add a STORED column")
	}
	dflt := def.Default
	if lit, ok := dflt.(*ast.Literal); ok && lit.Value.IsNull() {
		dflt = nil
	}
	_, constant := literalDefault(dflt)
	if (def.NotNull && dflt == nil) || (dflt != nil && !constant) {
		full, err := x.tableHasRows(t)
		if err != nil {
			return err
		}
		switch {
		case full && def.NotNull && dflt == nil:
			return errors.New("Cannot add a NOT NULL column with default value NULL")
		case full && !constant:
			return errors.New("Cannot add a column with non-constant default")
		}
	}
	_, after, err := parse.ColumnSpans(t.SQL)
	if err != nil {
		return fmt.Errorf("error in table %s: %w", t.Name, err)
	}
	objs := x.schema.objects()
	for _, o := range objs {
		if o.kind == "table" && o.id == t.ID {
			o.sql = t.SQL[:after] + ", " + st.DefSQL + t.SQL[after:]
		}
	}
	// Records shorter than their table are version 3 (schema.go, formatVersion).
	sb, err := x.schemaStore()
	if err != nil {
		return err
	}
	if err := raiseVersion(sb, formatVersion); err != nil {
		return err
	}
	if err := x.rebuild(objs, "add column"); err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			return errors.New(pe.Msg)
		}
		return unwrapAfter(err)
	}
	nt := x.schema.table(t.Name)
	if x.sess.foreignKeys && dflt != nil && len(nt.ForeignKeys) > len(t.ForeignKeys) {
		return errors.New("Cannot add a REFERENCES column with non-NULL default value")
	}
	if def.Generated != nil {
		// A generated column's value is stored with the row (generated.go): write it.
		if err := x.rewriteRows(nt, func(row []value.Value) error { return nt.computeGenerated(row) }); err != nil {
			return err
		}
	}
	// The rows must meet the table's CHECK constraints with the new column's value.
	if len(def.Checks) == 0 {
		return nil
	}
	checks, err := bindChecks(&planCtx{schema: x.schema, sess: x.sess}, nt)
	if err != nil {
		return err
	}
	b, err := x.bucket(nt.bucket)
	if err != nil {
		return err
	}
	e := &env{rows: make([][]value.Value, 1), run: &runState{cx: x, subqCache: map[*subquery]*subqResult{}}}
	c := b.Cursor()
	var row []value.Value
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var rowid int64
		if !nt.WithoutRowid {
			rowid, _ = codec.Rowid(k)
		}
		if row, err = decodeRow(nt, rowid, v, row); err != nil {
			return err
		}
		e.rows[0] = row
		for _, chk := range checks {
			v, err := chk.eval(e)
			if err != nil {
				return err
			}
			if ok, known := value.Truth(v); known && !ok {
				return errors.New("CHECK constraint failed")
			}
		}
	}
	return c.Err()
}

// unwrapAfter turns "error in table t after add column: duplicate column name: b" into the
// message SQLite gives for ADD COLUMN, the cause alone.
func unwrapAfter(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, " after add column: "); i >= 0 {
		return errors.New(msg[i+len(" after add column: "):])
	}
	return err
}

func (x *execCtx) dropColumn(t *Table, col string) error {
	ci := t.columnIndex(col)
	if ci < 0 {
		return fmt.Errorf("no such column: %q", col)
	}
	c := t.Columns[ci]
	if c.PK > 0 {
		return fmt.Errorf("cannot drop PRIMARY KEY column: %q", c.Name)
	}
	if c.unique {
		return fmt.Errorf("cannot drop UNIQUE column: %q", c.Name)
	}
	if len(t.Columns) == 1 {
		return fmt.Errorf("cannot drop column %q: no other columns exist", c.Name)
	}
	spans, _, err := parse.ColumnSpans(t.SQL)
	if err != nil || len(spans) != len(t.Columns) {
		return fmt.Errorf("error in table %s: %v", t.Name, err)
	}
	// SQLite's cut: from the column to the next one, or for the last column from the comma
	// before it to its end.
	var from, to int
	if ci+1 < len(spans) {
		from, to = spans[ci][0], spans[ci+1][0]
	} else {
		from, to = strings.LastIndexByte(t.SQL[:spans[ci][0]], ','), spans[ci][1]
	}
	objs := x.schema.objects()
	for _, o := range objs {
		if o.kind == "table" && o.id == t.ID {
			o.sql = t.SQL[:from] + t.SQL[to:]
		}
	}
	if err := x.rebuild(objs, "drop column"); err != nil {
		return err
	}
	// Rewrite the rows without the column.
	var vals []value.Value
	return x.rewriteRecords(t, func(_, v []byte) ([]byte, error) {
		var err error
		if vals, err = codec.DecodeRecord(v, vals[:0]); err != nil {
			return nil, fmt.Errorf("sql: a row of %s: %w", t.Name, cairn.ErrCorrupt)
		}
		for len(vals) < len(t.Columns) {
			vals = append(vals, t.missing[len(vals)])
		}
		vals = slices.Delete(vals[:len(t.Columns)], ci, ci+1)
		return codec.AppendRecord(nil, vals), nil
	})
}

// rewriteRowsWhere writes again the rows of t that fn changed (reporting true); their keys and
// index entries stay: fn changes no indexed column.
func (x *execCtx) rewriteRowsWhere(t *Table, fn func(row []value.Value) bool) error {
	return x.rewriteRowsIf(t, func(row []value.Value) (bool, error) { return fn(row), nil })
}

// rewriteRows writes every row of t again after fn changed it (its key and index entries stay:
// fn changes no indexed column).
func (x *execCtx) rewriteRows(t *Table, fn func(row []value.Value) error) error {
	return x.rewriteRowsIf(t, func(row []value.Value) (bool, error) { return true, fn(row) })
}

// rewriteRowsIf writes again each row of t for which fn reports true.
func (x *execCtx) rewriteRowsIf(t *Table, fn func(row []value.Value) (bool, error)) error {
	var row []value.Value
	return x.rewriteRecords(t, func(k, v []byte) ([]byte, error) {
		var rowid int64
		if !t.WithoutRowid {
			rowid, _ = codec.Rowid(k)
		}
		var err error
		if row, err = decodeRow(t, rowid, v, row); err != nil {
			return nil, err
		}
		if changed, err := fn(row); err != nil || !changed {
			return nil, err
		}
		return t.record(row), nil
	})
}

// rewriteRecords writes again, under the same keys, the records of t's rows that fn gives anew
// (nil: the row stays as it is); they are written after the scan, so fn sees every row as it
// was. Index entries are not touched.
func (x *execCtx) rewriteRecords(t *Table, fn func(k, v []byte) ([]byte, error)) error {
	b, err := x.bucket(t.bucket)
	if err != nil {
		return err
	}
	type kv struct{ k, v []byte }
	var out []kv
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		nv, err := fn(k, v)
		if err != nil {
			return err
		}
		if nv != nil {
			out = append(out, kv{slices.Clone(k), nv})
		}
		if err := x.tick(); err != nil {
			return err
		}
	}
	if err := c.Err(); err != nil {
		return err
	}
	for _, r := range out {
		if err := b.Put(r.k, r.v); err != nil {
			return rowError(err)
		}
	}
	return nil
}

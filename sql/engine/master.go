package engine

// sqlite_schema (also called sqlite_master) and sqlite_temp_schema (sqlite_temp_master): the
// read-only tables that list the schema, as SQLite has them. Invariants:
//   - They are not stored: a query that names one (and no table or view of that name exists,
//     which CREATE refuses for names starting with "sqlite_") reads rows made from the Schema of
//     its execution when its loop opens, so they always agree with the schema the statement was
//     planned for.
//   - Columns type, name, tbl_name, rootpage, sql (declared text, text, text, int, text) and a
//     rowid: the row's position, from 1.
//   - rootpage is cairn's object id (FORMAT.md, "Object ids"): tables and indexes have distinct
//     positive ids, views 0 as in SQLite. sql is the CREATE text as stored, NULL for an automatic
//     index.
//   - Rows come in creation order for tables, indexes and triggers (ids grow with every CREATE; a
//     table's automatic indexes right after it; triggers have rootpage 0), then the views by name.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairndb/cairn/sql/value"
)

// masterTable returns which schema table name denotes: 1 for sqlite_schema, 2 for
// sqlite_temp_schema, 0 for none. The parser turns temp.sqlite_schema into sqlite_temp_master.
func masterTable(name string) int {
	switch strings.ToLower(name) {
	case "sqlite_master", "sqlite_schema":
		return 1
	case "sqlite_temp_master", "sqlite_temp_schema":
		return 2
	}
	return 0
}

// masterSource returns the source of a schema table called name, or nil if name is none.
func masterSource(name, alias string) *source {
	kind := masterTable(name)
	if kind == 0 {
		return nil
	}
	src := &source{name: strings.ToLower(name), rowidSlot: 5}
	if alias != "" {
		src.name = alias
	}
	for i, c := range []string{"type", "name", "tbl_name", "rootpage", "sql"} {
		col := srcColumn{name: c, affinity: value.AffinityText, declType: "text"}
		if i == 3 {
			col.affinity, col.declType = value.AffinityInteger, "int"
		}
		src.cols = append(src.cols, col)
	}
	temp := kind == 2
	src.virt = func(cx *execCtx) [][]value.Value { return masterRows(cx, temp) }
	return src
}

// masterRows makes the rows of sqlite_schema (temp false) or sqlite_temp_schema (temp true: the
// session's TEMP tables, their indexes and its TEMP views) for cx's schema.
func masterRows(cx *execCtx, temp bool) [][]value.Value {
	type obj struct {
		kind, name, table, sql string
		id                     int64
		trigger                bool // rootpage 0; id orders it by creation
	}
	var tables []*Table
	var viewDefs map[string]*View
	var triggers map[string]*Trigger
	switch {
	case !temp:
		for _, t := range cx.schema.tables {
			tables = append(tables, t)
		}
		viewDefs, triggers = cx.schema.views, cx.schema.triggers
	case cx.sess != nil:
		tables, viewDefs = cx.sess.tempTables(), cx.sess.tempViews
		if tt := cx.sess.tempTrigs(); tt != nil {
			triggers = tt.triggers
		}
	}
	var objs, views []obj
	for _, t := range tables {
		objs = append(objs, obj{kind: "table", name: t.Name, table: t.Name, sql: t.SQL, id: t.ID})
		for _, ix := range listedIndexes(t) {
			objs = append(objs, obj{kind: "index", name: ix.Name, table: t.Name, sql: ix.SQL, id: ix.ID})
		}
	}
	for _, v := range viewDefs {
		views = append(views, obj{kind: "view", name: v.Name, table: v.Name, sql: v.SQL})
	}
	// Triggers (rootpage 0) take their place among the tables and indexes by creation (their ids
	// come from next-id too; a session's TEMP triggers after the TEMP tables, in creation order).
	var trs []*Trigger
	for _, tr := range triggers {
		trs = append(trs, tr)
	}
	slices.SortFunc(trs, func(a, b *Trigger) int { return cmp.Compare(a.ID, b.ID) * triggerOrder(temp) })
	for i, tr := range trs {
		id := tr.ID
		if temp {
			id = math.MaxInt64 - int64(len(trs)) + int64(i)
		}
		objs = append(objs, obj{kind: "trigger", name: tr.Name, table: tr.Table, sql: tr.SQL, id: id, trigger: true})
	}
	slices.SortFunc(objs, func(a, b obj) int { return cmp.Compare(a.id, b.id) })
	slices.SortFunc(views, func(a, b obj) int { return cmp.Compare(fold(a.name), fold(b.name)) })
	objs = append(objs, views...)
	rows := make([][]value.Value, len(objs))
	for i, o := range objs {
		sql := value.NullValue()
		if o.sql != "" {
			sql = value.TextString(schemaText(o.sql))
		}
		root := o.id
		if o.trigger {
			root = 0
		}
		rows[i] = []value.Value{value.TextString(o.kind), value.TextString(o.name), value.TextString(o.table),
			value.Int(root), sql, value.Int(int64(i + 1))}
	}
	return rows
}

// listedIndexes returns the indexes of t that SQLite would have: the explicit ones and the
// automatic index of each UNIQUE or PRIMARY KEY constraint that does not repeat an earlier
// constraint's columns (cairn keeps an index for a repeated one too, never checked).
func listedIndexes(t *Table) []*Index {
	out := make([]*Index, 0, len(t.Indexes))
	for i, ix := range t.Indexes {
		if ix.SQL == "" && !slices.Contains(t.autoOrder, i) {
			continue
		}
		out = append(out, ix)
	}
	return out
}

// virtualScan reads the rows a virtual source makes when its loop opens.
type virtualScan struct {
	name string
	rows func(cx *execCtx) [][]value.Value
}

func (p *virtualScan) explain() string { return "SCAN " + p.name }

func (p *virtualScan) open(e *env, src int) (candidates, error) {
	return &rowsIter{e: e, src: src, rows: p.rows(e.run.cx)}, nil
}

// schemaText returns the sql column of an object whose stored CREATE text is sql, as SQLite
// writes it: "CREATE TABLE ", "CREATE [UNIQUE] INDEX " or "CREATE VIEW " and then the text from
// the object's name on (without its schema), so that TEMP, IF NOT EXISTS, comments and the
// keywords' spelling before the name are gone. Text it cannot follow is returned as it is.
func schemaText(sql string) string {
	sc := sqlScanner{s: sql}
	if !strings.EqualFold(sc.word(), "create") {
		return sql
	}
	head := "CREATE "
	w := sc.word()
	if strings.EqualFold(w, "temp") || strings.EqualFold(w, "temporary") {
		w = sc.word()
	}
	if strings.EqualFold(w, "unique") {
		head += "UNIQUE "
		w = sc.word()
	}
	switch strings.ToLower(w) {
	case "table", "index", "view", "trigger":
		head += strings.ToUpper(w) + " "
	default:
		return sql
	}
	at := sc.i
	if strings.EqualFold(sc.word(), "if") && strings.EqualFold(sc.word(), "not") && strings.EqualFold(sc.word(), "exists") {
		at = sc.i
	}
	sc.i = at
	sc.space()
	name := sc.i
	if !sc.name() {
		return sql
	}
	sc.space()
	if sc.i < len(sql) && sql[sc.i] == '.' { // schema.name: from the name
		sc.i++
		sc.space()
		name = sc.i
	}
	return head + sql[name:]
}

// sqlScanner reads words of SQL text, skipping spaces and comments.
type sqlScanner struct {
	s string
	i int
}

// space skips white space and comments.
func (sc *sqlScanner) space() {
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			sc.i++
		case strings.HasPrefix(sc.s[sc.i:], "--"):
			end := strings.IndexByte(sc.s[sc.i:], '\n')
			if end < 0 {
				sc.i = len(sc.s)
			} else {
				sc.i += end + 1
			}
		case strings.HasPrefix(sc.s[sc.i:], "/*"):
			end := strings.Index(sc.s[sc.i+2:], "*/")
			if end < 0 {
				sc.i = len(sc.s)
			} else {
				sc.i += end + 4
			}
		default:
			return
		}
	}
}

// word returns the next bare word (letters, digits, '_', '$' and bytes >= 0x80), or "".
func (sc *sqlScanner) word() string {
	sc.space()
	start := sc.i
	for sc.i < len(sc.s) && isWordByte(sc.s[sc.i]) {
		sc.i++
	}
	return sc.s[start:sc.i]
}

// name skips a name: a bare word or one quoted with "", [], “ or ”.
func (sc *sqlScanner) name() bool {
	if sc.i >= len(sc.s) {
		return false
	}
	switch q := sc.s[sc.i]; q {
	case '"', '`', '\'', '[':
		end := q
		if q == '[' {
			end = ']'
		}
		for j := sc.i + 1; j < len(sc.s); j++ {
			if sc.s[j] != end {
				continue
			}
			if end != ']' && j+1 < len(sc.s) && sc.s[j+1] == end {
				j++ // a doubled quote
				continue
			}
			sc.i = j + 1
			return true
		}
		return false
	}
	return sc.word() != ""
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// masterWriteError returns SQLite's error for a statement that would change (verb "modified"),
// drop or index the schema table name, or nil if name is not one.
func masterWriteError(name, verb string) error {
	switch masterTable(name) {
	case 1:
		return fmt.Errorf("table sqlite_master may not be %s", verb)
	case 2:
		return fmt.Errorf("table sqlite_temp_master may not be %s", verb)
	}
	return nil
}

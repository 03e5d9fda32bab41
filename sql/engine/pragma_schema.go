package engine

// The PRAGMAs that describe the schema: table_info, table_xinfo, index_list, index_info,
// index_xinfo, foreign_key_list and table_list, with SQLite's columns and row order.

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// schemaPragma runs one of the pragmas about a table or index named by p's argument (no
// argument or an unknown name: no rows).
func schemaPragma(cx *execCtx, name string, p *ast.Pragma) (pragmaResult, error) {
	var res pragmaResult
	switch name {
	case "table_info":
		res.names = []string{"cid", "name", "type", "notnull", "dflt_value", "pk"}
	case "table_xinfo":
		res.names = []string{"cid", "name", "type", "notnull", "dflt_value", "pk", "hidden"}
	case "index_list":
		res.names = []string{"seq", "name", "unique", "origin", "partial"}
	case "index_info":
		res.names = []string{"seqno", "cid", "name"}
	case "index_xinfo":
		res.names = []string{"seqno", "cid", "name", "desc", "coll", "key"}
	case "foreign_key_list":
		res.names = []string{"id", "seq", "table", "from", "to", "on_update", "on_delete", "match"}
	}
	if !p.HasValue {
		return res, nil
	}
	arg := p.Value
	switch name {
	case "table_info", "table_xinfo":
		xinfo := name == "table_xinfo"
		if t := cx.table(arg); t != nil {
			cid := 0
			for _, c := range t.Columns {
				hidden := int64(0) // 2: a VIRTUAL generated column, 3: a STORED one
				if c.Generated != nil {
					if !xinfo {
						continue // table_info leaves generated columns out, as SQLite
					}
					hidden = 2
					if c.Stored {
						hidden = 3
					}
				}
				row := []value.Value{value.Int(int64(cid)), value.TextString(c.Name), value.TextString(typeName(c.Type)),
					boolInt(c.NotNull), nullText(c.DefaultText), value.Int(int64(c.PK))}
				cid++
				if xinfo {
					row = append(row, value.Int(hidden))
				}
				res.rows = append(res.rows, row)
			}
			return res, nil
		}
		if masterTable(arg) != 0 {
			for i, c := range []string{"type", "name", "tbl_name", "rootpage", "sql"} {
				typ := "TEXT"
				if i == 3 {
					typ = "INT"
				}
				row := []value.Value{value.Int(int64(i)), value.TextString(c), value.TextString(typ), value.Int(0),
					value.NullValue(), value.Int(0)}
				if xinfo {
					row = append(row, value.Int(0))
				}
				res.rows = append(res.rows, row)
			}
			return res, nil
		}
		pc := &planCtx{schema: cx.schema, sess: cx.sess, cx: cx}
		if v := pc.view(arg); v != nil {
			src, err := newSource(pc, &ast.FromItem{Table: v.Name}, &scope{})
			if err != nil {
				return res, err
			}
			for i, c := range src.cols {
				typ := typeName(c.declType)
				if typ == "" && !c.noAffinity {
					typ = affinityTypeName(c.affinity)
				}
				row := []value.Value{value.Int(int64(i)), value.TextString(c.name), value.TextString(typ), value.Int(0),
					value.NullValue(), value.Int(0)}
				if xinfo {
					row = append(row, value.Int(0))
				}
				res.rows = append(res.rows, row)
			}
		}
	case "index_list":
		t := cx.table(arg)
		if t == nil {
			return res, nil
		}
		ixs := listedIndexes(t)
		slices.Reverse(ixs) // newest first, as SQLite lists them
		for i, ix := range ixs {
			origin := "c"
			switch {
			case isPrimaryIndex(t, ix):
				origin = "pk"
			case ix.SQL == "":
				origin = "u"
			}
			res.rows = append(res.rows, []value.Value{value.Int(int64(i)), value.TextString(ix.Name), boolInt(ix.Unique),
				value.TextString(origin), boolInt(ix.where != nil)})
		}
	case "index_info", "index_xinfo":
		ix := cx.index(arg)
		if ix == nil {
			return res, nil
		}
		t := ix.Table
		add := func(col int, desc bool, coll value.Collation, key bool) {
			row := []value.Value{value.Int(int64(len(res.rows))), value.Int(int64(col))}
			if col >= 0 {
				row = append(row, value.TextString(t.Columns[col].Name))
			} else {
				row = append(row, value.NullValue())
			}
			if name == "index_xinfo" {
				row = append(row, boolInt(desc), value.TextString(coll.String()), boolInt(key))
			}
			res.rows = append(res.rows, row)
		}
		for _, c := range ix.Columns {
			add(c.Column, c.Desc, c.Collation, true)
		}
		if name == "index_info" {
			return res, nil
		}
		if !t.WithoutRowid {
			add(-1, false, value.Binary, false)
			return res, nil
		}
		for _, c := range t.PrimaryKey { // the row's key, after the index's columns
			if !slices.ContainsFunc(ix.Columns, func(ic IndexColumn) bool { return ic.Column == c.Column }) {
				add(c.Column, false, t.Columns[c.Column].Collation, false)
			}
		}
	case "foreign_key_list":
		t := cx.table(arg)
		if t == nil {
			return res, nil
		}
		res.rows = foreignKeyRows(t)
	}
	return res, nil
}

// isPrimaryIndex reports whether ix is the automatic index of t's PRIMARY KEY (a rowid table's
// primary key that is not the rowid).
func isPrimaryIndex(t *Table, ix *Index) bool {
	if ix.SQL != "" || t.WithoutRowid || t.RowidColumn >= 0 || len(t.PrimaryKey) == 0 {
		return false
	}
	for _, other := range t.Indexes {
		if other.SQL == "" && sameKeyColumns(other.Columns, t.PrimaryKey) {
			return other == ix // the first automatic index on the primary key's columns
		}
	}
	return false
}

// typeName is a declared type as table_info reports it: one of SQLite's standard type names
// (INT, INTEGER, REAL, TEXT, BLOB, ANY) in upper case, any other as written.
func typeName(t string) string {
	switch u := strings.ToUpper(t); u {
	case "INT", "INTEGER", "REAL", "TEXT", "BLOB", "ANY":
		return u
	}
	return t
}

// affinityTypeName is the type SQLite gives a view's column without a declared type, from its
// affinity.
func affinityTypeName(a value.Affinity) string {
	switch a {
	case value.AffinityText:
		return "TEXT"
	case value.AffinityInteger:
		return "INT"
	case value.AffinityReal:
		return "REAL"
	case value.AffinityNumeric:
		return "NUM"
	}
	return "BLOB"
}

// tableList is PRAGMA table_list [(name)]: schema, name, type, ncol, wr (WITHOUT ROWID), strict.
func tableList(cx *execCtx, p *ast.Pragma) pragmaResult {
	res := pragmaResult{names: []string{"schema", "name", "type", "ncol", "wr", "strict"}}
	add := func(schema, name, typ string, ncol int, wr bool) {
		if p.HasValue && fold(p.Value) != fold(name) {
			return
		}
		res.rows = append(res.rows, []value.Value{value.TextString(schema), value.TextString(name), value.TextString(typ),
			value.Int(int64(ncol)), boolInt(wr), value.Int(0)})
	}
	var tables []*Table
	for _, t := range cx.schema.tables {
		tables = append(tables, t)
	}
	slices.SortFunc(tables, func(a, b *Table) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range tables {
		add("main", t.Name, "table", len(t.Columns), t.WithoutRowid)
	}
	pc := &planCtx{schema: cx.schema, sess: cx.sess, cx: cx}
	addViews := func(schema string, views map[string]*View) {
		names := make([]string, 0, len(views))
		for k := range views {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			v := views[k]
			ncol := len(v.Columns)
			if src, err := newSource(pc, &ast.FromItem{Table: v.Name}, &scope{}); err == nil {
				ncol = len(src.cols)
			}
			add(schema, v.Name, "view", ncol, false)
		}
	}
	addViews("main", cx.schema.views)
	add("main", "sqlite_schema", "table", 5, false)
	if cx.sess != nil {
		for _, t := range cx.sess.tempTables() {
			add("temp", t.Name, "table", len(t.Columns), t.WithoutRowid)
		}
		addViews("temp", cx.sess.tempViews)
	}
	add("temp", "sqlite_temp_schema", "table", 5, false)
	if p.Schema != "" {
		kept := res.rows[:0]
		for _, r := range res.rows {
			if strings.EqualFold(string(r[0].Bytes()), p.Schema) {
				kept = append(kept, r)
			}
		}
		res.rows = kept
	}
	return res
}

// foreignKeyRows lists t's foreign keys as PRAGMA foreign_key_list does: the last declared is
// id 0 (SQLite keeps them newest first), one row per column pair; "to" is NULL when the clause
// names no parent columns (the parent's primary key). MATCH is always NONE, as SQLite reports it.
func foreignKeyRows(t *Table) [][]value.Value {
	var rows [][]value.Value
	for id := range t.ForeignKeys {
		fk := t.ForeignKeys[len(t.ForeignKeys)-1-id]
		for seq, from := range fk.Columns {
			to := value.NullValue()
			if seq < len(fk.RefColumns) {
				to = value.TextString(fk.RefColumns[seq])
			}
			rows = append(rows, []value.Value{value.Int(int64(id)), value.Int(int64(seq)), value.TextString(fk.Table),
				value.TextString(from), to, value.TextString(fk.OnUpdate), value.TextString(fk.OnDelete),
				value.TextString("NONE")})
		}
	}
	return rows
}

// index returns the index called name that the session sees: one of a TEMP table, else
// the schema's.
func (x *execCtx) index(name string) *Index {
	if x.sess != nil {
		if ix := x.sess.temp.index(name); ix != nil {
			return ix
		}
	}
	return x.schema.index(name)
}

// tempTables returns the session's TEMP tables in the order of creation.
func (s *Session) tempTables() []*Table {
	if s.temp == nil {
		return nil
	}
	out := make([]*Table, 0, len(s.temp.tables))
	for _, t := range s.temp.tables {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Table) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

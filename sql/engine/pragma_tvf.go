package engine

// The table-valued forms of PRAGMA: pragma_NAME(arg, schema) as a FROM item, e.g. `SELECT name
// FROM pragma_table_info('t')` or `FROM sqlite_schema m, pragma_index_list(m.name)`. Each is a
// table-valued function (tvf.go) whose columns are the pragma's result columns, followed, for a
// pragma that takes an argument, by the hidden columns arg and schema (SQLite's names), which
// hold the arguments. Only pragmas that return a result and change nothing have such a form, as
// in SQLite; one without an argument takes none (`too many arguments on pragma_user_version() -
// max 0`).

import (
	"fmt"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

func init() {
	for _, pt := range []struct {
		name string
		cols []string
		arg  bool
	}{
		{"table_info", []string{"cid", "name", "type", "notnull", "dflt_value", "pk"}, true},
		{"table_xinfo", []string{"cid", "name", "type", "notnull", "dflt_value", "pk", "hidden"}, true},
		{"index_list", []string{"seq", "name", "unique", "origin", "partial"}, true},
		{"index_info", []string{"seqno", "cid", "name"}, true},
		{"index_xinfo", []string{"seqno", "cid", "name", "desc", "coll", "key"}, true},
		{"foreign_key_list", []string{"id", "seq", "table", "from", "to", "on_update", "on_delete", "match"}, true},
		{"foreign_key_check", []string{"table", "rowid", "parent", "fkid"}, true},
		{"table_list", []string{"schema", "name", "type", "ncol", "wr", "strict"}, true},
		{"integrity_check", []string{"integrity_check"}, true},
		{"quick_check", []string{"quick_check"}, true},
		{"database_list", []string{"seq", "name", "file"}, false},
		{"function_list", []string{"name", "builtin", "type", "enc", "narg", "flags"}, false},
		{"compile_options", []string{"compile_options"}, false},
		{"user_version", []string{"user_version"}, false},
		{"application_id", []string{"application_id"}, false},
		{"schema_version", []string{"schema_version"}, false},
		{"foreign_keys", []string{"foreign_keys"}, false},
		{"busy_timeout", []string{"timeout"}, false},
		{"synchronous", []string{"synchronous"}, false},
		{"journal_mode", []string{"journal_mode"}, false},
		{"cache_size", []string{"cache_size"}, false},
		{"page_size", []string{"page_size"}, false},
		{"page_count", []string{"page_count"}, false},
		{"freelist_count", []string{"freelist_count"}, false},
		{"encoding", []string{"encoding"}, false},
		{"temp_store", []string{"temp_store"}, false},
		{"locking_mode", []string{"locking_mode"}, false},
		{"mmap_size", []string{"mmap_size"}, false},
		{"wal_autocheckpoint", []string{"wal_autocheckpoint"}, false},
	} {
		f := &tableFunc{name: "pragma_" + pt.name}
		for _, c := range pt.cols {
			f.cols = append(f.cols, tableFuncCol{name: c})
		}
		switch {
		case pt.name == "table_list": // its result has a column schema: the argument is the table
			f.cols = append(f.cols, tableFuncCol{name: "arg", hidden: true})
			f.maxArg = 1
		case pt.arg:
			f.cols = append(f.cols, tableFuncCol{name: "arg", hidden: true}, tableFuncCol{name: "schema", hidden: true})
			f.maxArg = 2
		}
		name, arg, ncols := pt.name, pt.arg, len(pt.cols)
		f.rowsCx = func(cx *execCtx, args []value.Value) ([][]value.Value, error) {
			return pragmaTableRows(cx, name, arg, ncols, args)
		}
		tableFuncs[f.name] = f
	}
}

// pragmaTableRows runs the pragma name for a pragma_name(args) source: the arguments become the
// pragma's argument and schema, and each row gets them in its hidden columns.
func pragmaTableRows(cx *execCtx, name string, hasArg bool, ncols int, args []value.Value) ([][]value.Value, error) {
	p := &ast.Pragma{Name: name}
	hidden := []value.Value{value.NullValue(), value.NullValue()}
	if len(args) > 0 && !args[0].IsNull() {
		p.Value, p.HasValue, p.Call = string(args[0].AppendText(nil)), true, true
		hidden[0] = args[0]
	}
	if len(args) > 1 && !args[1].IsNull() {
		p.Schema = string(args[1].AppendText(nil))
		hidden[1] = args[1]
	}
	switch fold(p.Schema) {
	case "", "main", "temp":
	default:
		return nil, fmt.Errorf("unknown database '%s'", p.Schema)
	}
	switch name {
	case "table_list", "integrity_check", "quick_check", "foreign_key_check":
		// The argument of integrity_check is a table here, never a count, as in SQLite.
		if p.HasValue && name != "table_list" && cx.table(p.Value) == nil {
			return nil, fmt.Errorf("no such table: %s", p.Value)
		}
	default:
		if hasArg && !p.HasValue {
			return nil, nil // no table or index named: no rows
		}
	}
	var res pragmaResult
	var err error
	switch name {
	case "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list":
		if p.Schema != "" && fold(p.Schema) != "main" {
			res, err = cx.sess.pragma(cx.ctx, p) // temp, or an unknown database's error
			break
		}
		res, err = schemaPragma(cx, name, p)
	case "table_list":
		res = tableList(cx, p)
	case "foreign_key_check":
		res, err = foreignKeyCheck(cx, p)
	default:
		res, err = cx.sess.pragma(cx.ctx, p)
	}
	if err != nil {
		return nil, err
	}
	rows := make([][]value.Value, len(res.rows))
	for i, r := range res.rows {
		row := make([]value.Value, 0, ncols+2)
		row = append(row, r[:min(len(r), ncols)]...)
		for len(row) < ncols {
			row = append(row, value.NullValue())
		}
		switch {
		case name == "table_list":
			row = append(row, hidden[0])
		case hasArg:
			row = append(row, hidden...)
		}
		rows[i] = row
	}
	return rows, nil
}

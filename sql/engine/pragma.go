package engine

// PRAGMA statements: the schema's description (table_info, index_list, ...), values kept in the
// database (user_version, application_id) or in the session (foreign_keys, busy_timeout, ...),
// cairn's own state in SQLite's terms (page_count, journal_mode, ...) and checks
// (integrity_check). Invariants:
//   - A PRAGMA that writes the database (user_version = N, application_id = N) runs as a write
//     statement: in the session's transaction, or in one of its own; every other one only reads.
//   - An unknown pragma is no error and returns no rows, as in SQLite; so does a pragma about a
//     table or index that does not exist.
//   - user_version and application_id are entries of the schema bucket (FORMAT.md, "SQL
//     schema"); writing them does not change the schema cookie, as SQLite's do not change its
//     schema version.

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// Keys of the schema bucket holding the header values of SQLite's database header that
// programs set: PRAGMA user_version and application_id (8 bytes, big-endian, of an int32).
var (
	userVersionKey   = []byte("\x00user-version")
	applicationIDKey = []byte("\x00application-id")
)

// pragmaResult is what a PRAGMA returns: column names and rows (no columns: no result).
type pragmaResult struct {
	names []string
	rows  [][]value.Value
}

// one returns a result of one row and one column.
func one(name string, v value.Value) pragmaResult {
	return pragmaResult{names: []string{name}, rows: [][]value.Value{{v}}}
}

// pragmaWrites reports whether p writes the database.
func pragmaWrites(p *ast.Pragma) bool {
	if !p.HasValue {
		return false
	}
	switch strings.ToLower(p.Name) {
	case "user_version", "application_id":
		return true
	}
	return false
}

// runPragma runs a PRAGMA and returns its rows.
func (st *Stmt) runPragma(ctx context.Context, p *ast.Pragma) (*Rows, error) {
	res, err := st.sess.pragma(ctx, p)
	if err != nil {
		return nil, err
	}
	return &Rows{it: &sliceIter{rows: res.rows}, names: res.names, decl: make([]string, len(res.names))}, nil
}

// pragma runs p.
func (s *Session) pragma(ctx context.Context, p *ast.Pragma) (pragmaResult, error) {
	switch strings.ToLower(p.Schema) {
	case "", "main", "temp":
	default:
		return pragmaResult{}, fmt.Errorf("unknown database %s", p.Schema)
	}
	if err := ctx.Err(); err != nil {
		return pragmaResult{}, err
	}
	name := strings.ToLower(p.Name)
	if strings.EqualFold(p.Schema, "temp") {
		if res, ok := s.tempPragma(ctx, name, p); ok {
			return res, nil
		}
	}
	switch name {
	case "user_version", "application_id":
		key := userVersionKey
		if name == "application_id" {
			key = applicationIDKey
		}
		if p.HasValue {
			v := pragmaInt(p.Value)
			_, err := s.write(ctx, func(cx *execCtx) (Result, error) {
				b, err := cx.schemaStore()
				if err != nil {
					return Result{}, err
				}
				return Result{}, b.Put(key, binary.BigEndian.AppendUint64(nil, uint64(v)))
			})
			return pragmaResult{}, err
		}
		var v int64
		err := s.reading(ctx, func(cx *execCtx) error {
			var err error
			v, err = readSchemaInt(cx.tx, key)
			return err
		})
		return one(name, value.Int(v)), err
	case "schema_version":
		if p.HasValue {
			return pragmaResult{}, errors.New("unsupported: setting PRAGMA schema_version (cairn's schema cookie is its own)")
		}
		var v int64
		err := s.reading(ctx, func(cx *execCtx) error { v = cx.schema.cookie; return nil })
		return one(name, value.Int(v)), err
	case "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list":
		var res pragmaResult
		err := s.reading(ctx, func(cx *execCtx) error {
			var err error
			res, err = schemaPragma(cx, name, p)
			return err
		})
		return res, err
	case "table_list":
		var res pragmaResult
		err := s.reading(ctx, func(cx *execCtx) error { res = tableList(cx, p); return nil })
		return res, err
	case "integrity_check", "quick_check":
		return s.integrityCheck(ctx, name, p)
	case "foreign_keys":
		if p.HasValue {
			if !s.inTx { // SQLite ignores it inside a transaction
				s.foreignKeys = pragmaBool(p.Value, s.foreignKeys)
			}
			return pragmaResult{}, nil
		}
		return one(name, boolInt(s.foreignKeys)), nil
	case "defer_foreign_keys":
		if p.HasValue {
			s.deferFK = pragmaBool(p.Value, s.deferFK)
			return pragmaResult{}, nil
		}
		return one(name, boolInt(s.deferFK)), nil
	case "foreign_key_check":
		var res pragmaResult
		err := s.reading(ctx, func(cx *execCtx) error {
			var err error
			res, err = foreignKeyCheck(cx, p)
			return err
		})
		return res, err
	case "busy_timeout":
		if p.HasValue {
			s.SetBusyTimeout(time.Duration(max(pragmaInt(p.Value), 0)) * time.Millisecond)
		}
		return one("timeout", value.Int(s.busyTimeout.Milliseconds())), nil
	case "synchronous":
		if p.HasValue {
			return pragmaResult{}, nil // the database's durability is the DSN's (_sync)
		}
		level := int64(2) // FULL
		if s.eng.database().Options().Sync == cairn.SyncNone {
			level = 0 // OFF
		}
		return one(name, value.Int(level)), nil
	case "journal_mode":
		return one(name, value.TextString("wal")), nil
	case "locking_mode":
		return one(name, value.TextString("normal")), nil
	case "encoding":
		return one(name, value.TextString("UTF-8")), nil
	case "cache_size":
		if p.HasValue {
			v := pragmaInt(p.Value)
			s.cacheSize = &v
			return pragmaResult{}, nil
		}
		if s.cacheSize != nil {
			return one(name, value.Int(*s.cacheSize)), nil
		}
		// cairn's page cache cap, in SQLite's negative-KiB form.
		return one(name, value.Int(-max(s.eng.database().Options().CacheBytes, 0)/1024)), nil
	case "temp_store":
		if p.HasValue {
			switch v := strings.ToLower(p.Value); v {
			case "default", "0":
				s.tempStore = 0
			case "file", "1":
				s.tempStore = 1
			case "memory", "2":
				s.tempStore = 2
			}
			return pragmaResult{}, nil
		}
		return one(name, value.Int(s.tempStore)), nil
	case "mmap_size":
		return one(name, value.Int(0)), nil
	case "page_size":
		if p.HasValue {
			return pragmaResult{}, nil // fixed when the database was created
		}
		return one(name, value.Int(int64(s.eng.database().Stats().PageSize))), nil
	case "page_count":
		return one(name, value.Int(int64(s.eng.database().Stats().PageCount))), nil
	case "freelist_count":
		return one(name, value.Int(int64(s.eng.database().Stats().FreePages))), nil
	case "wal_autocheckpoint":
		o := s.eng.database().Options()
		return one(name, value.Int(o.CheckpointBytes/int64(s.eng.database().Stats().PageSize))), nil
	case "wal_checkpoint":
		ps := int64(s.eng.database().Stats().PageSize)
		pages := (s.eng.database().Stats().WALBytes + ps - 1) / ps
		busy, done := int64(1), int64(0)
		if !s.inTx && !s.attached { // a checkpoint waits for the writer slot the session may hold
			if err := s.eng.database().Checkpoint(ctx); err != nil {
				return pragmaResult{}, err
			}
			busy, done = 0, pages
		}
		return pragmaResult{names: []string{"busy", "log", "checkpointed"},
			rows: [][]value.Value{{value.Int(busy), value.Int(pages), value.Int(done)}}}, nil
	case "database_list":
		return pragmaResult{names: []string{"seq", "name", "file"},
			rows: [][]value.Value{{value.Int(0), value.TextString("main"), value.TextString(s.dbFile())}}}, nil
	case "compile_options":
		return pragmaResult{names: []string{"compile_options"}}, nil
	case "function_list":
		return functionList(), nil
	case "case_sensitive_like", "ignore_check_constraints", "query_only", "writable_schema":
		// Switches that would change what statements do, off by default; cairn has them off.
		if p.HasValue {
			if pragmaBool(p.Value, false) {
				return pragmaResult{}, fmt.Errorf("unsupported: PRAGMA %s = ON", name)
			}
			return pragmaResult{}, nil
		}
		if name == "case_sensitive_like" {
			return pragmaResult{}, nil // it has no value to read, in SQLite too
		}
		return one(name, value.Int(0)), nil
	case "auto_vacuum", "secure_delete", "recursive_triggers":
		// Settings without effect in cairn (VACUUM compacts when asked; deleted content is not
		// overwritten; there are no triggers): 0, and setting them changes nothing.
		if p.HasValue {
			return pragmaResult{}, nil
		}
		return one(name, value.Int(0)), nil
	}
	return pragmaResult{}, nil // unknown pragmas are ignored, as in SQLite
}

// tempPragma runs the pragmas whose answer for the TEMP database differs from main's (ok false
// for the others): TEMP holds only the session's views, and its header values are 0.
func (s *Session) tempPragma(ctx context.Context, name string, p *ast.Pragma) (pragmaResult, bool) {
	switch name {
	case "user_version", "application_id":
		if p.HasValue {
			return pragmaResult{}, true // the TEMP database's header is not kept
		}
		return one(name, value.Int(0)), true
	case "schema_version":
		return one(name, value.Int(0)), true
	case "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list":
		if p.HasValue && (s.tempViews[fold(p.Value)] != nil || s.temp.table(p.Value) != nil || s.temp.index(p.Value) != nil) {
			return pragmaResult{}, false // main's code finds the TEMP object first
		}
		res, _ := schemaPragma(&execCtx{ctx: ctx, schema: emptySchema(), sess: s}, name, &ast.Pragma{Name: p.Name})
		return res, true
	}
	return pragmaResult{}, false
}

// dbFile is the database's file as PRAGMA database_list names it ("" in memory).
func (s *Session) dbFile() string {
	if s.eng.database().Options().InMemory {
		return ""
	}
	return s.eng.database().Path()
}

// reading runs fn in the transaction a query of the session reads in, with its schema.
func (s *Session) reading(ctx context.Context, fn func(cx *execCtx) error) error {
	read, err := s.readTx(nil)
	if err != nil {
		return err
	}
	defer read.end()
	schema, err := s.schemaOf(read.tx)
	if err != nil {
		return err
	}
	return fn(&execCtx{ctx: ctx, tx: read.tx, schema: schema, sess: s})
}

// pragmaInt reads a PRAGMA's integer argument as SQLite's sqlite3Atoi does: an optional sign,
// then hexadecimal (0x...) or decimal digits, ignoring what follows ("1.9" is 1); text that does
// not start so, or a value outside the 32-bit range, is 0.
func pragmaInt(s string) int64 {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		end := 2
		for end < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[end]) >= 0 {
			end++
		}
		u, err := strconv.ParseUint(s[2:end], 16, 32)
		if err != nil {
			return 0
		}
		return int64(int32(uint32(u)))
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	v, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil || end > 11 {
		return 0
	}
	if neg {
		v = -v
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0
	}
	return v
}

// pragmaBool reads a boolean PRAGMA argument as SQLite does: on, yes, true, full, extra, normal
// or a non-zero number are true; off, no, false, 0 false; anything else leaves old.
func pragmaBool(s string, old bool) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "yes", "true", "full", "extra", "normal":
		return true
	case "off", "no", "false", "none":
		return false
	}
	if s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '+') {
		return pragmaInt(s) != 0
	}
	return old
}

func boolInt(b bool) value.Value {
	if b {
		return value.Int(1)
	}
	return value.Int(0)
}

// nullText is a TEXT value, or NULL for "".
func nullText(s string) value.Value {
	if s == "" {
		return value.NullValue()
	}
	return value.TextString(s)
}

// functionList is PRAGMA function_list: name, builtin (1), type ('s' scalar, 'w' an aggregate
// or window function: SQLite's 'a' is an aggregate that cannot be a window function, which cairn
// has none of), enc ('utf8'), narg (one row per count of arguments a function takes, -1 for any
// number) and flags (SQLite's values for a built-in function: 0x200800, innocuous and
// deterministic, or 0x200000 for a function that is not deterministic and for aggregates and
// window functions), by name.
func functionList() pragmaResult {
	res := pragmaResult{names: []string{"name", "builtin", "type", "enc", "narg", "flags"}}
	add := func(name, typ string, minArgs, maxArgs int, flags int64) {
		if maxArgs < 0 {
			minArgs, maxArgs = -1, -1
		}
		for n := minArgs; n <= maxArgs; n++ {
			res.rows = append(res.rows, []value.Value{value.TextString(name), value.Int(1), value.TextString(typ),
				value.TextString("utf8"), value.Int(int64(n)), value.Int(flags)})
		}
	}
	for _, f := range scalarFuncs {
		flags := int64(0x200800)
		if f.nondeterministic {
			flags = 0x200000
		}
		add(f.name, "s", f.minArgs, f.maxArgs, flags)
	}
	for name, d := range aggDefs { // every aggregate is a window function too
		add(name, "w", d.minArgs, d.maxArgs, 0x200000)
	}
	for name, w := range winFuncs {
		add(name, "w", w.min, w.max, 0x200000)
	}
	slices.SortFunc(res.rows, func(a, b []value.Value) int {
		return cmp.Or(strings.Compare(string(a[0].Bytes()), string(b[0].Bytes())), cmp.Compare(a[2].Bytes()[0], b[2].Bytes()[0]),
			cmp.Compare(a[4].Int(), b[4].Int()))
	})
	return res
}

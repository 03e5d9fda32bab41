package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// firstTexts returns the first column of rows as strings.
func firstTexts(rows [][]value.Value) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = string(r[0].Bytes())
	}
	return out
}

// TestIntegrityCheckFindsDamage damages an index behind the SQL layer's back: integrity_check
// names the row whose entry is missing and the count, quick_check the count only.
func TestIntegrityCheckFindsDamage(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL, b); CREATE INDEX ti ON t(b)")
	mustExec(t, s, "INSERT INTO t VALUES (1, 'x', 10), (2, 'y', 20), (3, 'z', 30)")
	require.Equal(t, []string{"ok"}, firstTexts(query(t, s, "PRAGMA integrity_check")))
	require.Equal(t, []string{"ok"}, firstTexts(query(t, s, "PRAGMA quick_check")))

	ix := query(t, s, "SELECT rootpage FROM sqlite_master WHERE name = 'ti'")[0][0].Int()
	tb := query(t, s, "SELECT rootpage FROM sqlite_master WHERE name = 't'")[0][0].Int()
	db := s.eng.DB()
	require.NoError(t, db.Update(func(tx *cairn.Tx) error {
		b, err := tx.Bucket(indexBucket(ix))
		require.NoError(t, err)
		var second []byte
		n := 0
		for k := range b.Range(nil, nil) {
			if n++; n == 2 {
				second = append([]byte(nil), k...)
			}
		}
		require.NoError(t, b.Delete(second))
		// A row whose NOT NULL column holds NULL, written as a record of (NULL, NULL, 40).
		tbl, err := tx.Bucket(tableBucket(tb))
		require.NoError(t, err)
		rec := (&Table{Columns: make([]Column, 3), RowidColumn: -1}).record([]value.Value{{}, {}, value.Int(40)})
		return tbl.Put(tableKeyOfRowid(4), rec)
	}))
	require.Equal(t, []string{
		"row 2 missing from index ti",
		"NULL value in t.a",
		"row 4 missing from index ti",
		"wrong # of entries in index ti",
	}, firstTexts(query(t, s, "PRAGMA integrity_check")))
	require.Equal(t, []string{"NULL value in t.a", "wrong # of entries in index ti"}, firstTexts(query(t, s, "PRAGMA quick_check")))
	require.Equal(t, []string{"row 2 missing from index ti"}, firstTexts(query(t, s, "PRAGMA integrity_check(1)")))
	require.Equal(t, []string{"NULL value in t.a"}, firstTexts(query(t, s, "PRAGMA quick_check('t')"))[:1])

	// Inside the session's own write transaction the storage check is skipped (it would wait for
	// the writer slot the session holds); the SQL checks still run.
	mustExec(t, s, "BEGIN IMMEDIATE")
	require.Len(t, query(t, s, "PRAGMA integrity_check"), 4)
	mustExec(t, s, "ROLLBACK")
}

func tableKeyOfRowid(id int64) []byte {
	return (&Table{}).rowKey(nil, id)
}

// TestPragmaStateOfCairn checks the pragmas that report cairn's own state.
func TestPragmaStateOfCairn(t *testing.T) {
	s := newTestSession(t) // in memory, SyncNone
	one := func(sql string) value.Value {
		rows := query(t, s, sql)
		require.Len(t, rows, 1, sql)
		return rows[0][0]
	}
	require.Equal(t, "wal", string(one("PRAGMA journal_mode").Bytes()))
	require.Equal(t, "wal", string(one("PRAGMA journal_mode = DELETE").Bytes()))
	require.Equal(t, int64(0), one("PRAGMA synchronous").Int()) // SyncNone is OFF
	mustExec(t, s, "PRAGMA synchronous = FULL")                 // accepted, changes nothing
	require.Equal(t, int64(0), one("PRAGMA synchronous").Int())
	require.Equal(t, int64(s.eng.DB().Stats().PageSize), one("PRAGMA page_size").Int())
	require.Equal(t, int64(-256<<10), one("PRAGMA cache_size").Int()) // 256 MiB, in KiB
	mustExec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
	require.Greater(t, one("PRAGMA page_count").Int(), int64(0))
	require.GreaterOrEqual(t, one("PRAGMA freelist_count").Int(), int64(0))
	require.Equal(t, []value.Value{value.Int(0), value.TextString("main"), value.TextString("")}, query(t, s, "PRAGMA database_list")[0])
	checkpoints := s.eng.DB().Stats().Checkpoints
	cp := query(t, s, "PRAGMA wal_checkpoint(TRUNCATE)")
	require.Len(t, cp, 1)
	require.Equal(t, int64(0), cp[0][0].Int())
	require.Greater(t, s.eng.DB().Stats().Checkpoints, checkpoints)
	mustExec(t, s, "BEGIN IMMEDIATE")
	require.Equal(t, int64(1), query(t, s, "PRAGMA wal_checkpoint")[0][0].Int()) // busy: the session holds the writer slot
	mustExec(t, s, "COMMIT")
	require.Equal(t, "normal", string(one("PRAGMA locking_mode").Bytes()))
	require.Empty(t, query(t, s, "PRAGMA compile_options"))
	_, err := s.Exec(context.Background(), "PRAGMA query_only = ON", nil)
	require.EqualError(t, err, "unsupported: PRAGMA query_only = ON")
	mustExec(t, s, "PRAGMA ignore_check_constraints = OFF")

	// busy_timeout is the session's wait for the writer slot.
	require.Equal(t, int64(1500), one("PRAGMA busy_timeout = 1500").Int())
	require.Equal(t, 1500*time.Millisecond, s.busyTimeout)
	other := s.eng.NewSession()
	mustExec(t, other, "BEGIN IMMEDIATE")
	mustExec(t, s, "PRAGMA busy_timeout = 20")
	_, err = s.Exec(context.Background(), "INSERT INTO t VALUES (2)", nil)
	require.ErrorIs(t, err, ErrBusy)
	mustExec(t, other, "ROLLBACK")

	// foreign_keys is per session and cannot change inside a transaction, as in SQLite.
	mustExec(t, s, "PRAGMA foreign_keys = ON")
	require.Equal(t, int64(1), one("PRAGMA foreign_keys").Int())
	require.Equal(t, int64(0), query(t, other, "PRAGMA foreign_keys")[0][0].Int())
	mustExec(t, s, "BEGIN; PRAGMA foreign_keys = OFF")
	require.Equal(t, int64(1), one("PRAGMA foreign_keys").Int())
	mustExec(t, s, "COMMIT")
}

// TestUserVersionIsStored: user_version and application_id are in the database file, kept
// across a reopen, and not part of the schema cookie.
func TestUserVersionIsStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uv.db")
	db, err := cairn.Open(path, nil)
	require.NoError(t, err)
	s := New(db).NewSession()
	mustExec(t, s, "PRAGMA user_version = 5; PRAGMA application_id = 0x7fffffff")
	require.Equal(t, int64(0), query(t, s, "PRAGMA schema_version")[0][0].Int())
	mustExec(t, s, "PRAGMA user_version = 4294967298") // outside 32 bits: 0, as in SQLite
	require.Equal(t, int64(0), query(t, s, "PRAGMA user_version")[0][0].Int())
	mustExec(t, s, "PRAGMA user_version = 2")
	require.NoError(t, db.Close())

	db, err = cairn.Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	s = New(db).NewSession()
	require.Equal(t, int64(2), query(t, s, "PRAGMA user_version")[0][0].Int())
	require.Equal(t, int64(0x7fffffff), query(t, s, "PRAGMA application_id")[0][0].Int())
	_, err = s.Exec(context.Background(), "PRAGMA schema_version = 3", nil)
	require.ErrorContains(t, err, "unsupported")
	// A read-only transaction refuses the write.
	require.NoError(t, s.BeginTx(context.Background(), true, false))
	_, err = s.Exec(context.Background(), "PRAGMA user_version = 9", nil)
	require.ErrorIs(t, err, ErrReadOnlyTx)
	require.NoError(t, s.Rollback())
}

// TestVacuum: VACUUM shrinks the file after a delete; VACUUM INTO writes a copy that opens
// with the same rows and refuses to overwrite a file.
func TestVacuum(t *testing.T) {
	dir := t.TempDir()
	db, err := cairn.Open(filepath.Join(dir, "v.db"), &cairn.Options{Sync: cairn.SyncNone})
	require.NoError(t, err)
	defer db.Close()
	s := New(db).NewSession()
	mustExec(t, s, "CREATE TABLE t(id INTEGER PRIMARY KEY, pad BLOB); CREATE TABLE keep(a)")
	for i := 0; i < 20; i++ {
		mustExec(t, s, "INSERT INTO t(pad) VALUES (zeroblob(100000))")
	}
	mustExec(t, s, "INSERT INTO keep VALUES ('kept')")
	mustExec(t, s, "DROP TABLE t")
	require.NoError(t, db.Checkpoint(context.Background()))
	before := query(t, s, "PRAGMA page_count")[0][0].Int()
	mustExec(t, s, "VACUUM")
	after := query(t, s, "PRAGMA page_count")[0][0].Int()
	require.Less(t, after, before)

	out := filepath.Join(dir, "copy.db")
	mustExec(t, s, "VACUUM INTO ?", value.TextString(out))
	_, err = s.Exec(context.Background(), "VACUUM INTO ?", []value.Value{value.TextString(out)})
	require.EqualError(t, err, "output file already exists")

	cp, err := cairn.Open(out, nil)
	require.NoError(t, err)
	defer cp.Close()
	cs := New(cp).NewSession()
	require.Equal(t, [][]value.Value{{value.TextString("kept")}}, query(t, cs, "SELECT a FROM keep"))
	require.Equal(t, []string{"ok"}, firstTexts(query(t, cs, "PRAGMA integrity_check")))
}

// TestAnalyzePlansAgain: a prepared query keeps its plan (and the table sizes in it) until the
// schema changes; ANALYZE makes it plan again.
func TestAnalyzePlansAgain(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE a(x); CREATE TABLE b(y)")
	st, err := s.Prepare("SELECT count(*) FROM a, b WHERE a.x = b.y")
	require.NoError(t, err)
	run := func() {
		rows, err := st.Query(context.Background(), nil)
		require.NoError(t, err)
		for rows.Next() {
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	run()
	first := st.plan
	mustExec(t, s, "INSERT INTO b VALUES (1)")
	run()
	require.Same(t, first, st.plan)
	cookie := query(t, s, "PRAGMA schema_version")[0][0].Int()
	mustExec(t, s, "ANALYZE")
	require.Equal(t, cookie+1, query(t, s, "PRAGMA schema_version")[0][0].Int())
	run()
	require.NotSame(t, first, st.plan)
	mustExec(t, s, "ANALYZE b; ANALYZE main")
	_, err = s.Exec(context.Background(), "ANALYZE nosuch", nil)
	require.EqualError(t, err, "no such table: nosuch")
}

// TestSchemaTablePreparedSeesChanges: a prepared query of sqlite_schema lists the objects of
// the schema it runs against.
func TestSchemaTablePreparedSeesChanges(t *testing.T) {
	s := newTestSession(t)
	st, err := s.Prepare("SELECT name FROM sqlite_schema")
	require.NoError(t, err)
	names := func() []string {
		rows, err := st.Query(context.Background(), nil)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			out = append(out, string(rows.Row()[0].Bytes()))
		}
		return out
	}
	require.Empty(t, names())
	mustExec(t, s, "CREATE TABLE t(a UNIQUE)")
	require.Equal(t, []string{"t", "sqlite_autoindex_t_1"}, names())
	mustExec(t, s, "BEGIN; CREATE VIEW v AS SELECT 1")
	require.Equal(t, []string{"t", "sqlite_autoindex_t_1", "v"}, names())
	mustExec(t, s, "ROLLBACK")
	require.Equal(t, []string{"t", "sqlite_autoindex_t_1"}, names())
	rows := query(t, s, "EXPLAIN QUERY PLAN SELECT * FROM sqlite_master")
	require.Equal(t, "SCAN sqlite_master", string(rows[0][3].Bytes()))
}

// TestFunctionList: every scalar function and aggregate is listed, with its argument counts.
func TestFunctionList(t *testing.T) {
	s := newTestSession(t)
	rows := query(t, s, "PRAGMA function_list")
	has := func(name, typ string, narg int64) bool {
		for _, r := range rows {
			if string(r[0].Bytes()) == name && string(r[2].Bytes()) == typ && r[4].Int() == narg {
				return true
			}
		}
		return false
	}
	require.True(t, has("substr", "s", 2))
	require.True(t, has("substr", "s", 3))
	require.False(t, has("substr", "s", 4))
	require.True(t, has("coalesce", "s", -1))
	require.True(t, has("count", "w", 0))
	require.True(t, has("max", "w", 1))
	require.True(t, has("row_number", "w", 0))
	require.True(t, has("lag", "w", 3))
	require.False(t, has("lag", "w", 4))
	require.True(t, has("max", "s", -1))
	for name := range scalarFuncs {
		found := false
		for _, r := range rows {
			found = found || string(r[0].Bytes()) == name
		}
		require.True(t, found, name)
	}
}

// TestPragmaTableFunctionPrepared: a prepared query of pragma_table_info takes its argument as
// a parameter and sees the schema each run reads.
func TestPragmaTableFunctionPrepared(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE a(x, y); CREATE TABLE b(z)")
	st, err := s.Prepare("SELECT group_concat(name) FROM pragma_table_info(?)")
	require.NoError(t, err)
	run := func(table string) string {
		rows, err := st.Query(context.Background(), []value.Value{value.TextString(table)})
		require.NoError(t, err)
		defer rows.Close()
		require.True(t, rows.Next())
		return string(rows.Row()[0].Bytes())
	}
	require.Equal(t, "x,y", run("a"))
	require.Equal(t, "z", run("b"))
	mustExec(t, s, "DROP TABLE b; CREATE TABLE b(p, q, r)")
	require.Equal(t, "p,q,r", run("b"))
}

// TestIntegrityCheckPartialAndTemp: a partial index has entries for the rows its WHERE admits
// only, and TEMP tables are checked too.
func TestIntegrityCheckPartialAndTemp(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t(a, b); CREATE INDEX tp ON t(a) WHERE b > 0; CREATE INDEX te ON t(a + b)")
	mustExec(t, s, "INSERT INTO t VALUES (1, 1), (2, -1), (3, 0)")
	mustExec(t, s, "CREATE TEMP TABLE tt(x UNIQUE); INSERT INTO tt VALUES (1), (2)")
	require.Equal(t, []string{"ok"}, firstTexts(query(t, s, "PRAGMA integrity_check")))
	require.Equal(t, []string{"ok"}, firstTexts(query(t, s, "PRAGMA quick_check(tt)")))
	require.Equal(t, []string{"tt", "sqlite_autoindex_tt_1"}, firstTexts(query(t, s, "SELECT name FROM sqlite_temp_master")))
}

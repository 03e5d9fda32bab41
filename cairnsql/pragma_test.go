package cairnsql_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/cairndb/cairn/cairnsql"
	"github.com/stretchr/testify/require"
)

// TestPragmasAsProgramsSendThem runs the PRAGMAs Go programs send at startup through
// database/sql, with Exec and with QueryRow, and the DSN's _pragma options.
func TestPragmasAsProgramsSendThem(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("cairn", filepath.Join(dir, "p.db")+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)&_sync=none")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(2)

	var mode string
	require.NoError(t, db.QueryRow("PRAGMA journal_mode=WAL").Scan(&mode))
	require.Equal(t, "wal", mode)
	for _, p := range []string{"PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -20000", "PRAGMA temp_store = MEMORY",
		"PRAGMA mmap_size = 268435456", "PRAGMA nosuch = 1"} {
		_, err := db.Exec(p)
		require.NoError(t, err, p)
	}
	var n int
	require.NoError(t, db.QueryRow("PRAGMA synchronous").Scan(&n))
	require.Equal(t, 0, n) // _sync=none
	// Every connection of the pool got the DSN's pragmas.
	c1, err := db.Conn(t.Context())
	require.NoError(t, err)
	c2, err := db.Conn(t.Context())
	require.NoError(t, err)
	for _, c := range []*sql.Conn{c1, c2} {
		require.NoError(t, c.QueryRowContext(t.Context(), "PRAGMA foreign_keys").Scan(&n))
		require.Equal(t, 1, n)
		require.NoError(t, c.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&n))
		require.Equal(t, 5000, n)
	}
	require.NoError(t, c1.Close())
	require.NoError(t, c2.Close())

	// user_version, as migration tools keep it.
	mustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL)", "PRAGMA user_version = 3")
	require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&n))
	require.Equal(t, 3, n)
	tx, err := db.Begin()
	require.NoError(t, err)
	_, err = tx.Exec("PRAGMA user_version = 4")
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
	require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&n))
	require.Equal(t, 3, n)

	// The schema, as tools read it.
	var cols []string
	rows, err := db.Query("PRAGMA table_info(t)")
	require.NoError(t, err)
	names, err := rows.Columns()
	require.NoError(t, err)
	require.Equal(t, []string{"cid", "name", "type", "notnull", "dflt_value", "pk"}, names)
	for rows.Next() {
		var cid, notnull, pk int
		var name, typ string
		var dflt sql.NullString
		require.NoError(t, rows.Scan(&cid, &name, &typ, &notnull, &dflt, &pk))
		cols = append(cols, name+" "+typ)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"id INTEGER", "name TEXT"}, cols)
	var sqlText string
	require.NoError(t, db.QueryRow("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", "t").Scan(&sqlText))
	require.Equal(t, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL)", sqlText)
	var ok string
	require.NoError(t, db.QueryRow("PRAGMA integrity_check").Scan(&ok))
	require.Equal(t, "ok", ok)
	_, err = db.Exec("VACUUM")
	require.NoError(t, err)
	_, err = db.Exec("ANALYZE")
	require.NoError(t, err)
}

func TestPragmaDSNError(t *testing.T) {
	db, err := sql.Open("cairn", filepath.Join(t.TempDir(), "e.db")+"?_pragma=nosuchdb.user_version")
	require.NoError(t, err)
	defer db.Close()
	require.EqualError(t, db.Ping(), `cairnsql: _pragma "nosuchdb.user_version": unknown database nosuchdb`)
}

package cairnsql_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatementCache runs the same SQL texts again across schema changes and past the cache's
// size, on one connection: a cached statement sees the schema of its run, never its first one.
func TestStatementCache(t *testing.T) {
	db, err := sql.Open("cairn", filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: every statement meets the same cache
	ctx := context.Background()
	columns := func() []string {
		rows, err := db.QueryContext(ctx, "SELECT * FROM t")
		require.NoError(t, err)
		defer rows.Close()
		cols, err := rows.Columns()
		require.NoError(t, err)
		return cols
	}
	_, err = db.Exec("CREATE TABLE t(a, b)")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, columns())
	_, err = db.Exec("DROP TABLE t; CREATE TABLE t(x, y, z)")
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y", "z"}, columns())
	insert := "INSERT INTO t VALUES (?, ?, ?)"
	for i := range 200 { // more texts than the cache holds, the insert's among them
		_, err := db.Exec(insert, i, i, i)
		require.NoError(t, err)
		var n int
		require.NoError(t, db.QueryRow(fmt.Sprintf("SELECT count(*) + %d FROM t", i)).Scan(&n))
		require.Equal(t, 2*i+1, n)
	}
	_, err = db.Exec("DROP TABLE t")
	require.NoError(t, err)
	_, err = db.Exec(insert, 1, 2, 3)
	require.EqualError(t, err, "no such table: t")
	_, err = db.Query("SELEC 1")
	require.Error(t, err)
	_, err = db.Query("SELEC 1") // a failed parse is not cached: the same error again
	require.ErrorContains(t, err, "syntax error")
}

package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

// newEngine returns an engine over a new database in a temporary directory.
func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	db, err := cairn.Open(filepath.Join(t.TempDir(), "t.db"), &cairn.Options{Sync: cairn.SyncNone})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return engine.New(db)
}

// sessionOf returns a session of eng, closed (its transaction rolled back) when t ends.
func sessionOf(t *testing.T, eng *engine.Engine) *engine.Session {
	s := eng.NewSession()
	t.Cleanup(s.Close)
	return s
}

// query runs a query in s and returns its rows as text (NULL for NULL).
func queryText(t *testing.T, s *engine.Session, sql string, args ...value.Value) ([][]string, error) {
	t.Helper()
	st, err := s.Prepare(sql)
	if err != nil {
		return nil, err
	}
	return queryStmt(t, st, args...)
}

func queryStmt(t *testing.T, st *engine.Stmt, args ...value.Value) ([][]string, error) {
	t.Helper()
	rows, err := st.Query(context.Background(), args)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var row []string
		for _, v := range rows.Row() {
			if v.IsNull() {
				row = append(row, "NULL")
			} else {
				row = append(row, string(v.AppendText(nil)))
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// planDetails returns the detail column of EXPLAIN QUERY PLAN sql.
func planDetails(t *testing.T, s *engine.Session, sql string) []string {
	t.Helper()
	rows, err := queryText(t, s, "EXPLAIN QUERY PLAN "+sql)
	require.NoError(t, err)
	var out []string
	for _, r := range rows {
		out = append(out, r[3])
	}
	return out
}

// TestPlansUseKeys checks the access paths of a point SELECT by rowid and of a join on an
// indexed column: a rowid lookup, and a SEARCH of the index on the inner side of the join (never
// a scan of it per outer row, which would make the join a cross product). The join is
// bench/sql_test.go's BenchmarkSQLJoin.
func TestPlansUseKeys(t *testing.T) {
	s := sessionOf(t, newEngine(t))
	exec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT NOT NULL);
		CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
		CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount INTEGER NOT NULL);
		CREATE INDEX orders_customer ON orders(customer_id)`)
	for _, c := range []struct {
		sql  string
		plan []string
	}{
		{`SELECT a, b FROM t WHERE id = ?`, []string{"SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"}},
		{`SELECT a, b FROM t WHERE ? = id`, []string{"SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"}},
		{`SELECT c.name, o.id, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id
			WHERE c.id BETWEEN ? AND ?`, []string{
			"SEARCH c USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
			"SEARCH o USING INDEX orders_customer (customer_id=?)",
		}},
		{`SELECT c.name, o.amount FROM orders o, customers c WHERE c.id = o.customer_id AND o.id = ?`, []string{
			"SEARCH o USING INTEGER PRIMARY KEY (rowid=?)",
			"SEARCH c USING INTEGER PRIMARY KEY (rowid=?)",
		}},
		{`SELECT count(*) FROM customers c JOIN orders o USING (id)`, []string{
			"SCAN c",
			"SEARCH o USING INTEGER PRIMARY KEY (rowid=?)",
		}},
	} {
		require.Equal(t, c.plan, planDetails(t, s, c.sql), c.sql)
	}
}

// TestSchemaAtEachVersion checks that a query sees the schema of its own snapshot when the
// schema changes between queries: a read transaction reuses the schema of the previous read at
// the same LSN, and must not reuse it at another one (a DDL commit, or a commit that is not SQL
// at all, in between), nor in a transaction that changed the schema itself.
func TestSchemaAtEachVersion(t *testing.T) {
	eng := newEngine(t)
	a, b := sessionOf(t, eng), sessionOf(t, eng)
	exec(t, a, `CREATE TABLE t(x); INSERT INTO t VALUES (1)`)
	point, err := b.Prepare(`SELECT * FROM t`)
	require.NoError(t, err)
	for range 2 { // the second read is at the same LSN
		got, err := queryStmt(t, point)
		require.NoError(t, err)
		require.Equal(t, [][]string{{"1"}}, got)
	}

	exec(t, a, `DROP TABLE t; CREATE TABLE t(x, y); INSERT INTO t VALUES (2, 3)`)
	got, err := queryStmt(t, point)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2", "3"}}, got, "the prepared query after the table changed")

	// A deferred transaction keeps its snapshot's schema while another session changes it.
	exec(t, b, `BEGIN`)
	got, err = queryText(t, b, `SELECT * FROM t`)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2", "3"}}, got)
	exec(t, a, `DROP TABLE t`)
	got, err = queryText(t, b, `SELECT * FROM t`)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2", "3"}}, got, "in the transaction begun before the DROP")
	exec(t, b, `COMMIT`)
	_, err = queryText(t, b, `SELECT * FROM t`)
	require.ErrorContains(t, err, "no such table: t")

	// A commit outside SQL moves the LSN; the schema stays the same.
	require.NoError(t, eng.DB().Update(func(tx *cairn.Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
	_, err = queryText(t, b, `SELECT * FROM t`)
	require.ErrorContains(t, err, "no such table: t")

	// A transaction that creates a table sees it before it commits; others do not.
	exec(t, a, `BEGIN; CREATE TABLE u(z); INSERT INTO u VALUES ('in a')`)
	got, err = queryText(t, a, `SELECT * FROM u`)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"in a"}}, got)
	_, err = queryText(t, b, `SELECT * FROM u`)
	require.ErrorContains(t, err, "no such table: u")
	exec(t, a, `ROLLBACK`)
	_, err = queryText(t, a, `SELECT * FROM u`)
	require.ErrorContains(t, err, "no such table: u")
	_, err = queryText(t, b, `SELECT * FROM u`)
	require.True(t, err != nil && strings.Contains(err.Error(), "no such table: u"), "after the rollback: %v", err)
}

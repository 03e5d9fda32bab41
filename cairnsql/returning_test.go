package cairnsql_test

// RETURNING, UPSERT and AUTOINCREMENT through database/sql, as programs use them: the rows of
// INSERT ... RETURNING from Query and QueryRow, with their column names and types; Exec of such a
// statement still doing its work; RowsAffected and LastInsertId of upserts; a prepared statement
// that keeps working across a schema change; a file database reopened with its sqlite_sequence.

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReturningThroughDatabaseSQL(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE todo(id INTEGER PRIMARY KEY, title TEXT NOT NULL, due DATETIME, done INTEGER DEFAULT 0)")

	// QueryRow of an INSERT ... RETURNING id: the generated id.
	var id int64
	require.NoError(t, db.QueryRow("INSERT INTO todo(title, due) VALUES (?, ?) RETURNING id", "write", "2024-05-01 12:00:00").Scan(&id))
	require.Equal(t, int64(1), id)

	// Parameters in RETURNING too.
	var tag string
	require.NoError(t, db.QueryRow("INSERT INTO todo(title) VALUES (?) RETURNING id, ?", "p", "tag").Scan(&id, &tag))
	require.Equal(t, "tag", tag)
	mustExec(t, db, "DELETE FROM todo WHERE title = 'p'")

	// Several rows, names as SQLite gives them, declared types for time.Time.
	rows, err := db.Query("INSERT INTO todo(title, due) VALUES ('a', '2024-05-02 08:00:00'), ('b', NULL) RETURNING id, title AS name, due, done * 10")
	require.NoError(t, err)
	cols, err := rows.Columns()
	require.NoError(t, err)
	require.Equal(t, []string{"id", "name", "due", "done * 10"}, cols)
	types, err := rows.ColumnTypes()
	require.NoError(t, err)
	require.Equal(t, "DATETIME", types[2].DatabaseTypeName())
	var got []int64
	var due []sql.NullTime
	for rows.Next() {
		var n int64
		var name string
		var d sql.NullTime
		var ten int64
		require.NoError(t, rows.Scan(&n, &name, &d, &ten))
		got = append(got, n)
		due = append(due, d)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.Equal(t, []int64{2, 3}, got) // no AUTOINCREMENT: the deleted rowid 2 is free again
	require.True(t, due[0].Valid)
	require.Equal(t, time.Date(2024, 5, 2, 8, 0, 0, 0, time.UTC), due[0].Time)
	require.False(t, due[1].Valid)

	// Exec of a statement with RETURNING does its work and reports it.
	res, err := db.Exec("UPDATE todo SET done = 1 WHERE id >= 2 RETURNING id")
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	require.Equal(t, 2, countWhere(t, db, "todo", "done = 1"))

	// DELETE ... RETURNING the old rows.
	var titles []string
	rows, err = db.Query("DELETE FROM todo WHERE done = 1 RETURNING title")
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		titles = append(titles, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"a", "b"}, titles)
	require.Equal(t, 1, count(t, db, "todo"))

	// An error leaves no rows and no change.
	_, err = db.Query("INSERT INTO todo(title) VALUES ('ok'), (NULL) RETURNING id")
	require.EqualError(t, err, "NOT NULL constraint failed: todo.title")
	require.Equal(t, 1, count(t, db, "todo"))
}

func TestReturningInTransaction(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER)")
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	var v int64
	require.NoError(t, tx.QueryRow("INSERT INTO kv VALUES ('a', 1) RETURNING v").Scan(&v))
	require.Equal(t, int64(1), v)
	upsert := "INSERT INTO kv VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v RETURNING v"
	require.NoError(t, tx.QueryRow(upsert, "a", 5).Scan(&v))
	require.Equal(t, int64(6), v)
	require.NoError(t, tx.Rollback())
	require.Equal(t, 0, count(t, db, "kv"))

	tx, err = db.BeginTx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, tx.QueryRow(upsert, "b", 2).Scan(&v))
	require.NoError(t, tx.QueryRow(upsert, "b", 3).Scan(&v))
	require.Equal(t, int64(5), v)
	require.NoError(t, tx.Commit())
	require.NoError(t, db.QueryRow("SELECT v FROM kv WHERE k = 'b'").Scan(&v))
	require.Equal(t, int64(5), v)
}

func TestUpsertResultCounts(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE hits(id INTEGER PRIMARY KEY, path TEXT UNIQUE, n INTEGER)")
	stmt, err := db.Prepare("INSERT INTO hits(path, n) VALUES (?, 1) ON CONFLICT(path) DO UPDATE SET n = n + 1 WHERE ?")
	require.NoError(t, err)
	defer stmt.Close()
	check := func(path string, cond bool, affected, lastID int64) {
		t.Helper()
		res, err := stmt.Exec(path, cond)
		require.NoError(t, err)
		n, _ := res.RowsAffected()
		id, _ := res.LastInsertId()
		require.Equal(t, affected, n, "rows affected")
		require.Equal(t, lastID, id, "last insert id")
	}
	check("/a", true, 1, 1)  // inserted
	check("/b", true, 1, 2)  // inserted
	check("/a", true, 1, 2)  // updated: last insert id unchanged
	check("/a", false, 0, 2) // WHERE false: nothing
	// The prepared statement plans again after a schema change.
	mustExec(t, db, "CREATE INDEX hits_n ON hits(n)")
	check("/a", true, 1, 2)
	var n int64
	require.NoError(t, db.QueryRow("SELECT n FROM hits WHERE path = '/a'").Scan(&n))
	require.Equal(t, int64(3), n)
}

func TestAutoincrementSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.db")
	db, err := sql.Open("cairn", path)
	require.NoError(t, err)
	mustExec(t, db, "CREATE TABLE ev(id INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT)",
		"INSERT INTO ev(what) VALUES ('a'), ('b'), ('c')", "DELETE FROM ev WHERE id = 3")
	require.NoError(t, db.Close())

	db, err = sql.Open("cairn", path)
	require.NoError(t, err)
	defer db.Close()
	res, err := db.Exec("INSERT INTO ev(what) VALUES ('d')")
	require.NoError(t, err)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	require.Equal(t, int64(4), id, "rowid 3 is not reused")
	var name string
	var seq int64
	require.NoError(t, db.QueryRow("SELECT name, seq FROM sqlite_sequence").Scan(&name, &seq))
	require.Equal(t, "ev", name)
	require.Equal(t, int64(4), seq)
}

// countWhere returns SELECT count(*) FROM table WHERE cond.
func countWhere(t *testing.T, db *sql.DB, table, cond string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM "+table+" WHERE "+cond).Scan(&n))
	return n
}

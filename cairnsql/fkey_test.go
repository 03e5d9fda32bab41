package cairnsql_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestForeignKeysThroughDatabaseSQL: foreign keys as a Go program meets them: the DSN's
// _pragma=foreign_keys(1) enforces them on every pooled connection, a cached prepared
// statement follows a connection's later PRAGMA foreign_keys, and a Tx.Commit that fails on a
// deferred violation ends the transaction (rolled back) so that the connection goes back to the
// pool clean.
func TestForeignKeysThroughDatabaseSQL(t *testing.T) {
	db, err := sql.Open("cairn", filepath.Join(t.TempDir(), "fk.db")+"?_pragma=foreign_keys(1)&_sync=none")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT)",
		"CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author ON DELETE CASCADE)",
		"CREATE TABLE review(book INTEGER REFERENCES book DEFERRABLE INITIALLY DEFERRED)",
		"INSERT INTO author VALUES (1, 'a')")
	ins, err := db.Prepare("INSERT INTO book VALUES (?, ?)")
	require.NoError(t, err)
	defer ins.Close()
	_, err = ins.Exec(1, 7)
	require.EqualError(t, err, "FOREIGN KEY constraint failed")
	_, err = ins.Exec(1, 1)
	require.NoError(t, err)
	mustExec(t, db, "PRAGMA foreign_keys = OFF")
	_, err = ins.Exec(2, 7) // the same connection, now off
	require.NoError(t, err)
	mustExec(t, db, "DELETE FROM book WHERE id = 2", "PRAGMA foreign_keys = ON")

	tx, err := db.Begin()
	require.NoError(t, err)
	_, err = tx.Exec("INSERT INTO review VALUES (99)")
	require.NoError(t, err)
	require.EqualError(t, tx.Commit(), "FOREIGN KEY constraint failed")
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM review").Scan(&n))
	require.Equal(t, 0, n)
	tx, err = db.Begin() // the connection is outside a transaction again
	require.NoError(t, err)
	_, err = tx.Exec("INSERT INTO review VALUES (1)")
	require.NoError(t, err)
	require.NoError(t, tx.Commit())

	// The cascade leaves a deferred violation (review 1 loses its book): outside a transaction
	// the statement is its own transaction, so it fails and is undone.
	_, err = db.Exec("DELETE FROM author WHERE id = 1")
	require.EqualError(t, err, "FOREIGN KEY constraint failed")
	require.NoError(t, db.QueryRow("SELECT count(*) FROM book").Scan(&n))
	require.Equal(t, 1, n)
	mustExec(t, db, "PRAGMA foreign_keys = OFF", "INSERT INTO review VALUES (42)", "PRAGMA foreign_keys = ON")
	var check []string
	rows, err := db.Query("PRAGMA foreign_key_check")
	require.NoError(t, err)
	for rows.Next() {
		var table, parent string
		var rowid, id int64
		require.NoError(t, rows.Scan(&table, &rowid, &parent, &id))
		check = append(check, table+">"+parent)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"review>book"}, check)
	mustExec(t, db, "DELETE FROM review")
	res, err := db.Exec("DELETE FROM author WHERE id = 1")
	require.NoError(t, err)
	affected, err := res.RowsAffected()
	require.NoError(t, err)
	require.Equal(t, int64(1), affected) // the cascaded rows do not count, as in SQLite
	require.NoError(t, db.QueryRow("SELECT count(*) FROM book").Scan(&n))
	require.Equal(t, 0, n)
}

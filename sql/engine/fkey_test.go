package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
)

// fkSchema makes a parent and a child with ON DELETE CASCADE.
const fkSchema = `CREATE TABLE p(id INTEGER PRIMARY KEY);
	CREATE TABLE c(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p ON DELETE CASCADE);
	INSERT INTO p VALUES (1), (2)`

// TestForeignKeysPerSession: PRAGMA foreign_keys belongs to the connection; two sessions of one
// engine enforce or not each by its own setting.
func TestForeignKeysPerSession(t *testing.T) {
	db, err := cairn.Open(t.Name()+".db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	eng := New(db)
	on, off := eng.NewSession(), eng.NewSession()
	defer on.Close()
	defer off.Close()
	mustExec(t, on, fkSchema)
	mustExec(t, on, "PRAGMA foreign_keys = ON")
	_, err = on.Exec(t.Context(), "INSERT INTO c VALUES (1, 9)", nil)
	require.EqualError(t, err, "FOREIGN KEY constraint failed")
	mustExec(t, off, "INSERT INTO c VALUES (1, 9)")
	require.Equal(t, [][]value.Value{{value.Int(0)}}, query(t, off, "PRAGMA foreign_keys"))
	require.Equal(t, [][]value.Value{{value.Int(1)}}, query(t, on, "PRAGMA foreign_keys"))
	// The orphan shows in foreign_key_check, whatever the setting.
	require.Equal(t, [][]value.Value{{value.TextString("c"), value.Int(1), value.TextString("p"), value.Int(0)}},
		query(t, off, "PRAGMA foreign_key_check"))
}

// TestForeignKeysPreparedStatements: a prepared statement keeps its plan across a change of
// PRAGMA foreign_keys and of the schema, and still follows the setting in force when it runs
// (the decision is made per execution, not per plan).
func TestForeignKeysPreparedStatements(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, fkSchema)
	ins, err := s.Prepare("INSERT INTO c VALUES (?, ?)")
	require.NoError(t, err)
	del, err := s.Prepare("DELETE FROM p WHERE id = ?")
	require.NoError(t, err)
	exec := func(st *Stmt, args ...int64) error {
		vals := make([]value.Value, len(args))
		for i, a := range args {
			vals[i] = value.Int(a)
		}
		_, err := st.Exec(t.Context(), vals)
		return err
	}
	require.NoError(t, exec(ins, 1, 9)) // off: anything goes
	mustExec(t, s, "PRAGMA foreign_keys = ON")
	require.EqualError(t, exec(ins, 2, 9), "FOREIGN KEY constraint failed")
	require.NoError(t, exec(ins, 2, 1))
	require.NoError(t, exec(del, 1)) // cascades to c's row 2
	require.Equal(t, [][]value.Value{{value.Int(1), value.Int(9)}}, query(t, s, "SELECT * FROM c"))
	mustExec(t, s, "PRAGMA foreign_keys = OFF")
	require.NoError(t, exec(ins, 3, 2))
	require.NoError(t, exec(del, 2)) // off: no cascade
	require.Equal(t, [][]value.Value{{value.Int(1), value.Int(9)}, {value.Int(3), value.Int(2)}},
		query(t, s, "SELECT * FROM c ORDER BY id"))
	// A new child table after the statements were prepared: the prepared DELETE sees it.
	mustExec(t, s, "PRAGMA foreign_keys = ON")
	mustExec(t, s, "INSERT INTO p VALUES (5); CREATE TABLE r(pid REFERENCES p ON DELETE RESTRICT); INSERT INTO r VALUES (5)")
	require.EqualError(t, exec(del, 5), "FOREIGN KEY constraint failed")
	mustExec(t, s, "DROP TABLE r")
	require.NoError(t, exec(del, 5))
}

// TestForeignKeysDeferredCommit: COMMIT with a deferred violation fails and leaves the
// transaction open; ROLLBACK TO forgets the violations made after the savepoint.
func TestForeignKeysDeferredCommit(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `PRAGMA foreign_keys = ON;
		CREATE TABLE p(id INTEGER PRIMARY KEY);
		CREATE TABLE c(pid INTEGER REFERENCES p DEFERRABLE INITIALLY DEFERRED)`)
	mustExec(t, s, "BEGIN; INSERT INTO c VALUES (1)")
	_, err := s.Exec(t.Context(), "COMMIT", nil)
	require.EqualError(t, err, "FOREIGN KEY constraint failed")
	require.True(t, s.inTx)
	mustExec(t, s, "SAVEPOINT a; INSERT INTO c VALUES (2); ROLLBACK TO a; RELEASE a")
	mustExec(t, s, "INSERT INTO p VALUES (1); COMMIT")
	require.False(t, s.inTx)
	require.Equal(t, [][]value.Value{{value.Int(1)}}, query(t, s, "SELECT count(*) FROM c"))
	// Outside a transaction the statement is the transaction: it fails and is undone.
	_, err = s.Exec(t.Context(), "INSERT INTO c VALUES (3)", nil)
	require.EqualError(t, err, "FOREIGN KEY constraint failed")
	require.Equal(t, [][]value.Value{{value.Int(1)}}, query(t, s, "SELECT count(*) FROM c"))
}

// TestForeignKeysChildIndex: the scan of the children of a changed parent uses an index on the
// child columns when one fits (DESC and a collation included), and finds the same rows as a
// scan.
func TestForeignKeysChildIndex(t *testing.T) {
	for _, idx := range []string{"", "CREATE INDEX ci ON c(k DESC, id)", "CREATE INDEX ci ON c(k COLLATE NOCASE)"} {
		s := newTestSession(t)
		mustExec(t, s, `PRAGMA foreign_keys = ON;
			CREATE TABLE p(k TEXT COLLATE NOCASE UNIQUE);
			CREATE TABLE c(id INTEGER PRIMARY KEY, k TEXT COLLATE NOCASE REFERENCES p(k) ON DELETE CASCADE ON UPDATE CASCADE);
			INSERT INTO p VALUES ('a'), ('b');
			INSERT INTO c VALUES (1, 'A'), (2, 'b'), (3, 'a')`)
		if idx != "" {
			mustExec(t, s, idx)
		}
		mustExec(t, s, "UPDATE p SET k = 'z' WHERE k = 'a'")
		links := s.fkCache.asParent[s.fkCache.schema.table("p")]
		require.Len(t, links, 1)
		require.Equal(t, idx != "", links[0].childIdx != nil, idx)
		require.Equal(t, [][]value.Value{{value.Int(1), value.TextString("z")}, {value.Int(2), value.TextString("b")},
			{value.Int(3), value.TextString("z")}}, query(t, s, "SELECT * FROM c ORDER BY id"), idx)
		mustExec(t, s, "DELETE FROM p WHERE k = 'Z'")
		require.Equal(t, [][]value.Value{{value.Int(2), value.TextString("b")}}, query(t, s, "SELECT * FROM c ORDER BY id"), idx)
		s.Close()
	}
}

// TestForeignKeysAttached: a session attached to its caller's transaction checks deferred
// constraints at the end of each statement (it never sees the caller's commit).
func TestForeignKeysAttached(t *testing.T) {
	db, err := cairn.Open(t.Name()+".db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	s := New(db).NewSession()
	defer s.Close()
	mustExec(t, s, `PRAGMA foreign_keys = ON;
		CREATE TABLE p(id INTEGER PRIMARY KEY);
		CREATE TABLE c(pid INTEGER REFERENCES p DEFERRABLE INITIALLY DEFERRED)`)
	tx, err := db.Begin(true)
	require.NoError(t, err)
	require.NoError(t, s.Attach(tx))
	_, err = s.Exec(t.Context(), "INSERT INTO c VALUES (1)", nil)
	require.EqualError(t, err, "FOREIGN KEY constraint failed")
	mustExec(t, s, "INSERT INTO p VALUES (1); INSERT INTO c VALUES (1)")
	require.NoError(t, tx.Commit())
	s.Detach()
	require.Equal(t, [][]value.Value{{value.Int(1)}}, query(t, s, "SELECT pid FROM c"))
}

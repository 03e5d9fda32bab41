package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/stretchr/testify/require"
)

// newAttachEngine returns an engine over a new in-memory database.
func newAttachEngine(t *testing.T) *engine.Engine {
	t.Helper()
	db, err := cairn.Open("mem.db", &cairn.Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return engine.New(db)
}

// rowsText runs a query and returns its rows rendered as text, one string per row with the values
// separated by "|" (NULL as "NULL").
func rowsText(t *testing.T, s *engine.Session, sql string) []string {
	t.Helper()
	st, err := s.Prepare(sql)
	require.NoError(t, err)
	rows, err := st.Query(context.Background(), nil)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cells []string
		for _, v := range rows.Row() {
			if v.IsNull() {
				cells = append(cells, "NULL")
			} else {
				cells = append(cells, string(v.AppendText(nil)))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	require.NoError(t, rows.Err())
	return out
}

// execOK runs statements and fails the test on an error.
func execOK(t *testing.T, s *engine.Session, sql string) {
	t.Helper()
	_, err := s.Exec(context.Background(), sql, nil)
	require.NoError(t, err, sql)
}

// TestAttachSharesTransaction runs SQL in a cairn transaction the test began and also writes a
// key in directly: the SQL rows and the key commit together, or roll back together.
func TestAttachSharesTransaction(t *testing.T) {
	eng := newAttachEngine(t)
	db := eng.DB()
	s := eng.NewSession()
	execOK(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")

	for _, commit := range []bool{false, true} {
		tx, err := db.Begin(true)
		require.NoError(t, err)
		require.NoError(t, s.Attach(tx))
		require.True(t, s.InTransaction())
		require.True(t, s.Attached())
		execOK(t, s, "INSERT INTO t VALUES(1, 'one'); CREATE TABLE u(x); INSERT INTO u VALUES(7)")
		require.NoError(t, tx.Put([]byte("k"), []byte("v")))
		// The session sees its own changes; another session sees none of them.
		require.Equal(t, []string{"1|one"}, rowsText(t, s, "SELECT * FROM t"))
		require.Equal(t, []string{"7"}, rowsText(t, s, "SELECT x FROM u"))
		other := eng.NewSession()
		require.Empty(t, rowsText(t, other, "SELECT * FROM t"))
		if commit {
			require.NoError(t, tx.Commit())
		} else {
			require.NoError(t, tx.Rollback())
		}
		s.Detach()
		require.False(t, s.InTransaction())

		var want []string
		if commit {
			want = []string{"1|one"}
		}
		require.Equal(t, want, rowsText(t, s, "SELECT * FROM t"))
		require.Equal(t, want, rowsText(t, other, "SELECT * FROM t"))
		_, err = other.Exec(context.Background(), "SELECT * FROM u", nil)
		if commit {
			require.NoError(t, err)
		} else {
			require.ErrorContains(t, err, "no such table: u")
		}
		err = db.View(func(tx *cairn.Tx) error { _, err := tx.Get([]byte("k")); return err })
		if commit {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, cairn.ErrNotFound)
		}
	}
}

// TestAttachRollbackToSavepoint rolls the attached transaction back to savepoints made before a
// CREATE TABLE and before an INSERT: with the Mark given back, the session sees the schema and
// rows of that moment, and a table created again after the rollback works.
func TestAttachRollbackToSavepoint(t *testing.T) {
	eng := newAttachEngine(t)
	db := eng.DB()
	s := eng.NewSession()
	tx, err := db.Begin(true)
	require.NoError(t, err)
	require.NoError(t, s.Attach(tx))
	execOK(t, s, "CREATE TABLE t(a)")
	sp1, err := tx.Savepoint()
	require.NoError(t, err)
	m1 := s.Mark()
	execOK(t, s, "CREATE TABLE u(b); INSERT INTO t VALUES(1)")
	sp2, err := tx.Savepoint()
	require.NoError(t, err)
	m2 := s.Mark()
	execOK(t, s, "INSERT INTO u VALUES(2); INSERT INTO t VALUES(3)")

	require.NoError(t, tx.RollbackTo(sp2))
	s.RolledBackTo(m2)
	require.Equal(t, []string{"1"}, rowsText(t, s, "SELECT a FROM t"))
	require.Empty(t, rowsText(t, s, "SELECT b FROM u"))

	require.NoError(t, tx.RollbackTo(sp1))
	s.RolledBackTo(m1)
	require.Empty(t, rowsText(t, s, "SELECT a FROM t"))
	_, err = s.Exec(context.Background(), "SELECT b FROM u", nil)
	require.ErrorContains(t, err, "no such table: u")
	execOK(t, s, "CREATE TABLE u(c, d); INSERT INTO u VALUES(4, 5)")
	require.NoError(t, tx.Commit())
	s.Detach()

	// Another session (nothing cached from the transaction) sees what was committed.
	other := eng.NewSession()
	require.Equal(t, []string{"4|5"}, rowsText(t, other, "SELECT * FROM u"))
	require.Empty(t, rowsText(t, other, "SELECT * FROM t"))
}

// TestAttachRefuses checks what an attached session refuses: transaction statements (the
// caller's to run), writes in a read-only transaction, and a second Attach. A failed statement
// undoes only its own changes and leaves the caller's transaction open.
func TestAttachRefuses(t *testing.T) {
	eng := newAttachEngine(t)
	db := eng.DB()
	s := eng.NewSession()
	execOK(t, s, "CREATE TABLE t(a UNIQUE)")

	tx, err := db.Begin(true)
	require.NoError(t, err)
	require.NoError(t, s.Attach(tx))
	require.Error(t, s.Attach(tx))
	for _, stmt := range []string{"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT a", "RELEASE a", "ROLLBACK TO a"} {
		_, err := s.Exec(context.Background(), stmt, nil)
		require.ErrorIs(t, err, engine.ErrAttached, stmt)
	}
	require.ErrorIs(t, s.Commit(), engine.ErrAttached)
	require.ErrorIs(t, s.Rollback(), engine.ErrAttached)
	execOK(t, s, "INSERT INTO t VALUES(1)")
	_, err = s.Exec(context.Background(), "INSERT INTO t VALUES(2), (1)", nil)
	require.ErrorContains(t, err, "UNIQUE constraint failed: t.a")
	require.True(t, s.InTransaction())
	require.Equal(t, []string{"1"}, rowsText(t, s, "SELECT a FROM t"))
	require.NoError(t, tx.Commit())
	s.Close() // detaches; the committed transaction is not touched again
	require.False(t, s.InTransaction())

	ro, err := db.Begin(false)
	require.NoError(t, err)
	require.NoError(t, s.Attach(ro))
	_, err = s.Exec(context.Background(), "INSERT INTO t VALUES(5)", nil)
	require.ErrorIs(t, err, engine.ErrReadOnlyTx)
	require.Equal(t, []string{"1"}, rowsText(t, s, "SELECT a FROM t"))
	require.NoError(t, ro.Rollback())
	s.Detach()
	execOK(t, s, "INSERT INTO t VALUES(5)")
	require.Equal(t, []string{"1", "5"}, rowsText(t, s, "SELECT a FROM t ORDER BY a"))

	// INSERT OR ROLLBACK ends the caller's transaction: the session detaches and says so.
	tx, err = db.Begin(true)
	require.NoError(t, err)
	require.NoError(t, s.Attach(tx))
	_, err = s.Exec(context.Background(), "INSERT OR ROLLBACK INTO t VALUES(1)", nil)
	require.Error(t, err)
	require.False(t, s.InTransaction())
	require.False(t, s.Attached())
	require.True(t, errors.Is(tx.Commit(), cairn.ErrTxClosed))
}

// TestObjects lists the schema: tables in the order of creation, each followed by its indexes,
// then the views; an attached transaction's own DDL shows, and goes with its rollback.
func TestObjects(t *testing.T) {
	eng := newAttachEngine(t)
	s := eng.NewSession()
	objects := func() []string {
		t.Helper()
		objs, err := s.Objects()
		require.NoError(t, err)
		var out []string
		for _, o := range objs {
			out = append(out, o.Type+" "+o.Name+" "+o.Table+" "+o.SQL)
		}
		return out
	}
	require.Empty(t, objects())
	execOK(t, s, "CREATE TABLE zeta(a PRIMARY KEY, b UNIQUE)")
	execOK(t, s, "CREATE TABLE alpha(x)")
	execOK(t, s, "CREATE VIEW v AS SELECT x FROM alpha")
	execOK(t, s, "CREATE INDEX zb ON zeta(b DESC)")
	execOK(t, s, "CREATE TEMP VIEW tv AS SELECT 1")
	want := []string{
		"table zeta zeta CREATE TABLE zeta(a PRIMARY KEY, b UNIQUE)",
		"index sqlite_autoindex_zeta_1 zeta ",
		"index sqlite_autoindex_zeta_2 zeta ",
		"index zb zeta CREATE INDEX zb ON zeta(b DESC)",
		"table alpha alpha CREATE TABLE alpha(x)",
		"view tv tv CREATE TEMP VIEW tv AS SELECT 1",
		"view v v CREATE VIEW v AS SELECT x FROM alpha",
	}
	require.Equal(t, want, objects())

	tx, err := eng.DB().Begin(true)
	require.NoError(t, err)
	require.NoError(t, s.Attach(tx))
	execOK(t, s, "DROP TABLE zeta; CREATE TABLE beta(y)")
	require.Equal(t, []string{
		"table alpha alpha CREATE TABLE alpha(x)",
		"table beta beta CREATE TABLE beta(y)",
		"view tv tv CREATE TEMP VIEW tv AS SELECT 1",
		"view v v CREATE VIEW v AS SELECT x FROM alpha",
	}, objects())
	require.NoError(t, tx.Rollback())
	s.Detach()
	require.Equal(t, want, objects())
}

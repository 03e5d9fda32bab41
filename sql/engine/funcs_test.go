package engine

import (
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestVersionFunctions: sqlite_version() names the SQLite release cairn follows, cairn_version()
// cairn's own.
func TestVersionFunctions(t *testing.T) {
	s := newTestSession(t)
	rows := query(t, s, "SELECT sqlite_version(), cairn_version()")
	require.Equal(t, [][]value.Value{{value.TextString(SQLiteVersion), value.TextString(cairn.Version)}}, rows)
	require.Equal(t, "3.54.1", SQLiteVersion)
}

// TestChangesPerSession: changes(), total_changes() and last_insert_rowid() belong to the
// session (SQLite's connection); statements other than INSERT, UPDATE and DELETE leave them and
// report them in their Result, as SQLite's drivers report sqlite3_changes().
func TestChangesPerSession(t *testing.T) {
	s := newTestSession(t)
	other := s.eng.NewSession()
	mustExec(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY, b)")
	res := mustExec(t, s, "INSERT INTO t(b) VALUES (1), (2), (3)")
	require.Equal(t, Result{LastInsertID: 3, RowsAffected: 3}, res)

	res = mustExec(t, s, "CREATE TABLE u(x)")
	require.Equal(t, Result{LastInsertID: 3, RowsAffected: 3}, res, "DDL reports the last write's counters")
	res = mustExec(t, s, "BEGIN")
	require.Equal(t, Result{LastInsertID: 3, RowsAffected: 3}, res)
	mustExec(t, s, "COMMIT")

	mustExec(t, other, "INSERT INTO t(a, b) VALUES (10, 0)")
	mustExec(t, s, "UPDATE t SET b = b + 1 WHERE a < 3")
	require.Equal(t, [][]value.Value{{value.Int(2), value.Int(5), value.Int(3)}},
		query(t, s, "SELECT changes(), total_changes(), last_insert_rowid()"))
	require.Equal(t, [][]value.Value{{value.Int(1), value.Int(1), value.Int(10)}},
		query(t, other, "SELECT changes(), total_changes(), last_insert_rowid()"))

	// A write that fails while it runs resets changes(); one that fails to plan leaves it.
	_, err := s.Exec(t.Context(), "UPDATE t SET nosuch = 1", nil)
	require.Error(t, err)
	require.Equal(t, [][]value.Value{{value.Int(2)}}, query(t, s, "SELECT changes()"))
	_, err = s.Exec(t.Context(), "UPDATE t SET b = abs(-9223372036854775808)", nil)
	require.EqualError(t, err, "integer overflow")
	require.Equal(t, [][]value.Value{{value.Int(0), value.Int(5)}}, query(t, s, "SELECT changes(), total_changes()"))
}

// TestLikelihoodChecksItsConstant: likelihood's second argument must be a REAL literal from 0.0
// to 1.0, checked when the statement is bound, even when no row is evaluated.
func TestLikelihoodChecksItsConstant(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t(a)")
	for _, sql := range []string{
		"SELECT likelihood(a, 2.0) FROM t",
		"SELECT likelihood(a, 1) FROM t",
		"SELECT a FROM t WHERE likelihood(a, a)",
		"SELECT likelihood(a, -0.5) FROM t",
	} {
		st, err := s.Prepare(sql)
		require.NoError(t, err)
		_, err = st.Query(t.Context(), nil)
		require.EqualError(t, err, "second argument to likelihood() must be a constant between 0.0 and 1.0", sql)
	}
	require.Empty(t, query(t, s, "SELECT likelihood(a, 0.25) FROM t"))
}

// TestSQLiteSelfFunctions checks the functions about SQLite itself: cairn has no compile
// options, and subtype reports the JSON mark.
func TestSQLiteSelfFunctions(t *testing.T) {
	s := newTestSession(t)
	require.Equal(t, [][]value.Value{{value.Int(0), {}, {}, value.Int(74), value.Int(0), value.Int(74)}},
		query(t, s, `SELECT sqlite_compileoption_used('ENABLE_JSON1'), sqlite_compileoption_used(NULL),
			sqlite_compileoption_get(0), subtype(json('[1]')), subtype('[1]'), subtype('[1]' -> '$')`))
}

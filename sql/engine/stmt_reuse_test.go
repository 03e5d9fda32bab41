package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/sql/value"
)

// TestStmtInterleavedQueries runs one prepared statement twice with its first rows still open
// (as database/sql does for two queries of one statement in a transaction, and as a statement
// cache would): the plan is shared, so its slots (an IN list's current point, a CASE operand)
// must be set and read within one step of one execution, never across steps.
func TestStmtInterleavedQueries(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, a);
		INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'), (5, 'five'), (6, 'six')`)
	st, err := s.Prepare("SELECT a, CASE ? WHEN 1 THEN 'x' ELSE 'y' END FROM t WHERE id IN (?, ?, ?)")
	require.NoError(t, err)
	args := func(c int64, ids ...int64) []value.Value {
		out := []value.Value{value.Int(c)}
		for _, id := range ids {
			out = append(out, value.Int(id))
		}
		return out
	}
	read := func(r *Rows, n int) []string {
		var out []string
		for i := 0; i < n && r.Next(); i++ {
			out = append(out, string(r.Row()[0].Bytes())+string(r.Row()[1].Bytes()))
		}
		return out
	}
	r1, err := st.Query(t.Context(), args(1, 1, 2, 3))
	require.NoError(t, err)
	defer r1.Close() // before the database closes, which waits for its readers
	first := read(r1, 1)
	r2, err := st.Query(t.Context(), args(2, 4, 5, 6))
	require.NoError(t, err)
	defer r2.Close()
	require.Equal(t, []string{"foury", "fivey"}, read(r2, 2))
	require.Equal(t, []string{"onex", "twox", "threex"}, append(first, read(r1, 10)...))
	require.Equal(t, []string{"sixy"}, read(r2, 10))
}

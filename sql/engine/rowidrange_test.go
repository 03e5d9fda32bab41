package engine

import (
	"testing"

	"github.com/cairndb/cairn/sql/value"

	"github.com/stretchr/testify/require"
)

// TestRowidRangeServesItsTerms checks the rowid ranges that take over the WHERE terms their
// bounds come from (servedBy): the results are SQLite's (modernc.org/sqlite, the same
// statements) for bounds of every class (INTEGER, REAL, numeric and other TEXT, BLOB, NULL,
// past the ends of the int64 range), and the loop (or the scan's filter) keeps exactly the terms
// the range does not serve.
func TestRowidRangeServesItsTerms(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)")
	mustExec(t, s, "INSERT INTO t VALUES(1,'a'),(2,'b'),(3,'c'),(4,'d'),(5,'e'),(-3,'n')")
	for _, c := range []struct {
		query string
		want  string // group_concat's result, "NULL" for none
		terms int    // the terms left to check on the rows of t (the first loop)
	}{
		{"WHERE id BETWEEN 2 AND 4", "2,3,4", 0},
		{"WHERE id BETWEEN 1.5 AND 4.5", "2,3,4", 0},
		{"WHERE id BETWEEN '2' AND '3'", "2,3", 0},
		{"WHERE id BETWEEN 2 AND 'x'", "2,3,4,5", 0},
		{"WHERE id BETWEEN 'x' AND 9", "NULL", 0},
		{"WHERE id BETWEEN NULL AND 9", "NULL", 0},
		{"WHERE id > 2.0 AND id < 5", "3,4", 0},
		{"WHERE id >= -3.5 AND id <= x'00'", "-3,1,2,3,4,5", 0},
		{"WHERE 3 < id", "4,5", 0},
		{"WHERE id < ' 4'", "-3,1,2,3", 0},
		{"WHERE id > '2abc'", "NULL", 0},
		{"WHERE id BETWEEN 9 AND 1", "NULL", 0},
		{"WHERE id > 9223372036854775807.0", "NULL", 0},
		{"WHERE id < -9223372036854775808.0", "NULL", 0},
		{"WHERE id <= 4 COLLATE NOCASE AND id >= 2", "2,3,4", 0},
		{"WHERE id > 1 AND id > 3", "4,5", 1}, // the range takes the first lower bound only
		{"WHERE id > 1 AND a <> 'c'", "2,4,5", 1},
		{"WHERE id NOT BETWEEN 2 AND 4", "-3,1,5", 1},
		{"WHERE (id, a) > (2, 'b')", "3,4,5", 1}, // a row value's bound is wider than its term
	} {
		q := "SELECT group_concat(id) FROM t " + c.query
		st, err := s.Prepare(q)
		require.NoError(t, err)
		rows, err := st.Query(t.Context(), nil)
		require.NoError(t, err)
		require.True(t, rows.Next(), q)
		require.Equal(t, c.want, textOrNull(rows.Row()[0]), q)
		rows.Close()
		lv := st.plan.cores[0].levels[0]
		scan, ok := lv.access.(*tableRange)
		require.True(t, ok, q)
		require.Equal(t, c.terms, len(lv.where)+len(scan.filter), q)
	}
	// A join's inner rowid range bounded by the outer row.
	got := query(t, s, "SELECT group_concat(t.id || u.id) FROM t JOIN t AS u ON u.id BETWEEN t.id AND t.id + 1 WHERE t.id < 3")
	require.Equal(t, "-3-3,11,12,22,23", textOrNull(got[0][0]))
}

// textOrNull is a TEXT value's text, or "NULL".
func textOrNull(v value.Value) string {
	if v.IsNull() {
		return "NULL"
	}
	return string(v.Bytes())
}

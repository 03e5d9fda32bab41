package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCoveringIndexes checks that a select served by a covering index (the row built from index
// entries) returns what the table scan returns, and that a column read anywhere in the query (a
// correlated subquery, ORDER BY, GROUP BY, HAVING, a join's USING) keeps an index from covering.
func TestCoveringIndexes(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT COLLATE NOCASE, c, d REAL);
		CREATE INDEX t_ab ON t(a, b);
		CREATE INDEX t_d ON t(d DESC);
		CREATE TABLE o(x, c);
		CREATE TABLE w(d REAL UNIQUE, k TEXT PRIMARY KEY, v) WITHOUT ROWID`)
	rng := rand.New(rand.NewPCG(11, 2))
	long := strings.Repeat("q", 3000)
	vals := []string{"NULL", "1", "'1'", "2.0", "'Ab'", "'aB'", "x'ff'", "'" + long + "'", "-4"}
	pick := func() string { return vals[rng.IntN(len(vals))] }
	for i := 1; i <= 150; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %s, %s, %s, %s)", i, pick(), pick(), pick(), pick()))
	}
	mustExec(t, s, "INSERT INTO o VALUES (1, 1), ('Ab', 2), (2.0, NULL)")
	mustExec(t, s, "INSERT INTO w VALUES ('5.', 'ABC', 1), (-1, 'x', 2), (NULL, 'y', 3), (2.5, 'z', NULL)")
	for _, c := range []struct {
		query   string
		covered bool
	}{
		{"SELECT a, b FROM t%s WHERE a = 1", true},
		{"SELECT id, b, a FROM t%s WHERE a > 0 AND b = 'ab'", true},
		{"SELECT rowid, a FROM t%s WHERE a IN (1, '1', 2)", true},
		{"SELECT d, id FROM t%s WHERE d < 3", true},
		{"SELECT count(*), max(b) FROM t%s WHERE a = 1", true},
		{"SELECT a, count(*) FROM t%s WHERE a >= -4 GROUP BY a HAVING count(*) > 1", true},
		{"SELECT b FROM t%s ORDER BY a, b", true},
		{"SELECT a FROM t%s WHERE a = 1 ORDER BY c", false},
		{"SELECT a FROM t%s WHERE a = 1 GROUP BY c", false},
		{"SELECT a FROM t%s WHERE a = 1 GROUP BY a HAVING max(d) > 0", false},
		{"SELECT a FROM t%s WHERE a = 1 AND EXISTS (SELECT 1 FROM o WHERE o.c = t.c)", false},
		{"SELECT a, (SELECT count(*) FROM o WHERE o.x = t.d) FROM t%s WHERE a = 1", false},
		{"SELECT a, x FROM t%s JOIN o USING (c) WHERE a = 1", false},
		{"SELECT a, x FROM o, t%s WHERE a = o.x", true},
		// A WITHOUT ROWID table's index entries end in the primary key, not a rowid.
		{"SELECT max(d) FROM w%s", true},
		{"SELECT d FROM w%s WHERE d > -5 ORDER BY d", true},
		{"SELECT d, v FROM w%s WHERE d > -5", false},
	} {
		q := fmt.Sprintf(c.query, "")
		plan := strings.Join(explainPlan(t, s, q), "\n")
		require.Equal(t, c.covered, strings.Contains(plan, "COVERING INDEX"), "%s\n%s", q, plan)
		scan := fmt.Sprintf(c.query, " NOT INDEXED")
		require.ElementsMatch(t, query(t, s, scan), query(t, s, q), q)
	}
}

// TestCountDecodesNoRow checks that a scan whose columns nothing reads skips decoding (the rows
// are counted all the same), and that reading any column, or a rowid, turns decoding back on.
func TestCountDecodesNoRow(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE t(id INTEGER PRIMARY KEY, a);
		CREATE TABLE w(k PRIMARY KEY, v) WITHOUT ROWID;
		CREATE TABLE o(x)`)
	for i := 1; i <= 100; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d); INSERT INTO w VALUES (%d, 'v')", i, i%7, i))
	}
	mustExec(t, s, "INSERT INTO o VALUES (1), (2), (3)")
	for _, c := range []struct {
		query     string
		want      int64
		noColumns bool // of the first loop
	}{
		{"SELECT count(*) FROM t", 100, true},
		{"SELECT count(*) FROM w", 100, true},
		{"SELECT count(*) FROM t, o", 300, true},
		{"SELECT count(*) FROM t WHERE 1", 100, true},
		{"SELECT count(*) FROM t WHERE a = 3", 14, false},
		{"SELECT count(rowid) FROM t", 100, false},
		{"SELECT count(*) FROM w WHERE v = 'v'", 100, false},
	} {
		st, err := s.Prepare(c.query)
		require.NoError(t, err)
		rows, err := st.Query(t.Context(), nil)
		require.NoError(t, err)
		require.True(t, rows.Next())
		require.Equal(t, c.want, rows.Row()[0].Int(), c.query)
		rows.Close()
		scan, ok := st.plan.cores[0].levels[0].access.(*tableRange)
		require.True(t, ok, c.query)
		require.Equal(t, c.noColumns, scan.noColumns, c.query)
	}
}

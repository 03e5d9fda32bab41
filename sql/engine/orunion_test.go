package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOrUnion checks that queries served by a MULTI-INDEX OR return the rows of the same query
// with the table scanned (NOT INDEXED): rows matching several disjuncts once, disjuncts that are
// IN lists, ranges and ANDs, a WITHOUT ROWID table, NULLs and mixed classes, and an OR whose
// disjuncts read an outer loop of a join.
func TestOrUnion(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT COLLATE NOCASE, c);
		CREATE INDEX t_a ON t(a);
		CREATE INDEX t_bc ON t(b, c);
		CREATE TABLE w(k TEXT PRIMARY KEY, a INTEGER, v) WITHOUT ROWID;
		CREATE INDEX w_a ON w(a);
		CREATE TABLE o(x, y)`)
	rng := rand.New(rand.NewPCG(31, 7))
	vals := []string{"NULL", "1", "2", "'2'", "2.0", "3", "'ab'", "'AB'", "x'00'", "-1"}
	pick := func() string { return vals[rng.IntN(len(vals))] }
	for i := 1; i <= 300; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %s, %s, %s)", i, pick(), pick(), pick()))
		mustExec(t, s, fmt.Sprintf("INSERT OR IGNORE INTO w VALUES ('k%d', %s, %s)", rng.IntN(400), pick(), pick()))
	}
	mustExec(t, s, "INSERT INTO o VALUES (1, 'ab'), (2, 'x'), (NULL, 3), ('2', 'AB')")
	for _, q := range []string{
		"SELECT * FROM t%s WHERE a = 1 OR id = 5",
		"SELECT * FROM t%s WHERE a = 2 OR b = 'ab' OR id BETWEEN 10 AND 20",
		"SELECT * FROM t%s WHERE a IN (1, 3) OR (b = 'AB' AND c = 2)",
		"SELECT * FROM t%s WHERE (a > 2 OR id < 4) AND c IS NOT NULL",
		"SELECT * FROM t%s WHERE a = '2' OR a = 2.0 OR a = 2",
		"SELECT * FROM t%s WHERE id = 7 OR id = 7 OR a = -1",
		"SELECT * FROM w%s WHERE a = 1 OR k = 'k5' OR k > 'k39'",
		"SELECT * FROM w%s WHERE a = 3 OR a = -1",
		"SELECT o.x, t.id FROM o, t%s WHERE t.a = o.x OR t.b = o.y",
		"SELECT o.x, t.id FROM o LEFT JOIN t%s ON t.a = o.x OR t.id = o.y",
	} {
		union := fmt.Sprintf(q, "")
		plan := strings.Join(explainPlan(t, s, union), "\n")
		require.Contains(t, plan, "MULTI-INDEX OR", union)
		scan := fmt.Sprintf(q, " NOT INDEXED")
		require.NotContains(t, strings.Join(explainPlan(t, s, scan), "\n"), "MULTI-INDEX", scan)
		got, want := query(t, s, union), query(t, s, scan)
		require.NotEmpty(t, want, scan)
		require.ElementsMatch(t, want, got, "%s\n%s", union, plan)
	}
}

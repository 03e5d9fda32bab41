package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestINListLookups checks that IN lists used as multi-point lookups return what the full scan
// returns: each row once, duplicates, NULLs and values of other types in the list, on the rowid,
// on ascending, descending and NOCASE index columns, on the second column of an index, and with
// items read from an outer loop.
func TestINListLookups(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT COLLATE NOCASE, c REAL, d);
		CREATE INDEX t_a ON t(a);
		CREATE INDEX t_b ON t(b DESC);
		CREATE INDEX t_ca ON t(c, a);
		CREATE INDEX t_d ON t(d);
		CREATE TABLE o(x, y)`)
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"ab", "AB", "Ab", "cd", "", "x y"}
	for i := 1; i <= 300; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, '%s', %d.5, %s)",
			i*3, rng.IntN(20), words[rng.IntN(len(words))], rng.IntN(5), []string{"1", "'1'", "x'01'", "NULL", "2.0"}[rng.IntN(5)]))
	}
	mustExec(t, s, "INSERT INTO o VALUES (3, 'ab'), (7, NULL), ('4', 'CD'), (9.0, 'zz')")
	lists := []string{
		"(3, 9, 3, 600, 900)", "(NULL, 6)", "('9', 12.0, 15.5, x'01')", "(-1)", "(3, '3', 3.0)",
		"('ab', 'CD', 'ab' COLLATE BINARY)", "(1, '1', x'01', 2)",
	}
	queries := []string{
		"SELECT t.* FROM t %s WHERE %s",
		"SELECT t.*, o.x FROM o, t %s WHERE %s",
		"SELECT t.* FROM t %s WHERE c IN (1.5, 3.5, 1.5) AND %s",
	}
	for _, col := range []string{"id", "a", "b", "c", "d", "t.rowid"} {
		check := func(q, list string) {
			t.Helper()
			in := fmt.Sprintf(q, "", col+" IN "+list) + " ORDER BY 1, 2, 3, 4, 5"
			// The oracle: the same condition in a shape no access path takes, on a full scan.
			scan := fmt.Sprintf(q, "NOT INDEXED", "NOT ("+col+" NOT IN "+list+")") + " ORDER BY 1, 2, 3, 4, 5"
			require.Equal(t, query(t, s, scan), query(t, s, in), in)
			require.Contains(t, strings.Join(explainPlan(t, s, in), "\n"), "SEARCH t USING ", in)
		}
		for _, list := range lists {
			for _, q := range queries {
				check(q, list)
			}
		}
		check(queries[1], "(o.x, o.y, 12)") // the items read the outer loop's row
	}
}

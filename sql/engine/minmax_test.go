package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMinMaxFromIndex checks that min() and max() read from an end of an index or of the rowid
// order return what the full scan returns: over NULLs, numbers of both classes, case variants,
// long values sharing their key prefix (ordered by hash in the index), with WHERE terms, bare
// columns, and on an empty or all-NULL table.
func TestMinMaxFromIndex(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT COLLATE NOCASE, c);
		CREATE INDEX t_a ON t(a);
		CREATE INDEX t_bd ON t(b DESC);
		CREATE INDEX t_ca ON t(c, a);
		CREATE TABLE e(x);
		CREATE INDEX e_x ON e(x);
		CREATE TABLE u(v TEXT);
		CREATE INDEX u_v ON u(v);`)
	rng := rand.New(rand.NewPCG(4, 4))
	long := strings.Repeat("m", 2100)
	vals := []string{"NULL", "NULL", "1", "1.0", "-2.5", "'k'", "'K'", "x'00'",
		"'" + long + "z'", "'" + long + "a'", "'" + long + "A'", "x'" + strings.Repeat("cd", 2100) + "'"}
	pick := func() string { return vals[rng.IntN(len(vals))] }
	for i := 1; i <= 200; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %s, %s, %d)", i*13%1009, pick(), pick(), rng.IntN(3)))
	}
	mustExec(t, s, "INSERT INTO e VALUES (NULL), (NULL)")
	for _, tail := range []string{"d", "b", "f", "a", "c", "g", "e"} {
		mustExec(t, s, fmt.Sprintf("INSERT INTO u VALUES ('%s%s'), (NULL)", long, tail))
	}
	for _, c := range []struct{ query, plan string }{
		{"SELECT min(a) FROM t%s", "SCAN t USING COVERING INDEX t_a"},
		{"SELECT max(a) FROM t%s", "SCAN t USING COVERING INDEX t_a"},
		{"SELECT min(b), max(id) FROM t%s", "SCAN t"},
		{"SELECT min(b) FROM t%s", "SCAN t USING COVERING INDEX t_bd"},
		{"SELECT max(b) FROM t%s", "SCAN t USING COVERING INDEX t_bd"},
		{"SELECT max(b COLLATE BINARY) FROM t%s", "SCAN t"},
		{"SELECT max(id), min(rowid) FROM t%s", "SCAN t"},
		{"SELECT max(id) FROM t%s", "SCAN t"},
		{"SELECT min(rowid) FROM t%s WHERE id > 500", "SEARCH t USING INTEGER PRIMARY KEY (rowid>?)"},
		{"SELECT max(a) FROM t%s WHERE c = 1", "SEARCH t USING COVERING INDEX t_ca (c=?)"},
		{"SELECT min(a) FROM t%s WHERE c = 2 AND b IS NOT NULL", "SEARCH t USING INDEX t_ca (c=?)"},
		{"SELECT max(a), a * 2 FROM t%s WHERE a < 1", "SEARCH t USING COVERING INDEX t_a (a<?)"},
		{"SELECT max(x) FROM e%s", "SCAN e USING COVERING INDEX e_x"},
		{"SELECT min(v) FROM u%s", "SCAN u USING COVERING INDEX u_v"},
		{"SELECT max(v) FROM u%s", "SCAN u USING COVERING INDEX u_v"},
		{"SELECT min(x) FROM e%s WHERE x > 1", "SEARCH e USING COVERING INDEX e_x (x>?)"},
	} {
		q := fmt.Sprintf(c.query, "")
		require.Equal(t, c.plan, explainPlan(t, s, q)[0], q)
		scan := fmt.Sprintf(c.query, " NOT INDEXED")
		require.Equal(t, query(t, s, scan), query(t, s, q), q)
	}
}

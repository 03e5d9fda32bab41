package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/sql/value"
)

// TestOrderFromAccessPath checks that queries whose ORDER BY the access path yields (no sort)
// return what the sorter returns: the same rows, and keys in the same order (rows with equal keys
// may come in any order). The data has NULLs, numbers of both classes, texts differing in case,
// and texts and blobs longer than codec.MaxKeyPart sharing their key prefix.
func TestOrderFromAccessPath(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT COLLATE NOCASE, c);
		CREATE INDEX t_a ON t(a);
		CREATE INDEX t_bc ON t(b DESC, c);
		CREATE TABLE w(k TEXT, n INTEGER, v, PRIMARY KEY(k, n)) WITHOUT ROWID;
		CREATE TABLE o(x)`)
	rng := rand.New(rand.NewPCG(3, 9))
	long := strings.Repeat("p", 2100)
	vals := []string{"NULL", "1", "1.0", "2.5", "-3", "'x'", "'X'", "'y'", "x'00'",
		"'" + long + "b'", "'" + long + "a'", "'" + long + "A'", "'" + long + "'", "x'" + strings.Repeat("ab", 2100) + "'"}
	pick := func() string { return vals[rng.IntN(len(vals))] }
	for i := 1; i <= 200; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %s, %s, %s)", i*7919%10007, pick(), pick(), pick()))
		mustExec(t, s, fmt.Sprintf("INSERT OR IGNORE INTO w VALUES (%s, %d, %s)", pick(), rng.IntN(5), pick()))
	}
	mustExec(t, s, "INSERT INTO o VALUES (1), (2)")
	for _, c := range []struct {
		cols, from, where, order string
		plan                     string // the outer loop's plan line
	}{
		{"id, a", "t", "", "id", "SCAN t"},
		{"id, a", "t", "", "id DESC", "SCAN t"},
		{"id, a", "t", "id > 2000 AND id <= 5000", "id DESC", "SEARCH t USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"},
		{"id, a, rowid", "t", "id > 2000", "rowid", "SEARCH t USING INTEGER PRIMARY KEY (rowid>?)"},
		{"id, a", "t", "", "a", "SCAN t USING COVERING INDEX t_a"},
		{"id, a", "t", "", "a DESC", "SCAN t USING COVERING INDEX t_a"},
		{"id, a", "t", "a > 1", "a DESC", "SEARCH t USING COVERING INDEX t_a (a>?)"},
		{"id, a", "t", "", "a, id", "SCAN t USING COVERING INDEX t_a"},
		{"id, a, rowid", "t", "", "a DESC, rowid DESC", "SCAN t USING COVERING INDEX t_a"},
		{"id, a", "t", "a = 1", "id DESC", "SEARCH t USING COVERING INDEX t_a (a=?)"},
		{"id, b, c", "t", "", "b DESC, c", "SCAN t USING COVERING INDEX t_bc"},
		{"id, b, c", "t", "", "b, c DESC", "SCAN t USING COVERING INDEX t_bc"},
		{"id, b, c", "t", "b = 'x'", "c", "SEARCH t USING COVERING INDEX t_bc (b=?)"},
		{"id, b, c", "t", "b = 'x'", "b, c DESC", "SEARCH t USING COVERING INDEX t_bc (b=?)"},
		{"k, n, v", "w", "", "k, n", "SCAN w"},
		{"k, n, v", "w", "", "k DESC", "SCAN w"},
		{"k, n, v", "w", "k = 'x'", "n DESC", "SEARCH w USING PRIMARY KEY (k=?)"},
		{"id, a, x", "t, o", "", "id", "SCAN t"},
		{"id, a, x", "t, o", "", "a DESC", "SCAN t USING COVERING INDEX t_a"},
	} {
		for _, limit := range []string{"", " LIMIT 7", " LIMIT 5 OFFSET 100"} {
			where := ""
			if c.where != "" {
				where = " WHERE " + c.where
			}
			q := "SELECT " + c.cols + " FROM " + c.from + where + " ORDER BY " + c.order + limit
			plan := explainPlan(t, s, q)
			require.Equal(t, c.plan, plan[0], q)
			require.NotContains(t, plan, "USE TEMP B-TREE FOR ORDER BY", q)
			sorted := "SELECT * FROM (SELECT " + c.cols + " FROM " + c.from + where + ") ORDER BY " + c.order + limit
			require.Contains(t, explainPlan(t, s, sorted), "USE TEMP B-TREE FOR ORDER BY", sorted)
			// Under LIMIT, rows with equal keys at the cut may differ: compare the keys only.
			requireSameOrder(t, query(t, s, sorted), query(t, s, q), orderColumns(c.cols, c.order), limit == "", q)
		}
	}
	// Orders the path does not yield are sorted.
	for _, q := range []string{
		"SELECT * FROM t ORDER BY a NULLS LAST",
		"SELECT * FROM t ORDER BY b COLLATE BINARY",
		"SELECT * FROM t ORDER BY b DESC, c DESC",
		"SELECT * FROM t ORDER BY a, id DESC",
		"SELECT * FROM t WHERE a IN (1, 2) ORDER BY a",
		"SELECT * FROM t, o ORDER BY x",
		"SELECT a, count(*) FROM t GROUP BY a ORDER BY a",
	} {
		require.Contains(t, explainPlan(t, s, q), "USE TEMP B-TREE FOR ORDER BY", q)
	}
}

// orderColumns returns the positions in cols (a select list of names) of the names order sorts by.
func orderColumns(cols, order string) []int {
	names := strings.Split(cols, ", ")
	var out []int
	for _, term := range strings.Split(order, ",") {
		name := strings.Fields(term)[0]
		for i, n := range names {
			if n == name || name == "rowid" && n == "id" {
				out = append(out, i)
			}
		}
	}
	return out
}

// requireSameOrder checks that the rows' ORDER BY keys (the columns keys) compare equal position
// by position (NOCASE: equal keys may differ in case) and, if sameRows, that got holds want's rows.
func requireSameOrder(t *testing.T, want, got [][]value.Value, keys []int, sameRows bool, q string) {
	t.Helper()
	require.Len(t, got, len(want), q)
	if sameRows {
		require.ElementsMatch(t, want, got, q)
	}
	for i := range want {
		for _, k := range keys {
			require.Zero(t, value.Compare(want[i][k], got[i][k], value.NoCase), "%s: row %d", q, i)
		}
	}
}

package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAutoIndexJoins checks that a join through an automatic index returns the rows of the same
// join with every table scanned (NOT INDEXED), on values that compare equal across storage
// classes and collations (1, 1.0, '1', -0.0, 'Ab', 'aB ', blobs, NULL), with columns of every
// affinity and collation, inner and LEFT joins, and an explicit COLLATE on the term.
func TestAutoIndexJoins(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE l(id INTEGER PRIMARY KEY, i INTEGER, r REAL, x TEXT, n, c TEXT COLLATE NOCASE, w TEXT COLLATE RTRIM);
		CREATE TABLE g(i INTEGER, r REAL, x TEXT, n, c TEXT COLLATE NOCASE, w TEXT COLLATE RTRIM);
		CREATE TABLE k(v PRIMARY KEY, i INTEGER) WITHOUT ROWID`)
	rng := rand.New(rand.NewPCG(23, 5))
	vals := []string{"NULL", "1", "1.0", "'1'", "'1.0'", "-0.0", "0", "2", "'Ab'", "'aB'", "'ab '", "'AB  '",
		"x'4162'", "x'31'", "9007199254740993", "9007199254740992.0", "'x'"}
	pick := func() string { return vals[rng.IntN(len(vals))] }
	for i := 1; i <= 60; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO l VALUES (%d, %s, %s, %s, %s, %s, %s)", i, pick(), pick(), pick(), pick(), pick(), pick()))
		mustExec(t, s, fmt.Sprintf("INSERT INTO g VALUES (%s, %s, %s, %s, %s, %s)", pick(), pick(), pick(), pick(), pick(), pick()))
		mustExec(t, s, fmt.Sprintf("INSERT OR IGNORE INTO k VALUES (%s, %d)", pick(), i))
	}
	cols := []string{"i", "r", "x", "n", "c", "w"}
	var queries []string
	for _, a := range cols {
		for _, b := range cols {
			queries = append(queries,
				fmt.Sprintf("SELECT l.id, g.rowid FROM l%%[1]s, g%%[1]s WHERE g.%s = l.%s", a, b),
				fmt.Sprintf("SELECT l.id, g.rowid FROM l%%[1]s LEFT JOIN g%%[1]s ON g.%s = l.%s", a, b),
				fmt.Sprintf("SELECT l.id, g.rowid FROM l%%[1]s JOIN g%%[1]s ON l.%s = g.%s COLLATE NOCASE", b, a),
				fmt.Sprintf("SELECT l.id, g.rowid FROM l%%[1]s JOIN g%%[1]s ON g.%s COLLATE RTRIM = l.%s", a, b))
		}
		queries = append(queries, fmt.Sprintf("SELECT l.id, k.i FROM l%%[1]s JOIN k%%[1]s ON k.i + 0 = l.id AND k.v = l.%s", a))
	}
	planned := 0
	for _, q := range queries {
		auto := fmt.Sprintf(q, "")
		plan := strings.Join(explainPlan(t, s, auto), "\n")
		if strings.Contains(plan, "AUTOMATIC INDEX") {
			planned++
		}
		scan := fmt.Sprintf(q, " NOT INDEXED")
		require.NotContains(t, strings.Join(explainPlan(t, s, scan), "\n"), "AUTOMATIC", scan)
		require.ElementsMatch(t, query(t, s, scan), query(t, s, auto), "%s\n%s", auto, plan)
	}
	require.Greater(t, planned, len(queries)*3/4, "joins through an automatic index")
}

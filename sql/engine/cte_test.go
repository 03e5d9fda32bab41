package engine

import (
	"context"
	"testing"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/parse"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestCTEPlans checks EXPLAIN QUERY PLAN of CTEs: a CTE is a co-routine with its name, and a
// recursive one shows its setup and recursive step as SQLite prints them.
func TestCTEPlans(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE node(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT);
		CREATE INDEX node_parent ON node(parent);
		CREATE TABLE t(a INTEGER, b TEXT)`)
	for _, c := range []struct {
		query string
		plan  []string
	}{
		{"WITH c AS (SELECT a, count(*) FROM t GROUP BY a) SELECT * FROM c",
			[]string{"CO-ROUTINE c", "SCAN t", "USE TEMP B-TREE FOR GROUP BY", "SCAN c"}},
		// SQLite's own output for this query, line for line.
		{`WITH RECURSIVE sub(id, name) AS (SELECT id, name FROM node WHERE id = 1
			UNION ALL SELECT node.id, node.name FROM node JOIN sub ON node.parent = sub.id) SELECT * FROM sub`,
			[]string{"CO-ROUTINE sub", "SETUP", "SEARCH node USING INTEGER PRIMARY KEY (rowid=?)",
				"RECURSIVE STEP", "SCAN sub", "SEARCH node USING INDEX node_parent (parent=?)", "SCAN sub"}},
		{"WITH RECURSIVE c(x) AS (SELECT a FROM t UNION ALL SELECT x+1 FROM c WHERE x < 10 ORDER BY 1) SELECT * FROM c",
			[]string{"CO-ROUTINE c", "SETUP", "SCAN t", "RECURSIVE STEP", "SCAN c", "SCAN c"}},
	} {
		require.Equal(t, c.plan, explainPlan(t, s, c.query), c.query)
	}
}

// TestRecursiveCTEIsPulled checks that a recursive CTE makes its rows as they are read: an
// endless UNION ALL recursion under LIMIT ends, the step of the last row read never runs, and
// the queue holds only the rows not yet taken (one, for a series).
func TestRecursiveCTEIsPulled(t *testing.T) {
	s := newTestSession(t)
	got := query(t, s, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 5")
	require.Equal(t, [][]value.Value{{value.Int(1)}, {value.Int(2)}, {value.Int(3)}, {value.Int(4)}, {value.Int(5)}}, got)

	// The step after x = 5 would overflow; with LIMIT 5 it never runs, with LIMIT 6 it does.
	const boom = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
		SELECT CASE WHEN x < 5 THEN x + 1 ELSE abs(-9223372036854775807 - 1) END FROM c) SELECT x FROM c LIMIT `
	require.Len(t, query(t, s, boom+"5"), 5)
	st, err := s.Prepare(boom + "6")
	require.NoError(t, err)
	rows, err := st.Query(context.Background(), nil)
	require.NoError(t, err)
	n := 0
	for rows.Next() {
		n++
	}
	require.EqualError(t, rows.Err(), "integer overflow")
	require.Equal(t, 5, n)

	// White box: the queue of a series stays at one row while 100,000 are read.
	stmts, err := parse.Parse("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
	require.NoError(t, err)
	pc := &planCtx{schema: &Schema{}}
	plan, err := planSelect(pc, stmts[0].Stmt.(*ast.Select), &scope{})
	require.NoError(t, err)
	sub := plan.cores[0].sources[0].sub
	run := &runState{cx: &execCtx{ctx: context.Background()}}
	it, err := sub.open(run, nil)
	require.NoError(t, err)
	ri := it.(*recursiveIter)
	for i := 1; i <= 100_000; i++ {
		ok, err := ri.next()
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, int64(i), ri.row()[0].Int())
		require.LessOrEqual(t, len(ri.fifo)-ri.head, 1)
		require.LessOrEqual(t, len(ri.fifo), 2048)
	}
}

// TestRecursiveCTEStopsOnCancel checks that an endless recursion whose rows are all filtered out
// ends when the statement's context does.
func TestRecursiveCTEStopsOnCancel(t *testing.T) {
	s := newTestSession(t)
	st, err := s.Prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	rows, err := st.Query(ctx, nil)
	require.NoError(t, err)
	cancel()
	require.False(t, rows.Next())
	require.ErrorIs(t, rows.Err(), context.Canceled)
}

// TestCTEStatementReuse runs a prepared recursive CTE again with other parameters and with a
// first execution's rows still open: the plan's slot for the current row is set and read within
// one step.
func TestCTEStatementReuse(t *testing.T) {
	s := newTestSession(t)
	st, err := s.Prepare("WITH RECURSIVE c(x) AS (SELECT ?1 UNION ALL SELECT x + 1 FROM c WHERE x < ?2) SELECT x FROM c")
	require.NoError(t, err)
	r1, err := st.Query(context.Background(), []value.Value{value.Int(1), value.Int(4)})
	require.NoError(t, err)
	defer r1.Close()
	require.True(t, r1.Next())
	require.Equal(t, int64(1), r1.Row()[0].Int())
	r2, err := st.Query(context.Background(), []value.Value{value.Int(10), value.Int(12)})
	require.NoError(t, err)
	var second []int64
	for r2.Next() {
		second = append(second, r2.Row()[0].Int())
	}
	require.NoError(t, r2.Err())
	require.Equal(t, []int64{10, 11, 12}, second)
	var first []int64
	for r1.Next() {
		first = append(first, r1.Row()[0].Int())
	}
	require.NoError(t, r1.Err())
	require.Equal(t, []int64{2, 3, 4}, first)
}

package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"

	"github.com/cairndb/cairn/sql/value"
)

// TestWindowOffsetsPerExecution runs one prepared statement whose frame offset is a parameter
// with two values, the first rows still open: the offsets belong to an execution, not to the
// shared plan. A NULL offset is SQLite's error.
func TestWindowOffsetsPerExecution(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2), (3), (4)`)
	st, err := s.Prepare("SELECT sum(a) OVER (ORDER BY a ROWS ? PRECEDING) FROM t ORDER BY a")
	require.NoError(t, err)
	r1, err := st.Query(t.Context(), []value.Value{value.Int(1)})
	require.NoError(t, err)
	defer r1.Close()
	require.True(t, r1.Next())
	require.Equal(t, int64(1), r1.Row()[0].Int())
	r2, err := st.Query(t.Context(), []value.Value{value.Int(2)})
	require.NoError(t, err)
	defer r2.Close()
	var got1, got2 []int64
	for r2.Next() {
		got2 = append(got2, r2.Row()[0].Int())
	}
	for r1.Next() {
		got1 = append(got1, r1.Row()[0].Int())
	}
	require.Equal(t, []int64{3, 5, 7}, got1)
	require.Equal(t, []int64{1, 3, 6, 9}, got2)

	r3, err := st.Query(t.Context(), []value.Value{{}})
	if err == nil {
		defer r3.Close()
		require.False(t, r3.Next())
		err = r3.Err()
	}
	require.EqualError(t, err, "frame starting offset must be a non-negative integer")
}

// TestWindowPlans checks EXPLAIN QUERY PLAN of windowed queries (SQLite's shape: a co-routine
// per distinct window, each with its sort) and that a query without window calls has no window
// step, so that it pays nothing for them.
func TestWindowPlans(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a INTEGER PRIMARY KEY, b)`)
	for _, c := range []struct {
		query string
		plan  []string
	}{
		{"SELECT a, sum(b) FROM t GROUP BY a ORDER BY 2", []string{"SCAN t", "USE TEMP B-TREE FOR GROUP BY", "USE TEMP B-TREE FOR ORDER BY"}},
		{"SELECT a, sum(a) OVER () FROM t", []string{"CO-ROUTINE (subquery-2)", "SCAN t", "SCAN (subquery-2)"}},
		{"SELECT a, sum(a) OVER (ORDER BY b) FROM t ORDER BY a", []string{"CO-ROUTINE (subquery-2)", "SCAN t",
			"USE TEMP B-TREE FOR ORDER BY", "SCAN (subquery-2)", "USE TEMP B-TREE FOR ORDER BY"}},
		// Three windows (lag's frame is not sum's), nested from the last used; the outer two
		// find the rows sorted by b already. SQLite 3.54 gives the same lines.
		{"SELECT a, sum(a) OVER (ORDER BY b), rank() OVER (PARTITION BY b), lag(a) OVER (ORDER BY b) FROM t", []string{
			"CO-ROUTINE (subquery-2)", "CO-ROUTINE (subquery-3)", "CO-ROUTINE (subquery-4)", "SCAN t",
			"USE TEMP B-TREE FOR ORDER BY", "SCAN (subquery-4)", "SCAN (subquery-3)", "SCAN (subquery-2)"}},
		// max's window is sum's (same keys, same default frame): two levels.
		{"SELECT a, sum(a) OVER (ORDER BY b), rank() OVER (PARTITION BY b), max(a) OVER (ORDER BY b) FROM t", []string{
			"CO-ROUTINE (subquery-2)", "CO-ROUTINE (subquery-3)", "SCAN t", "USE TEMP B-TREE FOR ORDER BY",
			"SCAN (subquery-3)", "SCAN (subquery-2)"}},
		{"SELECT a, rank() OVER (ORDER BY b DESC), sum(a) OVER (ORDER BY b) FROM t", []string{
			"CO-ROUTINE (subquery-2)", "CO-ROUTINE (subquery-3)", "SCAN t", "USE TEMP B-TREE FOR ORDER BY",
			"SCAN (subquery-3)", "USE TEMP B-TREE FOR ORDER BY", "SCAN (subquery-2)"}},
		{"SELECT b, sum(a) OVER (ORDER BY b) FROM t GROUP BY b", []string{"CO-ROUTINE (subquery-2)", "SCAN t",
			"USE TEMP B-TREE FOR GROUP BY", "USE TEMP B-TREE FOR ORDER BY", "SCAN (subquery-2)"}},
	} {
		require.Equal(t, c.plan, explainPlan(t, s, c.query), c.query)
	}
	// The windows decide the order of the rows they yield, so an ORDER BY on the rowid sorts
	// them again rather than trusting the scan's order.
	mustExec(t, s, `INSERT INTO t VALUES (1, 'y'), (2, 'x')`)
	require.Equal(t, [][]value.Value{{value.Int(1), value.Int(2)}, {value.Int(2), value.Int(1)}},
		query(t, s, "SELECT a, row_number() OVER (ORDER BY b) FROM t ORDER BY a"))
	require.Equal(t, []string{"CO-ROUTINE (subquery-2)", "SCAN t", "USE TEMP B-TREE FOR ORDER BY",
		"SCAN (subquery-2)", "USE TEMP B-TREE FOR ORDER BY"},
		explainPlan(t, s, "SELECT a, row_number() OVER (ORDER BY b) FROM t ORDER BY a"))
}

// TestWindowLargePartition computes sliding and shrinking frames over 20,000 rows (a step and an
// inverse per row, not a frame's worth) and checks every value against sums computed here.
func TestWindowLargePartition(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(i INTEGER PRIMARY KEY, v INTEGER)`)
	const n = 20000
	vals := make([]int64, n)
	st, err := s.Prepare("INSERT INTO t VALUES (?, ?)")
	require.NoError(t, err)
	mustExec(t, s, "BEGIN")
	for i := range vals {
		vals[i] = int64(i*7919%1000 - 500)
		_, err := st.Exec(t.Context(), []value.Value{value.Int(int64(i)), value.Int(vals[i])})
		require.NoError(t, err)
	}
	mustExec(t, s, "COMMIT")
	rows := query(t, s, `SELECT sum(v) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING),
		sum(v) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
		count(*) OVER (ORDER BY i RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING) FROM t ORDER BY i`)
	require.Len(t, rows, n)
	var suffix int64
	suffixes := make([]int64, n)
	for i := n - 1; i >= 0; i-- {
		suffix += vals[i]
		suffixes[i] = suffix
	}
	for i, r := range rows {
		var window int64
		for j := max(0, i-2); j <= min(n-1, i+2); j++ {
			window += vals[j]
		}
		require.Equal(t, window, r[0].Int(), "row %d", i)
		require.Equal(t, suffixes[i], r[1].Int(), "row %d", i)
		require.Equal(t, int64(min(n-1, i+5)-max(0, i-10)+1), r[2].Int(), "row %d", i)
	}
}

// BenchmarkWindow runs window queries over 10,000 rows in 100 partitions: a ranking, a running
// total (a growing frame) and a moving average (a sliding one), beside a plain sort of the same
// rows for scale.
func BenchmarkWindow(b *testing.B) {
	db, err := cairn.Open("bench.db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := New(db).NewSession()
	if _, err := s.Exec(b.Context(), `CREATE TABLE t(i INTEGER PRIMARY KEY, g INTEGER, v REAL)`, nil); err != nil {
		b.Fatal(err)
	}
	st, err := s.Prepare("INSERT INTO t VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if _, err := st.Exec(b.Context(), []value.Value{value.Int(int64(i)), value.Int(int64(i % 100)), value.Float(float64(i*31%997) / 7)}); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []struct{ name, sql string }{
		{"sort", "SELECT i, g, v FROM t ORDER BY g, v DESC"}, // the same sort, without windows
		{"rank", "SELECT i, rank() OVER (PARTITION BY g ORDER BY v DESC) FROM t"},
		{"running", "SELECT i, sum(v) OVER (PARTITION BY g ORDER BY i) FROM t"},
		{"moving", "SELECT i, avg(v) OVER (PARTITION BY g ORDER BY i ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM t"},
	} {
		b.Run(q.name, func(b *testing.B) {
			st, err := s.Prepare(q.sql)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				rows, err := st.Query(b.Context(), nil)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				rows.Close()
				if n != 10000 {
					b.Fatalf("%d rows", n)
				}
			}
		})
	}
}

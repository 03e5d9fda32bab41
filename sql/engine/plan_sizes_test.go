package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/sql/value"
)

// TestPlansUseTableSizes checks that the join order follows the tables' sizes (EstimatedKeys of
// their buckets): with every table alike (empty), scanning the largest table and looking its
// parents up by rowid looks cheapest, as it would with SQLite's default estimates; with 2,000
// customers, 20,000 orders and 40,000 items the planner starts from the customers' rowid range
// and searches the indexes, as SQLite does on the real tables.
func TestPlansUseTableSizes(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE c(id INTEGER PRIMARY KEY, name TEXT);
		CREATE TABLE o(id INTEGER PRIMARY KEY, c_id INTEGER, amount INTEGER);
		CREATE INDEX o_c ON o(c_id);
		CREATE TABLE i(id INTEGER PRIMARY KEY, o_id INTEGER, sku TEXT);
		CREATE INDEX i_o ON i(o_id)`)
	q := `SELECT c.name, o.amount, i.sku FROM c JOIN o ON o.c_id = c.id JOIN i ON i.o_id = o.id
		WHERE c.id BETWEEN 10 AND 20`
	require.Equal(t, []string{"SCAN i", "SEARCH o USING INTEGER PRIMARY KEY (rowid=?)",
		"SEARCH c USING INTEGER PRIMARY KEY (rowid=?)"}, explainPlan(t, s, q), "empty tables")

	ctx := context.Background()
	mustExec(t, s, "BEGIN")
	load := func(sql string, n int, row func(i int64) []value.Value) {
		st, err := s.Prepare(sql)
		require.NoError(t, err)
		for i := int64(1); i <= int64(n); i++ {
			_, err := st.Exec(ctx, row(i))
			require.NoError(t, err)
		}
	}
	load("INSERT INTO c VALUES (?, 'c')", 2_000, func(i int64) []value.Value { return []value.Value{value.Int(i)} })
	load("INSERT INTO o VALUES (?, ?, 5)", 20_000, func(i int64) []value.Value {
		return []value.Value{value.Int(i), value.Int(i%2_000 + 1)}
	})
	load("INSERT INTO i VALUES (?, ?, 'x')", 40_000, func(i int64) []value.Value {
		return []value.Value{value.Int(i), value.Int(i%20_000 + 1)}
	})
	mustExec(t, s, "COMMIT")
	require.Equal(t, []string{"SEARCH c USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
		"SEARCH o USING INDEX o_c (c_id=?)", "SEARCH i USING INDEX i_o (o_id=?)"}, explainPlan(t, s, q))
	require.Len(t, query(t, s, q), 11*10*2)
}

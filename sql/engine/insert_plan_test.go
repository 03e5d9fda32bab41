package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/sql/value"
)

// TestInsertPlanFollowsSchema checks that a prepared INSERT keeps its plan while the schema
// stays and plans again when it changes: a table dropped and made again with other defaults and
// CHECK constraints, a table dropped, DDL inside a transaction and its rollback.
func TestInsertPlanFollowsSchema(t *testing.T) {
	s := newTestSession(t)
	ctx := context.Background()
	mustExec(t, s, "CREATE TABLE t(a, b DEFAULT 7)")
	st, err := s.Prepare("INSERT INTO t(a) VALUES (?)")
	require.NoError(t, err)
	ins := func(v int64) error {
		_, err := st.Exec(ctx, []value.Value{value.Int(v)})
		return err
	}
	rowsOf := func() string {
		out := ""
		for _, r := range query(t, s, "SELECT a, b FROM t ORDER BY rowid") {
			out += r[0].String() + ":" + r[1].String() + " "
		}
		return out
	}

	require.NoError(t, ins(1))
	plan := st.ins
	require.NotNil(t, plan)
	require.NoError(t, ins(2))
	require.Same(t, plan, st.ins, "the same schema reuses the plan")
	require.Equal(t, "1:7 2:7 ", rowsOf())

	mustExec(t, s, "DROP TABLE t; CREATE TABLE t(x, a, b DEFAULT 9, CHECK (a < 100))")
	require.NoError(t, ins(3))
	require.NotSame(t, plan, st.ins)
	require.ErrorContains(t, ins(300), "CHECK constraint failed")
	require.Equal(t, "3:9 ", rowsOf())

	mustExec(t, s, "BEGIN; DROP TABLE t; CREATE TABLE t(a, b DEFAULT 'in tx')")
	require.NoError(t, ins(4))
	require.Equal(t, "4:'in tx' ", rowsOf())
	mustExec(t, s, "ROLLBACK")
	require.NoError(t, ins(5))
	require.ErrorContains(t, ins(500), "CHECK constraint failed")
	require.Equal(t, "3:9 5:9 ", rowsOf())

	mustExec(t, s, "DROP TABLE t")
	require.ErrorContains(t, ins(6), "no such table: t")
	mustExec(t, s, "CREATE VIEW t AS SELECT 1")
	require.ErrorContains(t, ins(7), "cannot modify t because it is a view")
}

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

// TestUpdateDeletePlansFollowSchema checks that prepared UPDATE and DELETE statements keep their
// plans while the schema stays and plan again when the table is made again with its columns in
// another order, another CHECK, and in a rolled-back transaction.
func TestUpdateDeletePlansFollowSchema(t *testing.T) {
	s := newTestSession(t)
	ctx := context.Background()
	mustExec(t, s, "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b); INSERT INTO t VALUES (1, 'a1', 'b1'), (2, 'a2', 'b2')")
	upd, err := s.Prepare("UPDATE t SET a = ? WHERE id = ?")
	require.NoError(t, err)
	del, err := s.Prepare("DELETE FROM t WHERE b = ?")
	require.NoError(t, err)
	update := func(a string, id int64) error {
		_, err := upd.Exec(ctx, []value.Value{value.TextString(a), value.Int(id)})
		return err
	}
	remove := func(b string) error {
		_, err := del.Exec(ctx, []value.Value{value.TextString(b)})
		return err
	}
	rowsOf := func() string {
		out := ""
		for _, r := range query(t, s, "SELECT id, a, b FROM t ORDER BY id") {
			out += r[0].String() + r[1].String() + r[2].String() + " "
		}
		return out
	}
	require.NoError(t, update("x", 1))
	plan := upd.dml
	require.NoError(t, update("y", 2))
	require.Same(t, plan, upd.dml, "the same schema reuses the plan")
	require.NoError(t, remove("b2"))
	require.Equal(t, "1'x''b1' ", rowsOf())

	mustExec(t, s, `DROP TABLE t; CREATE TABLE t(b, a CHECK (a <> 'bad'), id INTEGER PRIMARY KEY);
		INSERT INTO t VALUES ('b3', 'a3', 3), ('b4', 'a4', 4)`)
	require.NoError(t, update("z", 3))
	require.NotSame(t, plan, upd.dml)
	require.ErrorContains(t, update("bad", 4), "CHECK constraint failed")
	require.NoError(t, remove("b4"))
	require.Equal(t, "3'z''b3' ", rowsOf())

	mustExec(t, s, "BEGIN; DROP TABLE t; CREATE TABLE t(id INTEGER PRIMARY KEY, a, b); INSERT INTO t VALUES (5, 'a5', 'b5')")
	require.NoError(t, update("w", 5))
	require.Equal(t, "5'w''b5' ", rowsOf())
	mustExec(t, s, "ROLLBACK")
	require.NoError(t, update("v", 3))
	require.ErrorContains(t, update("bad", 3), "CHECK constraint failed")
	require.Equal(t, "3'v''b3' ", rowsOf())
	mustExec(t, s, "DROP TABLE t")
	require.ErrorContains(t, update("u", 3), "no such table: t")
	require.ErrorContains(t, remove("b3"), "no such table: t")
}

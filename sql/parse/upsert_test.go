package parse

import (
	"testing"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/stretchr/testify/require"
)

func TestUpsertAndReturningConverted(t *testing.T) {
	st := one(t, "INSERT INTO t AS o(a, b) VALUES (1, 2) ON CONFLICT(a COLLATE nocase, b DESC) WHERE b > 0 "+
		"DO UPDATE SET b = excluded.b WHERE o.b < 10 ON CONFLICT DO NOTHING RETURNING *, a AS x").Stmt.(*ast.Insert)
	require.Equal(t, "o", st.Alias)
	require.Len(t, st.Upserts, 2)
	u := st.Upserts[0]
	for i := range u.Target {
		u.Target[i].At = 0
	}
	require.Equal(t, []ast.IndexedColumn{{Name: "a", Collation: "nocase"}, {Name: "b", Desc: true}}, u.Target)
	require.NotNil(t, u.TargetWhere)
	require.False(t, u.DoNothing)
	require.Len(t, u.Set, 1)
	require.Equal(t, []string{"b"}, u.Set[0].Columns)
	ref := u.Set[0].Expr.(*ast.ColumnRef)
	require.Equal(t, "excluded", ref.Table)
	require.Equal(t, "b", ref.Column)
	require.NotNil(t, u.Where)
	require.True(t, st.Upserts[1].DoNothing)
	require.Nil(t, st.Upserts[1].Target)
	require.Len(t, st.Returning, 2)
	require.True(t, st.Returning[0].Star)
	require.Equal(t, "x", st.Returning[1].Alias)

	up := one(t, "UPDATE t SET a = 1 RETURNING a + 1").Stmt.(*ast.Update)
	require.Equal(t, "a + 1", up.Returning[0].Text)
	del := one(t, "DELETE FROM t RETURNING t.*").Stmt.(*ast.Delete)
	require.Equal(t, "t", del.Returning[0].Table) // the engine refuses TABLE.* with SQLite's words
}

// SQLite's grammar: only the last ON CONFLICT may omit its target; an INSERT ... SELECT whose
// SELECT ends with a FROM needs a WHERE before ON CONFLICT (else ON starts a join constraint);
// DEFAULT VALUES takes no upsert; SET names columns of the table, not excluded.
func TestUpsertSyntaxErrors(t *testing.T) {
	for sql, msg := range map[string]string{
		"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING ON CONFLICT(a) DO NOTHING": `1:49: near "ON": syntax error`,
		"INSERT INTO t SELECT * FROM s ON CONFLICT(a) DO NOTHING":                   `1:46: near "DO": syntax error`,
		"INSERT INTO t DEFAULT VALUES ON CONFLICT DO NOTHING":                       `1:30: near "ON": syntax error`,
		"INSERT INTO t VALUES (1) ON CONFLICT(a) DO UPDATE SET excluded.a = 1":      `1:63: near ".": syntax error`,
	} {
		_, err := Parse(sql)
		require.EqualError(t, err, msg, sql)
	}
	one(t, "INSERT INTO t SELECT * FROM s WHERE true ON CONFLICT(a) DO NOTHING")
	_, err := Parse("INSERT INTO t VALUES (1) ON CONFLICT(a + 1) DO NOTHING")
	require.EqualError(t, err, "1:38: unsupported: an expression as ON CONFLICT target")
	require.ErrorIs(t, err, ErrUnsupported)
}

func TestRowValuesInSet(t *testing.T) {
	up := one(t, "UPDATE t SET (a, b) = (b, a + 1), c = 2").Stmt.(*ast.Update)
	require.Len(t, up.Set, 3)
	require.Equal(t, []string{"a"}, up.Set[0].Columns)
	require.Equal(t, []string{"b"}, up.Set[1].Columns)
	require.Equal(t, "b", up.Set[0].Expr.(*ast.ColumnRef).Column)
	for sql, msg := range map[string]string{
		"UPDATE t SET (a, b) = (1, 2, 3)": "1:14: 2 columns assigned 3 values",
		"UPDATE t SET (a, b) = 5":         "1:14: 2 columns assigned 1 values",
	} {
		_, err := Parse(sql)
		require.EqualError(t, err, msg, sql)
	}
	// (a, b) = (SELECT ...): TestRowValuesAndAggregateOrder.
}

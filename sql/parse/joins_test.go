package parse

import (
	"testing"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/stretchr/testify/require"
)

func TestOuterJoinKinds(t *testing.T) {
	for sql, want := range map[string]ast.JoinKind{
		"SELECT * FROM a RIGHT JOIN b ON 1":       ast.JoinRight,
		"SELECT * FROM a RIGHT OUTER JOIN b ON 1": ast.JoinRight,
		"SELECT * FROM a FULL JOIN b ON 1":        ast.JoinFull,
		"SELECT * FROM a FULL OUTER JOIN b ON 1":  ast.JoinFull,
		"SELECT * FROM a NATURAL FULL JOIN b":     ast.JoinFull,
		"SELECT * FROM a LEFT JOIN b ON 1":        ast.JoinLeft,
	} {
		sel := one(t, sql).Stmt.(*ast.Select)
		require.Equal(t, want, sel.Cores[0].From[1].Join, sql)
	}
}

// A parenthesised join joined by an inner join is flattened, its ON given to its first item.
func TestParenthesisedJoinFlattens(t *testing.T) {
	sel := one(t, "SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x").Stmt.(*ast.Select)
	from := sel.Cores[0].From
	require.Len(t, from, 3)
	require.Equal(t, []string{"a", "b", "c"}, []string{from[0].Table, from[1].Table, from[2].Table})
	require.Equal(t, ast.JoinInner, from[1].Join)
	require.NotNil(t, from[1].On)
	require.NotNil(t, from[2].On)
}

func TestUpdateFromParses(t *testing.T) {
	up := one(t, "UPDATE t SET a = s.b FROM s JOIN u ON u.k = s.k WHERE s.k = t.k").Stmt.(*ast.Update)
	require.Len(t, up.From, 2)
	require.Equal(t, ast.JoinInner, up.From[0].Join) // joins the target as a comma does
	require.Equal(t, "s", up.From[0].Table)
}

func TestOuterJoinRefusals(t *testing.T) {
	for sql, msg := range map[string]string{
		"SELECT * FROM a LEFT JOIN (b JOIN c ON 1) ON 1":  "1:17: unsupported: a parenthesised join as the right side of an outer join, USING or NATURAL",
		"SELECT * FROM a JOIN (b JOIN c ON 1) USING (x)":  "1:17: unsupported: a parenthesised join as the right side of an outer join, USING or NATURAL",
		"SELECT * FROM a JOIN (b RIGHT JOIN c ON 1) ON 1": "1:17: unsupported: a RIGHT or FULL join inside a parenthesised join on the right side of a join",
	} {
		_, err := Parse(sql)
		require.EqualError(t, err, msg, sql)
		require.ErrorIs(t, err, ErrUnsupported, sql)
	}
	// SQLite as built without SQLITE_ENABLE_UPDATE_DELETE_LIMIT: a syntax error.
	_, err := Parse("DELETE FROM t ORDER BY a LIMIT 1")
	require.EqualError(t, err, `1:15: near "ORDER": syntax error`)
	_, err = Parse("SELECT * FROM a NATURAL JOIN b ON 1")
	require.EqualError(t, err, "1:17: a NATURAL join may not have an ON or USING clause")
}

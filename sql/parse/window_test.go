package parse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/sql/ast"
)

// TestWindowsConvert checks that OVER, FILTER and WINDOW arrive in the tree as written: the
// frame with its bounds and exclusion, a frame with one bound ending at CURRENT ROW, a named
// window and its uses, and the text of the keys (without direction) that tells windows apart.
func TestWindowsConvert(t *testing.T) {
	sel := one(t, `SELECT sum(a) FILTER (WHERE a > 1) OVER (PARTITION BY b ORDER BY c DESC
		GROUPS BETWEEN 2 PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES),
		rank() OVER w, lag(a) OVER (w ROWS 3 PRECEDING)
		FROM t WINDOW w AS (ORDER BY a)`).Stmt.(*ast.Select)
	core := sel.Cores[0]
	sum := core.Columns[0].Expr.(*ast.Call)
	require.NotNil(t, sum.Filter)
	w := sum.Over
	require.Equal(t, []string{"b"}, w.PartitionText)
	require.Equal(t, []string{"c"}, w.OrderText)
	require.True(t, w.OrderBy[0].Desc)
	require.Equal(t, &ast.Frame{Unit: ast.FrameGroups,
		Start:   ast.FrameBound{Kind: ast.Preceding, Expr: w.Frame.Start.Expr},
		End:     ast.FrameBound{Kind: ast.UnboundedFollowing},
		Exclude: ast.ExcludeTies}, w.Frame)
	require.Equal(t, int64(2), w.Frame.Start.Expr.(*ast.Literal).Value.Int())

	rank := core.Columns[1].Expr.(*ast.Call).Over
	require.True(t, rank.NameOnly)
	require.Equal(t, "w", rank.Base)

	lag := core.Columns[2].Expr.(*ast.Call).Over
	require.False(t, lag.NameOnly)
	require.Equal(t, "w", lag.Base)
	require.Equal(t, ast.FrameRows, lag.Frame.Unit)
	require.Equal(t, ast.CurrentRow, lag.Frame.End.Kind)

	require.Len(t, core.Windows, 1)
	require.Equal(t, "w", core.Windows[0].Name)
	require.Equal(t, []string{"a"}, core.Windows[0].Window.OrderText)
}

package parse

import (
	"testing"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/stretchr/testify/require"
)

func TestWithClauseIsConverted(t *testing.T) {
	s := one(t, "WITH RECURSIVE a(x, y) AS MATERIALIZED (SELECT 1, 2), b AS NOT MATERIALIZED (SELECT 3) SELECT * FROM a, b")
	w := s.Stmt.(*ast.Select).With
	require.NotNil(t, w)
	require.True(t, w.Recursive)
	require.Len(t, w.CTEs, 2)
	require.Equal(t, "a", w.CTEs[0].Name)
	require.Equal(t, []string{"x", "y"}, w.CTEs[0].Columns)
	require.Equal(t, ast.MaterializedYes, w.CTEs[0].Materialized)
	require.Len(t, w.CTEs[0].Select.Cores[0].Columns, 2)
	require.Nil(t, w.CTEs[1].Columns)
	require.Equal(t, ast.MaterializedNo, w.CTEs[1].Materialized)

	for sql, check := range map[string]func(ast.Stmt) *ast.With{
		"WITH c AS (SELECT 1) INSERT INTO t SELECT * FROM c":      func(s ast.Stmt) *ast.With { return s.(*ast.Insert).With },
		"WITH c AS (SELECT 1) UPDATE t SET a = (SELECT * FROM c)": func(s ast.Stmt) *ast.With { return s.(*ast.Update).With },
		"WITH c AS (SELECT 1) DELETE FROM t WHERE a IN c":         func(s ast.Stmt) *ast.With { return s.(*ast.Delete).With },
		"INSERT INTO t WITH c AS (SELECT 1) SELECT * FROM c":      func(s ast.Stmt) *ast.With { return s.(*ast.Insert).Select.With },
		"SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c)":    func(s ast.Stmt) *ast.With { return s.(*ast.Select).Cores[0].From[0].Subquery.With },
		"SELECT (WITH c(x) AS (SELECT 1) SELECT x FROM c)": func(s ast.Stmt) *ast.With {
			return s.(*ast.Select).Cores[0].Columns[0].Expr.(*ast.Subquery).Select.With
		},
	} {
		w := check(one(t, sql).Stmt)
		require.NotNil(t, w, sql)
		require.Equal(t, "c", w.CTEs[0].Name, sql)
	}
}

package parse

import (
	"errors"
	"math"
	"testing"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

func one(t *testing.T, sql string) Statement {
	t.Helper()
	stmts, err := Parse(sql)
	require.NoError(t, err)
	require.Len(t, stmts, 1)
	return stmts[0]
}

func TestSyntaxErrorNamesThePosition(t *testing.T) {
	_, err := Parse("SELECT FROM t")
	require.EqualError(t, err, `1:8: near "FROM": syntax error`)
	var perr *Error
	require.ErrorAs(t, err, &perr)
	require.Equal(t, 7, perr.Offset)
	require.False(t, errors.Is(err, ErrUnsupported))
}

func TestUnsupportedIsNamed(t *testing.T) {
	for sql, msg := range map[string]string{
		"SELECT 'a' REGEXP 'b'": "1:8: unsupported: REGEXP",
		"CREATE TRIGGER aux.tr AFTER INSERT ON t BEGIN SELECT 1; END": "1:16: unsupported: database aux (only main and temp)",
	} {
		_, err := Parse(sql)
		require.EqualError(t, err, msg, sql)
		require.ErrorIs(t, err, ErrUnsupported, sql)
	}
}

// TestRowValuesAndAggregateOrder checks the trees of a row-value comparison, a row subquery in
// SET and an aggregate's ORDER BY.
func TestRowValuesAndAggregateOrder(t *testing.T) {
	sel := one(t, "SELECT (a, b) > (1, ?) FROM t").Stmt.(*ast.Select)
	bin := sel.Cores[0].Columns[0].Expr.(*ast.Binary)
	require.Equal(t, ast.Gt, bin.Op)
	require.Len(t, bin.X.(*ast.RowValue).Items, 2)
	require.Len(t, bin.Y.(*ast.RowValue).Items, 2)

	up := one(t, "UPDATE t SET (a, b) = (SELECT x, y FROM u)").Stmt.(*ast.Update)
	require.Len(t, up.Set, 2)
	c0, c1 := up.Set[0].Expr.(*ast.RowColumn), up.Set[1].Expr.(*ast.RowColumn)
	require.Same(t, c0.Select, c1.Select)
	require.Equal(t, []int{0, 1, 2, 2}, []int{c0.Index, c1.Index, c0.Width, c1.Width})

	sel = one(t, "SELECT group_concat(x, ',' ORDER BY y DESC, z NULLS LAST) FROM t").Stmt.(*ast.Select)
	call := sel.Cores[0].Columns[0].Expr.(*ast.Call)
	require.Len(t, call.Args, 2)
	require.Len(t, call.OrderBy, 2)
	require.True(t, call.OrderBy[0].Desc)
	require.True(t, call.OrderBy[1].NullsLast)
}

func TestLiterals(t *testing.T) {
	s := one(t, "SELECT -9223372036854775808, 9223372036854775808, 0x10, -0x10, 1.5e3, 'it''s', x'0aFF', NULL")
	sel := s.Stmt.(*ast.Select)
	want := []value.Value{value.Int(math.MinInt64), value.Float(9223372036854775808), value.Int(16),
		value.Int(-16), value.Float(1500), value.TextString("it's"), value.BlobBytes([]byte{0x0a, 0xff}), value.NullValue()}
	require.Len(t, sel.Cores[0].Columns, len(want))
	for i, w := range want {
		lit, ok := sel.Cores[0].Columns[i].Expr.(*ast.Literal)
		require.True(t, ok, "column %d is %T", i, sel.Cores[0].Columns[i].Expr)
		require.Equal(t, w.Kind(), lit.Value.Kind(), "column %d", i)
		require.Zero(t, value.Compare(w, lit.Value, value.Binary), "column %d: %v", i, lit.Value)
	}
}

func TestParamsAreNumberedAsSQLite(t *testing.T) {
	s := one(t, "SELECT ?, :a, ?5, @b, :a, ?, $c")
	require.Equal(t, 8, s.Params)
	require.Equal(t, map[string]int{":a": 2, "@b": 6, "$c": 8}, s.Names)
	var got []int
	for _, c := range s.Stmt.(*ast.Select).Cores[0].Columns {
		got = append(got, c.Expr.(*ast.Param).Index)
	}
	require.Equal(t, []int{1, 2, 5, 6, 2, 7, 8}, got)
}

func TestCompoundOrderByBelongsToTheWhole(t *testing.T) {
	s := one(t, "SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 DESC LIMIT 2 OFFSET 1")
	sel := s.Stmt.(*ast.Select)
	require.Len(t, sel.Cores, 2)
	require.Equal(t, []ast.CompoundOp{ast.UnionAll}, sel.Ops)
	require.Len(t, sel.OrderBy, 1)
	require.True(t, sel.OrderBy[0].Desc)
	require.NotNil(t, sel.Limit)
	require.NotNil(t, sel.Offset)

	_, err := Parse("SELECT a FROM t ORDER BY a UNION SELECT b FROM u")
	require.ErrorContains(t, err, "ORDER BY clause should come after UNION not before")
}

func TestCreateTableKeepsItsText(t *testing.T) {
	sql := "CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x' COLLATE NOCASE, c UNIQUE, CHECK (a > 0))"
	s := one(t, sql+";")
	ct := s.Stmt.(*ast.CreateTable)
	require.Equal(t, sql, ct.SQL)
	require.Equal(t, "t1", ct.Name)
	require.Len(t, ct.Columns, 3)
	require.True(t, ct.Columns[0].PrimaryKey)
	require.Equal(t, "INTEGER", ct.Columns[0].Type)
	require.True(t, ct.Columns[1].NotNull)
	require.Equal(t, "NOCASE", ct.Columns[1].Collation)
	require.NotNil(t, ct.Columns[1].Default)
	require.True(t, ct.Columns[2].Unique)
	require.Len(t, ct.Constraints, 1)
	require.Equal(t, ast.CheckConstraint, ct.Constraints[0].Kind)
}

func TestSeveralStatements(t *testing.T) {
	stmts, err := Parse("BEGIN; INSERT INTO t VALUES (1, 'a'), (2, 'b'); COMMIT")
	require.NoError(t, err)
	require.Len(t, stmts, 3)
	require.IsType(t, &ast.Begin{}, stmts[0].Stmt)
	ins := stmts[1].Stmt.(*ast.Insert)
	require.Len(t, ins.Select.Cores[0].Values, 2)
	require.Equal(t, "INSERT INTO t VALUES (1, 'a'), (2, 'b')", stmts[1].Text)
	require.IsType(t, &ast.Commit{}, stmts[2].Stmt)
}

func TestColumnTypeIsTheTextAsWritten(t *testing.T) {
	for _, tc := range []struct{ decl, want string }{
		{"INTEGER", "INTEGER"},
		{"integer(10)", "integer(10)"},
		{"varchar( 10 )", "varchar( 10 )"},
		{"unsigned  big int", "unsigned  big int"},
		{"DECIMAL(10, -5)", "DECIMAL(10, -5)"},
		{`"text"`, "text"},
		{"[my type]", "my type"},
		{"`blob`", "blob"},
	} {
		s := one(t, "CREATE TABLE t(a "+tc.decl+" NOT NULL, b)")
		ct := s.Stmt.(*ast.CreateTable)
		require.Equal(t, tc.want, ct.Columns[0].Type, "%s", tc.decl)
		require.Equal(t, "", ct.Columns[1].Type)
	}
}

func TestParamNumbersAreBounded(t *testing.T) {
	for _, sql := range []string{"SELECT ?0", "SELECT ?32767", "SELECT ?99999999999999999999", "SELECT ?32766, ?"} {
		_, err := Parse(sql)
		require.ErrorContains(t, err, "variable number must be between ?1 and ?32766", sql)
	}
	s := one(t, "SELECT ?32766")
	require.Equal(t, 32766, s.Params)
}

// TestNotBeforeNotNull: SQLite's NOT is right-associative and "expr NOT NULL" takes NOT's
// precedence, so NOT x NOT NULL is NOT (x NOT NULL) (SQLite 3.54.1: SELECT NOT 5 NOT NULL is 0).
// meyer v0.1.2 groups it as (NOT x) NOT NULL; the adapter regroups.
func TestNotBeforeNotNull(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT NOT 5 NOT NULL":          "NOT((5 NOTNULL))",
		"SELECT NOT NOT 5 NOT NULL":      "NOT(NOT((5 NOTNULL)))",
		"SELECT NOT a = b NOT NULL":      "NOT(((a = b) NOTNULL))",
		"SELECT x AND NOT y NOT NULL":    "(x AND NOT((y NOTNULL)))",
		"SELECT (NOT 5) NOT NULL":        "(NOT(5) NOTNULL)",
		"SELECT NOT 5 ISNULL":            "NOT((5 ISNULL))",
		"SELECT NOT (5 NOT NULL) = 1":    "NOT(((5 NOTNULL) = 1))",
		"SELECT - 5 NOT NULL":            "(-5 NOTNULL)",
		"SELECT NOT 5 NOT NULL NOT NULL": "NOT(((5 NOTNULL) NOTNULL))",
	} {
		sel := one(t, sql).Stmt.(*ast.Select)
		require.Equal(t, want, render(sel.Cores[0].Columns[0].Expr), sql)
	}
}

// render writes the shape of the expressions TestNotBeforeNotNull builds.
func render(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Unary:
		if e.Op == ast.Not {
			return "NOT(" + render(e.X) + ")"
		}
		return "-" + render(e.X)
	case *ast.IsNull:
		if e.Not {
			return "(" + render(e.X) + " NOTNULL)"
		}
		return "(" + render(e.X) + " ISNULL)"
	case *ast.Binary:
		op := map[ast.BinaryOp]string{ast.And: "AND", ast.Or: "OR", ast.Eq: "="}[e.Op]
		return "(" + render(e.X) + " " + op + " " + render(e.Y) + ")"
	case *ast.ColumnRef:
		return e.Column
	case *ast.Literal:
		return e.Value.String()
	case *ast.Call:
		return e.Name + "()"
	}
	return "?"
}

// TestAndWithZeroFolds: SQLite's parser replaces x AND y by the integer 0 when either operand is
// the literal integer 0 (sqlite3ExprAnd), which ORDER BY and GROUP BY then take for a column
// number: SELECT 1 ORDER BY (0 AND 5) is an out-of-range error (SQLite 3.54.1).
func TestAndWithZeroFolds(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 0 AND x":         "0",
		"SELECT x AND 0":         "0",
		"SELECT (0) AND x":       "0",
		"SELECT NULL AND 0x0":    "0",
		"SELECT x AND y AND 0":   "0",
		"SELECT -0 AND x":        "(0 AND x)",
		"SELECT 0.0 AND x":       "(0.0 AND x)",
		"SELECT 0 OR x":          "(0 OR x)",
		"SELECT x AND (0 AND y)": "(x AND 0)",
		"SELECT '0' AND x":       "('0' AND x)",
		"SELECT 1 AND 1":         "(1 AND 1)",
	} {
		sel := one(t, sql).Stmt.(*ast.Select)
		require.Equal(t, want, render(sel.Cores[0].Columns[0].Expr), sql)
	}
}

// TestEmptyInIsBoolean: x IN () and x NOT IN () are the boolean literals FALSE and TRUE, as
// SQLite's parser makes them (x is dropped).
func TestEmptyInIsBoolean(t *testing.T) {
	for sql, want := range map[string]int64{"SELECT x IN ()": 0, "SELECT x NOT IN ()": 1} {
		lit, ok := one(t, sql).Stmt.(*ast.Select).Cores[0].Columns[0].Expr.(*ast.Literal)
		require.True(t, ok, sql)
		require.True(t, lit.TrueFalse, sql)
		require.Equal(t, want, lit.Value.Int(), sql)
	}
}

// TestFoldsKeepFunctions: SQLite's parser folds neither x AND 0 nor x IN () when x calls a
// function (EP_HasFunc; LIKE is one; subqueries do not count): it may be an aggregate, making an
// aggregate query. x IN () is then x AND FALSE, x NOT IN () x OR TRUE (SQLite 3.54.1).
func TestFoldsKeepFunctions(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 0 AND abs(x)":              "(0 AND abs())",
		"SELECT count(*) AND 0":            "(count() AND 0)",
		"SELECT x LIKE 'a' AND 0":          "(? AND 0)",
		"SELECT 0 AND (SELECT abs(1))":     "0",
		"SELECT (0 AND 1) AND abs(1)":      "(0 AND abs())",
		"SELECT count(*) IN ()":            "(count() AND 0)",
		"SELECT x = abs(1) NOT IN ()":      "((x = abs()) OR 1)",
		"SELECT 0 AND (count(*) IN ())":    "(0 AND (count() AND 0))",
		"SELECT x IN () AND 0":             "0",
		"SELECT (SELECT max(x)) NOT IN ()": "1",
	} {
		sel := one(t, sql).Stmt.(*ast.Select)
		require.Equal(t, want, render(sel.Cores[0].Columns[0].Expr), sql)
	}
}

// TestJSONOperatorsAndTableFunctions: x -> p and x ->> p are calls of the functions "->" and
// "->>"; name(args) in FROM is a table-valued function.
func TestJSONOperatorsAndTableFunctions(t *testing.T) {
	sel := one(t, `SELECT doc -> '$.a', doc ->> 'b' FROM json_each(t.doc, '$') AS j`).Stmt.(*ast.Select)
	for i, name := range []string{"->", "->>"} {
		c, ok := sel.Cores[0].Columns[i].Expr.(*ast.Call)
		require.True(t, ok)
		require.Equal(t, name, c.Name)
		require.Len(t, c.Args, 2)
	}
	f := sel.Cores[0].From[0]
	require.True(t, f.Func)
	require.Equal(t, "json_each", f.Table)
	require.Equal(t, "j", f.Alias)
	require.Len(t, f.FuncArgs, 2)
}

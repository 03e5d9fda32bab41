package parse

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
	m "github.com/sqlc-dev/meyer/ast"
)

var binaryOps = map[m.Operator]ast.BinaryOp{
	m.OpOr: ast.Or, m.OpAnd: ast.And, m.OpEq: ast.Eq, m.OpNe: ast.Ne, m.OpLt: ast.Lt,
	m.OpLe: ast.Le, m.OpGt: ast.Gt, m.OpGe: ast.Ge, m.OpBitAnd: ast.BitAnd, m.OpBitOr: ast.BitOr,
	m.OpLShift: ast.ShiftLeft, m.OpRShift: ast.ShiftRight, m.OpAdd: ast.Add, m.OpSub: ast.Sub,
	m.OpMul: ast.Mul, m.OpDiv: ast.Div, m.OpMod: ast.Rem, m.OpConcat: ast.Concat,
}

var unaryOps = map[m.Operator]ast.UnaryOp{
	m.OpMinus: ast.Neg, m.OpPlus: ast.Plus, m.OpNot: ast.Not, m.OpBitNot: ast.BitNot,
}

func (c *converter) exprs(list []m.Expr) ([]ast.Expr, error) {
	out := make([]ast.Expr, len(list))
	for i, e := range list {
		x, err := c.expr(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// optExpr converts e, which may be nil.
func (c *converter) optExpr(e m.Expr) (ast.Expr, error) {
	if e == nil {
		return nil, nil
	}
	return c.expr(e)
}

func (c *converter) expr(e m.Expr) (ast.Expr, error) {
	switch e := e.(type) {
	case *m.Literal:
		return c.literal(e)
	case *m.Ident:
		return &ast.ColumnRef{At: pos(e), Column: e.Name, DoubleQuoted: e.Quote == m.QuoteDouble}, nil
	case *m.QualifiedRef:
		return c.qualifiedRef(e)
	case *m.BindParam:
		return c.param(e)
	case *m.ParenExpr:
		return c.expr(e.X)
	case *m.UnaryExpr:
		return c.unary(e)
	case *m.BinaryExpr:
		return c.binary(e)
	case *m.LikeExpr:
		return c.like(e)
	case *m.IsExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		y, err := c.expr(e.Y)
		if err != nil {
			return nil, err
		}
		// IS DISTINCT FROM is IS NOT; IS NOT DISTINCT FROM is IS.
		op := ast.Is
		if e.Not != e.Distinct {
			op = ast.IsNot
		}
		return &ast.Binary{At: pos(e), Op: op, X: x, Y: y}, nil
	case *m.NullCheckExpr:
		if r := regroupNotNull(e); r != m.Expr(e) {
			return c.expr(r)
		}
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		return &ast.IsNull{At: pos(e), Not: e.Test != m.TestIsNull, X: x}, nil
	case *m.BetweenExpr:
		return c.between(e)
	case *m.InExpr:
		return c.in(e)
	case *m.CaseExpr:
		return c.caseExpr(e)
	case *m.CastExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		typ := ""
		if e.Type != nil {
			typ = e.Type.Name
		}
		return &ast.Cast{At: pos(e), X: x, Type: typ}, nil
	case *m.CollateExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		return &ast.Collate{At: pos(e), X: x, Collation: e.Name.Name}, nil
	case *m.FuncCall:
		return c.call(e)
	case *m.ExistsExpr:
		s, err := c.selectStmt(e.Select)
		if err != nil {
			return nil, err
		}
		return &ast.Exists{At: pos(e), Select: s}, nil
	case *m.SubqueryExpr:
		s, err := c.selectStmt(e.Select)
		if err != nil {
			return nil, err
		}
		return &ast.Subquery{At: pos(e), Select: s}, nil
	case *m.VectorExpr:
		items, err := c.exprs(e.List)
		if err != nil {
			return nil, err
		}
		return &ast.RowValue{At: pos(e), Items: items}, nil
	case *m.RaiseExpr:
		return c.raise(e)
	case *m.Star:
		return nil, c.errorf(e, `near "*": syntax error`)
	}
	return nil, c.unsupported(e, "expression "+c.text(e))
}

// regroupNotNull returns e as SQLite groups it. SQLite's NOT is right-associative and
// "x NOT NULL" takes NOT's precedence, so NOT x NOT NULL is NOT (x NOT NULL); meyer v0.1.2 groups
// it as (NOT x) NOT NULL. A NOT NULL whose operand is a prefix NOT (not in parentheses) goes
// inside it, and on inside the NOTs it meets there.
func regroupNotNull(e *m.NullCheckExpr) m.Expr {
	if e.Test != m.TestNotNullWords {
		return e
	}
	x := e.X
	if n, ok := x.(*m.NullCheckExpr); ok {
		x = regroupNotNull(n)
	}
	u, ok := x.(*m.UnaryExpr)
	if !ok || u.Op != m.OpNot {
		if x == e.X {
			return e
		}
		c := *e
		c.X = x
		return &c
	}
	inner := *e
	inner.X = u.X
	inner.Span.Start = u.X.Pos()
	outer := *u
	outer.X = regroupNotNull(&inner)
	outer.Span.Stop = e.End()
	return &outer
}

func (c *converter) qualifiedRef(e *m.QualifiedRef) (ast.Expr, error) {
	parts := e.Parts
	if len(parts) == 3 {
		if !strings.EqualFold(parts[0].Name, "main") {
			return nil, c.unsupported(e, "database "+parts[0].Name+" (only main)")
		}
		parts = parts[1:]
	}
	return &ast.ColumnRef{At: pos(e), Table: parts[0].Name, Column: parts[1].Name}, nil
}

// MaxParams is the highest parameter number, SQLite's default SQLITE_MAX_VARIABLE_NUMBER.
const MaxParams = 32766

// param converts a bind parameter; meyer numbers them as SQLite does (sqlite3ExprAssignVarNumber).
// A number outside 1..MaxParams is an error, in SQLite's words.
func (c *converter) param(e *m.BindParam) (ast.Expr, error) {
	if e.Number < 1 || e.Number > MaxParams {
		return nil, c.errorf(e, "variable number must be between ?1 and ?%d", MaxParams)
	}
	p := &ast.Param{At: pos(e), Index: e.Number}
	if e.Kind != m.ParamAnon && e.Kind != m.ParamNumber {
		p.Name = e.Raw
		if c.names == nil {
			c.names = make(map[string]int)
		}
		c.names[e.Raw] = e.Number
	}
	c.params = max(c.params, e.Number)
	return p, nil
}

func (c *converter) unary(e *m.UnaryExpr) (ast.Expr, error) {
	op, ok := unaryOps[e.Op]
	if !ok {
		return nil, c.unsupported(e, "operator "+c.text(e))
	}
	// -9223372036854775808 is an INTEGER: fold the minus into an integer literal.
	if lit, isLit := unparen(e.X).(*m.Literal); isLit && op == ast.Neg && lit.Kind == m.LitInteger {
		v, err := c.integer(lit, lit.Value, true)
		return &ast.Literal{At: pos(e), Value: v}, err
	}
	x, err := c.expr(e.X)
	if err != nil {
		return nil, err
	}
	return &ast.Unary{At: pos(e), Op: op, X: x}, nil
}

// isZeroLiteral reports whether e is the integer literal 0 (in parentheses or not; not -0).
func isZeroLiteral(e m.Expr) bool {
	lit, ok := unparen(e).(*m.Literal)
	if !ok || lit.Kind != m.LitInteger {
		return false
	}
	text := strings.ReplaceAll(lit.Value, "_", "")
	if len(text) > 2 && (text[1] == 'x' || text[1] == 'X') {
		text = text[2:]
	}
	return strings.Trim(text, "0") == ""
}

func unparen(e m.Expr) m.Expr {
	for {
		p, ok := e.(*m.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// hasFunc reports whether e calls a function outside of subqueries, as SQLite's EP_HasFunc
// tells (LIKE and GLOB are function calls to its parser).
func hasFunc(e m.Expr) bool {
	found := false
	m.Walk(e, func(n m.Node) bool {
		switch n.(type) {
		case *m.FuncCall, *m.LikeExpr:
			found = true
		case *m.SelectStmt:
			return false
		}
		return !found
	})
	return found
}

func (c *converter) binary(e *m.BinaryExpr) (ast.Expr, error) {
	// SQLite's parser replaces x AND y by the integer 0 when an operand is the literal 0 and
	// neither calls a function (sqlite3ExprAnd); ORDER BY and GROUP BY then take it for a
	// column number.
	if e.Op == m.OpAnd && (isZeroLiteral(e.X) || isZeroLiteral(e.Y)) && !hasFunc(e.X) && !hasFunc(e.Y) {
		return &ast.Literal{At: pos(e), Value: value.Int(0)}, nil
	}
	if e.Op == m.OpPtr || e.Op == m.OpPtr2 {
		// x -> p and x ->> p are calls of the JSON functions "->" and "->>" (json.go in the engine).
		args, err := c.exprs([]m.Expr{e.X, e.Y})
		if err != nil {
			return nil, err
		}
		name := "->"
		if e.Op == m.OpPtr2 {
			name = "->>"
		}
		return &ast.Call{At: pos(e), Name: name, Args: args}, nil
	}
	op, ok := binaryOps[e.Op]
	if !ok {
		return nil, c.unsupported(e, "operator "+c.text(e))
	}
	x, err := c.expr(e.X)
	if err != nil {
		return nil, err
	}
	y, err := c.expr(e.Y)
	if err != nil {
		return nil, err
	}
	return &ast.Binary{At: pos(e), Op: op, X: x, Y: y}, nil
}

func (c *converter) like(e *m.LikeExpr) (ast.Expr, error) {
	l := &ast.Like{At: pos(e), Not: e.Not}
	switch strings.ToUpper(e.Op.Name) {
	case "LIKE":
	case "GLOB":
		l.Glob = true
	default:
		return nil, c.unsupported(e, strings.ToUpper(e.Op.Name))
	}
	var err error
	if l.X, err = c.expr(e.X); err != nil {
		return nil, err
	}
	if l.Pattern, err = c.expr(e.Y); err != nil {
		return nil, err
	}
	if l.Escape, err = c.optExpr(e.Escape); err != nil {
		return nil, err
	}
	return l, nil
}

func (c *converter) between(e *m.BetweenExpr) (ast.Expr, error) {
	x, err := c.expr(e.X)
	if err != nil {
		return nil, err
	}
	lo, err := c.expr(e.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := c.expr(e.Hi)
	if err != nil {
		return nil, err
	}
	return &ast.Between{At: pos(e), Not: e.Not, X: x, Lo: lo, Hi: hi}, nil
}

func (c *converter) in(e *m.InExpr) (ast.Expr, error) {
	if e.Table == nil && e.Select == nil && len(e.List) == 0 && !hasFunc(e.X) {
		// x IN () is FALSE and x NOT IN () TRUE, x not even looked at: SQLite's parser
		// makes them the boolean literals.
		return &ast.Literal{At: pos(e), Value: value.Bool(e.Not), TrueFalse: true}, nil
	}
	x, err := c.expr(e.X)
	if err != nil {
		return nil, err
	}
	in := &ast.In{At: pos(e), Not: e.Not, X: x}
	switch {
	case e.Table != nil:
		// x IN table: the same as x IN (SELECT * FROM table).
		name, err := c.name(e.Table)
		if err != nil {
			return nil, err
		}
		from := ast.FromItem{At: pos(e.Table), Table: name}
		if e.HasArgs { // x IN f(args): a table-valued function, as x IN (SELECT * FROM f(args))
			if from.FuncArgs, err = c.exprs(e.Args); err != nil {
				return nil, err
			}
			from.Table, from.Func = strings.ToLower(name), true
		}
		in.Select = &ast.Select{At: pos(e.Table), Cores: []*ast.SelectCore{{
			At:      pos(e.Table),
			Columns: []ast.ResultColumn{{Star: true}},
			From:    []ast.FromItem{from},
		}}}
	case e.Select != nil:
		if in.Select, err = c.selectStmt(e.Select); err != nil {
			return nil, err
		}
	default:
		if in.List, err = c.exprs(e.List); err != nil {
			return nil, err
		}
		if len(in.List) == 0 {
			// With a function in x (maybe an aggregate, which makes an aggregate query),
			// SQLite's parser keeps x: x IN () is x AND FALSE, x NOT IN () x OR TRUE.
			b := &ast.Literal{At: pos(e), Value: value.Bool(e.Not), TrueFalse: true}
			if e.Not {
				return &ast.Binary{At: pos(e), Op: ast.Or, X: x, Y: b}, nil
			}
			return &ast.Binary{At: pos(e), Op: ast.And, X: x, Y: b}, nil
		}
	}
	return in, nil
}

func (c *converter) caseExpr(e *m.CaseExpr) (ast.Expr, error) {
	out := &ast.Case{At: pos(e)}
	var err error
	if out.Operand, err = c.optExpr(e.Operand); err != nil {
		return nil, err
	}
	for _, w := range e.Whens {
		cond, err := c.expr(w.When)
		if err != nil {
			return nil, err
		}
		res, err := c.expr(w.Then)
		if err != nil {
			return nil, err
		}
		out.Whens = append(out.Whens, ast.When{Cond: cond, Result: res})
	}
	if out.Else, err = c.optExpr(e.Else); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *converter) call(e *m.FuncCall) (ast.Expr, error) {
	args, err := c.exprs(e.Args)
	if err != nil {
		return nil, err
	}
	out := &ast.Call{At: pos(e), Name: strings.ToLower(e.Name.Name), Distinct: e.Distinct, Star: e.Star, Args: args}
	if len(e.OrderBy) > 0 {
		if out.OrderBy, err = c.orderBy(e.OrderBy); err != nil {
			return nil, err
		}
	}
	if out.Filter, err = c.optExpr(e.Filter); err != nil {
		return nil, err
	}
	if e.Over != nil {
		if out.Over, err = c.window(e.Over); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// constantLiteral reports whether e is a literal (for DEFAULT clauses).
func constantLiteral(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Literal:
		return true
	case *ast.Unary:
		return constantLiteral(e.X)
	}
	return false
}

var _ = value.NullValue

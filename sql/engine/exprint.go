package engine

// INTEGER fast paths of expression evaluation. A comparison or arithmetic operator whose
// operands are columns, parameters, INTEGER constants or such operators evaluates them as
// int64s first (evalInt) and falls back to eval when one is not an INTEGER. An eval returns a
// value.Value and an error through an interface call, and copying those results costs more than
// the comparison itself; an int64 and a bool travel in two registers. Results do not change: the
// fast path is taken only where value.Arith and the comparison would compute the same INTEGER or
// truth value, and the expressions that implement evalInt cannot fail and have no side effects,
// so a fallback that evaluates them again with eval sees what the fast path saw.

import "github.com/cairndb/cairn/sql/value"

// intExpr is an expression that can give its value as an int64: evalInt's ok is false when the
// value is not an INTEGER (or an operator's result would not be one), and the caller then uses
// eval.
type intExpr interface {
	expr
	evalInt(e *env) (int64, bool)
}

// asIntExpr returns x as an intExpr when it is one: a column, a parameter, an INTEGER constant,
// or an arithmetic operator over those; nil otherwise.
func asIntExpr(x expr) intExpr {
	switch x := x.(type) {
	case *colExpr:
		return x
	case *paramExpr:
		return x
	case *constExpr:
		if x.v.Kind() == value.Integer {
			return x
		}
	case *arithExpr:
		if x.ix != nil {
			return x
		}
	}
	return nil
}

func (c *colExpr) evalInt(e *env) (int64, bool) {
	for i := 0; i < c.depth; i++ {
		e = e.outer
	}
	row := e.rows[c.src]
	if row == nil {
		return 0, false
	}
	return row[c.col].IntOf()
}

func (p *paramExpr) evalInt(e *env) (int64, bool) {
	if p.i >= len(e.params) {
		return 0, false
	}
	return e.params[p.i].IntOf()
}

func (c *constExpr) evalInt(*env) (int64, bool) { return c.v.IntOf() }

func (a *arithExpr) evalInt(e *env) (int64, bool) {
	x, ok := a.ix.evalInt(e)
	if !ok {
		return 0, false
	}
	y, ok := a.iy.evalInt(e)
	if !ok {
		return 0, false
	}
	return value.IntArith(a.op, x, y)
}

// newArithExpr returns the operator op over x and y, with its INTEGER fast path when both
// operands have one.
func newArithExpr(op value.Op, x, y expr) *arithExpr {
	a := &arithExpr{op: op, x: x, y: y}
	if ix, iy := asIntExpr(x), asIntExpr(y); ix != nil && iy != nil {
		a.ix, a.iy = ix, iy
	}
	return a
}

// newCmpExpr returns the comparison op of x and y with comparison affinity aff and collation
// coll, with its INTEGER fast path when both operands have one and the comparison of two
// INTEGERs is compareInts: not IS or IS NOT (NULLs), not TEXT affinity (which makes texts of
// them).
func newCmpExpr(op cmpOp, x, y expr, aff value.Affinity, coll value.Collation) *cmpExpr {
	c := &cmpExpr{op: op, x: x, y: y, affX: aff, affY: aff, coll: coll}
	if op > cmpGe || aff == value.AffinityText {
		return c
	}
	if ix, iy := asIntExpr(x), asIntExpr(y); ix != nil && iy != nil {
		c.ix, c.iy = ix, iy
	}
	return c
}

// cond is truth(c, e) with the INTEGER fast path.
func (c *cmpExpr) cond(e *env) (bool, error) {
	if x, ok := c.ix.evalInt(e); ok {
		if y, ok := c.iy.evalInt(e); ok {
			return intCompare(c.op, x, y), nil
		}
	}
	v, err := c.evalValues(e)
	if err != nil {
		return false, err
	}
	t, ok := value.Truth(v)
	return ok && t, nil
}

// intCompare is compareInts as a Go bool.
func intCompare(op cmpOp, x, y int64) bool {
	switch op {
	case cmpEq:
		return x == y
	case cmpNe:
		return x != y
	case cmpLt:
		return x < y
	case cmpLe:
		return x <= y
	case cmpGt:
		return x > y
	}
	return x >= y
}

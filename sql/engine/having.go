package engine

// Moving HAVING terms to WHERE, as SQLite's havingToWhere does.

import (
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// havingToWhere returns core with the terms of its HAVING (the operands of its top-level ANDs)
// that are the same for every row of a group moved to its WHERE, as SQLite moves them before it
// plans a grouped query (select.c, havingToWhere): constants, and expressions of the GROUP BY
// terms that compare with BINARY, but not the literal 0 or FALSE. A moved term leaves a 1 in the
// HAVING and is ANDed to the WHERE, so it filters the rows before they are grouped: the rows of
// a group it rejects are never aggregated (and cannot fail there), and a constant that is not
// true leaves no row to read. Only a core with a GROUP BY has its HAVING so treated.
func havingToWhere(pc *planCtx, core *ast.SelectCore, items []selectItem, sc *scope) *ast.SelectCore {
	if core.Having == nil || len(core.GroupBy) == 0 {
		return core
	}
	h := &havingMover{sc: sc}
	for _, g := range core.GroupBy {
		if n, ok := orderNumber(g); ok {
			if n < 1 || n > len(items) {
				return core // the error comes when the GROUP BY is planned
			}
			g = items[n-1].expr
		}
		if !h.binaryGroupTerm(pc, g) {
			continue
		}
		h.groupBy = append(h.groupBy, g)
	}
	where := core.Where
	moved := false
	having := h.rewrite(core.Having, func(term exprAST) bool {
		if alwaysFalse(term) || !h.constantOrGroupBy(term) {
			return false
		}
		if where == nil {
			where = term
		} else {
			where = &ast.Binary{At: term.Offset(), Op: ast.And, X: where, Y: term}
		}
		moved = true
		return true
	})
	if !moved {
		return core
	}
	out := *core
	out.Where, out.Having = where, having
	return &out
}

// havingMover decides which HAVING terms of one core move.
type havingMover struct {
	sc      *scope
	groupBy []exprAST // the GROUP BY terms that compare with BINARY (numbers replaced)
	inAlias bool
}

// binaryGroupTerm reports whether GROUP BY term g compares with BINARY: it is bound on its own
// to learn that (a term SQLite could never match, one with a subquery or a parameter, or one
// that fails to bind, is left out).
func (h *havingMover) binaryGroupTerm(pc *planCtx, g exprAST) bool {
	if !plainExpr(g) {
		return false
	}
	b := &binder{pc: pc, sc: h.sc, noAgg: "GROUP BY"}
	_, info, err := b.bind(g)
	return err == nil && collationOf(info) == value.Binary
}

// plainExpr reports whether e holds no subquery and no parameter.
func plainExpr(e exprAST) bool {
	ok := true
	walkAST(e, func(x exprAST) bool {
		switch x.(type) {
		case *ast.Subquery, *ast.Exists, *ast.Param:
			ok = false
		case *ast.In:
			if x.(*ast.In).Select != nil {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// rewrite walks the top-level ANDs of e and replaces each other term that move reports moved by
// the literal 1.
func (h *havingMover) rewrite(e exprAST, move func(exprAST) bool) exprAST {
	if bin, ok := e.(*ast.Binary); ok && bin.Op == ast.And {
		out := *bin
		out.X = h.rewrite(bin.X, move)
		out.Y = h.rewrite(bin.Y, move)
		return &out
	}
	if move(e) {
		return &ast.Literal{At: e.Offset(), Value: value.Int(1)}
	}
	return e
}

// alwaysFalse reports whether e is the integer literal 0 or FALSE (SQLite's ExprAlwaysFalse).
func alwaysFalse(e exprAST) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Value.Kind() == value.Integer && l.Value.Int() == 0
}

// constantOrGroupBy reports whether e reads nothing but GROUP BY terms (SQLite's
// sqlite3ExprIsConstantOrGroupBy): every part of it is a GROUP BY term, or a literal, parameter or
// operator, or a deterministic scalar function, of such parts; an alias stands for its
// expression. A column outside the GROUP BY terms, an aggregate or a subquery is not.
func (h *havingMover) constantOrGroupBy(e exprAST) bool {
	for _, g := range h.groupBy {
		if h.sameUpToCollate(e, g) {
			return true
		}
	}
	var parts []exprAST
	switch e := e.(type) {
	case nil, *ast.Literal, *ast.Param:
		return true
	case *ast.ColumnRef:
		if _, found := h.lookup(e); found {
			return false
		}
		if a, ok := h.alias(e); ok {
			h.inAlias = true
			defer func() { h.inAlias = false }()
			return h.constantOrGroupBy(a)
		}
		return true // a string in double quotes, TRUE or FALSE (or an error to come)
	case *ast.Subquery, *ast.Exists:
		return false
	case *ast.In:
		if e.Select != nil {
			return false
		}
		parts = append([]exprAST{e.X}, e.List...)
	case *ast.Call:
		name := strings.ToLower(e.Name)
		f := scalarFuncs[name]
		if isAggregate(name, len(e.Args), e.Star) || f == nil || f.nondeterministic {
			return false
		}
		parts = e.Args
	default:
		var ok bool
		if parts, ok = astChildren(e); !ok {
			return false
		}
	}
	for _, p := range parts {
		if !h.constantOrGroupBy(p) {
			return false
		}
	}
	return true
}

// lookup resolves a column reference without the side effects of scope.resolve.
func (h *havingMover) lookup(e *ast.ColumnRef) (colRefResult, bool) {
	depth := 0
	for s := h.sc; s != nil; s, depth = s.outer, depth+1 {
		r, found, err := s.resolveHere(e.Table, e.Column)
		if err != nil {
			return r, true // ambiguous: a column all the same
		}
		if found {
			r.depth = depth
			return r, true
		}
	}
	return colRefResult{}, false
}

// alias returns the expression of the select-list alias e names (an unqualified name no column
// has).
func (h *havingMover) alias(e *ast.ColumnRef) (exprAST, bool) {
	if e.Table != "" || h.inAlias {
		return nil, false
	}
	for _, a := range h.sc.aliases {
		if strings.EqualFold(a.name, e.Column) {
			return a.expr, true
		}
	}
	return nil, false
}

// sameUpToCollate reports whether a and b are the same expression but for a COLLATE around
// either (sqlite3ExprCompare less than 2).
func (h *havingMover) sameUpToCollate(a, b exprAST) bool {
	ca, okA := a.(*ast.Collate)
	cb, okB := b.(*ast.Collate)
	switch {
	case okA && okB:
		return strings.EqualFold(ca.Collation, cb.Collation) && h.canon(ca.X) == h.canon(cb.X)
	case okA:
		return h.sameUpToCollate(ca.X, b)
	case okB:
		return h.sameUpToCollate(a, cb.X)
	}
	return h.canon(a) == h.canon(b)
}

// canon renders e with its columns resolved (and aliases replaced by their expressions), so that
// two renderings are equal when the expressions are.
func (h *havingMover) canon(e exprAST) string {
	var b strings.Builder
	h.writeCanon(&b, e)
	return b.String()
}

func (h *havingMover) writeCanon(b *strings.Builder, e exprAST) {
	list := func(xs ...exprAST) {
		b.WriteByte('(')
		for _, x := range xs {
			h.writeCanon(b, x)
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
	switch e := e.(type) {
	case nil:
		b.WriteString("_")
	case *ast.Literal:
		fmt.Fprintf(b, "lit%d:%t:%s", e.Value.Kind(), e.TrueFalse, value.AppendQuoted(nil, e.Value))
	case *ast.Param:
		fmt.Fprintf(b, "param%p", e) // never the same as another
	case *ast.ColumnRef:
		if r, found := h.lookup(e); found {
			fmt.Fprintf(b, "col%d.%d.%d", r.depth, r.src, r.col)
			return
		}
		if a, ok := h.alias(e); ok {
			h.inAlias = true
			h.writeCanon(b, a)
			h.inAlias = false
			return
		}
		fmt.Fprintf(b, "name%t:%q", e.DoubleQuoted, strings.ToLower(e.Column))
	case *ast.Unary:
		fmt.Fprintf(b, "unary%d", e.Op)
		list(e.X)
	case *ast.Binary:
		fmt.Fprintf(b, "binary%d", e.Op)
		list(e.X, e.Y)
	case *ast.Like:
		fmt.Fprintf(b, "like%t%t", e.Glob, e.Not)
		list(e.X, e.Pattern, e.Escape)
	case *ast.IsNull:
		fmt.Fprintf(b, "isnull%t", e.Not)
		list(e.X)
	case *ast.Between:
		fmt.Fprintf(b, "between%t", e.Not)
		list(e.X, e.Lo, e.Hi)
	case *ast.In:
		fmt.Fprintf(b, "in%t", e.Not)
		if e.Select != nil {
			fmt.Fprintf(b, "select%p", e) // a subquery is never the same as another
			return
		}
		list(append([]exprAST{e.X}, e.List...)...)
	case *ast.Case:
		b.WriteString("case")
		parts := []exprAST{e.Operand, e.Else}
		for _, w := range e.Whens {
			parts = append(parts, w.Cond, w.Result)
		}
		list(parts...)
	case *ast.Cast:
		fmt.Fprintf(b, "cast%q", strings.ToLower(e.Type))
		list(e.X)
	case *ast.Collate:
		fmt.Fprintf(b, "collate%q", strings.ToLower(e.Collation))
		list(e.X)
	case *ast.Call:
		fmt.Fprintf(b, "call%q%t%t", strings.ToLower(e.Name), e.Distinct, e.Star)
		if e.Filter != nil || e.Over != nil || e.OrderBy != nil {
			fmt.Fprintf(b, "window%p", e) // never the same as another call
		}
		list(e.Args...)
	case *ast.RowValue:
		b.WriteString("row")
		list(e.Items...)
	default:
		fmt.Fprintf(b, "other%p", e)
	}
}

// walkAST calls fn for e and its parts (not the insides of subqueries) until fn returns false.
func walkAST(e exprAST, fn func(exprAST) bool) bool {
	if e == nil {
		return true
	}
	if !fn(e) {
		return false
	}
	parts, _ := astChildren(e)
	for _, p := range parts {
		if !walkAST(p, fn) {
			return false
		}
	}
	return true
}

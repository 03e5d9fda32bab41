package engine

// Row values (sqlite.org/rowvalue.html): (a, b) compared with (x, y) or with a subquery of as
// many columns, (a, b) [NOT] IN (SELECT x, y ...) and (a, b) [NOT] IN ((1, 2), (3, 4)). A row
// value anywhere else, or of another width than its partner, is "row value misused".
//
// Invariants: a row comparison compares its pairs left to right, each with the affinity and
// collation a scalar comparison of that pair would have, and evaluates a pair only when the pairs
// before it did not decide the result (SQLite's code jumps out as soon as the result is known).
// =, <> : FALSE (TRUE) at the first pair of unequal non-NULL values, else NULL if a pair held a
// NULL, else TRUE (FALSE). <, <=, >, >= : the first pair that is not equal decides; a pair with
// a NULL met before that makes NULL; all pairs equal is TRUE for <= and >=. IS, IS NOT: every
// pair compared as by IS.
// Plain comparisons never reach this file's evaluation: the binder takes this path only when an
// operand is a row value or a subquery, and binds a comparison of two scalars as binary does.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

var errRowValueMisused = errors.New("row value misused")

// rowOperand is one side of a row comparison: bound items, or a subquery yielding the row.
type rowOperand struct {
	items []expr
	infos []exprInfo
	sub   *subquery
	// buf holds the evaluated items of an items operand (reused per evaluation).
	buf []value.Value
}

func (o *rowOperand) width() int { return len(o.infos) }

// isRowAST reports whether e is a row value.
func isRowAST(e exprAST) bool {
	_, ok := e.(*ast.RowValue)
	return ok
}

// isRowComparison reports whether the comparison e may compare rows: an operand is a row value
// or a subquery (which may have several columns; with one on both sides it is an ordinary
// comparison, bound as binary binds it).
func isRowComparison(e *ast.Binary) bool {
	if isRowAST(e.X) || isRowAST(e.Y) {
		return true
	}
	_, xs := e.X.(*ast.Subquery)
	_, ys := e.Y.(*ast.Subquery)
	return xs || ys
}

// isRowIn reports whether e may be an IN of rows: its left side is a row value or a subquery,
// or an item of its list is a row value.
func isRowIn(e *ast.In) bool {
	if _, sub := e.X.(*ast.Subquery); sub || isRowAST(e.X) {
		return true
	}
	for _, it := range e.List {
		if isRowAST(it) {
			return true
		}
	}
	return false
}

// bindRowOperand binds e as a row: a row value's items, a subquery's columns, or one scalar.
func (b *binder) bindRowOperand(e exprAST) (*rowOperand, error) {
	switch e := e.(type) {
	case *ast.RowValue:
		o := &rowOperand{}
		for _, it := range e.Items {
			x, xi, err := b.bind(it)
			if err != nil {
				return nil, err
			}
			o.items = append(o.items, x)
			o.infos = append(o.infos, xi)
		}
		o.buf = make([]value.Value, len(o.items))
		return o, nil
	case *ast.Subquery:
		sq, err := b.subquery(e.Select, subqRow)
		if err != nil {
			return nil, err
		}
		o := &rowOperand{sub: sq}
		for i := 0; i < sq.plan.ncols; i++ {
			o.infos = append(o.infos, scalarSubqueryInfo(sq, i))
		}
		return o, nil
	}
	x, xi, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	return &rowOperand{items: []expr{x}, infos: []exprInfo{xi}, buf: make([]value.Value, 1)}, nil
}

// rowCompare binds X op Y where an operand is a row value (or both are subqueries).
func (b *binder) rowCompare(e *ast.Binary, op cmpOp) (expr, exprInfo, error) {
	x, err := b.bindRowOperand(e.X)
	if err != nil {
		return nil, exprInfo{}, err
	}
	y, err := b.bindRowOperand(e.Y)
	if err != nil {
		return nil, exprInfo{}, err
	}
	if x.width() != y.width() {
		return nil, exprInfo{}, errRowValueMisused
	}
	if x.width() == 1 {
		// Two scalars, one or both a subquery of one column: an ordinary comparison.
		xe, xi := x.scalar()
		ye, yi := y.scalar()
		return b.binaryBound(e, xe, xi, ye, yi)
	}
	return newRowCmp(op, x, y), exprInfo{}, nil
}

// scalar returns the operand of width 1 as a value: its item, or its subquery as a scalar one.
func (o *rowOperand) scalar() (expr, exprInfo) {
	if o.sub != nil {
		o.sub.kind = subqScalar
		return o.sub, o.infos[0]
	}
	return o.items[0], o.infos[0]
}

func newRowCmp(op cmpOp, x, y *rowOperand) *rowCmpExpr {
	r := &rowCmpExpr{op: op, x: x, y: y}
	for i := range x.infos {
		r.affs = append(r.affs, comparisonAffinity(x.infos[i], y.infos[i]))
		r.colls = append(r.colls, comparisonCollation(x.infos[i], y.infos[i]))
	}
	return r
}

// rowCmpExpr is a comparison of two rows of the same width (the file's invariant).
type rowCmpExpr struct {
	op    cmpOp
	x, y  *rowOperand
	affs  []value.Affinity
	colls []value.Collation
}

// subRow returns the first row of a row subquery, NULLs when it has none (cached when the
// subquery is not correlated).
func subRow(s *subquery, e *env) ([]value.Value, error) {
	if !s.correlated {
		if r, ok := e.run.subqCache[s]; ok {
			return r.rows[0], nil
		}
	}
	it, err := s.plan.open(e.run, e)
	if err != nil {
		return nil, err
	}
	defer it.close()
	ok, err := it.next()
	if err != nil {
		return nil, err
	}
	row := make([]value.Value, s.plan.ncols)
	if ok {
		for i, v := range it.row()[:len(row)] {
			row[i] = v.Clone()
		}
	}
	if !s.correlated {
		e.run.cacheSubquery(s, &subqResult{rows: [][]value.Value{row}})
	}
	return row, nil
}

// row returns a subquery operand's row; nil for items, which at evaluates one by one.
func (o *rowOperand) row(e *env) ([]value.Value, error) {
	if o.sub != nil {
		return subRow(o.sub, e)
	}
	return nil, nil
}

// at returns value i of the operand, evaluating an item expression now.
func (o *rowOperand) at(e *env, row []value.Value, i int) (value.Value, error) {
	if row != nil {
		return row[i], nil
	}
	return o.items[i].eval(e)
}

func (r *rowCmpExpr) eval(e *env) (value.Value, error) {
	xr, err := r.x.row(e)
	if err != nil {
		return value.Value{}, err
	}
	yr, err := r.y.row(e)
	if err != nil {
		return value.Value{}, err
	}
	n := len(r.affs)
	sawNull := false
	for i := 0; i < n; i++ {
		xv, err := r.x.at(e, xr, i)
		if err != nil {
			return xv, err
		}
		yv, err := r.y.at(e, yr, i)
		if err != nil {
			return yv, err
		}
		xv, yv = r.affs[i].ApplyForCompare(xv), r.affs[i].ApplyForCompare(yv)
		switch r.op {
		case cmpIs, cmpIsNot:
			if compareValues(cmpIs, xv, yv, r.colls[i]).Int() == 0 {
				return value.Bool(r.op == cmpIsNot), nil
			}
			continue
		}
		if xv.IsNull() || yv.IsNull() {
			if r.op == cmpEq || r.op == cmpNe {
				sawNull = true
				continue
			}
			return value.Value{}, nil
		}
		c := value.Compare(xv, yv, r.colls[i])
		switch r.op {
		case cmpEq, cmpNe:
			if c != 0 {
				return value.Bool(r.op == cmpNe), nil
			}
			continue
		}
		if c == 0 && i < n-1 {
			continue
		}
		switch r.op {
		case cmpLt:
			return value.Bool(c < 0), nil
		case cmpLe:
			return value.Bool(c <= 0), nil
		case cmpGt:
			return value.Bool(c > 0), nil
		}
		return value.Bool(c >= 0), nil
	}
	switch {
	case r.op == cmpIsNot:
		return value.Bool(false), nil
	case sawNull:
		return value.Value{}, nil
	}
	return value.Bool(r.op != cmpNe), nil
}

// rowIn binds x [NOT] IN (...) where x or an item of the list is a row value, or x is a row
// value and the right side a subquery.
func (b *binder) rowIn(e *ast.In) (expr, exprInfo, error) {
	x, err := b.bindRowOperand(e.X)
	if err != nil {
		return nil, exprInfo{}, err
	}
	if x.width() == 1 && !slices.ContainsFunc(e.List, isRowAST) {
		xe, xi := x.scalar() // (SELECT a) IN (...): an ordinary IN
		return b.inBound(e, xe, xi)
	}
	if len(e.List) == 1 {
		if sub, ok := e.List[0].(*ast.Subquery); ok && x.width() > 1 {
			e = &ast.In{At: e.At, Not: e.Not, X: e.X, Select: sub.Select} // (a, b) IN ((SELECT x, y))
		}
	}
	if e.Select != nil {
		sq, err := b.subquery(e.Select, subqIn)
		if err != nil {
			return nil, exprInfo{}, err
		}
		if sq.plan.ncols != x.width() {
			return nil, exprInfo{}, fmt.Errorf("sub-select returns %d columns - expected %d", sq.plan.ncols, x.width())
		}
		in := &rowInExpr{x: x, sub: sq, not: e.Not}
		for i := range x.infos {
			ci := sq.plan.lastResultInfo(i)
			in.affs = append(in.affs, comparisonAffinity(x.infos[i], ci))
			in.colls = append(in.colls, comparisonCollation(x.infos[i], ci))
		}
		return in, exprInfo{}, nil
	}
	if x.sub != nil {
		return nil, exprInfo{}, fmt.Errorf("sub-select returns %d columns - expected 1", x.width())
	}
	// A list: x = item1 OR x = item2 ..., each a row comparison, negated for NOT IN (the
	// three-valued result of IN over a list is that of the OR).
	var out expr
	for _, item := range e.List {
		y, err := b.bindRowOperand(item)
		if err != nil {
			return nil, exprInfo{}, err
		}
		if x.width() == 1 || y.width() == 1 && y.sub == nil && x.sub != nil {
			return nil, exprInfo{}, errRowValueMisused
		}
		w := y.width()
		if y.sub != nil {
			w = 1 // a subquery in a list is one term
		}
		if w != x.width() {
			s := "s"
			if w == 1 {
				s = ""
			}
			return nil, exprInfo{}, fmt.Errorf("IN(...) element has %d term%s - expected %d", w, s, x.width())
		}
		var c expr = newRowCmp(cmpEq, x, y)
		if out == nil {
			out = c
		} else {
			out = &orExpr{x: out, y: c}
		}
	}
	if e.Not {
		out = &notExpr{x: out}
	}
	return out, exprInfo{}, nil
}

// rowInExpr is (a, b, ...) [NOT] IN (SELECT x, y, ...).
type rowInExpr struct {
	x     *rowOperand
	sub   *subquery
	affs  []value.Affinity
	colls []value.Collation
	not   bool
	key   []byte
}

func (in *rowInExpr) eval(e *env) (value.Value, error) {
	if in.x.buf == nil {
		in.x.buf = make([]value.Value, in.x.width())
	}
	xs := in.x.buf
	xr, err := in.x.row(e)
	if err != nil {
		return value.Value{}, err
	}
	hasNull := false
	for i := range xs {
		v, err := in.x.at(e, xr, i)
		if err != nil {
			return v, err
		}
		xs[i] = inSetValue(in.affs[i], v)
		hasNull = hasNull || xs[i].IsNull()
	}
	r, err := in.rows(e)
	if err != nil {
		return value.Value{}, err
	}
	if len(r.rows) == 0 {
		return value.Bool(in.not), nil
	}
	if !hasNull {
		in.key = in.key[:0]
		for i, v := range xs {
			in.key = codec.AppendKey(in.key, v, false, in.colls[i])
		}
		if _, ok := r.set[string(in.key)]; ok {
			return value.Bool(!in.not), nil
		}
		if !r.hasNull {
			return value.Bool(in.not), nil
		}
	}
	// A NULL on either side: NULL if some row is equal wherever neither value is NULL.
	for _, row := range r.rows {
		maybe := true
		for i, v := range xs {
			if !v.IsNull() && !row[i].IsNull() && value.Compare(v, row[i], in.colls[i]) != 0 {
				maybe = false
				break
			}
		}
		if maybe {
			return value.Value{}, nil
		}
	}
	return value.Bool(in.not), nil
}

// rows returns the subquery's rows (converted for comparison) and the keys of those without a
// NULL, cached when the subquery is not correlated.
func (in *rowInExpr) rows(e *env) (*subqResult, error) {
	var key []byte
	return in.sub.result(e, func(r *subqResult, src []value.Value) {
		row := make([]value.Value, len(in.affs))
		key = key[:0]
		null := false
		for i, v := range src[:len(row)] {
			row[i] = inSetValue(in.affs[i], v).Clone()
			null = null || row[i].IsNull()
			key = codec.AppendKey(key, row[i], false, in.colls[i])
		}
		r.rows = append(r.rows, row)
		if null {
			r.hasNull = true
		} else {
			r.set[string(key)] = struct{}{}
		}
	})
}

// rowSubKey identifies the row subquery of a SET (a, b) = (SELECT ...) bound in one scope.
type rowSubKey struct {
	sel *ast.Select
	sc  *scope
}

// rowColumn binds column e.Index of a SET row subquery. The columns of one assignment share the
// bound subquery, so an uncorrelated one runs once per statement; a correlated one runs once
// per column and row.
func (b *binder) rowColumn(e *ast.RowColumn) (expr, exprInfo, error) {
	key := rowSubKey{e.Select, b.sc}
	sq := b.pc.rowSubs[key]
	if sq == nil {
		var err error
		if sq, err = b.subquery(e.Select, subqRow); err != nil {
			return nil, exprInfo{}, err
		}
		if sq.plan.ncols != e.Width {
			return nil, exprInfo{}, fmt.Errorf("%d columns assigned %d values", e.Width, sq.plan.ncols)
		}
		if b.pc.rowSubs == nil {
			b.pc.rowSubs = map[rowSubKey]*subquery{}
		}
		b.pc.rowSubs[key] = sq
	}
	info := exprInfo{}
	if c := sq.plan.lastResultInfo(e.Index); c.hasAff {
		info.hasAff, info.aff = true, c.aff
	}
	return &rowColumnExpr{sub: sq, i: e.Index}, info, nil
}

// rowColumnExpr is value i of a row subquery's first row.
type rowColumnExpr struct {
	sub *subquery
	i   int
}

func (r *rowColumnExpr) eval(e *env) (value.Value, error) {
	row, err := subRow(r.sub, e)
	if err != nil {
		return value.Value{}, err
	}
	return row[r.i], nil
}

// isRowCase reports whether CASE x WHEN y ... compares rows: x or a WHEN is a row value, or x is
// a subquery and a WHEN a row value.
func isRowCase(e *ast.Case) bool {
	if isRowAST(e.Operand) {
		return true
	}
	for _, w := range e.Whens {
		if isRowAST(w.Cond) {
			return true
		}
	}
	return false
}

// rowCaseSearched rewrites CASE x WHEN y THEN r ... as CASE WHEN x = y THEN r ...: each WHEN a
// row comparison (x is evaluated for each WHEN tried, where SQLite evaluates it once; the
// values are the same but for a non-deterministic x).
func rowCaseSearched(e *ast.Case) *ast.Case {
	out := &ast.Case{At: e.At, Else: e.Else}
	for _, w := range e.Whens {
		out.Whens = append(out.Whens, ast.When{Cond: &ast.Binary{At: e.At, Op: ast.Eq, X: e.Operand, Y: w.Cond}, Result: w.Result})
	}
	return out
}

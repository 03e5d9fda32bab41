package engine

// The binder: ast expressions to bound expressions (expr.go), with names resolved (scope.go) and
// SQLite's affinity and collation rules applied where an operator needs them (datatype3.html
// §4.2, §7.1).

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

type exprAST = ast.Expr

// exprInfo is what the binder knows of a bound expression's type.
type exprInfo struct {
	// hasAff is set when the expression has an affinity (a column, a CAST, a scalar subquery of
	// one), aff its value.
	hasAff bool
	aff    value.Affinity
	// coll is the expression's collation: explicit (COLLATE) or a column's (hasColl).
	coll     value.Collation
	hasColl  bool
	explicit bool
	// column is set for a plain column reference (for names of result columns and index use).
	column *colRefResult
	// decl is the declared type of a scalar subquery's column (SQLite reports it as the
	// expression's declared type); a column's is column.c.declType.
	decl string
	// truth is 1 for the literal TRUE, -1 for FALSE (see ast.Literal.TrueFalse).
	truth int8
}

// binder binds the expressions of one query.
type binder struct {
	pc *planCtx
	sc *scope
	// agg collects aggregate calls when set: the select list, HAVING and ORDER BY of an
	// aggregate query are bound with it.
	agg *aggCollector
	// noAgg is set where an aggregate call is an error (WHERE, GROUP BY, ON).
	noAgg string
	// existsList is set for the select list of an EXISTS subquery, which SQLite never
	// evaluates: an aggregate of an enclosing query there is no error where that query takes
	// no aggregates.
	existsList bool
	// win collects window calls when set: the select list and ORDER BY of a core are bound
	// with it; anywhere else a window call is misuse.
	win *winCollector
}

// aggCollector gathers the aggregate calls of a query.
type aggCollector struct {
	calls []*aggCall
	// minMax is the index of the query's min or max call when it is the only aggregate, so that
	// bare columns take that row (-1 otherwise; see select.go).
	bare bool // the query reads columns outside aggregates
}

func (b *binder) bind(e exprAST) (expr, exprInfo, error) {
	switch e := e.(type) {
	case *ast.Literal:
		return &constExpr{v: e.Value}, trueFalseInfo(e.TrueFalse, e.Value.Int() != 0), nil
	case *ast.ColumnRef:
		return b.column(e)
	case *ast.Param:
		b.pc.noteParam(e.Index)
		return &paramExpr{i: e.Index - 1}, exprInfo{}, nil
	case *ast.Unary:
		return b.unary(e)
	case *ast.Binary:
		return b.binary(e)
	case *ast.Like:
		return b.like(e)
	case *ast.IsNull:
		x, xi, err := b.bind(e.X)
		if err != nil {
			return nil, exprInfo{}, err
		}
		return &isNullExpr{x: x, not: e.Not}, collated(xi), nil
	case *ast.Between:
		return b.between(e)
	case *ast.In:
		return b.in(e)
	case *ast.Case:
		return b.caseExpr(e)
	case *ast.Cast:
		x, info, err := b.bind(e.X)
		if err != nil {
			return nil, exprInfo{}, err
		}
		aff := castAffinity(e.Type)
		return &castExpr{x: x, aff: aff}, exprInfo{hasAff: true, aff: aff, coll: info.coll, hasColl: info.hasColl,
			explicit: info.explicit}, nil
	case *ast.Collate:
		x, info, err := b.bind(e.X)
		if err != nil {
			return nil, exprInfo{}, err
		}
		c, ok := value.CollationByName(e.Collation)
		if !ok {
			return nil, exprInfo{}, fmt.Errorf("no such collation sequence: %s", e.Collation)
		}
		info.coll, info.hasColl, info.explicit = c, true, true
		return x, info, nil
	case *ast.Call:
		return b.call(e)
	case *ast.Exists:
		sq, err := b.subquery(e.Select, subqExists)
		if err != nil {
			return nil, exprInfo{}, err
		}
		return sq, exprInfo{}, nil
	case *ast.Raise:
		return b.raise(e)
	case *ast.RowValue:
		return nil, exprInfo{}, errRowValueMisused
	case *ast.RowColumn:
		return b.rowColumn(e)
	case *ast.Subquery:
		sq, err := b.subquery(e.Select, subqScalar)
		if err != nil {
			return nil, exprInfo{}, err
		}
		return sq, scalarSubqueryInfo(sq, 0), nil
	}
	return nil, exprInfo{}, fmt.Errorf("unsupported expression %T", e)
}

// scalarSubqueryInfo is what a comparison knows of column i of a subquery used as a value: its
// affinity and declared type (no collation).
func scalarSubqueryInfo(sq *subquery, i int) exprInfo {
	info := exprInfo{}
	if c := sq.plan.lastResultInfo(i); c.hasAff {
		info.hasAff, info.aff = true, c.aff
	}
	if len(sq.plan.decl) > i {
		info.decl = sq.plan.decl[i]
	}
	return info
}

// trueFalseInfo is the info of a boolean literal (none if tf is false).
func trueFalseInfo(tf, isTrue bool) exprInfo {
	switch {
	case !tf:
		return exprInfo{}
	case isTrue:
		return exprInfo{truth: 1}
	}
	return exprInfo{truth: -1}
}

// castAffinity is the affinity CAST(x AS typ) converts to: the declared type's, but NUMERIC for
// an empty type name (SQLite's sqlite3AffinityType; only a column declared without a type has
// no affinity).
func castAffinity(typ string) value.Affinity {
	if strings.TrimSpace(typ) == "" {
		return value.AffinityNumeric
	}
	return value.AffinityOf(typ)
}

func (b *binder) column(e *ast.ColumnRef) (expr, exprInfo, error) {
	r, err := b.sc.resolve(e.Table, e.Column)
	if nc, ok := err.(*errNoColumn); ok {
		if e.Table != "" {
			if x, info, ok := b.trigColumn(e); ok {
				return x, info, nil
			}
		}
		if e.Table == "" {
			if x, info, ok, err := b.alias(e.Column); ok || err != nil {
				return x, info, err
			}
			if e.DoubleQuoted {
				return &constExpr{v: value.TextString(e.Column)}, exprInfo{}, nil
			}
			// TRUE and FALSE where no column or alias has the name.
			if t := strings.EqualFold(e.Column, "true"); t || strings.EqualFold(e.Column, "false") {
				return &constExpr{v: value.Bool(t)}, trueFalseInfo(true, t), nil
			}
		}
		return nil, exprInfo{}, nc
	}
	if err != nil {
		return nil, exprInfo{}, err
	}
	if e.Table == "" && r.c.coalesce != nil {
		return b.bind(coalesceRef(r.c, e.Column))
	}
	if b.agg != nil && r.depth == 0 {
		b.agg.bare = true
	}
	info := r.info()
	info.column = &r
	return &colExpr{depth: r.depth, src: r.src, col: r.col}, info, nil
}

// alias binds name as a select-list alias of this query, if it is one.
func (b *binder) alias(name string) (expr, exprInfo, bool, error) {
	sc := b.sc
	if sc.inAliasBinding {
		return nil, exprInfo{}, false, nil
	}
	for _, a := range sc.aliases {
		if strings.EqualFold(a.name, name) {
			if b.win == nil && hasWindowCall(a.expr) {
				return nil, exprInfo{}, true, fmt.Errorf("misuse of aliased window function %s", a.name)
			}
			sc.inAliasBinding = true
			x, info, err := b.bind(a.expr)
			sc.inAliasBinding = false
			return x, info, true, err
		}
	}
	return nil, exprInfo{}, false, nil
}

func (b *binder) unary(e *ast.Unary) (expr, exprInfo, error) {
	x, info, err := b.bind(e.X)
	if err != nil {
		return nil, exprInfo{}, err
	}
	switch e.Op {
	case ast.Plus:
		// +x keeps x's value and collation but not its affinity (nor its being a column).
		info.hasAff, info.column = false, nil
		return x, info, nil
	case ast.Neg:
		if lit, ok := e.X.(*ast.Literal); ok && lit.Value.Kind() == value.Real {
			// SQLite negates a REAL literal exactly (-0.0 is -0.0); any other -x is 0 - x.
			return &constExpr{v: value.Float(-lit.Value.Float())}, exprInfo{}, nil
		}
		if c, ok := x.(*constExpr); ok {
			return &constExpr{v: value.Negate(c.v)}, collated(info), nil
		}
		return &negExpr{x: x}, collated(info), nil
	case ast.Not:
		return &notExpr{x: x}, collated(info), nil
	}
	return &bitNotExpr{x: x}, collated(info), nil
}

var arithOps = map[ast.BinaryOp]value.Op{
	ast.Add: value.OpAdd, ast.Sub: value.OpSub, ast.Mul: value.OpMul, ast.Div: value.OpDiv,
	ast.Rem: value.OpRem, ast.BitAnd: value.OpBitAnd, ast.BitOr: value.OpBitOr,
	ast.ShiftLeft: value.OpShiftLeft, ast.ShiftRight: value.OpShiftRight,
}

var cmpOps = map[ast.BinaryOp]cmpOp{
	ast.Eq: cmpEq, ast.Ne: cmpNe, ast.Lt: cmpLt, ast.Le: cmpLe, ast.Gt: cmpGt, ast.Ge: cmpGe,
	ast.Is: cmpIs, ast.IsNot: cmpIsNot,
}

func (b *binder) binary(e *ast.Binary) (expr, exprInfo, error) {
	if op, ok := cmpOps[e.Op]; ok && isRowComparison(e) {
		return b.rowCompare(e, op)
	}
	x, xi, err := b.bind(e.X)
	if err != nil {
		return nil, exprInfo{}, err
	}
	y, yi, err := b.bind(e.Y)
	if err != nil {
		return nil, exprInfo{}, err
	}
	return b.binaryBound(e, x, xi, y, yi)
}

// binaryBound is the operator of e over its bound operands.
func (b *binder) binaryBound(e *ast.Binary, x expr, xi exprInfo, y expr, yi exprInfo) (expr, exprInfo, error) {
	info := collated(xi, yi)
	switch e.Op {
	case ast.And:
		return &andExpr{x: x, y: y}, info, nil
	case ast.Or:
		return &orExpr{x: x, y: y}, info, nil
	case ast.Concat:
		return &concatExpr{x: x, y: y}, info, nil
	}
	if (e.Op == ast.Is || e.Op == ast.IsNot) && yi.truth != 0 {
		// x IS [NOT] TRUE|FALSE tests the truth of x (SQLite's TK_TRUTH).
		return &truthExpr{x: x, isTrue: yi.truth > 0, not: e.Op == ast.IsNot}, info, nil
	}
	if op, ok := cmpOps[e.Op]; ok {
		aff := comparisonAffinity(xi, yi)
		return newCmpExpr(op, x, y, aff, comparisonCollation(xi, yi)), info, nil
	}
	return newArithExpr(arithOps[e.Op], x, y), info, nil
}

// comparisonAffinity is the affinity applied to both operands of a comparison: numeric if either
// operand has a numeric affinity and both have one, else none; with one operand without
// affinity, the other's (sqlite3CompareAffinity).
func comparisonAffinity(x, y exprInfo) value.Affinity {
	switch {
	case x.hasAff && y.hasAff:
		if x.aff.IsNumeric() || y.aff.IsNumeric() {
			return value.AffinityNumeric
		}
		return value.AffinityBlob
	case x.hasAff:
		return x.aff
	case y.hasAff:
		return y.aff
	}
	return value.AffinityBlob
}

// comparisonCollation is the collation of a comparison: an explicit COLLATE of the left operand,
// else of the right, else the left operand's column's, else the right's, else BINARY.
func comparisonCollation(x, y exprInfo) value.Collation {
	switch {
	case x.explicit:
		return x.coll
	case y.explicit:
		return y.coll
	case x.hasColl:
		return x.coll
	case y.hasColl:
		return y.coll
	}
	return value.Binary
}

func (b *binder) like(e *ast.Like) (expr, exprInfo, error) {
	x, xi, err := b.bind(e.X)
	if err != nil {
		return nil, exprInfo{}, err
	}
	p, pi, err := b.bind(e.Pattern)
	if err != nil {
		return nil, exprInfo{}, err
	}
	var esc expr
	var ei exprInfo
	if e.Escape != nil {
		if esc, ei, err = b.bind(e.Escape); err != nil {
			return nil, exprInfo{}, err
		}
	}
	// SQLite calls like(pattern, x, escape): the pattern's collation comes first.
	return &likeExpr{x: x, pattern: p, escape: esc, glob: e.Glob, not: e.Not}, collated(pi, xi, ei), nil
}

// between binds x BETWEEN lo AND hi as x >= lo AND x <= hi (each comparison with its own
// affinity and collation, as SQLite rewrites it), negated for NOT BETWEEN.
func (b *binder) between(e *ast.Between) (expr, exprInfo, error) {
	ge := &ast.Binary{At: e.At, Op: ast.Ge, X: e.X, Y: e.Lo}
	le := &ast.Binary{At: e.At, Op: ast.Le, X: e.X, Y: e.Hi}
	var both exprAST = &ast.Binary{At: e.At, Op: ast.And, X: ge, Y: le}
	if e.Not {
		both = &ast.Unary{At: e.At, Op: ast.Not, X: both}
	}
	return b.bind(both)
}

func (b *binder) in(e *ast.In) (expr, exprInfo, error) {
	if isRowIn(e) {
		return b.rowIn(e)
	}
	x, xi, err := b.bind(e.X)
	if err != nil {
		return nil, exprInfo{}, err
	}
	return b.inBound(e, x, xi)
}

// inBound is x [NOT] IN (...) with x bound.
func (b *binder) inBound(e *ast.In, x expr, xi exprInfo) (expr, exprInfo, error) {
	if e.Select != nil {
		sq, err := b.subquery(e.Select, subqIn)
		if err != nil {
			return nil, exprInfo{}, err
		}
		if sq.plan.ncols != 1 {
			return nil, exprInfo{}, fmt.Errorf("sub-select returns %d columns - expected 1", sq.plan.ncols)
		}
		ci := sq.plan.lastResultInfo(0)
		aff := comparisonAffinity(xi, ci)
		return &inSubqueryExpr{x: x, sub: sq, aff: aff, coll: comparisonCollation(xi, ci), not: e.Not}, collated(xi), nil
	}
	// The items compare with x's collation only (BINARY if it has none), not an item's, as
	// SQLite's sqlite3ExprCodeIN takes it.
	out := &inListExpr{x: x, not: e.Not, affX: xi.aff, coll: collationOf(xi)}
	if !xi.hasAff {
		out.affX = value.AffinityBlob
	}
	parts := []exprInfo{xi}
	for _, item := range e.List {
		v, vi, err := b.bind(item)
		if err != nil {
			return nil, exprInfo{}, err
		}
		out.list = append(out.list, v)
		aff := out.affX // x's affinity, applied to every item (exprINAffinity)
		out.affs = append(out.affs, aff)
		parts = append(parts, vi)
	}
	return out, collated(parts...), nil
}

func (b *binder) caseExpr(e *ast.Case) (expr, exprInfo, error) {
	if e.Operand != nil && isRowCase(e) {
		return b.bind(rowCaseSearched(e))
	}
	out := &caseExpr{}
	var opInfo exprInfo
	var parts []exprInfo // in SQLite's order: the operand, each WHEN and THEN, ELSE
	if e.Operand != nil {
		x, info, err := b.bind(e.Operand)
		if err != nil {
			return nil, exprInfo{}, err
		}
		out.operand, opInfo = x, info
		parts = append(parts, info)
	}
	slot := &operandSlot{}
	for _, w := range e.Whens {
		c, ci, err := b.bind(w.Cond)
		if err != nil {
			return nil, exprInfo{}, err
		}
		if e.Operand == nil {
			shortCircuit(c) // a WHEN without an operand is a condition
		}
		r, ri, err := b.bind(w.Result)
		if err != nil {
			return nil, exprInfo{}, err
		}
		parts = append(parts, ci, ri)
		out.whens = append(out.whens, c)
		out.results = append(out.results, r)
		if e.Operand != nil {
			aff := comparisonAffinity(opInfo, ci)
			out.cmps = append(out.cmps, &cmpExpr{op: cmpEq, x: slot, y: c, affX: aff, affY: aff,
				coll: comparisonCollation(opInfo, ci)})
		}
	}
	if e.Else != nil {
		x, info, err := b.bind(e.Else)
		if err != nil {
			return nil, exprInfo{}, err
		}
		out.els = x
		parts = append(parts, info)
	}
	return out, collated(parts...), nil
}

func (b *binder) call(e *ast.Call) (expr, exprInfo, error) {
	if err := checkCallOrderBy(e); err != nil {
		return nil, exprInfo{}, err
	}
	if e.Over != nil {
		return b.window(e)
	}
	if _, ok := winFuncs[e.Name]; ok {
		return nil, exprInfo{}, fmt.Errorf("misuse of window function %s()", e.Name)
	}
	if e.Filter != nil && !isAggregate(e.Name, len(e.Args), e.Star) {
		if scalarFuncs[e.Name] == nil {
			return nil, exprInfo{}, fmt.Errorf("no such function: %s", e.Name)
		}
		return nil, exprInfo{}, fmt.Errorf("FILTER may not be used with non-aggregate %s()", e.Name)
	}
	if isAggregate(e.Name, len(e.Args), e.Star) {
		return b.aggregate(e)
	}
	if e.Star {
		return nil, exprInfo{}, fmt.Errorf("wrong number of arguments to function %s()", e.Name)
	}
	if e.Distinct {
		return nil, exprInfo{}, fmt.Errorf("DISTINCT aggregates must have exactly one argument")
	}
	f, err := lookupScalar(e.Name, len(e.Args))
	if err != nil {
		return nil, exprInfo{}, err
	}
	if f.checkArgs != nil {
		if err := f.checkArgs(e.Args); err != nil {
			return nil, exprInfo{}, err
		}
	}
	if f.pureVariant != nil && b.noAgg == "CHECK" {
		f = f.pureVariant("a CHECK constraint")
	}
	args, infos, err := b.bindArgs(e.Args)
	if err != nil {
		return nil, exprInfo{}, err
	}
	out := &funcExpr{fn: f, args: args}
	if f.lazy != nil && (strings.EqualFold(e.Name, "iif") || strings.EqualFold(e.Name, "if")) {
		for i := 0; i+1 < len(out.args); i += 2 {
			shortCircuit(out.args[i]) // iif's conditions, as CASE WHEN's
		}
	}
	out.coll = callCollation(infos)
	return out, collated(infos...), nil
}

// collated is the info of an expression made of parts, given in SQLite's order (the left
// operand, then the others): it has a collation only when a part has an explicit one (a COLLATE
// in it), the first such part's, as sqlite3ExprCollSeq follows EP_Collate; and no affinity.
func collated(parts ...exprInfo) exprInfo {
	for _, p := range parts {
		if p.explicit {
			return exprInfo{coll: p.coll, hasColl: true, explicit: true}
		}
	}
	return exprInfo{}
}

// bindArgs binds a call's arguments, returning them and their infos in order.
func (b *binder) bindArgs(args []exprAST) ([]expr, []exprInfo, error) {
	var out []expr
	var infos []exprInfo
	for _, a := range args {
		x, info, err := b.bind(a)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, x)
		infos = append(infos, info)
	}
	return out, infos, nil
}

// callCollation is the collation a function compares with (min, max, nullif, an aggregate):
// that of its first argument that has one, a column's or an explicit COLLATE's, in order (as
// SQLite finds it for a function that needs a collation).
func callCollation(infos []exprInfo) value.Collation {
	for _, i := range infos {
		if i.hasColl {
			return i.coll
		}
	}
	return value.Binary
}

func (b *binder) aggregate(e *ast.Call) (expr, exprInfo, error) {
	if depth, ok := b.sc.outerAggregateDepth(e); ok {
		return b.outerAggregate(e, depth)
	}
	if b.agg == nil {
		switch b.noAgg {
		case "GROUP BY":
			return nil, exprInfo{}, errors.New("aggregate functions are not allowed in the GROUP BY clause")
		case "ORDER BY": // of a query without aggregates
			return nil, exprInfo{}, fmt.Errorf("misuse of aggregate: %s()", e.Name)
		}
		if e.Filter != nil { // SQLite finds these later, and words them so
			return nil, exprInfo{}, fmt.Errorf("misuse of aggregate: %s()", e.Name)
		}
		return nil, exprInfo{}, fmt.Errorf("misuse of aggregate function %s()", e.Name)
	}
	def, err := lookupAggregate(e.Name, len(e.Args), e.Star, e.Distinct)
	if err != nil {
		return nil, exprInfo{}, err
	}
	call := &aggCall{name: e.Name, def: def, distinct: e.Distinct}
	// Arguments are bound in the FROM scope, without the collector: no aggregate inside one,
	// not even one of this query in a subquery there.
	inner := &binder{pc: b.pc, sc: b.sc, noAgg: "aggregate"}
	saved := b.sc.aggs
	b.sc.aggs = nil
	defer func() { b.sc.aggs = saved }()
	args, infos, err := inner.bindArgs(e.Args)
	if err != nil {
		return nil, exprInfo{}, err
	}
	call.args = args
	if e.Filter != nil {
		x, _, err := inner.bind(e.Filter)
		if err != nil {
			return nil, exprInfo{}, err
		}
		call.filter = x
	}
	if err := bindAggOrder(inner, e, call); err != nil {
		return nil, exprInfo{}, err
	}
	call.coll = callCollation(infos)
	if len(call.args) == 1 {
		call.intArg = asIntExpr(call.args[0])
	}
	b.agg.calls = append(b.agg.calls, call)
	return &aggRefExpr{i: len(b.agg.calls) - 1}, collated(infos...), nil
}

// outerAggregateDepth reports whether the aggregate call e belongs to an enclosing query, and to
// which (1: the one around sc's): as in SQLite (resolve.c), an aggregate whose arguments read
// columns, all of enclosing queries, is an aggregate of the innermost query whose columns it
// reads. Arguments holding a subquery or a name that is not a column stay with sc's query.
func (sc *scope) outerAggregateDepth(e *ast.Call) (int, bool) {
	refs, ok := columnRefs(e.Args, nil)
	if !ok || len(refs) == 0 {
		return 0, false
	}
	depth := -1
	for _, r := range refs {
		d, found := sc.depthOf(r.Table, r.Column)
		if !found {
			return 0, false
		}
		if depth < 0 || d < depth {
			depth = d
		}
	}
	return depth, depth > 0
}

// outerAggregate binds the aggregate call e as one of the query depth levels out: the call joins
// that query's aggregates (making it an aggregate query), and e reads its value for the current
// group. It is an error where that query takes no aggregates (its WHERE, GROUP BY, or the ORDER
// BY of a query that is not an aggregate).
func (b *binder) outerAggregate(e *ast.Call, depth int) (expr, exprInfo, error) {
	if !b.aggAllowedHere() {
		return nil, exprInfo{}, fmt.Errorf("misuse of aggregate function %s()", e.Name)
	}
	target := b.sc
	for i := 0; i < depth; i++ {
		target.usedOuter = true // this query reads a value of an enclosing one
		target = target.outer
	}
	if target.aggs == nil {
		if b.existsList || b.sc.unevaluated {
			return &constExpr{}, exprInfo{}, nil // never evaluated (SQLite does not even check it)
		}
		return nil, exprInfo{}, fmt.Errorf("misuse of aggregate: %s()", e.Name)
	}
	ob := &binder{pc: b.pc, sc: target, agg: target.aggs}
	x, info, err := ob.aggregate(e)
	if err != nil {
		return nil, exprInfo{}, err
	}
	return &outerAggRefExpr{depth: depth, i: x.(*aggRefExpr).i}, info, nil
}

// aggAllowedHere reports whether SQLite's name resolution (resolve.c) takes an aggregate call
// where b binds: in the select list, ORDER BY, GROUP BY and HAVING, in the WHERE of an aggregate
// query, but not in an aggregate's arguments, LIMIT and the like. (Whether the query the call
// belongs to takes it is checked after.)
func (b *binder) aggAllowedHere() bool {
	switch b.noAgg {
	case "", "GROUP BY", "ORDER BY":
		return true
	case "WHERE":
		return b.sc.aggQuery
	}
	return false
}

// isAggregateCore reports whether the select list of core (bound in sc, whose sources are set)
// holds an aggregate call of its own (not in a subquery, not an enclosing query's), or core has
// a GROUP BY: whether it is an aggregate query, as SQLite decides before it resolves the WHERE.
func isAggregateCore(core *ast.SelectCore, sc *scope) bool {
	if len(core.GroupBy) > 0 {
		return true
	}
	var exprs []exprAST
	for _, c := range core.Columns {
		if !c.Star {
			exprs = append(exprs, c.Expr)
		}
	}
	return hasOwnAggregate(exprs, sc)
}

// hasOwnAggregate reports whether exprs hold an aggregate call that belongs to sc's query.
func hasOwnAggregate(exprs []exprAST, sc *scope) bool {
	for _, e := range exprs {
		if c, ok := e.(*ast.Call); ok && c.Over == nil && isAggregate(c.Name, len(c.Args), c.Star) {
			if _, outer := sc.outerAggregateDepth(c); !outer {
				return true
			}
		}
		if sub, _ := astChildren(e); hasOwnAggregate(sub, sc) {
			return true
		}
	}
	return false
}

// columnRefs appends the column references of exprs to out; ok is false if one holds a subquery.
func columnRefs(exprs []exprAST, out []*ast.ColumnRef) ([]*ast.ColumnRef, bool) {
	for _, e := range exprs {
		switch e := e.(type) {
		case nil, *ast.Literal, *ast.Param:
			continue
		case *ast.ColumnRef:
			out = append(out, e)
			continue
		case *ast.In:
			if e.Select != nil {
				return out, false
			}
		}
		sub, known := astChildren(e)
		if !known { // subqueries
			return out, false
		}
		var ok bool
		if out, ok = columnRefs(sub, out); !ok {
			return out, false
		}
	}
	return out, true
}

// astChildren returns the operands of an operator or function call e (an IN's operand and list,
// not its subquery); known is false for leaves, subqueries and any other node.
func astChildren(e exprAST) (parts []exprAST, known bool) {
	switch e := e.(type) {
	case *ast.In:
		return append([]exprAST{e.X}, e.List...), true
	case *ast.Call:
		if e.Over == nil && e.Filter == nil && e.OrderBy == nil {
			return e.Args, true
		}
		parts = append(append(parts, e.Args...), e.Filter)
		for _, t := range e.OrderBy {
			parts = append(parts, t.Expr)
		}
		if e.Over != nil {
			parts = append(parts, e.Over.Partition...)
			for _, t := range e.Over.OrderBy {
				parts = append(parts, t.Expr)
			}
		}
		return parts, true
	case *ast.Unary:
		return []exprAST{e.X}, true
	case *ast.Binary:
		return []exprAST{e.X, e.Y}, true
	case *ast.Like:
		return []exprAST{e.X, e.Pattern, e.Escape}, true
	case *ast.IsNull:
		return []exprAST{e.X}, true
	case *ast.Between:
		return []exprAST{e.X, e.Lo, e.Hi}, true
	case *ast.Case:
		parts = []exprAST{e.Operand, e.Else}
		for _, w := range e.Whens {
			parts = append(parts, w.Cond, w.Result)
		}
		return parts, true
	case *ast.Cast:
		return []exprAST{e.X}, true
	case *ast.Collate:
		return []exprAST{e.X}, true
	case *ast.RowValue:
		return e.Items, true
	}
	return nil, false
}

// conjuncts splits e into its AND terms.
func conjuncts(e exprAST, out []exprAST) []exprAST {
	if bin, ok := e.(*ast.Binary); ok && bin.Op == ast.And {
		return conjuncts(bin.Y, conjuncts(bin.X, out))
	}
	if e != nil {
		out = append(out, e)
	}
	return out
}

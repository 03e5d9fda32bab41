package engine

// Bound expressions and their evaluation. The binder (bind.go) turns ast expressions into these
// nodes with names resolved to row slots, affinities and collations decided (datatype3.html §4,
// §7), so that evaluation does no lookups.

import (
	"github.com/cairndb/cairn/sql/value"
)

// env is the state an expression reads: the current row of each source of its query, the
// statement's parameters, the enclosing query's env (correlated subqueries) and, after
// aggregation, the aggregate values of the current group.
type env struct {
	rows   [][]value.Value
	params []value.Value
	outer  *env
	aggs   []value.Value
	run    *runState
	// wins are the results of the core's window calls for the current row (window.go).
	wins []value.Value
	// autoIndexes holds the hash tables of the core's automatic indexes (autoindex.go): nil
	// after the loop's first run, which scans; built on its second.
	autoIndexes map[*autoIndex]*hashTable
}

// runState is what one execution of a statement shares: its transaction view, its context and
// the cache of uncorrelated subqueries.
type runState struct {
	cx        *execCtx
	params    []value.Value
	subqCache map[*subquery]*subqResult // nil until the first uncorrelated subquery runs
	ctes      map[*cteDef]*cteMemo      // nil until a shared CTE is opened (cte.go)
	// scratch is the query's memory for its first iterators (nil: they allocate).
	scratch *openScratch
}

// cacheSubquery keeps the result of the uncorrelated subquery s for the rest of the run.
func (r *runState) cacheSubquery(s *subquery, res *subqResult) {
	if r.subqCache == nil {
		r.subqCache = map[*subquery]*subqResult{}
	}
	r.subqCache[s] = res
}

// expr is a bound expression.
type expr interface {
	eval(e *env) (value.Value, error)
}

// constExpr is a constant.
type constExpr struct{ v value.Value }

func (c *constExpr) eval(*env) (value.Value, error) { return c.v, nil }

// colExpr reads column col of source src of the query depth levels out (0: this query).
type colExpr struct {
	depth, src, col int
}

func (c *colExpr) eval(e *env) (value.Value, error) {
	for i := 0; i < c.depth; i++ {
		e = e.outer
	}
	row := e.rows[c.src]
	if row == nil {
		return value.Value{}, nil
	}
	return row[c.col], nil
}

// paramExpr is bind parameter i (0-based).
type paramExpr struct{ i int }

func (p *paramExpr) eval(e *env) (value.Value, error) {
	if p.i < len(e.params) {
		return e.params[p.i], nil
	}
	return value.Value{}, nil
}

// aggRefExpr reads the value of aggregate i of the current group.
type aggRefExpr struct{ i int }

func (a *aggRefExpr) eval(e *env) (value.Value, error) { return e.aggs[a.i], nil }

// outerAggRefExpr reads the value of aggregate i of the current group of the query depth levels
// out: an aggregate call in a subquery that reads only the enclosing query's columns.
type outerAggRefExpr struct{ depth, i int }

func (a *outerAggRefExpr) eval(e *env) (value.Value, error) {
	for d := 0; d < a.depth; d++ {
		e = e.outer
	}
	return e.aggs[a.i], nil
}

// arithExpr is an arithmetic or bitwise operator.
type arithExpr struct {
	op   value.Op
	x, y expr
	// ix and iy are x and y when both have an INTEGER fast path (exprint.go), else nil.
	ix, iy intExpr
}

// The binary operators evaluate their two operands inline, each its own copy of the same lines:
// a shared helper returning both values is not inlined and cost the full scan 26 % (measured).
func (a *arithExpr) eval(e *env) (value.Value, error) {
	if a.ix != nil {
		if r, ok := a.evalInt(e); ok {
			return value.Int(r), nil
		}
	}
	x, err := a.x.eval(e)
	if err != nil {
		return x, err
	}
	y, err := a.y.eval(e)
	if err != nil {
		return y, err
	}
	return value.Arith(a.op, x, y), nil
}

// concatExpr is x || y.
type concatExpr struct{ x, y expr }

func (c *concatExpr) eval(e *env) (value.Value, error) {
	x, err := c.x.eval(e)
	if err != nil {
		return x, err
	}
	y, err := c.y.eval(e)
	if err != nil {
		return y, err
	}
	return value.Concat(nil, x, y), nil
}

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	cmpEq cmpOp = iota
	cmpNe
	cmpLt
	cmpLe
	cmpGt
	cmpGe
	cmpIs
	cmpIsNot
)

// cmpExpr compares x and y after applying the comparison affinity aff to both (datatype3.html
// §4.2: the binder decides it from the operands) and with collation coll.
type cmpExpr struct {
	op   cmpOp
	x, y expr
	affX value.Affinity // applied to x
	affY value.Affinity // applied to y
	coll value.Collation
	// ix and iy are x and y when the comparison has an INTEGER fast path (exprint.go), else
	// nil.
	ix, iy intExpr
}

func (c *cmpExpr) eval(e *env) (value.Value, error) {
	if c.ix != nil {
		if x, ok := c.ix.evalInt(e); ok {
			if y, ok := c.iy.evalInt(e); ok {
				return compareInts(c.op, x, y), nil
			}
		}
	}
	return c.evalValues(e)
}

// evalValues is eval without the INTEGER fast path.
func (c *cmpExpr) evalValues(e *env) (value.Value, error) {
	x, err := c.x.eval(e)
	if err != nil {
		return x, err
	}
	y, err := c.y.eval(e)
	if err != nil {
		return y, err
	}
	if x.Kind() == value.Integer && y.Kind() == value.Integer && c.op <= cmpGe &&
		c.affX != value.AffinityText && c.affY != value.AffinityText {
		return compareInts(c.op, x.Int(), y.Int()), nil // the numeric affinities keep INTEGERs
	}
	return compareValues(c.op, c.affX.ApplyForCompare(x), c.affY.ApplyForCompare(y), c.coll), nil
}

// compareInts is compareValues for two INTEGERs (not IS or IS NOT).
func compareInts(op cmpOp, x, y int64) value.Value {
	switch op {
	case cmpEq:
		return value.Bool(x == y)
	case cmpNe:
		return value.Bool(x != y)
	case cmpLt:
		return value.Bool(x < y)
	case cmpLe:
		return value.Bool(x <= y)
	case cmpGt:
		return value.Bool(x > y)
	}
	return value.Bool(x >= y)
}

// compareValues applies a comparison operator to two values already converted by affinity.
func compareValues(op cmpOp, x, y value.Value, coll value.Collation) value.Value {
	if op == cmpIs || op == cmpIsNot {
		eq := x.IsNull() && y.IsNull() || !x.IsNull() && !y.IsNull() && value.Compare(x, y, coll) == 0
		return value.Bool(eq == (op == cmpIs))
	}
	if x.IsNull() || y.IsNull() {
		return value.Value{}
	}
	c := value.Compare(x, y, coll)
	switch op {
	case cmpEq:
		return value.Bool(c == 0)
	case cmpNe:
		return value.Bool(c != 0)
	case cmpLt:
		return value.Bool(c < 0)
	case cmpLe:
		return value.Bool(c <= 0)
	case cmpGt:
		return value.Bool(c > 0)
	}
	return value.Bool(c >= 0)
}

// andExpr and orExpr are the logical operators with three-valued logic.
// Where SQLite jumps on a condition (WHERE, ON and HAVING terms, CASE WHEN, iif's condition,
// CHECK: sqlite3ExprIfTrue and IfFalse), AND and OR skip their right operand when the left one
// decides (jump, set by shortCircuit); as a value (a result column, an operand of another
// operator) they compute both operands first, as SQLite's OP_And and OP_Or do, so that an error
// of either is the statement's.
type andExpr struct {
	x, y expr
	jump bool
}
type orExpr struct {
	x, y expr
	jump bool
}

// shortCircuit marks the AND and OR operators at the top of x (and under NOT) as evaluated in a
// jump context.
func shortCircuit(x expr) {
	switch x := x.(type) {
	case *andExpr:
		x.jump = true
		shortCircuit(x.x)
		shortCircuit(x.y)
	case *orExpr:
		x.jump = true
		shortCircuit(x.x)
		shortCircuit(x.y)
	case *notExpr:
		shortCircuit(x.x)
	}
}

func (a *andExpr) eval(e *env) (value.Value, error) {
	x, err := a.x.eval(e)
	if err != nil {
		return x, err
	}
	xt, xok := value.Truth(x)
	if xok && !xt && a.jump {
		return value.Int(0), nil
	}
	y, err := a.y.eval(e)
	if err != nil {
		return y, err
	}
	if xok && !xt {
		return value.Int(0), nil
	}
	yt, yok := value.Truth(y)
	switch {
	case yok && !yt:
		return value.Int(0), nil
	case xok && yok:
		return value.Int(1), nil
	}
	return value.Value{}, nil
}

func (o *orExpr) eval(e *env) (value.Value, error) {
	x, err := o.x.eval(e)
	if err != nil {
		return x, err
	}
	xt, xok := value.Truth(x)
	if xok && xt && o.jump {
		return value.Int(1), nil
	}
	y, err := o.y.eval(e)
	if err != nil {
		return y, err
	}
	if xok && xt {
		return value.Int(1), nil
	}
	yt, yok := value.Truth(y)
	switch {
	case yok && yt:
		return value.Int(1), nil
	case xok && yok:
		return value.Int(0), nil
	}
	return value.Value{}, nil
}

// notExpr is NOT x.
type notExpr struct{ x expr }

func (n *notExpr) eval(e *env) (value.Value, error) {
	x, err := n.x.eval(e)
	if err != nil {
		return x, err
	}
	t, ok := value.Truth(x)
	if !ok {
		return value.Value{}, nil
	}
	return value.Bool(!t), nil
}

// negExpr is -x, bitNotExpr ~x, plusExpr +x (which changes nothing, not even the class).
type negExpr struct{ x expr }
type bitNotExpr struct{ x expr }

func (n *negExpr) eval(e *env) (value.Value, error) {
	x, err := n.x.eval(e)
	if err != nil {
		return x, err
	}
	return value.Negate(x), nil
}

func (n *bitNotExpr) eval(e *env) (value.Value, error) {
	x, err := n.x.eval(e)
	if err != nil {
		return x, err
	}
	return value.BitNot(x), nil
}

// truthExpr is x IS TRUE (isTrue) or x IS FALSE, negated for IS NOT: whether x is true (or
// false); NULL is neither.
type truthExpr struct {
	x           expr
	isTrue, not bool
}

func (t *truthExpr) eval(e *env) (value.Value, error) {
	x, err := t.x.eval(e)
	if err != nil {
		return x, err
	}
	truth, known := value.Truth(x)
	return value.Bool((known && truth == t.isTrue) != t.not), nil
}

// isNullExpr is x IS NULL (or NOT NULL when not is set).
type isNullExpr struct {
	x   expr
	not bool
}

func (n *isNullExpr) eval(e *env) (value.Value, error) {
	x, err := n.x.eval(e)
	if err != nil {
		return x, err
	}
	return value.Bool(x.IsNull() != n.not), nil
}

// castExpr is CAST(x AS type).
type castExpr struct {
	x   expr
	aff value.Affinity
}

func (c *castExpr) eval(e *env) (value.Value, error) {
	x, err := c.x.eval(e)
	if err != nil || x.IsNull() {
		return x, err
	}
	return castValue(x, c.aff), nil
}

// castValue converts x as CAST does to a type of affinity aff (lang_expr.html "CAST").
func castValue(x value.Value, aff value.Affinity) value.Value {
	switch aff {
	case value.AffinityInteger:
		return value.Int(value.ToInt(x))
	case value.AffinityReal:
		return value.Float(value.ToFloat(x))
	case value.AffinityNumeric:
		return value.ToNumeric(x)
	case value.AffinityText:
		if x.Kind() == value.Text {
			return x
		}
		return value.TextBytes(x.AppendText(nil))
	}
	if x.Kind() == value.Blob {
		return x
	}
	return value.BlobBytes(x.AppendText(nil))
}

// caseExpr is CASE [operand] WHEN ... THEN ... ELSE ... END; with an operand each WHEN compares
// with it as = does (cmps holds those comparisons).
type caseExpr struct {
	operand expr
	whens   []expr // conditions, or the values compared with operand
	cmps    []*cmpExpr
	results []expr
	els     expr
}

// operandSlot lets a CASE's comparisons read the operand once.
type operandSlot struct{ v value.Value }

func (o *operandSlot) eval(*env) (value.Value, error) { return o.v, nil }

func (c *caseExpr) eval(e *env) (value.Value, error) {
	var slot *operandSlot
	if c.operand != nil {
		v, err := c.operand.eval(e)
		if err != nil {
			return v, err
		}
		slot = c.cmps[0].x.(*operandSlot)
		slot.v = v
	}
	for i, w := range c.whens {
		var cond value.Value
		var err error
		if c.operand != nil {
			cond, err = c.cmps[i].eval(e)
		} else {
			cond, err = w.eval(e)
		}
		if err != nil {
			return cond, err
		}
		if t, ok := value.Truth(cond); ok && t {
			return c.results[i].eval(e)
		}
	}
	if c.els == nil {
		return value.Value{}, nil
	}
	return c.els.eval(e)
}

// inListExpr is x [NOT] IN (list): each item compared as = compares, with NULL results as SQL
// says (true if found; NULL if not found and x or an item is NULL; else false).
type inListExpr struct {
	x    expr
	list []expr
	affX value.Affinity
	affs []value.Affinity // applied to each item
	coll value.Collation
	not  bool
}

func (in *inListExpr) eval(e *env) (value.Value, error) {
	if len(in.list) == 0 {
		return value.Bool(in.not), nil
	}
	x, err := in.x.eval(e)
	if err != nil {
		return x, err
	}
	if x.IsNull() {
		// SQLite compares x with each item in turn even so: an item's error is the result.
		for _, item := range in.list {
			if v, err := item.eval(e); err != nil {
				return v, err
			}
		}
		return value.Value{}, nil
	}
	x = in.affX.ApplyForCompare(x)
	sawNull := false
	for i, item := range in.list {
		v, err := item.eval(e)
		if err != nil {
			return v, err
		}
		if v.IsNull() {
			sawNull = true
			continue
		}
		if value.Compare(x, in.affs[i].ApplyForCompare(v), in.coll) == 0 {
			return value.Bool(!in.not), nil
		}
	}
	if sawNull {
		return value.Value{}, nil
	}
	return value.Bool(in.not), nil
}

// likeExpr is x [NOT] LIKE|GLOB pattern [ESCAPE esc].
type likeExpr struct {
	x, pattern, escape expr
	glob, not          bool
}

func (l *likeExpr) eval(e *env) (value.Value, error) {
	x, err := l.x.eval(e)
	if err != nil {
		return x, err
	}
	p, err := l.pattern.eval(e)
	if err != nil {
		return p, err
	}
	var esc value.Value
	if l.escape != nil {
		if esc, err = l.escape.eval(e); err != nil {
			return esc, err
		}
	}
	m, err := likeCall(p, x, esc, l.escape != nil, l.glob) // funcs_core.go
	if err != nil || m.IsNull() || !l.not {
		return m, err
	}
	return value.Bool(m.Int() == 0), nil
}

// funcExpr is a call of a scalar function.
type funcExpr struct {
	fn   *scalarFunc
	args []expr
	vals []value.Value // reused argument buffer
	coll value.Collation
}

func (f *funcExpr) eval(e *env) (value.Value, error) {
	if f.fn.lazy != nil {
		return f.fn.lazy(f.args, e)
	}
	vals := f.vals[:0]
	for _, a := range f.args {
		v, err := a.eval(e)
		if err != nil {
			return v, err
		}
		vals = append(vals, v)
	}
	f.vals = vals
	return f.fn.call(vals, f.coll)
}

// truth evaluates x as a condition: true only for a true value (NULL and false are not).
func truth(x expr, e *env) (bool, error) {
	if c, ok := x.(*cmpExpr); ok && c.ix != nil {
		return c.cond(e)
	}
	v, err := x.eval(e)
	if err != nil {
		return false, err
	}
	t, ok := value.Truth(v)
	return ok && t, nil
}

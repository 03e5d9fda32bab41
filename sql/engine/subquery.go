package engine

// Subqueries in expressions: scalar (SELECT ...), EXISTS (SELECT ...) and x IN (SELECT ...). An
// uncorrelated subquery (one that reads no column of an enclosing query) runs once per statement
// execution; its result is cached in the run state. A correlated one runs each time it is
// evaluated.

import (
	"fmt"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

type subqKind uint8

const (
	subqScalar subqKind = iota
	subqExists
	subqIn
	subqRow // a row subquery of any width, (a, b) = (SELECT x, y): rowvalue.go
)

type subquery struct {
	kind       subqKind
	plan       *selectPlan
	correlated bool
}

// subqResult is a cached result: the scalar or EXISTS value, or the IN set.
type subqResult struct {
	v       value.Value
	set     map[string]struct{}
	hasNull bool
	// rows are a row subquery's first row, or a row IN subquery's rows (rowvalue.go).
	rows [][]value.Value
}

func (b *binder) subquery(sel *ast.Select, kind subqKind) (*subquery, error) {
	child := &scope{outer: b.sc, existsSelect: kind == subqExists, unevaluated: b.existsList || b.sc.unevaluated}
	plan, err := planSelect(b.pc, sel, child)
	if err != nil {
		return nil, err
	}
	if kind == subqScalar && plan.ncols != 1 {
		return nil, fmt.Errorf("sub-select returns %d columns - expected 1", plan.ncols)
	}
	return &subquery{kind: kind, plan: plan, correlated: child.usedOuter}, nil
}

func (s *subquery) eval(e *env) (value.Value, error) {
	if !s.correlated {
		if r, ok := e.run.subqCache[s]; ok {
			return r.v, nil
		}
	}
	v, err := s.compute(e)
	if err != nil {
		return v, err
	}
	if !s.correlated {
		e.run.cacheSubquery(s, &subqResult{v: v})
	}
	return v, nil
}

// compute runs the subquery for a scalar or EXISTS result.
func (s *subquery) compute(e *env) (value.Value, error) {
	it, err := s.plan.open(e.run, e)
	if err != nil {
		return value.Value{}, err
	}
	defer it.close()
	ok, err := it.next()
	if err != nil {
		return value.Value{}, err
	}
	if s.kind == subqExists {
		return value.Bool(ok), nil
	}
	if !ok {
		return value.Value{}, nil
	}
	return it.row()[0].Clone(), nil
}

// inSubqueryExpr is x [NOT] IN (SELECT y ...): the subquery's values are compared with x after
// the comparison affinity aff and with collation coll.
type inSubqueryExpr struct {
	x    expr
	sub  *subquery
	aff  value.Affinity
	coll value.Collation
	not  bool
	key  []byte
}

func (in *inSubqueryExpr) eval(e *env) (value.Value, error) {
	x, err := in.x.eval(e)
	if err != nil {
		return x, err
	}
	r, err := in.set(e)
	if err != nil {
		return value.Value{}, err
	}
	if len(r.set) == 0 && !r.hasNull {
		return value.Bool(in.not), nil // empty: false even for a NULL x
	}
	if x.IsNull() {
		return value.Value{}, nil
	}
	in.key = codec.AppendKey(in.key[:0], inSetValue(in.aff, x), false, in.coll)
	if _, ok := r.set[string(in.key)]; ok {
		return value.Bool(!in.not), nil
	}
	if r.hasNull {
		return value.Value{}, nil
	}
	return value.Bool(in.not), nil
}

// set returns the subquery's values as a set of keys (cached when it is not correlated).
func (in *inSubqueryExpr) set(e *env) (*subqResult, error) {
	var key []byte
	return in.sub.result(e, func(r *subqResult, row []value.Value) {
		v := row[0]
		if v.IsNull() {
			r.hasNull = true
			return
		}
		key = codec.AppendKey(key[:0], inSetValue(in.aff, v), false, in.coll)
		r.set[string(key)] = struct{}{}
	})
}

// result runs s and builds its result with add, called with each row (valid until the next);
// once per statement when s is not correlated (the result is cached), else at every call.
func (s *subquery) result(e *env, add func(r *subqResult, row []value.Value)) (*subqResult, error) {
	if !s.correlated {
		if r, ok := e.run.subqCache[s]; ok {
			return r, nil
		}
	}
	it, err := s.plan.open(e.run, e)
	if err != nil {
		return nil, err
	}
	defer it.close()
	r := &subqResult{set: map[string]struct{}{}}
	for {
		ok, err := it.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		add(r, it.row())
	}
	if !s.correlated {
		e.run.cacheSubquery(s, r)
	}
	return r, nil
}

// inSetValue is a value of an IN subquery, or the value looked up in it, as SQLite converts it
// for its IN table (OP_MakeRecord, OP_Affinity with the comparison affinity): as for a
// comparison, and, with REAL affinity, an INTEGER beyond 48 bits made a REAL, losing its low
// bits (SQLite keeps a smaller one exact).
func inSetValue(aff value.Affinity, v value.Value) value.Value {
	v = aff.ApplyForCompare(v)
	if aff == value.AffinityReal && v.Kind() == value.Integer {
		if i := v.Int(); i > 140737488355327 || i < -140737488355328 {
			return value.Float(float64(i))
		}
	}
	return v
}

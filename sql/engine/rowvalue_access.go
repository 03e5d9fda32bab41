package engine

// Access paths for row values: (c1, c2) = (x1, x2) is c1 = x1 and c2 = x2 for the planner (each
// pair implied by the term), and a range (c1, c2, ...) > (x1, x2, ...) bounds an index on c1,
// c2, ... (after its = columns) by the key of (x1, x2, ...), which keyset pagination
// (WHERE (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT n) needs.
//
// Invariant (the superset rule, SQL-DESIGN.md): a row range's term for c1 is widened to >= or <=,
// which every row the row comparison selects satisfies; an index path takes the exact row bound
// only where the next index columns are c2, ... in the same direction with the pair's collation
// and a usable affinity, and falls back to the inclusive bound on fewer columns when a value is
// NULL or too long for its key. The term itself is evaluated again on every row.

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// rowRange is the rest of a row-value range after its first pair (colTerm.row).
type rowRange struct {
	op    ast.BinaryOp // the comparison, the columns on the left: < <= > >=
	cols  []int        // table columns c2, ...
	xs    []expr
	affs  []value.Affinity
	colls []value.Collation
}

// moreBound is one value after the first of a row-value index bound.
type moreBound struct {
	x   expr
	aff value.Affinity
	ic  IndexColumn
}

// rowTerms adds the access terms of e to out if e compares two row values, reporting whether it
// did (a row comparison gives no scalar term).
func rowTerms(pc *planCtx, sc *scope, i int, e *ast.Binary, avail uint64,
	add func(col exprAST, op ast.BinaryOp, other exprAST, flipped bool), out *[]colTerm) bool {
	rx, ok := e.X.(*ast.RowValue)
	ry, ok2 := e.Y.(*ast.RowValue)
	if !ok || !ok2 {
		return ok || ok2
	}
	if len(rx.Items) != len(ry.Items) {
		return true
	}
	side := func(cols []exprAST, op ast.BinaryOp, others []exprAST, flipped bool) {
		if op == ast.Eq {
			for k := range cols {
				add(cols[k], ast.Eq, others[k], flipped)
			}
			return
		}
		wide := ast.Ge
		if op == ast.Lt || op == ast.Le {
			wide = ast.Le
		}
		n := len(*out)
		add(cols[0], wide, others[0], flipped)
		if len(*out) == n || (*out)[n].col == exprColumn || (*out)[n].col == -1 {
			return
		}
		rr := &rowRange{op: op}
		for k := 1; k < len(cols); k++ {
			r, ok := sourceColumn(sc, i, cols[k])
			if !ok || r.col == sc.sources[i].rowidSlot {
				break
			}
			x, xi, _, ok := bindAvail(pc, sc, others[k], avail)
			if !ok {
				break
			}
			ci := r.info()
			coll := comparisonCollation(ci, xi)
			if flipped {
				coll = comparisonCollation(xi, ci)
			}
			rr.cols = append(rr.cols, r.col)
			rr.xs = append(rr.xs, x)
			rr.affs = append(rr.affs, comparisonAffinity(ci, xi))
			rr.colls = append(rr.colls, coll)
		}
		if len(rr.cols) > 0 {
			(*out)[n].row = rr
		}
	}
	side(rx.Items, e.Op, ry.Items, false)
	side(ry.Items, flip(e.Op), rx.Items, true)
	return true
}

// extendBound extends b, the bound of the range term ct on index column k of ix (named name),
// with the values of ct's row for the index columns after k that serve them, and returns the
// bound's text for EXPLAIN QUERY PLAN: "c" or "(c,k)".
func extendBound(b *bound, ct *colTerm, src *source, ix *Index, k int, name string) string {
	t := src.table
	names := []string{name}
	for m, col := range ct.row.cols {
		pos := k + 1 + m
		if pos >= len(ix.Columns) {
			break
		}
		ic := ix.Columns[pos]
		if ic.Column != col || ic.Desc != ix.Columns[k].Desc ||
			!indexUsable(colTerm{aff: ct.row.affs[m], coll: ct.row.colls[m]}, t.Columns[col].Affinity, ic.Collation) {
			break
		}
		b.more = append(b.more, moreBound{x: ct.row.xs[m], aff: ct.row.affs[m], ic: ic})
		names = append(names, t.Columns[col].Name)
	}
	if len(b.more) == 0 {
		return name
	}
	b.inclusive = ct.row.op == ast.Ge || ct.row.op == ast.Le
	return "(" + strings.Join(names, ",") + ")"
}

// boundParams is the text of a bound's values in EXPLAIN QUERY PLAN: "?" or "(?,?)".
func boundParams(b *bound) string {
	if len(b.more) == 0 {
		return "?"
	}
	return "(" + strings.Repeat("?,", len(b.more)) + "?)"
}

// appendMore appends the keys of a row bound's further values to k; whole is false when it
// stopped early (a NULL, or a value whose key is a prefix), the key then bounding fewer columns.
func appendMore(e *env, k []byte, more []moreBound) ([]byte, bool, error) {
	for _, m := range more {
		v, err := m.x.eval(e)
		if err != nil {
			return nil, false, err
		}
		v = m.aff.ApplyForCompare(v)
		if v.IsNull() {
			return k, false, nil
		}
		var truncated bool
		if k, truncated = codec.AppendKeyBound(k, v, m.ic.Desc, m.ic.Collation); truncated {
			return k, false, nil
		}
	}
	return k, true, nil
}

package engine

// OR of indexable terms: a loop whose terms include "x OR y OR ...", each disjunct of which some
// key path serves (a rowid lookup or range, an index), reads the rows of each disjunct's path in
// turn instead of scanning the table, skipping a row an earlier disjunct already returned (by
// its rowid, or a WITHOUT ROWID table's key). SQLite calls it a MULTI-INDEX OR. Each path yields
// a superset of its disjunct's rows, so the union is a superset of the OR's; the OR term stays
// among the loop's terms and decides, as after any path.

import (
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// orUnion is the access path of a MULTI-INDEX OR.
type orUnion struct {
	table    *Table
	branches []accessPath
}

func (p *orUnion) explain() string { return "MULTI-INDEX OR" }

// orUnionPath returns the union for the first OR term of terms whose every disjunct has a key
// path on source i, with the sum of their estimates; nil if no term qualifies.
func orUnionPath(pc *planCtx, sc *scope, i int, terms []boundTerm, avail uint64, tableRows float64) (accessPath, estimate) {
	src := sc.sources[i]
	for _, t := range terms {
		ds := disjuncts(t.ast, nil)
		if len(ds) < 2 {
			continue
		}
		u := &orUnion{table: src.table}
		var est estimate
		for _, d := range ds {
			var dterms []boundTerm
			for _, c := range conjuncts(d, nil) {
				dterms = append(dterms, boundTerm{ast: c})
			}
			p, e, _ := keyedPath(src, accessTerms(pc, sc, i, dterms, avail), false, tableRows)
			if p == nil {
				u = nil
				break
			}
			u.branches = append(u.branches, p)
			est.cost += e.cost
			est.rows += e.rows
		}
		if u != nil {
			return u, est
		}
	}
	return nil, estimate{}
}

// disjuncts appends the operands of a chain of ORs to out.
func disjuncts(e exprAST, out []exprAST) []exprAST {
	if bin, ok := e.(*ast.Binary); ok && bin.Op == ast.Or {
		return disjuncts(bin.Y, disjuncts(bin.X, out))
	}
	return append(out, e)
}

func (p *orUnion) open(e *env, src int) (candidates, error) {
	return &orUnionIter{p: p, e: e, src: src}, nil
}

// orUnionIter runs the branches one after the other.
type orUnionIter struct {
	p    *orUnion
	e    *env
	src  int
	k    int // the next branch to open
	cur  candidates
	ids  map[int64]struct{}  // rowids returned (a rowid table)
	keys map[string]struct{} // keys returned (WITHOUT ROWID)
}

func (it *orUnionIter) next() (bool, error) {
	for {
		if it.cur == nil {
			if it.k == len(it.p.branches) {
				return false, nil
			}
			c, err := it.p.branches[it.k].open(it.e, it.src)
			if err != nil {
				return false, err
			}
			it.cur, it.k = c, it.k+1
		}
		ok, err := it.cur.next()
		if err != nil {
			return false, err
		}
		if !ok {
			it.cur = nil
			continue
		}
		if it.first(it.e.rows[it.src]) {
			return true, nil
		}
	}
}

// first records row and reports whether no earlier branch returned it.
func (it *orUnionIter) first(row []value.Value) bool {
	t := it.p.table
	if !t.WithoutRowid {
		id := row[len(t.Columns)].Int()
		if _, seen := it.ids[id]; seen {
			return false
		}
		if it.ids == nil {
			it.ids = map[int64]struct{}{}
		}
		it.ids[id] = struct{}{}
		return true
	}
	k := string(t.rowKey(row, 0))
	if _, seen := it.keys[k]; seen {
		return false
	}
	if it.keys == nil {
		it.keys = map[string]struct{}{}
	}
	it.keys[k] = struct{}{}
	return true
}

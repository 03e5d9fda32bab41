package engine

// Choosing a source's access path from the terms placed on its loop: a rowid lookup for
// rowid = x, an index for col = x on the index's first columns (and a range on the next one), a
// rowid range, else a full scan. An index serves a comparison only when the comparison's
// collation is the index column's and its affinity leaves the column's stored values as they are.

import (
	"fmt"
	"math"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// colTerm is a term "column op x" usable for access: op is =, <, <=, >, >= with the column on
// the left (terms written the other way round are flipped).
type colTerm struct {
	col  int // the column, or -1 for the rowid
	op   ast.BinaryOp
	x    expr
	aff  value.Affinity
	coll value.Collation
}

// accessTerms extracts the usable "column op x" terms of source i from terms.
func accessTerms(pc *planCtx, sc *scope, i int, terms []boundTerm) []colTerm {
	var out []colTerm
	// add records col op other; flipped is set when the term was written other op col, whose
	// collation is then the left operand's, other's, first.
	add := func(col exprAST, op ast.BinaryOp, other exprAST, flipped bool) {
		ref, ok := col.(*ast.ColumnRef)
		if !ok {
			return
		}
		r, err := sc.resolve(ref.Table, ref.Column)
		if err != nil || r.depth != 0 || r.src != i {
			return
		}
		b := &binder{pc: pc, sc: sc, noAgg: "WHERE"}
		saved := sc.refs
		sc.refs = 0
		x, xi, err := b.bind(other)
		refs := sc.refs
		sc.refs = saved
		if err != nil || refs>>uint(i) != 0 {
			return // the other side reads this source or a later one
		}
		src := sc.sources[i]
		ci := exprInfo{hasAff: !r.c.noAffinity, aff: r.c.affinity, coll: r.c.collation, hasColl: !r.c.noCollation}
		coll := comparisonCollation(ci, xi)
		if flipped {
			coll = comparisonCollation(xi, ci)
		}
		ct := colTerm{col: r.col, op: op, x: x, aff: comparisonAffinity(ci, xi), coll: coll}
		if r.col == src.rowidSlot {
			ct.col = -1
		} else if src.table != nil && src.table.RowidColumn == r.col {
			ct.col = -1
		}
		out = append(out, ct)
	}
	for _, t := range terms {
		switch e := t.ast.(type) {
		case *ast.Binary:
			switch e.Op {
			case ast.Eq, ast.Lt, ast.Le, ast.Gt, ast.Ge:
				add(e.X, e.Op, e.Y, false)
				add(e.Y, flip(e.Op), e.X, true)
			}
		case *ast.Between:
			if !e.Not {
				add(e.X, ast.Ge, e.Lo, false)
				add(e.X, ast.Le, e.Hi, false)
			}
		}
	}
	return out
}

func flip(op ast.BinaryOp) ast.BinaryOp {
	switch op {
	case ast.Lt:
		return ast.Gt
	case ast.Le:
		return ast.Ge
	case ast.Gt:
		return ast.Lt
	case ast.Ge:
		return ast.Le
	}
	return op
}

// indexUsable reports whether a comparison with affinity aff and collation coll can be served by
// an index column of affinity colAff and collation ic.
func indexUsable(t colTerm, colAff value.Affinity, ic value.Collation) bool {
	if t.coll != ic {
		return false
	}
	switch {
	case colAff == value.AffinityText:
		return t.aff == value.AffinityText || t.aff == value.AffinityBlob
	case colAff.IsNumeric():
		return t.aff.IsNumeric() || t.aff == value.AffinityBlob
	}
	return t.aff == value.AffinityBlob
}

func chooseAccess(pc *planCtx, sc *scope, i int, terms []boundTerm, item ast.FromItem) (accessPath, error) {
	src := sc.sources[i]
	if src.sub != nil {
		return &subqueryScan{plan: src.sub, name: src.name}, nil
	}
	t := src.table
	full := &tableRange{table: t, desc: "SCAN " + src.name}
	cts := accessTerms(pc, sc, i, terms)
	if item.IndexedBy != "" {
		ix := pc.schema.index(item.IndexedBy)
		if ix == nil || ix.Table != t && !strings.EqualFold(ix.Table.Name, t.Name) {
			return nil, fmt.Errorf("no such index: %s", item.IndexedBy)
		}
		if p := indexPath(src, ix, cts); p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("no query solution")
	}
	if !t.WithoutRowid {
		for _, ct := range cts {
			if ct.col == -1 && ct.op == ast.Eq {
				return &rowidLookup{table: t, key: ct.x}, nil
			}
		}
	}
	var best *indexScan
	bestScore := 0
	if !item.NotIndexed {
		for _, ix := range t.Indexes {
			p := indexPath(src, ix, cts)
			if p == nil {
				continue
			}
			score := 4 * len(p.eq)
			if p.lo != nil || p.hi != nil {
				score += 2
			}
			if ix.Unique && len(p.eq) == len(ix.Columns) {
				score += 100
			}
			if score > bestScore {
				best, bestScore = p, score
			}
		}
	}
	if best != nil && len(best.eq) > 0 {
		return best, nil
	}
	if !t.WithoutRowid {
		if r := rowidRange(src, cts); r != nil {
			return r, nil
		}
	}
	if best != nil {
		return best, nil
	}
	return full, nil
}

// indexPath returns the scan of ix that the terms allow (equalities on its first columns, then a
// range), or nil if they allow none.
func indexPath(src *source, ix *Index, cts []colTerm) *indexScan {
	p := &indexScan{index: ix}
	t := src.table
	var used []string
	for k, ic := range ix.Columns {
		colAff := t.Columns[ic.Column].Affinity
		var eq *colTerm
		for j := range cts {
			if cts[j].col == ic.Column && cts[j].op == ast.Eq && indexUsable(cts[j], colAff, ic.Collation) {
				eq = &cts[j]
				break
			}
		}
		if eq != nil {
			p.eq = append(p.eq, eq.x)
			p.eqAff = append(p.eqAff, eq.aff)
			used = append(used, t.Columns[ic.Column].Name+"=?")
			continue
		}
		for j := range cts {
			ct := &cts[j]
			if ct.col != ic.Column || !indexUsable(*ct, colAff, ic.Collation) {
				continue
			}
			b := &bound{x: ct.x, aff: ct.aff, inclusive: ct.op == ast.Le || ct.op == ast.Ge}
			switch ct.op {
			case ast.Gt, ast.Ge:
				if p.lo == nil {
					p.lo = b
					used = append(used, t.Columns[ic.Column].Name+">?")
				}
			case ast.Lt, ast.Le:
				if p.hi == nil {
					p.hi = b
					used = append(used, t.Columns[ic.Column].Name+"<?")
				}
			}
		}
		_ = k
		break
	}
	if len(p.eq) == 0 && p.lo == nil && p.hi == nil {
		return nil
	}
	p.desc = fmt.Sprintf("SEARCH %s USING INDEX %s (%s)", src.name, ix.Name, strings.Join(used, " AND "))
	return p
}

// rowidRange returns a range scan of the rowid terms < <= > >=, or nil.
func rowidRange(src *source, cts []colTerm) accessPath {
	var lo, hi *colTerm
	for j := range cts {
		ct := &cts[j]
		if ct.col != -1 {
			continue
		}
		switch ct.op {
		case ast.Gt, ast.Ge:
			if lo == nil {
				lo = ct
			}
		case ast.Lt, ast.Le:
			if hi == nil {
				hi = ct
			}
		}
	}
	if lo == nil && hi == nil {
		return nil
	}
	p := &tableRange{table: src.table, desc: "SEARCH " + src.name + " USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}
	if lo != nil {
		t := *lo
		p.lo = func(e *env) ([]byte, bool, error) { return rowidBoundKey(e, t, true) }
	}
	if hi != nil {
		t := *hi
		p.hi = func(e *env) ([]byte, bool, error) { return rowidBoundKey(e, t, false) }
	}
	return p
}

// rowidBoundKey returns the key where a rowid range starts (lower) or ends, exclusive; ok false
// means the range is empty; a nil key means no bound.
func rowidBoundKey(e *env, t colTerm, lower bool) ([]byte, bool, error) {
	v, err := t.x.eval(e)
	if err != nil {
		return nil, false, err
	}
	v = value.AffinityInteger.ApplyForCompare(v)
	var f float64
	switch v.Kind() {
	case value.Null:
		return nil, false, nil
	case value.Integer, value.Real:
		f = v.Float()
	default: // text or blob: greater than every number
		if lower {
			return nil, false, nil // rowid > 'x' is never true
		}
		return nil, true, nil // rowid < 'x' always is
	}
	// The first rowid of the range (lower), or the first rowid past it (upper): the smallest
	// integer above f for > and <=, at least f for >= and <; in integers, as a float has no
	// room for +1 near the ends of the int64 range.
	strict := t.op == ast.Gt || t.op == ast.Le
	beyond := func() ([]byte, bool, error) { // past every rowid
		if lower {
			return nil, false, nil
		}
		return nil, true, nil
	}
	var first int64
	if v.Kind() == value.Integer {
		first = v.Int()
	} else {
		c := math.Ceil(f)
		switch {
		case c >= 9223372036854775808.0:
			return beyond()
		case c < -9223372036854775808.0: // before every rowid
			if lower {
				return nil, true, nil
			}
			return nil, false, nil
		}
		first = int64(c)
		strict = strict && c == f
	}
	if strict {
		if first == math.MaxInt64 {
			return beyond()
		}
		first++
	}
	return codec.AppendRowid(nil, first), true, nil
}

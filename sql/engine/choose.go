package engine

// Choosing a source's access path from the terms placed on its loop: a rowid lookup for
// rowid = x, an index for col = x on the index's first columns (and a range on the next one), an
// automatic index for col = x with x from an outer loop (autoindex.go), a rowid range, else a
// full scan. An index serves a comparison only when the comparison's
// collation is the index column's and its affinity leaves the column's stored values as they are.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// colTerm is a term "column op x" usable for access: op is =, <, <=, >, >= with the column on
// the left (terms written the other way round are flipped), or opIn for "column IN (list)".
type colTerm struct {
	col   int    // the column, or -1 for the rowid, or exprColumn for an expression (canon)
	canon string // exprColumn: the expression's canonical form (exprindex.go)
	op    ast.BinaryOp
	x     expr   // nil for opIn
	list  []expr // the values of opIn
	refs  uint64 // the sources of this query level x reads (those of outer loops)
	aff   value.Affinity
	coll  value.Collation
	// row is set for the first column of a row-value range (c1, c2, ...) > (x1, x2, ...): op is
	// then widened to >= or <= (c1 >= x1 holds on every row the term selects), and row holds
	// the rest, which an index with c2, ... after c1 can use for an exact bound (rowvalue_access.go).
	row *rowRange
	// from is the WHERE or ON term a plain "column op x" or BETWEEN gave this term (nil for
	// the others): a rowid range whose bounds come from it selects exactly its rows (servedBy).
	from exprAST
}

// opIn marks a colTerm "column IN (list)"; it is no operator of ast.
const opIn ast.BinaryOp = 255

// accessTerms extracts the usable "column op x" terms of source i from terms: x may read only the
// sources in avail (those of the loops outside this one).
func accessTerms(pc *planCtx, sc *scope, i int, terms []boundTerm, avail uint64) []colTerm {
	var out []colTerm
	// add records col op other; flipped is set when the term was written other op col, whose
	// collation is then the left operand's, other's, first.
	var from exprAST // the term add's colTerms come from, when plain
	add := func(col exprAST, op ast.BinaryOp, other exprAST, flipped bool) {
		r, ok := sourceColumn(sc, i, col)
		if !ok {
			if ct, ok := exprColTerm(pc, sc, i, col, op, other, flipped, avail); ok {
				out = append(out, ct)
			}
			return
		}
		x, xi, refs, ok := bindAvail(pc, sc, other, avail)
		if !ok {
			return
		}
		ci := r.info()
		coll := comparisonCollation(ci, xi)
		if flipped {
			coll = comparisonCollation(xi, ci)
		}
		out = append(out, colTerm{col: accessColumn(sc.sources[i], r), op: op, x: x, refs: refs,
			aff: comparisonAffinity(ci, xi), coll: coll, from: from})
	}
	addIn := func(e *ast.In) {
		if ct, ok := inTerm(pc, sc, i, e, avail); ok {
			out = append(out, ct)
		}
	}
	for _, t := range terms {
		switch e := t.ast.(type) {
		case *ast.In:
			addIn(e)
		case *ast.Binary:
			switch e.Op {
			case ast.Eq, ast.Lt, ast.Le, ast.Gt, ast.Ge:
				if rowTerms(pc, sc, i, e, avail, add, &out) {
					continue
				}
				from = t.ast
				add(e.X, e.Op, e.Y, false)
				add(e.Y, flip(e.Op), e.X, true)
				from = nil
			}
		case *ast.Between:
			if !e.Not && isRowAST(e.X) {
				rowTerms(pc, sc, i, &ast.Binary{Op: ast.Ge, X: e.X, Y: e.Lo}, avail, add, &out)
				rowTerms(pc, sc, i, &ast.Binary{Op: ast.Le, X: e.X, Y: e.Hi}, avail, add, &out)
			} else if !e.Not {
				from = t.ast
				add(e.X, ast.Ge, e.Lo, false)
				add(e.X, ast.Le, e.Hi, false)
				from = nil
			}
		}
	}
	return out
}

// inTerm returns the term of "column IN (list)" on source i if every item of the list reads only
// the sources in avail. The items take the column's affinity and the collation of the comparison
// with the first item, as the IN operator's evaluation does.
func inTerm(pc *planCtx, sc *scope, i int, e *ast.In, avail uint64) (colTerm, bool) {
	if e.Not || e.Select != nil || len(e.List) == 0 {
		return colTerm{}, false
	}
	var ci exprInfo
	var ct colTerm
	if r, ok := sourceColumn(sc, i, e.X); ok {
		ci = r.info()
		ct = colTerm{col: accessColumn(sc.sources[i], r), op: opIn, aff: r.c.affinity}
	} else if canon, ok := exprTerm(sc, i, e.X); ok {
		if ci, ok = exprInfoOf(pc, sc, e.X); !ok {
			return colTerm{}, false
		}
		ct = colTerm{col: exprColumn, canon: canon, op: opIn, aff: value.AffinityBlob}
		if ci.hasAff {
			ct.aff = ci.aff
		}
	} else {
		return colTerm{}, false
	}
	for k, item := range e.List {
		x, xi, _, ok := bindAvail(pc, sc, item, avail)
		if !ok {
			return colTerm{}, false
		}
		if k == 0 {
			ct.coll = comparisonCollation(ci, xi)
		}
		ct.list = append(ct.list, x)
	}
	return ct, true
}

// sourceColumn resolves x if it is a column of source i of this query level.
func sourceColumn(sc *scope, i int, x exprAST) (colRefResult, bool) {
	ref, ok := x.(*ast.ColumnRef)
	if !ok {
		return colRefResult{}, false
	}
	r, err := sc.resolve(ref.Table, ref.Column)
	if err != nil || r.depth != 0 || r.src != i {
		return colRefResult{}, false
	}
	return r, true
}

// info is what a comparison learns of the column r resolves to: its affinity and collation.
func (r colRefResult) info() exprInfo {
	return exprInfo{hasAff: !r.c.noAffinity, aff: r.c.affinity, coll: r.c.collation, hasColl: !r.c.noCollation}
}

// accessColumn is the colTerm column of r in src: -1 for the rowid or its alias.
func accessColumn(src *source, r colRefResult) int {
	if r.col == src.rowidSlot || src.table != nil && src.table.RowidColumn == r.col {
		return -1
	}
	return r.col
}

// bindAvail binds x for the access path of a loop, and returns the sources of this level it
// reads: false if x fails to bind or reads a source not in avail (this loop's own source or an
// inner loop's).
func bindAvail(pc *planCtx, sc *scope, x exprAST, avail uint64) (expr, exprInfo, uint64, bool) {
	b := &binder{pc: pc, sc: sc, noAgg: "WHERE"}
	saved := sc.refs
	sc.refs = 0
	bx, xi, err := b.bind(x)
	refs := sc.refs
	sc.refs = saved
	if err != nil || refs&^avail != 0 {
		return nil, exprInfo{}, 0, false
	}
	return bx, xi, refs, true
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

// Estimates of the planner, as SQLite's defaults without sqlite_stat1 but for table sizes: a
// table holds the rows its bucket's shape suggests (planCtx.tableRows; estTableRows when the
// planner has no transaction); an equality on a non-unique index's columns selects estEqRows;
// a range, a quarter of what it ranges over; a subquery yields estSubqueryRows.
const (
	estTableRows    = 1_000_000
	estEqRows       = 10
	estSubqueryRows = 1_000
)

// estimate is what an access path is expected to cost (rows read) and yield each time its loop
// runs, and what it costs once per execution of the core (an automatic index's build).
type estimate struct {
	cost, rows float64
	once       float64
}

// chooseAccess picks the access path of source i given the terms placed on its loop and the
// sources avail of the outer loops, and estimates it.
func chooseAccess(pc *planCtx, sc *scope, i int, terms []boundTerm, item ast.FromItem, avail uint64) (accessPath, estimate, error) {
	src := sc.sources[i]
	if src.fn != nil {
		p, est := tableFuncAccess(src, avail)
		return p, est, nil
	}
	if src.sub != nil {
		return &subqueryScan{plan: src.sub, name: src.name}, estimate{cost: estSubqueryRows, rows: estSubqueryRows}, nil
	}
	if src.virt != nil {
		return &virtualScan{name: src.name, rows: src.virt}, estimate{cost: estSubqueryRows, rows: estSubqueryRows}, nil
	}
	t := src.table
	full := &tableRange{table: t, desc: "SCAN " + src.name}
	tableRows := pc.tableRows(t)
	fullEst := estimate{cost: tableRows, rows: tableRows}
	cts := accessTerms(pc, sc, i, terms, avail)
	src.partialOK = impliedPartialIndexes(sc, i, terms)
	if item.IndexedBy != "" {
		ix := pc.schema.index(item.IndexedBy)
		if ix == nil || ix.Table != t && !strings.EqualFold(ix.Table.Name, t.Name) {
			return nil, estimate{}, fmt.Errorf("no such index: %s", item.IndexedBy)
		}
		if p := indexPath(src, ix, cts); p != nil {
			return withPoints(p), indexEstimate(p, tableRows), nil
		}
		return nil, estimate{}, fmt.Errorf("no query solution")
	}
	keyed, keyedEst, point := keyedPath(src, cts, item.NotIndexed, tableRows)
	if point {
		return keyed, keyedEst, nil
	}
	if !item.NotIndexed {
		if p := autoIndexPath(src, cts); p != nil {
			return p, autoIndexEstimate(tableRows), nil
		}
	}
	best, bestEst := accessPath(full), fullEst
	if keyed != nil {
		best, bestEst = keyed, keyedEst
	}
	if !item.NotIndexed {
		if p, est := orUnionPath(pc, sc, i, terms, avail, tableRows); p != nil && est.cost < bestEst.cost {
			best, bestEst = p, est
		}
	}
	return best, bestEst, nil
}

// keyedPath returns the best path of src that reads by key: a rowid lookup, an index with
// equalities on its first columns, rowid IN lists (point is true for these), else a rowid
// range or an index range; nil if the terms allow none (a scan).
func keyedPath(src *source, cts []colTerm, notIndexed bool, tableRows float64) (p accessPath, est estimate, point bool) {
	t := src.table
	if !t.WithoutRowid {
		for _, ct := range cts {
			if ct.col == -1 && ct.op == ast.Eq {
				return &rowidLookup{table: t, name: src.name, key: ct.x}, estimate{cost: 1, rows: 1}, true
			}
		}
	}
	var best *indexScan
	var bestEst estimate
	candidates := t.Indexes
	if t.WithoutRowid {
		candidates = append([]*Index{primaryIndex(t)}, candidates...)
	}
	if !notIndexed {
		for _, ix := range candidates {
			if ix.where != nil && !src.partialOK[ix] {
				continue // a partial index the query's WHERE does not imply
			}
			p := indexPath(src, ix, cts)
			if p == nil {
				continue
			}
			est := indexEstimate(p, tableRows)
			// Of two paths estimated alike, a partial index holds fewer rows: SQLite takes it.
			if best == nil || est.cost < bestEst.cost ||
				est.cost == bestEst.cost && ix.where != nil && best.index.where == nil {
				best, bestEst = p, est
			}
		}
	}
	if !t.WithoutRowid {
		if in := rowidPoints(src, cts); in != nil {
			n := float64(len(in.list))
			if best == nil || len(best.eq) == 0 || n <= bestEst.cost {
				return in, estimate{cost: n, rows: n}, true
			}
		}
	}
	if best != nil && len(best.eq) > 0 {
		return withPoints(best), bestEst, true
	}
	if !t.WithoutRowid {
		if r, rows := rowidRange(src, cts, tableRows); r != nil {
			return r, estimate{cost: rows, rows: rows}, false
		}
	}
	if best != nil {
		return withPoints(best), bestEst, false
	}
	return nil, estimate{}, false
}

// rangeRows estimates the rows a range keeps of rows: each bound it has keeps a quarter, as
// SQLite's default estimates do.
func rangeRows(rows float64, hasLo, hasHi bool) float64 {
	for _, has := range [2]bool{hasLo, hasHi} {
		if has {
			rows = max(rows/4, 1)
		}
	}
	return rows
}

// indexEstimate estimates an index scan: a unique index's full equality reads one row; each
// equality column divides the rows, a range takes a quarter; reading the row costs a second
// lookup unless the index is the table's primary key.
func indexEstimate(p *indexScan, tableRows float64) estimate {
	rows := tableRows
	switch {
	case p.index.Unique && len(p.eq) == len(p.index.Columns):
		rows = 1
	case len(p.eq) > 0:
		rows = estEqRows
		for range p.eq[1:] {
			rows = max(rows/4, 1)
		}
	}
	rows = rangeRows(rows, p.lo != nil, p.hi != nil)
	for _, in := range p.in {
		rows *= float64(len(in.term.list))
	}
	cost := rows * 2
	if p.primary {
		cost = rows
	}
	return estimate{cost: cost + 1, rows: rows}
}

// primaryIndex is the primary key of a WITHOUT ROWID table seen as an index: its entries are the
// table's own rows.
func primaryIndex(t *Table) *Index {
	return &Index{Name: "PRIMARY KEY", Table: t, Columns: t.PrimaryKey, Unique: true, bucket: t.bucket, primary: true}
}

// indexPath returns the scan of ix that the terms allow (equalities on its first columns, then a
// range), or nil if they allow none.
func indexPath(src *source, ix *Index, cts []colTerm) *indexScan {
	p := &indexScan{index: ix}
	t := src.table
	var used []string
	for k, ic := range ix.Columns {
		var colAff value.Affinity
		var name string
		if ic.Column == exprColumn {
			colAff, name = ic.expr.aff, "<expr>"
		} else {
			colAff, name = t.Columns[ic.Column].Affinity, t.Columns[ic.Column].Name
		}
		on := func(ct *colTerm) bool {
			return ct.col == ic.Column && (ic.Column != exprColumn || ct.canon == ic.expr.canon) &&
				indexUsable(*ct, colAff, ic.Collation)
		}
		var eq *colTerm
		for j := range cts {
			if cts[j].op == ast.Eq && on(&cts[j]) {
				eq = &cts[j]
				break
			}
		}
		if eq == nil {
			for j := range cts {
				if cts[j].op == opIn && on(&cts[j]) {
					slot := &pointSlot{}
					p.in = append(p.in, inColumn{term: &cts[j], slot: slot, col: ic})
					eq = &colTerm{col: ic.Column, op: ast.Eq, x: slot, aff: cts[j].aff, coll: cts[j].coll}
					break
				}
			}
		}
		if eq != nil {
			p.eq = append(p.eq, eq.x)
			p.eqAff = append(p.eqAff, eq.aff)
			used = append(used, name+"=?")
			continue
		}
		for j := range cts {
			ct := &cts[j]
			if !on(ct) {
				continue
			}
			b := &bound{x: ct.x, aff: ct.aff, inclusive: ct.op == ast.Le || ct.op == ast.Ge}
			text := name
			if ct.row != nil {
				text = extendBound(b, ct, src, ix, k, name)
			}
			switch ct.op {
			case ast.Gt, ast.Ge:
				if p.lo == nil {
					p.lo = b
					used = append(used, text+">"+boundParams(b))
				}
			case ast.Lt, ast.Le:
				if p.hi == nil {
					p.hi = b
					used = append(used, text+"<"+boundParams(b))
				}
			}
		}
		_ = k
		break
	}
	if len(p.eq) == 0 && p.lo == nil && p.hi == nil {
		return nil
	}
	p.primary = ix.primary
	if ix.primary {
		p.desc = fmt.Sprintf("SEARCH %s USING PRIMARY KEY (%s)", src.name, strings.Join(used, " AND "))
	} else {
		p.desc = fmt.Sprintf("SEARCH %s USING INDEX %s (%s)", src.name, ix.Name, strings.Join(used, " AND "))
	}
	return p
}

// withPoints returns p, run once per combination of values of its IN lists if it has any.
func withPoints(p *indexScan) accessPath {
	var out accessPath = p
	for _, in := range slices.Backward(p.in) {
		out = &multiPoint{list: in.term.list, aff: in.term.aff, key: indexPointKey(in.col), slot: in.slot, inner: out}
	}
	return out
}

// rowidPoints returns the lookups of "rowid IN (list)", or nil if no term has that shape.
func rowidPoints(src *source, cts []colTerm) *multiPoint {
	for _, ct := range cts {
		if ct.col == -1 && ct.op == opIn {
			slot := &pointSlot{}
			inner := &rowidLookup{table: src.table, name: src.name, key: slot}
			return &multiPoint{list: ct.list, aff: ct.aff, key: rowidPointKey, slot: slot, inner: inner}
		}
	}
	return nil
}

// rowidRange returns a range scan of the rowid terms < <= > >= and its estimated rows, or nil.
func rowidRange(src *source, cts []colTerm, tableRows float64) (accessPath, float64) {
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
		return nil, 0
	}
	var used []string
	if lo != nil {
		used = append(used, "rowid>?")
	}
	if hi != nil {
		used = append(used, "rowid<?")
	}
	p := &tableRange{table: src.table, desc: "SEARCH " + src.name + " USING INTEGER PRIMARY KEY (" + strings.Join(used, " AND ") + ")"}
	for _, ct := range []*colTerm{lo, hi} {
		if ct != nil && ct.from != nil && ct.row == nil {
			p.from = append(p.from, ct.from)
		}
	}
	if lo != nil {
		t := *lo
		p.lo = func(e *env) ([]byte, bool, error) { return rowidBoundKey(e, t, true) }
	}
	if hi != nil {
		t := *hi
		p.hi = func(e *env) ([]byte, bool, error) { return rowidBoundKey(e, t, false) }
	}
	return p, rangeRows(tableRows, lo != nil, hi != nil)
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

// servedBy reports whether the access path a selects exactly the rows of source i that satisfy
// the term t, so that the loop need not check it: a rowid range whose bounds come from t alone
// (t is "rowid op x", or "rowid BETWEEN x AND y" giving both bounds). rowidBoundKey turns each
// bound into a key the way the comparison compares (INTEGER affinity; NULL selects nothing; TEXT
// and BLOB sort after every number; a REAL rounds to the first rowid on its side), so the range
// holds those rows and no other.
func servedBy(a accessPath, t exprAST) bool {
	r, ok := a.(*tableRange)
	if !ok || len(r.from) == 0 {
		return false
	}
	n := 0
	for _, f := range r.from {
		if f == t {
			n++
		}
	}
	switch t.(type) {
	case *ast.Binary:
		return n == 1
	case *ast.Between:
		return n == 2
	}
	return false
}

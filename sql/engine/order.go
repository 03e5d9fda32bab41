package engine

// ORDER BY from the access path: when the outer loop of a single-core select reads its table in
// the order ORDER BY asks for (the rowid order, or an index's order after its = columns, forward or
// backward), the rows are not sorted, so LIMIT stops the scan after the rows it keeps. A full scan
// becomes a scan of an index whose order is ORDER BY's, as SQLite's planner does.
//
// The one place where key order is not value order: TEXT and BLOB values longer than
// codec.MaxKeyPart share a key prefix and are ordered among themselves by hash. Their rows come as
// one contiguous group, which orderedIter sorts before it yields it; every other row passes
// straight through.

import (
	"bytes"
	"slices"

	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// useAccessOrder drops the sort of p when its outer loop's access path yields ORDER BY's order
// (turning a full scan into an index scan that does), and marks p ordered. For an aggregate, it
// serves min() or max() instead (useMinMaxOrder).
func (p *selectPlan) useAccessOrder() {
	if len(p.cores) != 1 {
		return
	}
	cp := p.cores[0]
	if cp.right {
		return // the unmatched rows of a RIGHT or FULL join come last, in no order
	}
	if cp.agg != nil {
		cp.useMinMaxOrder()
		return
	}
	if len(p.order) == 0 || cp.distinct || len(cp.levels) == 0 || cp.win != nil {
		return
	}
	lv := cp.levels[0]
	cols := make([]int, len(p.order)) // the outer source's column of each ORDER BY key
	var canons []string               // of keys on an expression (cols[i] == exprColumn)
	for i, k := range p.order {
		c, ok := cp.outerColumn(cp.project[k.col])
		if !ok {
			canon, isExpr := "", false
			if k.expr != nil && p.sc != nil && len(p.sc.sources) > lv.src {
				canon, isExpr = exprTerm(p.sc, lv.src, k.expr)
			}
			if !isExpr {
				return
			}
			if canons == nil {
				canons = make([]string, len(p.order))
			}
			c, canons[i] = exprColumn, canon
		}
		cols[i] = c
	}
	p.ordered = orderPath(lv, cp.sources[lv.src], p.order, cols, canons...)
}

// outerColumn returns the colTerm column (-1: the rowid) of the outer loop's table that x is, if
// x is one.
func (cp *corePlan) outerColumn(x expr) (int, bool) {
	lv := cp.levels[0]
	src := cp.sources[lv.src]
	c, ok := x.(*colExpr)
	if !ok || c.depth != 0 || c.src != lv.src || src.table == nil {
		return 0, false
	}
	return accessColumn(src, colRefResult{col: c.col}), true
}

// useMinMaxOrder makes the only aggregate of a one-table aggregate without GROUP BY, min(col) or
// max(col), read col's order (an index or the rowid) from its smallest or largest end, and stop
// at the first value (aggPlan.firstDecides), as SQLite's min/max optimization does.
func (cp *corePlan) useMinMaxOrder() {
	a := cp.agg
	if len(a.groupBy) > 0 || len(a.calls) != 1 || len(cp.levels) != 1 {
		return
	}
	call := a.calls[0]
	if call.name != "min" && call.name != "max" || call.distinct || len(call.args) != 1 || call.filter != nil {
		return
	}
	col, ok := cp.outerColumn(call.args[0])
	if !ok {
		return
	}
	desc := call.name == "max"
	key := orderKey{desc: desc, nullsFirst: !desc, coll: call.coll}
	if orderPath(cp.levels[0], cp.sources[cp.levels[0].src], []orderKey{key}, []int{col}) {
		a.firstDecides = true
	}
}

// orderPath reports whether the access path of lv yields the order of keys (on the columns cols
// of src), setting it to read backward or replacing a full scan by an index scan as needed.
func orderPath(lv *level, src *source, keys []orderKey, cols []int, canons ...string) bool {
	switch a := lv.access.(type) {
	case *rowidLookup:
		return true // one row of the outer table: its keys are constant
	case *tableRange:
		if !src.table.WithoutRowid && cols[0] == -1 { // the rowid: no two rows share it
			a.reverse = keys[0].desc
			return true
		}
		if a.lo == nil && a.hi == nil && !src.notIndexed {
			return orderByIndex(lv, src, keys, cols, canons)
		}
	case *indexScan:
		if reverse, ok := indexOrder(a, keys, cols, canons); ok {
			a.reverse = reverse
			return true
		}
	}
	return false
}

// orderByIndex replaces the full scan of lv by a full scan of the first index of src's table
// whose order is keys'.
func orderByIndex(lv *level, src *source, keys []orderKey, cols []int, canons []string) bool {
	t := src.table
	candidates := t.Indexes
	if t.WithoutRowid {
		candidates = append([]*Index{primaryIndex(t)}, candidates...)
	}
	for _, ix := range candidates {
		if ix.where != nil && !src.partialOK[ix] {
			continue // a partial index holds only some rows
		}
		scan := &indexScan{index: ix, primary: ix.primary}
		if reverse, ok := indexOrder(scan, keys, cols, canons); ok {
			scan.reverse = reverse
			scan.desc = "SCAN " + src.name + " USING INDEX " + ix.Name
			if ix.primary {
				scan.desc = "SCAN " + src.name
			}
			lv.access = scan
			return true
		}
	}
	return false
}

// indexOrder reports whether the index scan a yields the order of keys, and whether backward: the
// keys name the index's columns after its = columns, in order, each with the index column's
// collation, all in the index's direction or all against it, NULLs where that direction puts
// them, optionally then the rowid. A key on an = column (constant under its collation) is skipped.
func indexOrder(a *indexScan, keys []orderKey, cols []int, canons []string) (reverse, ok bool) {
	if len(a.in) > 0 {
		return false, false // the points of an IN list come one after another
	}
	ix := a.index
	next := len(a.eq) // the next index column the keys must name
	for i, k := range keys {
		is := func(ic IndexColumn) bool {
			if cols[i] == -1 && ic.Column >= 0 && ic.Column == ix.Table.RowidColumn {
				return true // an index column naming the INTEGER PRIMARY KEY holds the rowid
			}
			return ic.Column == cols[i] && (ic.Column != exprColumn || ic.expr.canon == canons[i])
		}
		if j := slices.IndexFunc(ix.Columns[:len(a.eq)], is); j >= 0 {
			if ix.Columns[j].Collation == k.coll {
				continue
			}
			return false, false
		}
		if next == len(ix.Columns) && cols[i] == -1 && !ix.Table.WithoutRowid {
			// The rowid after the index's columns: entries of equal values come by rowid.
			if next > len(a.eq) && k.desc != reverse {
				return false, false
			}
			return k.desc, true // no two rows share a rowid: later keys never decide
		}
		if next >= len(ix.Columns) || !is(ix.Columns[next]) || ix.Columns[next].Collation != k.coll {
			return false, false
		}
		back := k.desc != ix.Columns[next].Desc
		if k.nullsFirst == k.desc || next > len(a.eq) && back != reverse {
			return false, false // NULLs away from the key order's, or a change of direction
		}
		reverse = back
		next++
	}
	return reverse, true
}

// orderedIter yields rows that come in ORDER BY's order except within groups of values longer
// than codec.MaxKeyPart that share their key prefix: each such group is collected and sorted.
type orderedIter struct {
	in      rowIter
	keys    []orderKey
	group   [][]value.Value // the rows of the group being collected
	groupK  []byte          // its key: the ORDER BY keys up to the first cut one
	ready   [][]value.Value // a sorted group being yielded
	pending []value.Value   // the row after the group, yielded after it
	cur     []value.Value
	done    bool
}

func (o *orderedIter) next() (bool, error) {
	for {
		if len(o.ready) > 0 {
			o.cur, o.ready = o.ready[0], o.ready[1:]
			return true, nil
		}
		var r []value.Value
		switch {
		case o.pending != nil:
			r, o.pending = o.pending, nil
		case o.done:
			return false, nil
		default:
			ok, err := o.in.next()
			if err != nil {
				return false, err
			}
			if !ok {
				o.done = true
				o.flush()
				continue
			}
			r = o.in.row()
		}
		k, cut := o.groupKey(r)
		if cut && (len(o.group) == 0 || bytes.Equal(k, o.groupK)) {
			o.group, o.groupK = append(o.group, cloneRow(r)), k
			continue
		}
		if len(o.group) > 0 { // r starts what follows the group
			o.pending = cloneRow(r)
			o.flush()
			continue
		}
		o.cur = r
		return true, nil
	}
}

// flush sorts the collected group into ready.
func (o *orderedIter) flush() {
	slices.SortStableFunc(o.group, func(a, b []value.Value) int { return compareRows(a, b, o.keys) })
	o.ready, o.group, o.groupK = o.group, nil, nil
}

// groupKey returns the key bytes of r's ORDER BY values up to the first one cut at
// codec.MaxKeyPart, and whether one was; it computes nothing for a row without a long value.
func (o *orderedIter) groupKey(r []value.Value) ([]byte, bool) {
	long := false
	for _, k := range o.keys {
		if longKeyValue(r[k.col]) {
			long = true
			break
		}
	}
	if !long {
		return nil, false
	}
	var key []byte
	for _, k := range o.keys {
		var cut bool
		if key, cut = codec.AppendKeyBound(key, r[k.col], false, k.coll); cut {
			return key, true
		}
	}
	return nil, false
}

func (o *orderedIter) row() []value.Value { return o.cur }
func (o *orderedIter) close()             { o.in.close() }

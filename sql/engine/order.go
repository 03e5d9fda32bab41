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
// (turning a full scan into an index scan that does), and marks p ordered.
func (p *selectPlan) useAccessOrder() {
	if len(p.cores) != 1 || len(p.order) == 0 {
		return
	}
	cp := p.cores[0]
	if cp.agg != nil || cp.distinct || len(cp.levels) == 0 {
		return
	}
	lv := cp.levels[0]
	src := cp.sources[lv.src]
	if src.table == nil {
		return
	}
	cols := make([]int, len(p.order)) // the outer source's column of each ORDER BY key
	for i, k := range p.order {
		x, ok := cp.project[k.col].(*colExpr)
		if !ok || x.depth != 0 || x.src != lv.src {
			return // a key that is no column of the outer source
		}
		cols[i] = accessColumn(src, colRefResult{col: x.col})
	}
	switch a := lv.access.(type) {
	case *rowidLookup:
		p.ordered = true // one row of the outer table: its keys are constant
	case *tableRange:
		if reverse, ok := p.rowidOrder(src, cols); ok {
			a.reverse, p.ordered = reverse, true
			return
		}
		if a.lo == nil && a.hi == nil {
			p.orderByIndex(lv, src, cols)
		}
	case *indexScan:
		if reverse, ok := p.indexOrder(a, src, cols); ok {
			a.reverse, p.ordered = reverse, true
		}
	}
}

// rowidOrder reports whether ORDER BY is the rowid order of a rowid table (its first key the
// rowid, which no two rows share), and whether backward.
func (p *selectPlan) rowidOrder(src *source, cols []int) (reverse, ok bool) {
	if src.table.WithoutRowid || cols[0] != -1 {
		return false, false
	}
	return p.order[0].desc, true
}

// orderByIndex replaces the full scan of lv by a full scan of the first index of src's table
// whose order is ORDER BY's.
func (p *selectPlan) orderByIndex(lv *level, src *source, cols []int) {
	t := src.table
	candidates := t.Indexes
	if t.WithoutRowid {
		candidates = append([]*Index{primaryIndex(t)}, candidates...)
	}
	for _, ix := range candidates {
		scan := &indexScan{index: ix, primary: ix.primary}
		if reverse, ok := p.indexOrder(scan, src, cols); ok {
			scan.reverse = reverse
			scan.desc = "SCAN " + src.name + " USING INDEX " + ix.Name
			if ix.primary {
				scan.desc = "SCAN " + src.name
			}
			lv.access, p.ordered = scan, true
			return
		}
	}
}

// indexOrder reports whether the index scan a yields ORDER BY's order, and whether backward: the
// keys name the index's columns after its = columns, in order, each with the index column's
// collation, all in the index's direction or all against it, NULLs where that direction puts
// them, optionally then the rowid. A key on an = column (constant under its collation) is skipped.
func (p *selectPlan) indexOrder(a *indexScan, src *source, cols []int) (reverse, ok bool) {
	if len(a.in) > 0 {
		return false, false // the points of an IN list come one after another
	}
	ix := a.index
	next := len(a.eq) // the next index column ORDER BY must name
	for i, k := range p.order {
		if j := slices.IndexFunc(ix.Columns[:len(a.eq)], func(ic IndexColumn) bool { return ic.Column == cols[i] }); j >= 0 {
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
		if next >= len(ix.Columns) || ix.Columns[next].Column != cols[i] || ix.Columns[next].Collation != k.coll {
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
		if v := r[k.col]; (v.Kind() == value.Text || v.Kind() == value.Blob) && len(v.Bytes()) > codec.MaxKeyPart {
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

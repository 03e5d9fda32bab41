package engine

// Covering indexes: when an index holds every column a select reads of its table (the rowid comes
// with every entry of a rowid table), its entries give the row and the table is not read. An
// entry's value is the record of the index columns' values as stored (FORMAT.md, "Index
// entries"), so nothing lossy of the key is used but the rowid. Only SELECT uses it: UPDATE and
// DELETE read whole rows.

import "strings"

// useCoveringIndexes marks the index scans of p's cores that cover their source, and the table
// scans of sources whose columns nothing reads (count(*)), which then decode no row. A table
// scan decodes only the columns the query reads and, in an inner loop, checks the loop's terms
// itself.
func (p *selectPlan) useCoveringIndexes() {
	for _, cp := range p.cores {
		for _, lv := range cp.levels {
			if scan, ok := lv.access.(*tableRange); ok {
				used := cp.sources[lv.src].used
				scan.noColumns = used == 0
				scan.skip = ^used
				if !lv.left && !lv.right && !cp.right && len(lv.on) == 0 && len(lv.where) > 0 && used != 0 {
					// The scan checks the loop's terms itself, on the columns they read
					// before it decodes the others (access.go).
					scan.filter, scan.filterCols = lv.where, lv.whereCols&used
					lv.where = nil
				}
			}
			scan := indexScanOf(lv.access)
			if scan == nil || scan.primary || !scan.covers(cp.sources[lv.src]) {
				continue
			}
			scan.covering = true
			scan.desc = strings.Replace(scan.desc, " USING INDEX ", " USING COVERING INDEX ", 1)
		}
	}
}

// indexScanOf returns the index scan of an access path (under its IN lists), or nil.
func indexScanOf(a accessPath) *indexScan {
	for {
		switch p := a.(type) {
		case *indexScan:
			return p
		case *multiPoint:
			a = p.inner
		default:
			return nil
		}
	}
}

// covers reports whether the index holds every column of src that the query reads.
func (p *indexScan) covers(src *source) bool {
	if src.used&(1<<63) != 0 {
		return false // some column past the 63rd: not tracked one by one
	}
	var held uint64
	t := p.index.Table
	for _, ic := range p.index.Columns {
		// SQLite does not cover a VIRTUAL generated column from an index: neither does cairn,
		// so that plans read alike.
		if ic.Column >= 0 && !(t.isGenerated(ic.Column) && !t.Columns[ic.Column].Stored) {
			held |= 1 << uint(min(ic.Column, 63))
		}
	}
	if !t.WithoutRowid {
		held |= 1 << uint(min(src.rowidSlot, 63))
		if t.RowidColumn >= 0 {
			held |= 1 << uint(min(t.RowidColumn, 63))
		}
	}
	return src.used&^held == 0
}

package engine

// RIGHT and FULL joins in the nested loops (join.go says how the plan is made). A RIGHT (or
// FULL) join's loop records which rows of its source matched some row of its left side (the
// loops before it): by rowid for a rowid table, by primary key for a WITHOUT ROWID one, else by
// position in the source's rows, read once per execution into memory (mat). When the nested loops end, an unmatched pass runs for each
// such loop, in loop order: the loops before it hold NULL rows, the loop reads its source's
// unmatched rows (checking only its WHERE terms, not its ON terms), and the loops after it run
// as usual, so a later RIGHT join's loop records the matches of those rows too. The unmatched
// rows therefore come after the matched ones, as in SQLite.

import "github.com/cairndb/cairn/sql/value"

// rightState is a RIGHT or FULL join loop's record of its matched rows in one execution.
type rightState struct {
	seen   map[int64]struct{}  // a rowid table: the rowids of the matched rows
	keys   map[string]struct{} // a WITHOUT ROWID table: the keys of the matched rows
	rows   [][]value.Value     // mat: the source's rows
	hit    []bool              // mat: of rows, whether each matched
	cur    int                 // mat: the index of the row the loop holds
	loaded bool
}

// markMatched records that the row level d holds matched.
func (j *joinIter) markMatched(d int) {
	lv, st := j.cp.levels[d], &j.rs[d]
	if lv.mat {
		st.hit[st.cur] = true
		return
	}
	src := j.cp.sources[lv.src]
	if src.rowidSlot < 0 { // WITHOUT ROWID
		if st.keys == nil {
			st.keys = map[string]struct{}{}
		}
		st.keys[string(src.table.rowKey(j.e.rows[lv.src], 0))] = struct{}{}
		return
	}
	if st.seen == nil {
		st.seen = map[int64]struct{}{}
	}
	st.seen[j.e.rows[lv.src][src.rowidSlot].Int()] = struct{}{}
}

// load reads the rows of level d's source into memory, once per execution.
func (j *joinIter) load(d int) error {
	lv, st := j.cp.levels[d], &j.rs[d]
	if st.loaded {
		return nil
	}
	c, err := lv.scan.open(j.e, lv.src)
	if err != nil {
		return err
	}
	for {
		ok, err := c.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		st.rows = append(st.rows, cloneRow(j.e.rows[lv.src]))
	}
	st.hit, st.loaded = make([]bool, len(st.rows)), true
	return nil
}

// matIter iterates the rows a mat level read into memory (unmatched: those no row matched).
type matIter struct {
	e         *env
	src       int
	st        *rightState
	i         int
	unmatched bool
}

func (it *matIter) next() (bool, error) {
	for it.i < len(it.st.rows) {
		k := it.i
		it.i++
		if it.unmatched && it.st.hit[k] {
			continue
		}
		if err := it.e.run.cx.tick(); err != nil {
			return false, err
		}
		it.st.cur = k
		it.e.rows[it.src] = it.st.rows[k]
		return true, nil
	}
	return false, nil
}

// unmatchedRows skips the rows of a scan of a table that matched.
type unmatchedRows struct {
	in   candidates
	e    *env
	src  int
	t    *Table
	slot int // the rowid's; -1 for a WITHOUT ROWID table
	seen map[int64]struct{}
	keys map[string]struct{}
}

func (it *unmatchedRows) next() (bool, error) {
	for {
		ok, err := it.in.next()
		if err != nil || !ok {
			return false, err
		}
		row := it.e.rows[it.src]
		hit := false
		if it.slot >= 0 {
			_, hit = it.seen[row[it.slot].Int()]
		} else {
			_, hit = it.keys[string(it.t.rowKey(row, 0))]
		}
		if !hit {
			return true, nil
		}
	}
}

// openRight opens level d of a RIGHT or FULL join for the main pass.
func (j *joinIter) openRight(d int) (candidates, error) {
	lv := j.cp.levels[d]
	if !lv.mat {
		return lv.access.open(j.e, lv.src)
	}
	if err := j.load(d); err != nil {
		return nil, err
	}
	return &matIter{e: j.e, src: lv.src, st: &j.rs[d]}, nil
}

// nextPass starts the unmatched pass of the next RIGHT or FULL join's loop; false when there is
// none left.
func (j *joinIter) nextPass() (bool, error) {
	start := 0
	if j.passing {
		start = j.floor + 1
	}
	levels := j.cp.levels
	for r := start; r < len(levels); r++ {
		lv := levels[r]
		if !lv.right {
			continue
		}
		j.passing, j.floor, j.depth = true, r, r
		for k := 0; k < r; k++ {
			j.e.rows[levels[k].src] = levels[k].null
		}
		var c candidates
		if lv.mat {
			if err := j.load(r); err != nil {
				return false, err
			}
			c = &matIter{e: j.e, src: lv.src, st: &j.rs[r], unmatched: true}
		} else {
			in, err := lv.scan.open(j.e, lv.src)
			if err != nil {
				return false, err
			}
			src := j.cp.sources[lv.src]
			c = &unmatchedRows{in: in, e: j.e, src: lv.src, t: src.table, slot: src.rowidSlot,
				seen: j.rs[r].seen, keys: j.rs[r].keys}
		}
		j.cands[r], j.matched[r], j.nulled[r] = c, true, false
		return true, nil
	}
	return false, nil
}

// advanceUnmatched moves the loop of the running unmatched pass to its next unmatched row that
// passes its WHERE terms.
func (j *joinIter) advanceUnmatched(d int) (bool, error) {
	lv := j.cp.levels[d]
	for {
		ok, err := j.cands[d].next()
		if err != nil || !ok {
			return false, err
		}
		pass, err := allTrue(lv.where, j.e)
		if err != nil {
			return false, err
		}
		if pass {
			return true, nil
		}
	}
}

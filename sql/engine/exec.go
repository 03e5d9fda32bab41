package engine

// Running a planned SELECT: pull iterators. A core joins its sources with nested loops
// (joinIter), then projects each row, or groups the rows and projects each group (aggIter); the
// select sorts, combines compound cores and applies LIMIT and OFFSET.

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// rowIter yields rows; a row is valid until the next call of next.
type rowIter interface {
	next() (bool, error)
	row() []value.Value
	close()
}

// open starts the select in run, as a query nested in outer (nil for a statement's own query).
// LIMIT and OFFSET come first, as SQLite computes them before it runs anything: with LIMIT 0 the
// select runs no core at all (and OFFSET is not looked at), so their errors never happen.
func (p *selectPlan) open(run *runState, outer *env) (rowIter, error) {
	if p.cte != nil {
		return p.cte.open(run, outer)
	}
	lim, off, err := p.limits(run, outer)
	if err != nil {
		return nil, err
	}
	if lim == 0 {
		return &sliceIter{}, nil
	}
	var it rowIter
	if len(p.cores) == 1 {
		it, err = p.cores[0].open(run, outer)
	} else {
		it, err = p.compound(run, outer)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case p.ordered:
		it = &orderedIter{in: it, keys: p.order}
	case len(p.order) > 0:
		keep := int64(-1) // the rows LIMIT and OFFSET can return: the sort keeps no more
		if lim >= 0 && lim <= math.MaxInt64-off {
			keep = lim + off
		}
		if it, err = sortRows(it, p.order, keep); err != nil {
			return nil, err
		}
	}
	if len(p.cores) == 1 && len(p.cores[0].project) > p.ncols {
		it = &trimIter{in: it, n: p.ncols}
	}
	if lim >= 0 || off > 0 {
		it = &limitIter{in: it, limit: lim, offset: off}
	}
	return it, nil
}

// limits evaluates LIMIT (-1: none) and OFFSET (0: none), in SQLite's order: after LIMIT 0,
// OFFSET is not evaluated.
func (p *selectPlan) limits(run *runState, outer *env) (lim, off int64, err error) {
	lim = -1
	if p.limit == nil && p.offset == nil {
		return lim, 0, nil
	}
	e := &env{outer: outer, run: run, params: paramsOf(outer, run)}
	if p.limit != nil {
		v, err := p.limit.eval(e)
		if err != nil {
			return 0, 0, err
		}
		if lim, err = limitValue(v, "LIMIT"); err != nil {
			return 0, 0, err
		}
		if lim == 0 {
			return 0, 0, nil
		}
		lim = max(lim, -1)
	}
	if p.offset != nil {
		v, err := p.offset.eval(e)
		if err != nil {
			return 0, 0, err
		}
		if off, err = limitValue(v, "OFFSET"); err != nil {
			return 0, 0, err
		}
		off = max(off, 0)
	}
	return lim, off, nil
}

// limitValue converts a LIMIT or OFFSET value as SQLite's OP_MustBeInt does (value.MustBeInt;
// SQLite's "datatype mismatch" for a value that is no integer).
func limitValue(v value.Value, what string) (int64, error) {
	n, ok := value.MustBeInt(v)
	if !ok {
		return 0, fmt.Errorf("datatype mismatch")
	}
	return n, nil
}

func paramsOf(outer *env, run *runState) []value.Value {
	if outer != nil {
		return outer.params
	}
	return run.params
}

// collect runs the select and returns all its rows (copied).
func (p *selectPlan) collect(run *runState, outer *env) ([][]value.Value, error) {
	it, err := p.open(run, outer)
	if err != nil {
		return nil, err
	}
	return drain(it, -1)
}

// drain reads the rest of it, copying the first ncols values of each row (every value for -1),
// and closes it.
func drain(it rowIter, ncols int) ([][]value.Value, error) {
	defer it.close()
	var rows [][]value.Value
	for {
		ok, err := it.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return rows, nil
		}
		row := it.row()
		if ncols >= 0 {
			row = row[:ncols]
		}
		rows = append(rows, cloneRow(row))
	}
}

func cloneRow(r []value.Value) []value.Value {
	out := make([]value.Value, len(r))
	for i, v := range r {
		out[i] = v.Clone()
	}
	return out
}

// coreState is a core's env, join and projection, in one allocation; the slices of the usual
// small query (two sources, eight result columns) are in it too.
type coreState struct {
	e       env
	j       joinIter
	p       projectIter
	rows    [2][]value.Value
	cands   [2]candidates
	flags   [4]bool
	project [8]value.Value
}

// open starts a core.
func (cp *corePlan) open(run *runState, outer *env) (rowIter, error) {
	var st *coreState
	if sc := run.scratch; sc != nil && !sc.coreTaken {
		sc.coreTaken = true
		st = &sc.core
		*st = coreState{}
	} else {
		st = &coreState{}
	}
	st.e = env{outer: outer, run: run, params: paramsOf(outer, run)}
	e := &st.e
	if n := len(cp.sources); n <= len(st.rows) {
		e.rows = st.rows[:n]
	} else {
		e.rows = make([][]value.Value, n)
	}
	if cp.values != nil {
		return &valuesIter{cp: cp, e: e}, nil
	}
	st.j = joinIter{cp: cp, e: e}
	j := &st.j
	if n := len(cp.levels); n <= len(st.cands) {
		j.cands, j.matched, j.nulled = st.cands[:n], st.flags[:n], st.flags[n:2*n]
	}
	var it rowIter
	switch {
	case cp.agg != nil:
		a, err := newAggIter(cp, j, e)
		if err != nil {
			return nil, err
		}
		a.positionOnly = cp.win != nil
		it = a
	case cp.win == nil:
		st.p = projectIter{cp: cp, in: j, e: e, out: st.project[:0]}
		it = &st.p
	default:
		it = j
	}
	if cp.win != nil {
		it = newWindowIter(cp, it, e)
	}
	if cp.distinct {
		it = &distinctIter{in: it, n: cp.ncols, colls: cp.dcolls, seen: map[string]struct{}{}}
	}
	return it, nil
}

// joinIter runs the nested loops of a core; each successful next leaves one combination of rows
// in the env.
type joinIter struct {
	cp      *corePlan
	e       *env
	started bool
	done    bool
	depth   int
	cands   []candidates
	matched []bool
	nulled  []bool
	// RIGHT and FULL joins (rightjoin.go): each such loop's matched rows; passing is set
	// during an unmatched pass, which runs the loops from floor on.
	rs      []rightState
	floor   int
	passing bool
}

func (j *joinIter) next() (bool, error) {
	cp := j.cp
	if j.done {
		return false, nil
	}
	if !j.started {
		j.started = true
		for _, c := range cp.consts {
			ok, err := truth(c, j.e)
			if err != nil {
				return false, err
			}
			if !ok {
				j.done = true
				return false, nil
			}
		}
		if len(cp.levels) == 0 { // SELECT without FROM: one row
			j.done = true
			return true, nil
		}
		if n := len(cp.levels); j.cands == nil {
			j.cands, j.matched, j.nulled = make([]candidates, n), make([]bool, n), make([]bool, n)
		}
		if cp.right {
			j.rs = make([]rightState, len(cp.levels))
		}
		if err := j.openLevel(0); err != nil {
			return false, err
		}
	}
	for {
		for j.depth >= j.floor {
			var ok bool
			var err error
			if j.passing && j.depth == j.floor {
				ok, err = j.advanceUnmatched(j.depth)
			} else {
				ok, err = j.advance(j.depth)
			}
			if err != nil {
				return false, err
			}
			if !ok {
				j.depth--
				continue
			}
			if j.depth == len(cp.levels)-1 {
				return true, nil
			}
			j.depth++
			if err := j.openLevel(j.depth); err != nil {
				return false, err
			}
		}
		if !cp.right {
			break
		}
		more, err := j.nextPass()
		if err != nil {
			return false, err
		}
		if !more {
			break
		}
	}
	j.done = true
	return false, nil
}

func (j *joinIter) openLevel(d int) error {
	lv := j.cp.levels[d]
	var c candidates
	var err error
	if lv.right {
		c, err = j.openRight(d)
	} else if it, ok := j.cands[d].(*indexScanIter); ok && accessPath(it.p) == lv.access {
		c, err = it.p.reopen(j.e, lv.src, it) // the level's last iterator, done with
	} else if it, ok := j.cands[d].(*rowidIter); ok && accessPath(it.p) == lv.access {
		it.done = false
		c = it
	} else {
		c, err = lv.access.open(j.e, lv.src)
	}
	if err != nil {
		return err
	}
	j.cands[d], j.matched[d], j.nulled[d] = c, false, false
	return nil
}

// advance moves level d to its next row that passes its terms; false when it has none left.
func (j *joinIter) advance(d int) (bool, error) {
	lv := j.cp.levels[d]
	for {
		if j.nulled[d] {
			return false, nil
		}
		ok, err := j.cands[d].next()
		if err != nil {
			return false, err
		}
		if !ok {
			if lv.left && !j.matched[d] {
				j.nulled[d] = true
				j.e.rows[lv.src] = lv.null
				pass, err := allTrue(lv.where, j.e)
				if err != nil || !pass {
					return false, err
				}
				return true, nil
			}
			return false, nil
		}
		pass, err := allTrue(lv.on, j.e)
		if err != nil {
			return false, err
		}
		if !pass {
			continue
		}
		j.matched[d] = true
		if lv.right {
			j.markMatched(d)
		}
		pass, err = allTrue(lv.where, j.e)
		if err != nil {
			return false, err
		}
		if pass {
			return true, nil
		}
	}
}

func allTrue(terms []expr, e *env) (bool, error) {
	for _, t := range terms {
		ok, err := truth(t, e)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (j *joinIter) row() []value.Value { return nil }
func (j *joinIter) close()             {}

// projectIter evaluates the projection of each joined row.
type projectIter struct {
	cp  *corePlan
	in  rowIter
	e   *env
	out []value.Value
}

func (p *projectIter) next() (bool, error) {
	ok, err := p.in.next()
	if err != nil || !ok {
		return false, err
	}
	p.out = p.out[:0]
	for _, x := range p.cp.project {
		v, err := x.eval(p.e)
		if err != nil {
			return false, err
		}
		p.out = append(p.out, v)
	}
	return true, nil
}

func (p *projectIter) row() []value.Value { return p.out }
func (p *projectIter) close()             { p.in.close() }

// valuesIter yields the rows of a VALUES core.
type valuesIter struct {
	cp  *corePlan
	e   *env
	i   int
	out []value.Value
}

func (v *valuesIter) next() (bool, error) {
	if v.i >= len(v.cp.values) {
		return false, nil
	}
	v.out = v.out[:0]
	for _, x := range v.cp.values[v.i] {
		val, err := x.eval(v.e)
		if err != nil {
			return false, err
		}
		v.out = append(v.out, val)
	}
	v.i++
	return true, nil
}

func (v *valuesIter) row() []value.Value { return v.out }
func (v *valuesIter) close()             {}

// group is the state of one group of an aggregate core.
type group struct {
	key    []byte
	states []aggState
	rows   [][]value.Value // a copy of the sources' rows for the bare columns
}

// aggIter groups the joined rows (all of them, when it starts) and yields the projection of each
// group that passes HAVING, in the order of the GROUP BY keys.
type aggIter struct {
	cp     *corePlan
	e      *env
	groups []*group
	i      int
	out    []value.Value
	aggs   []value.Value
	// positionOnly leaves each group's rows and aggregates in the env without projecting (the
	// window functions of the core project after them).
	positionOnly bool
}

func newAggIter(cp *corePlan, in rowIter, e *env) (*aggIter, error) {
	a := cp.agg
	byKey := map[string]*group{}
	var groups []*group
	var key []byte
	var args []value.Value
	for {
		ok, err := in.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		key = key[:0]
		for i, g := range a.groupBy {
			v, err := g.eval(e)
			if err != nil {
				return nil, err
			}
			key = codec.AppendKey(key, v, false, a.gcolls[i])
		}
		gr := byKey[string(key)]
		if gr == nil {
			gr = &group{key: append([]byte(nil), key...)}
			for _, c := range a.calls {
				gr.states = append(gr.states, c.newState())
			}
			byKey[string(gr.key)] = gr
			groups = append(groups, gr)
		}
		for i, c := range a.calls {
			if c.filter != nil {
				ok, err := truth(c.filter, e)
				if err != nil {
					return nil, err
				}
				if !ok {
					if m, isMinMax := gr.states[i].(*minMaxState); isMinMax {
						m.changed = false
					}
					continue
				}
			}
			if c.intArg != nil { // sum, total, avg of an INTEGER: no value.Value (exprint.go)
				if s, ok := gr.states[i].(*sumState); ok {
					if n, ok := c.intArg.evalInt(e); ok {
						s.stepInt(n)
						continue
					}
				}
			}
			args = args[:0]
			for _, x := range c.args {
				v, err := x.eval(e)
				if err != nil {
					return nil, err
				}
				args = append(args, v)
			}
			if err := gr.states[i].step(args); err != nil {
				return nil, err
			}
		}
		// Bare columns read the group's first row, as SQLite 3.54's do, or the row of the only
		// min() or max() (lang_select.html, "bare columns").
		if a.bare && (gr.rows == nil || a.minMax >= 0 && gr.states[a.minMax].(*minMaxState).changed) {
			gr.rows = saveRows(gr.rows, e.rows)
		}
		if a.firstDecides && gr.states[0].(*minMaxState).decided(args[0]) {
			break
		}
	}
	in.close()
	if len(groups) == 0 && len(a.groupBy) == 0 {
		// An aggregate without GROUP BY has one group even over no rows.
		gr := &group{}
		for _, c := range a.calls {
			gr.states = append(gr.states, c.newState())
		}
		groups = append(groups, gr)
	}
	slices.SortFunc(groups, func(a, b *group) int { return bytes.Compare(a.key, b.key) }) // keys are distinct
	return &aggIter{cp: cp, e: e, groups: groups}, nil
}

// saveRows copies the current rows of the sources into dst's storage.
func saveRows(dst [][]value.Value, rows [][]value.Value) [][]value.Value {
	if dst == nil {
		dst = make([][]value.Value, len(rows))
	}
	for i, r := range rows {
		if r == nil {
			dst[i] = nil
			continue
		}
		dst[i] = append(dst[i][:0], r...)
		for j := range dst[i] {
			dst[i][j] = dst[i][j].Clone()
		}
	}
	return dst
}

func (a *aggIter) next() (bool, error) {
	for a.i < len(a.groups) {
		gr := a.groups[a.i]
		a.i++
		a.aggs = a.aggs[:0]
		for _, s := range gr.states {
			v, err := s.result()
			if err != nil {
				return false, err
			}
			a.aggs = append(a.aggs, v)
		}
		a.e.aggs = a.aggs
		if gr.rows != nil {
			copy(a.e.rows, gr.rows)
		} else {
			for i := range a.e.rows {
				a.e.rows[i] = nullRowFor(a.cp.sources[i])
			}
		}
		if a.cp.having != nil {
			ok, err := truth(a.cp.having, a.e)
			if err != nil {
				return false, err
			}
			if !ok {
				continue
			}
		}
		if a.positionOnly {
			return true, nil
		}
		a.out = a.out[:0]
		for _, x := range a.cp.project {
			v, err := x.eval(a.e)
			if err != nil {
				return false, err
			}
			a.out = append(a.out, v)
		}
		return true, nil
	}
	return false, nil
}

func nullRowFor(s *source) []value.Value { return make([]value.Value, s.rowLen()) }

func (a *aggIter) row() []value.Value { return a.out }
func (a *aggIter) close()             {}

// distinctIter drops rows whose first n columns equal an earlier row's (by collation).
type distinctIter struct {
	in    rowIter
	n     int
	colls []value.Collation
	seen  map[string]struct{}
	key   []byte
}

func (d *distinctIter) next() (bool, error) {
	for {
		ok, err := d.in.next()
		if err != nil || !ok {
			return false, err
		}
		d.key = d.key[:0]
		for i, v := range d.in.row()[:d.n] {
			d.key = codec.AppendKey(d.key, v, false, d.colls[i])
		}
		if _, dup := d.seen[string(d.key)]; dup {
			continue
		}
		d.seen[string(d.key)] = struct{}{}
		return true, nil
	}
}

func (d *distinctIter) row() []value.Value { return d.in.row() }
func (d *distinctIter) close()             { d.in.close() }

// sliceIter yields materialized rows.
type sliceIter struct {
	rows [][]value.Value
	i    int
}

func (s *sliceIter) next() (bool, error) {
	if s.i >= len(s.rows) {
		return false, nil
	}
	s.i++
	return true, nil
}

func (s *sliceIter) row() []value.Value { return s.rows[s.i-1] }
func (s *sliceIter) close()             {}

// sortRows reads every row of in and returns them sorted by keys (a stable sort: rows with equal
// keys keep their order). keep >= 0 is the most rows the caller reads (LIMIT plus OFFSET): then
// the sort holds that many only, the smallest so far (a top-N sort).
func sortRows(in rowIter, keys []orderKey, keep int64) (rowIter, error) {
	defer in.close()
	if keep >= 0 && keep <= maxTopN {
		return topN(in, keys, int(keep))
	}
	var rows [][]value.Value
	for {
		ok, err := in.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		rows = append(rows, cloneRow(in.row()))
	}
	slices.SortStableFunc(rows, func(a, b []value.Value) int { return compareRows(a, b, keys) })
	return &sliceIter{rows: rows}, nil
}

func compareRows(a, b []value.Value, keys []orderKey) int {
	for _, k := range keys {
		x, y := a[k.col], b[k.col]
		if x.IsNull() || y.IsNull() {
			if x.IsNull() && y.IsNull() {
				continue
			}
			if x.IsNull() == k.nullsFirst {
				return -1
			}
			return 1
		}
		c := value.Compare(x, y, k.coll)
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// trimIter drops the extra ORDER BY columns.
type trimIter struct {
	in rowIter
	n  int
}

func (t *trimIter) next() (bool, error) { return t.in.next() }
func (t *trimIter) row() []value.Value  { return t.in.row()[:t.n] }
func (t *trimIter) close()              { t.in.close() }

// limitIter applies LIMIT (negative: none) and OFFSET.
type limitIter struct {
	in            rowIter
	limit, offset int64
	n             int64
}

func (l *limitIter) next() (bool, error) {
	for l.offset > 0 {
		ok, err := l.in.next()
		if err != nil || !ok {
			return false, err
		}
		l.offset--
	}
	if l.limit >= 0 && l.n >= l.limit {
		return false, nil
	}
	ok, err := l.in.next()
	if ok {
		l.n++
	}
	return ok, err
}

func (l *limitIter) row() []value.Value { return l.in.row() }
func (l *limitIter) close()             { l.in.close() }

// compound runs the cores of a compound select and combines them left to right: UNION ALL
// appends; UNION, INTERSECT and EXCEPT make a set of rows (compared by each column's collation),
// in the order of their keys, as SQLite's ephemeral index yields them.
func (p *selectPlan) compound(run *runState, outer *env) (rowIter, error) {
	colls := make([]value.Collation, p.ncols)
	for i := range colls {
		colls[i] = p.compoundCollation(i)
	}
	keyOf := func(r []value.Value) string {
		var k []byte
		for i, v := range r[:p.ncols] {
			k = codec.AppendKey(k, v, false, colls[i])
		}
		return string(k)
	}
	cur, err := p.cores[0].collectCore(run, outer)
	if err != nil {
		return nil, err
	}
	for i, op := range p.ops {
		if len(cur) == 0 && (op == ast.Intersect || op == ast.Except) {
			continue // nothing to intersect with or take from: SQLite does not run the core
		}
		rows, err := p.cores[i+1].collectCore(run, outer)
		if err != nil {
			return nil, err
		}
		switch op {
		case ast.UnionAll:
			cur = append(cur, rows...)
		case ast.Union:
			cur = distinctSorted(append(cur, rows...), keyOf, nil)
		case ast.Intersect:
			keep := map[string]bool{}
			for _, r := range rows {
				keep[keyOf(r)] = true
			}
			cur = distinctSorted(cur, keyOf, func(k string) bool { return keep[k] })
		case ast.Except:
			drop := map[string]bool{}
			for _, r := range rows {
				drop[keyOf(r)] = true
			}
			cur = distinctSorted(cur, keyOf, func(k string) bool { return !drop[k] })
		}
	}
	return &sliceIter{rows: cur}, nil
}

// distinctSorted returns the rows with distinct keys (the first of each), those for which keep
// holds (nil: all), sorted by key.
func distinctSorted(rows [][]value.Value, keyOf func([]value.Value) string, keep func(string) bool) [][]value.Value {
	type keyed struct {
		key string
		row []value.Value
	}
	seen := map[string]bool{}
	var list []keyed
	for _, r := range rows {
		k := keyOf(r)
		if seen[k] || keep != nil && !keep(k) {
			continue
		}
		seen[k] = true
		list = append(list, keyed{k, r})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	out := make([][]value.Value, len(list))
	for i, kr := range list {
		out[i] = kr.row
	}
	return out
}

// collectCore runs one core and returns its rows (copied).
func (cp *corePlan) collectCore(run *runState, outer *env) ([][]value.Value, error) {
	it, err := cp.open(run, outer)
	if err != nil {
		return nil, err
	}
	return drain(it, cp.ncols)
}

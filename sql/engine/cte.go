package engine

// Common table expressions (lang_with.html). A WITH clause pushes a frame of CTE definitions on
// the planner's stack while the statement it belongs to is planned; a FROM item whose name a
// frame defines names the CTE, before any table or view of that name. A CTE is planned where it
// is named, as a subquery in FROM with the CTE's name, so each use is a plan of its own; the
// uses that read no column of an enclosing query share their rows in an execution (cteMemo).
//
// Invariants:
//   - While a CTE's body is planned, a reference to it is an error (cteDef.refErr: "circular
//     reference"), except the direct FROM items of its recursive cores (cteDef.recItems), which
//     read the row the recursion is at.
//   - A CTE is recursive when its body is a compound whose last operator is UNION or UNION ALL
//     and whose last core names it directly in FROM. Its recursive cores are the cores from the
//     right that name it once in FROM, joined by that same operator; the cores before them are
//     the setup, which may not name it.
//   - A recursive CTE runs as SQLite's queue: the setup's rows go to a queue; each row taken
//     from the queue is a result row (after OFFSET, up to LIMIT) and then the recursive cores
//     run with it as the CTE's only row, their rows going to the queue. UNION drops rows seen
//     before from the queue; ORDER BY makes the queue a priority queue (ties first in, first
//     out). The rows are pulled one at a time, so an outer LIMIT stops an endless recursion.

import (
	"container/heap"
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// cteFrame is the CTEs of one WITH clause, with the frames of the enclosing statements.
type cteFrame struct {
	outer *cteFrame
	defs  []*cteDef
}

// cteDef is one CTE of a frame.
type cteDef struct {
	cte   *ast.CTE
	frame *cteFrame // the frame it is defined in: the names its body sees
	// refErr, when set, is the error (a format with the CTE's name) of a reference to the CTE:
	// its body is being planned.
	refErr string
	// recItems are the FROM items of the recursive cores being planned that read the current
	// row: each gets the plan that yields it.
	recItems map[*ast.FromItem]*selectPlan
	// uses counts the plans of uses that read no column of an enclosing query (shared ones).
	uses int
}

// pushWith makes w's CTEs visible to what pc plans next; the returned function takes them away.
func (pc *planCtx) pushWith(w *ast.With) (func(), error) {
	if w == nil {
		return func() {}, nil
	}
	f := &cteFrame{outer: pc.with}
	for _, c := range w.CTEs {
		for _, d := range f.defs {
			if strings.EqualFold(d.cte.Name, c.Name) {
				return nil, fmt.Errorf("duplicate WITH table name: %s", c.Name)
			}
		}
		f.defs = append(f.defs, &cteDef{cte: c, frame: f})
	}
	saved := pc.with
	pc.with = f
	return func() { pc.with = saved }, nil
}

// cte returns the CTE that name names where pc plans now, or nil.
func (pc *planCtx) cte(name string) *cteDef {
	for f := pc.with; f != nil; f = f.outer {
		for _, d := range f.defs {
			if strings.EqualFold(d.cte.Name, name) {
				return d
			}
		}
	}
	return nil
}

// cteSource makes the source of FROM item item, which names the CTE def.
func cteSource(pc *planCtx, def *cteDef, item *ast.FromItem, sc *scope) (*source, error) {
	name := def.cte.Name
	if item.Alias != "" {
		name = item.Alias
	}
	if cur, ok := def.recItems[item]; ok {
		return planSource(cur, name), nil
	}
	if def.refErr != "" {
		return nil, fmt.Errorf(def.refErr, def.cte.Name)
	}
	savedWith, savedErr := pc.with, def.refErr
	pc.with = def.frame
	defer func() { pc.with, def.refErr = savedWith, savedErr }()
	def.refErr = "circular reference: %s"
	body := def.cte.Select
	first, err := recursiveCores(body, def.cte.Name)
	if err != nil {
		return nil, err
	}
	child := &scope{outer: sc.outer, unevaluated: sc.unevaluated}
	var plan *selectPlan
	if first < 0 {
		if plan, err = planSelect(pc, body, child); err == nil {
			err = def.nameColumns(plan)
		}
	} else {
		plan, err = planRecursive(pc, def, body, first, child)
	}
	if err != nil {
		return nil, err
	}
	if child.usedOuter {
		sc.usedOuter = true
	} else {
		plan.shared = def
		def.countUse(pc)
	}
	return planSource(plan, name), nil
}

// nameColumns checks the CTE's column list against plan's columns and renames them; plan's
// names are the CTE's from then on.
func (d *cteDef) nameColumns(plan *selectPlan) error {
	cols := d.cte.Columns
	if cols == nil {
		return nil
	}
	if len(cols) != plan.ncols {
		return fmt.Errorf("table %s has %d values for %d columns", d.cte.Name, plan.ncols, len(cols))
	}
	plan.names = append([]string(nil), cols...)
	return nil
}

// recursiveCores returns the index of the first recursive core of body, the CTE called name,
// or -1 when it is not recursive (see the invariants above).
func recursiveCores(body *ast.Select, name string) (int, error) {
	n := len(body.Cores)
	if n < 2 {
		return -1, nil
	}
	op := body.Ops[n-2]
	if op != ast.Union && op != ast.UnionAll {
		return -1, nil
	}
	first := -1
	for i := n - 1; i >= 1 && body.Ops[i-1] == op; i-- {
		refs := 0
		for _, it := range body.Cores[i].From {
			if it.Subquery == nil && strings.EqualFold(it.Table, name) {
				refs++
			}
		}
		if refs > 1 {
			return 0, fmt.Errorf("multiple references to recursive table: %s", name)
		}
		if refs == 0 {
			break
		}
		first = i
	}
	return first, nil
}

// recursiveCTE is a planned recursive CTE.
type recursiveCTE struct {
	setup *selectPlan
	// steps are the recursive cores, in a plan of their own for EXPLAIN.
	steps *selectPlan
	all   bool              // UNION ALL: no rows dropped as duplicates
	colls []value.Collation // the columns' collations, for UNION's duplicates
	order []orderKey        // ORDER BY: the queue's priority
	whole *selectPlan       // the whole body, for LIMIT and OFFSET
	// reals are the columns of REAL affinity: an INTEGER there is queued as a REAL, which the
	// recursive cores and the query read (as SQLite reads a compound's column, subqueryScan).
	reals []int
	cur   *cteRow
}

// cteRow yields the row a recursive CTE's recursion is at (rows[0]).
type cteRow struct{ rows [1][]value.Value }

// cteRunner is a plan that yields its rows its own way (selectPlan.cte).
type cteRunner interface {
	open(run *runState, outer *env) (rowIter, error)
}

func (c *cteRow) open(*runState, *env) (rowIter, error) {
	return &sliceIter{rows: [][]value.Value{c.rows[0]}}, nil
}

// planRecursive plans the recursive CTE def, whose recursive cores start at first.
func planRecursive(pc *planCtx, def *cteDef, body *ast.Select, first int, sc *scope) (*selectPlan, error) {
	name := def.cte.Name
	setupSel := &ast.Select{At: body.At, Cores: body.Cores[:first], Ops: body.Ops[:first-1]}
	pc.cteDryRun++ // the setup is planned again in the whole body: its CTE uses count there
	setup, err := planSelect(pc, setupSel, &scope{outer: sc.outer, unevaluated: sc.unevaluated})
	pc.cteDryRun--
	if err != nil {
		return nil, err
	}
	if err := def.nameColumns(setup); err != nil {
		return nil, err
	}
	// The recursive cores read the current row's columns without affinity or collation: SQLite
	// resolves them before it gives the CTE's columns their types.
	cur := &cteRow{}
	curPlan := &selectPlan{ncols: setup.ncols, names: setup.names, decl: make([]string, setup.ncols),
		infos: make([]exprInfo, setup.ncols), coreInfos: [][]exprInfo{make([]exprInfo, setup.ncols)},
		coreTypes: [][]uint8{make([]uint8, setup.ncols)}, cte: cur}
	for i := range curPlan.coreTypes[0] {
		curPlan.coreTypes[0][i] = typeNumeric | typeText | typeBlob
	}
	def.recItems = map[*ast.FromItem]*selectPlan{}
	for _, core := range body.Cores[first:] {
		for i := range core.From {
			if it := &core.From[i]; it.Subquery == nil && strings.EqualFold(it.Table, name) {
				def.recItems[it] = curPlan
			}
		}
	}
	def.refErr = "multiple recursive references: %s"
	whole, err := planSelect(pc, body, sc)
	def.recItems = nil
	if err != nil {
		return nil, err
	}
	steps := whole.cores[first:]
	for k, cp := range steps {
		if cp.agg != nil {
			return nil, fmt.Errorf("recursive aggregate queries not supported")
		}
		// A result column that is a column of the current row may give what the setup's column
		// gives, when the CTE's column affinity is worked out (columnAffinity): SQLite gives
		// the CTE's own columns their setup's affinity there.
		for i := 0; i < whole.ncols; i++ {
			if c, ok := cp.project[i].(*colExpr); ok && c.depth == 0 && cp.sources[c.src].sub == curPlan {
				whole.coreTypes[first+k][i] = affinityTypes(setup.columnAffinity(c.col))
			}
		}
	}
	r := &recursiveCTE{setup: setup, all: body.Ops[len(body.Ops)-1] == ast.UnionAll, order: whole.order,
		whole: whole, cur: cur}
	r.steps = &selectPlan{cores: steps, ops: body.Ops[first:], ncols: whole.ncols}
	for i := 0; i < whole.ncols; i++ {
		r.colls = append(r.colls, whole.compoundCollation(i))
	}
	out := &selectPlan{ncols: whole.ncols, names: setup.names, decl: whole.decl, infos: whole.infos,
		lastInfos: whole.lastInfos, coreInfos: whole.coreInfos, coreTypes: whole.coreTypes, cte: r}
	r.reals = realColumns(out)
	return out, nil
}

// open starts the recursion: the setup's rows go to the queue.
func (r *recursiveCTE) open(run *runState, outer *env) (rowIter, error) {
	lim, off, err := r.whole.limits(run, outer)
	if err != nil {
		return nil, err
	}
	if lim == 0 {
		return &sliceIter{}, nil
	}
	it := &recursiveIter{r: r, run: run, outer: outer, limit: lim, offset: off}
	if !r.all {
		it.seen = map[string]struct{}{}
	}
	in, err := r.setup.open(run, outer)
	if err != nil {
		return nil, err
	}
	if err := it.queueAll(in); err != nil {
		return nil, err
	}
	return it, nil
}

// recursiveIter runs a recursive CTE's queue.
type recursiveIter struct {
	r      *recursiveCTE
	run    *runState
	outer  *env
	limit  int64 // -1: none
	offset int64
	n      int64 // rows yielded
	// pending is the row taken last, whose recursive step has not run yet.
	pending []value.Value
	out     []value.Value
	seen    map[string]struct{} // UNION: the rows queued so far, by key
	key     []byte
	fifo    [][]value.Value // the queue without ORDER BY
	head    int
	pq      cteQueue // the queue with ORDER BY
	seq     int64
}

func (it *recursiveIter) next() (bool, error) {
	for {
		if it.limit >= 0 && it.n >= it.limit {
			return false, nil
		}
		if row := it.pending; row != nil {
			it.pending = nil
			if err := it.step(row); err != nil {
				return false, err
			}
		}
		row, ok := it.pop()
		if !ok {
			return false, nil
		}
		it.pending = row
		if it.offset > 0 {
			it.offset--
			continue
		}
		it.n++
		it.out = row
		return true, nil
	}
}

func (it *recursiveIter) row() []value.Value { return it.out }
func (it *recursiveIter) close()             {}

// step runs the recursive cores with row as the CTE's only row.
func (it *recursiveIter) step(row []value.Value) error {
	it.r.cur.rows[0] = row
	for _, cp := range it.r.steps.cores {
		in, err := cp.open(it.run, it.outer)
		if err != nil {
			return err
		}
		if err := it.queueAll(in); err != nil {
			return err
		}
	}
	return nil
}

// queueAll adds the rows of in to the queue (UNION: those not seen before) and closes in.
func (it *recursiveIter) queueAll(in rowIter) error {
	defer in.close()
	ncols := it.r.whole.ncols
	for {
		ok, err := in.next()
		if err != nil || !ok {
			return err
		}
		row := in.row()[:ncols]
		if it.seen != nil {
			it.key = it.key[:0]
			for i, v := range row {
				it.key = codec.AppendKey(it.key, v, false, it.r.colls[i])
			}
			if _, dup := it.seen[string(it.key)]; dup {
				continue
			}
			it.seen[string(it.key)] = struct{}{}
		}
		row = cloneRow(row)
		for _, i := range it.r.reals {
			if row[i].Kind() == value.Integer {
				row[i] = value.Float(float64(row[i].Int()))
			}
		}
		if it.r.order == nil {
			it.fifo = append(it.fifo, row)
			continue
		}
		it.seq++
		heap.Push(&it.pq, cteQueued{row: row, seq: it.seq, keys: it.r.order})
	}
}

// pop takes the next row from the queue.
func (it *recursiveIter) pop() ([]value.Value, bool) {
	if it.r.order != nil {
		if it.pq.Len() == 0 {
			return nil, false
		}
		return heap.Pop(&it.pq).(cteQueued).row, true
	}
	if it.head >= len(it.fifo) {
		return nil, false
	}
	row := it.fifo[it.head]
	it.fifo[it.head] = nil
	it.head++
	if it.head > 1024 && it.head*2 > len(it.fifo) { // reuse the space of the rows taken
		it.fifo = append(it.fifo[:0], it.fifo[it.head:]...)
		it.head = 0
	}
	return row, true
}

// cteQueued is a row of the priority queue; seq orders rows with equal keys by arrival.
type cteQueued struct {
	row  []value.Value
	seq  int64
	keys []orderKey
}

// cteQueue is a min-heap of rows by ORDER BY, then arrival.
type cteQueue []cteQueued

func (q cteQueue) Len() int { return len(q) }
func (q cteQueue) Less(i, j int) bool {
	if c := compareRows(q[i].row, q[j].row, q[i].keys); c != 0 {
		return c < 0
	}
	return q[i].seq < q[j].seq
}
func (q cteQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *cteQueue) Push(x any)   { *q = append(*q, x.(cteQueued)) }
func (q *cteQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = cteQueued{}
	*q = old[:len(old)-1]
	return x
}

// iterRows feeds the rows of a lazily run plan (a recursive CTE) to a loop of a join.
type iterRows struct {
	e   *env
	src int
	it  rowIter
}

// realColumns returns the columns of p with REAL affinity.
func realColumns(p *selectPlan) []int {
	var out []int
	for i := 0; i < p.ncols; i++ {
		if aff, ok := p.columnAffinity(i); ok && aff == value.AffinityReal {
			out = append(out, i)
		}
	}
	return out
}

func (r *iterRows) next() (bool, error) {
	if err := r.e.run.cx.tick(); err != nil {
		return false, err
	}
	ok, err := r.it.next()
	if err != nil || !ok {
		r.it.close()
		return false, err
	}
	row := r.it.row()
	r.e.rows[r.src] = row
	return true, nil
}

// isCTERow reports whether p yields a recursive CTE's current row.
func isCTERow(p *selectPlan) bool {
	_, ok := p.cte.(*cteRow)
	return ok
}

// countUse counts a shared use of d, unless pc plans a part it plans again (cteDryRun).
func (d *cteDef) countUse(pc *planCtx) {
	if pc.cteDryRun == 0 {
		d.uses++
	}
}

// cteMemo is what an execution keeps of a shared CTE (selectPlan.shared): how often a loop
// opened it, and its rows once they are kept, which every shared use then reads (SQLite
// materializes a CTE used twice, so that random() in it gives one value to every use). A
// CTE's rows are kept from its first open; a recursive CTE with one shared use keeps them
// from its second: its first runs as the loop reads it (it may be the outer loop of an
// endless recursion under LIMIT), and a loop opened again has read it to the end.
type cteMemo struct {
	opens int
	rows  [][]value.Value // nil until kept
}

// cteMemo counts an open of p and returns its memo, or nil when p is not shared.
func (r *runState) cteMemo(p *selectPlan) *cteMemo {
	if p.shared == nil {
		return nil
	}
	if r.ctes == nil {
		r.ctes = map[*cteDef]*cteMemo{}
	}
	m := r.ctes[p.shared]
	if m == nil {
		m = &cteMemo{}
		r.ctes[p.shared] = m
	}
	m.opens++
	return m
}

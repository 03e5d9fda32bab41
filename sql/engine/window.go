package engine

// Window functions (lang_windowfunc.html). A core with window calls evaluates them after WHERE,
// GROUP BY and HAVING and before DISTINCT, ORDER BY and LIMIT: windowIter reads every row the core
// yields (a joined row, or a group that passed HAVING), keeps a copy of it with the values its
// windows need (partition and order keys, arguments, FILTER), then, for each distinct window
// (PARTITION BY and ORDER BY), sorts the rows by partition and order once and computes each call
// of that window per partition; last it projects each row with the calls' results (env.wins).
//
// Invariants: a core without window calls has cp.win == nil and runs as before (no per-row work);
// the distinct windows sort in SQLite's nesting order (winPlan.sortOrder), each sort stable over
// the order the previous left, so rows and ties come out as SQLite leaves them; a plan holds no
// execution state (frame offsets are evaluated per execution).

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// winKind is a built-in window function, or winAgg for an aggregate used as a window function.
type winKind uint8

const (
	winAgg winKind = iota
	winRowNumber
	winRank
	winDenseRank
	winPercentRank
	winCumeDist
	winNtile
	winLag
	winLead
	winFirstValue
	winLastValue
	winNthValue
)

// winFuncs are the built-in window functions with their numbers of arguments.
var winFuncs = map[string]struct {
	kind     winKind
	min, max int
}{
	"row_number":   {winRowNumber, 0, 0},
	"rank":         {winRank, 0, 0},
	"dense_rank":   {winDenseRank, 0, 0},
	"percent_rank": {winPercentRank, 0, 0},
	"cume_dist":    {winCumeDist, 0, 0},
	"ntile":        {winNtile, 1, 1},
	"lag":          {winLag, 1, 3},
	"lead":         {winLead, 1, 3},
	"first_value":  {winFirstValue, 1, 1},
	"last_value":   {winLastValue, 1, 1},
	"nth_value":    {winNthValue, 2, 2},
}

// winBound is one end of a bound frame; off is the offset of Preceding and Following.
type winBound struct {
	kind ast.BoundKind
	off  expr
}

// winFrame is a call's frame.
type winFrame struct {
	unit       ast.FrameUnit
	start, end winBound
	exclude    ast.FrameExclude
}

// winSpec is a distinct window: its PARTITION BY and ORDER BY. Their values sit in each row's
// vals from first on (partition keys, then order keys); keys sorts by both, order by the ORDER BY
// part only (peers are rows equal under it).
type winSpec struct {
	key       string
	partition []expr
	order     []expr
	first     int
	keys      []orderKey
	nPart     int
	// sortKeys name keys as the sort sees them (expression text, direction, NULLs, collation),
	// so that a sort the rows are already in can be skipped.
	sortKeys []string
}

// winCall is one window call of the core: its function, arguments (in each row's vals from
// argOff on, then the FILTER truth), window and frame.
type winCall struct {
	name   string
	kind   winKind
	agg    *aggDef
	coll   value.Collation
	args   []expr
	filter expr
	spec   int
	frame  winFrame
	argOff int
}

// winPlan is the window calls of a core.
type winPlan struct {
	specs []*winSpec
	calls []*winCall
	width int // values kept per row
	// levels are the specs in the order they sort and compute (sortOrder); sorts says which of
	// them sort (the others find the rows in their order already).
	levels []int
	sorts  []bool
}

// finish decides the levels of the windows and which of them sort: a window whose keys are a
// prefix of the last sort's keys needs none, as SQLite finds.
func (wp *winPlan) finish() {
	wp.levels = wp.sortOrder()
	wp.finishSorts()
}

// finishSorts decides which levels sort.
func (wp *winPlan) finishSorts() {
	wp.sorts = make([]bool, len(wp.levels))
	var last []string
	for i, si := range wp.levels {
		keys := wp.specs[si].sortKeys
		if len(keys) > 0 && !(len(keys) <= len(last) && slices.Equal(keys, last[:len(keys)])) {
			wp.sorts[i] = true
			last = keys
		}
	}
}

// sortOrder returns the order in which the distinct windows sort and compute, innermost first:
// SQLite computes a query's first window (and the windows equal to it) last, over a subquery that
// computes the others the same way, so the windows compute from the last first used to the first.
// Each sort is stable over the previous one's order, so rows and ties come out as SQLite's.
func (wp *winPlan) sortOrder() []int {
	order := make([]int, len(wp.specs))
	for i := range order {
		order[i] = len(order) - 1 - i
	}
	return order
}

// winCollector gathers the window calls of a core while its select list and ORDER BY are bound.
type winCollector struct {
	plan  winPlan
	named map[string]*ast.Window
	// colCalls[i] is the first window call of result column i; firstSpecs are the windows of the
	// result columns ORDER BY names, in its order (see finish).
	colCalls   []int
	firstSpecs []int
}

// startColumn notes that the next calls belong to the next result column.
func (wc *winCollector) startColumn() { wc.colCalls = append(wc.colCalls, len(wc.plan.calls)) }

// orderByColumn notes that ORDER BY names result column col.
func (wc *winCollector) orderByColumn(col int) {
	if col >= len(wc.colCalls) {
		return
	}
	end := len(wc.plan.calls)
	if col+1 < len(wc.colCalls) {
		end = wc.colCalls[col+1]
	}
	for _, c := range wc.plan.calls[wc.colCalls[col]:end] {
		if !slices.Contains(wc.firstSpecs, c.spec) {
			wc.firstSpecs = append(wc.firstSpecs, c.spec)
		}
	}
}

// finish fixes the order of the windows: SQLite computes the windows of a result column that
// ORDER BY names (by number or alias) first, then the others as sortOrder says.
func (wc *winCollector) finish() {
	wp := &wc.plan
	wp.finish()
	if len(wc.firstSpecs) == 0 {
		return
	}
	levels := append([]int(nil), wc.firstSpecs...)
	for _, si := range wp.levels {
		if !slices.Contains(levels, si) {
			levels = append(levels, si)
		}
	}
	wp.levels = levels
	wp.finishSorts()
}

// newWinCollector resolves the WINDOW clause as SQLite's parser does: in order, each entry
// merged with the earlier entry it names (a name no earlier entry has is ignored, as in SQLite);
// a later entry of the same name replaces an earlier one for OVER.
func newWinCollector(list []ast.NamedWindow) (*winCollector, error) {
	wc := &winCollector{}
	for _, nw := range list {
		w := nw.Window
		if w.Base != "" && wc.named[strings.ToLower(w.Base)] == nil {
			c := *w
			c.Base = ""
			w = &c
		}
		w, err := wc.resolve(w)
		if err != nil {
			return nil, err
		}
		if wc.named == nil {
			wc.named = map[string]*ast.Window{}
		}
		wc.named[strings.ToLower(nw.Name)] = w
	}
	return wc, nil
}

// resolve returns w with the named window it refers to merged in, with SQLite's errors.
func (wc *winCollector) resolve(w *ast.Window) (*ast.Window, error) {
	if w.Base == "" {
		return w, nil
	}
	base := wc.named[strings.ToLower(w.Base)]
	switch {
	case base == nil:
		return nil, fmt.Errorf("no such window: %s", w.Base)
	case w.NameOnly:
		return base, nil
	case len(w.Partition) > 0:
		return nil, fmt.Errorf("cannot override PARTITION clause of window: %s", w.Base)
	case len(w.OrderBy) > 0 && len(base.OrderBy) > 0:
		return nil, fmt.Errorf("cannot override ORDER BY clause of window: %s", w.Base)
	case base.Frame != nil:
		return nil, fmt.Errorf("cannot override frame specification of window: %s", w.Base)
	}
	out := &ast.Window{At: w.At, Partition: base.Partition, PartitionText: base.PartitionText,
		OrderBy: base.OrderBy, OrderText: base.OrderText, Frame: w.Frame}
	if len(w.OrderBy) > 0 {
		out.OrderBy, out.OrderText = w.OrderBy, w.OrderText
	}
	return out, nil
}

// winRefExpr reads the result of window call i for the current row.
type winRefExpr struct{ i int }

func (w *winRefExpr) eval(e *env) (value.Value, error) { return e.wins[w.i], nil }

// hasWindowCall reports whether e holds a window call (outside subqueries).
func hasWindowCall(e exprAST) bool {
	return !walkAST(e, func(x exprAST) bool {
		c, ok := x.(*ast.Call)
		return !ok || c.Over == nil
	})
}

// window binds a call with an OVER clause.
func (b *binder) window(e *ast.Call) (expr, exprInfo, error) {
	name := e.Name
	if b.win == nil {
		return nil, exprInfo{}, fmt.Errorf("misuse of window function %s()", name)
	}
	call := &winCall{name: name}
	if f, ok := winFuncs[name]; ok {
		if e.Star || len(e.Args) < f.min || len(e.Args) > f.max {
			return nil, exprInfo{}, fmt.Errorf("wrong number of arguments to function %s()", name)
		}
		call.kind = f.kind
	} else {
		if !isAggregate(name, len(e.Args), e.Star) {
			if scalarFuncs[name] != nil {
				return nil, exprInfo{}, fmt.Errorf("%s() may not be used as a window function", name)
			}
			return nil, exprInfo{}, fmt.Errorf("no such function: %s", name)
		}
		def, err := lookupAggregate(name, len(e.Args), e.Star, false)
		if err != nil {
			return nil, exprInfo{}, err
		}
		call.agg = def
	}
	switch {
	case e.Distinct:
		return nil, exprInfo{}, fmt.Errorf("DISTINCT is not supported for window functions")
	case e.Filter != nil && call.kind != winAgg:
		return nil, exprInfo{}, fmt.Errorf("FILTER clause may only be used with aggregate window functions")
	}
	w, err := b.win.resolve(e.Over)
	if err != nil {
		return nil, exprInfo{}, err
	}
	// Arguments, keys and FILTER are bound as the rest of the select list is (aggregates allowed
	// in an aggregate query), but no window call inside them.
	inner := &binder{pc: b.pc, sc: b.sc, agg: b.agg, noAgg: b.noAgg, existsList: b.existsList}
	if call.spec, err = b.win.spec(inner, w, frameKey(call.kind, w.Frame)); err != nil {
		return nil, exprInfo{}, err
	}
	if call.frame, err = b.frame(w); err != nil {
		return nil, exprInfo{}, err
	}
	plan := &b.win.plan
	call.argOff = plan.width
	args, infos, err := inner.bindArgs(e.Args)
	if err != nil {
		return nil, exprInfo{}, err
	}
	call.args = args
	plan.width += len(call.args)
	if e.Filter != nil {
		x, _, err := inner.bind(e.Filter)
		if err != nil {
			return nil, exprInfo{}, err
		}
		call.filter = x
		plan.width++
	}
	call.coll = callCollation(infos)
	plan.calls = append(plan.calls, call)
	return &winRefExpr{i: len(plan.calls) - 1}, collated(infos...), nil
}

// builtinFrames are the frames SQLite gives the built-in window functions that ignore the one
// written (sqlite3WindowUpdate): they decide which windows are the same one.
var builtinFrames = map[winKind]string{
	winRowNumber: "rows|0|2", winRank: "range|0|2", winDenseRank: "range|0|2",
	winPercentRank: "groups|2|4", winCumeDist: "groups|3|4", winNtile: "rows|2|4",
	winLead: "rows|0|4", winLag: "rows|0|2",
}

// frameKey tells frames apart as SQLite compares windows: the default frame is RANGE BETWEEN
// UNBOUNDED PRECEDING AND CURRENT ROW; offsets compare by value when they are literals.
func frameKey(kind winKind, f *ast.Frame) string {
	if k, ok := builtinFrames[kind]; ok {
		return k
	}
	if f == nil {
		return "range|0|2"
	}
	key := fmt.Sprintf("%d|%d|%d|%d", f.Unit, f.Start.Kind, f.End.Kind, f.Exclude)
	if f.Exclude == ast.ExcludeNone {
		key = fmt.Sprintf("%s|%d|%d", [...]string{"range", "rows", "groups"}[f.Unit], f.Start.Kind, f.End.Kind)
	}
	for _, x := range []ast.Expr{f.Start.Expr, f.End.Expr} {
		switch x := x.(type) {
		case nil:
		case *ast.Literal:
			key += "|" + x.Value.String()
		default:
			key += fmt.Sprintf("|%p", x)
		}
	}
	return key
}

// spec returns the index of the distinct window w with the frame frame (see frameKey), adding it
// when it is new: windows whose PARTITION BY, ORDER BY (as written) and frame are the same are
// one, as SQLite's sqlite3WindowCompare finds them.
func (wc *winCollector) spec(b *binder, w *ast.Window, frame string) (int, error) {
	key := strings.Join(w.PartitionText, "\x00") + "\x01"
	for i, t := range w.OrderBy {
		key += fmt.Sprintf("%s\x00%t%t\x00", w.OrderText[i], t.Desc, nullsFirst(t))
	}
	key += "\x01" + frame
	for i, s := range wc.plan.specs {
		if s.key == key {
			return i, nil
		}
	}
	s := &winSpec{key: key, first: wc.plan.width, nPart: len(w.Partition)}
	for _, p := range w.Partition {
		x, info, err := b.bind(p)
		if err != nil {
			return 0, err
		}
		s.partition = append(s.partition, x)
		s.keys = append(s.keys, orderKey{col: s.first + len(s.keys), nullsFirst: true, coll: collationOf(info)})
		s.sortKeys = append(s.sortKeys, fmt.Sprintf("%s\x00%t%t%d", w.PartitionText[len(s.partition)-1], false, true, collationOf(info)))
	}
	for _, t := range w.OrderBy {
		x, info, err := b.bind(t.Expr)
		if err != nil {
			return 0, err
		}
		s.order = append(s.order, x)
		s.keys = append(s.keys, orderKey{col: s.first + len(s.keys), desc: t.Desc, nullsFirst: nullsFirst(t), coll: collationOf(info)})
		s.sortKeys = append(s.sortKeys, fmt.Sprintf("%s\x00%t%t%d", w.OrderText[len(s.order)-1], t.Desc, nullsFirst(t), collationOf(info)))
	}
	wc.plan.width += len(s.keys)
	wc.plan.specs = append(wc.plan.specs, s)
	return len(wc.plan.specs) - 1, nil
}

// frame binds w's frame (the default: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), with
// SQLite's checks. An offset is a constant expression (parameters allowed), evaluated once per
// execution.
func (b *binder) frame(w *ast.Window) (winFrame, error) {
	f := winFrame{unit: ast.FrameRange, start: winBound{kind: ast.UnboundedPreceding}, end: winBound{kind: ast.CurrentRow}}
	if w.Frame == nil {
		return f, nil
	}
	af := w.Frame
	f.unit, f.exclude = af.Unit, af.Exclude
	s, e := af.Start.Kind, af.End.Kind
	if s == ast.UnboundedFollowing || e == ast.UnboundedPreceding ||
		s == ast.CurrentRow && e == ast.Preceding ||
		s == ast.Following && (e == ast.Preceding || e == ast.CurrentRow) {
		return f, fmt.Errorf("unsupported frame specification")
	}
	offset := func(s, e ast.BoundKind) bool {
		return s == ast.Preceding || s == ast.Following || e == ast.Preceding || e == ast.Following
	}
	if f.unit == ast.FrameRange && offset(s, e) && len(w.OrderBy) != 1 {
		return f, fmt.Errorf("RANGE with offset PRECEDING/FOLLOWING requires one ORDER BY expression")
	}
	var err error
	if f.start, err = b.frameBound(af.Start, f.unit, "starting"); err != nil {
		return f, err
	}
	if f.end, err = b.frameBound(af.End, f.unit, "ending"); err != nil {
		return f, err
	}
	return f, nil
}

func (b *binder) frameBound(fb ast.FrameBound, unit ast.FrameUnit, which string) (winBound, error) {
	out := winBound{kind: fb.Kind}
	if fb.Expr == nil {
		return out, nil
	}
	cb := &binder{pc: b.pc, sc: &scope{}, noAgg: "frame"}
	x, _, err := cb.bind(fb.Expr)
	if err != nil {
		return out, frameOffsetError(unit, which)
	}
	out.off = x
	return out, nil
}

func frameOffsetError(unit ast.FrameUnit, which string) error {
	if unit == ast.FrameRange {
		return fmt.Errorf("frame %s offset must be a non-negative number", which)
	}
	return fmt.Errorf("frame %s offset must be a non-negative integer", which)
}

// winRow is one row of the core kept for its windows: the sources' rows (and the group's
// aggregates), the values the windows read, and the results of the calls.
type winRow struct {
	src  [][]value.Value
	aggs []value.Value
	vals []value.Value
	res  []value.Value
}

// windowIter computes the windows of a core over all the rows of in, then yields the projection
// of each row.
type windowIter struct {
	cp      *corePlan
	in      rowIter
	e       *env
	started bool
	rows    []*winRow
	perm    []int
	i       int
	out     []value.Value
	offs    [][2]value.Value // each call's frame offsets, for this execution
}

func newWindowIter(cp *corePlan, in rowIter, e *env) *windowIter {
	return &windowIter{cp: cp, in: in, e: e}
}

func (w *windowIter) next() (bool, error) {
	if !w.started {
		w.started = true
		if err := w.compute(); err != nil {
			return false, err
		}
	}
	if w.i >= len(w.perm) {
		return false, nil
	}
	r := w.rows[w.perm[w.i]]
	w.i++
	copy(w.e.rows, r.src)
	w.e.aggs, w.e.wins = r.aggs, r.res
	w.out = w.out[:0]
	for _, x := range w.cp.project {
		v, err := x.eval(w.e)
		if err != nil {
			return false, err
		}
		w.out = append(w.out, v)
	}
	return true, nil
}

func (w *windowIter) row() []value.Value { return w.out }
func (w *windowIter) close()             { w.in.close() }

// compute reads every row of the input and computes every call's result for each.
func (w *windowIter) compute() error {
	plan := w.cp.win
	if err := w.evalOffsets(); err != nil {
		return err
	}
	defer w.in.close()
	for {
		ok, err := w.in.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		r := &winRow{src: saveRows(nil, w.e.rows), vals: make([]value.Value, plan.width), res: make([]value.Value, len(plan.calls))}
		if w.e.aggs != nil {
			r.aggs = cloneRow(w.e.aggs)
		}
		for _, s := range plan.specs {
			k := s.first
			for _, x := range s.partition {
				if r.vals[k], err = evalClone(x, w.e); err != nil {
					return err
				}
				k++
			}
			for _, x := range s.order {
				if r.vals[k], err = evalClone(x, w.e); err != nil {
					return err
				}
				k++
			}
		}
		for _, c := range plan.calls {
			k := c.argOff
			for _, x := range c.args {
				if r.vals[k], err = evalClone(x, w.e); err != nil {
					return err
				}
				k++
			}
			if c.filter != nil {
				ok, err := truth(c.filter, w.e)
				if err != nil {
					return err
				}
				r.vals[k] = value.Bool(ok)
			}
		}
		w.rows = append(w.rows, r)
	}
	w.perm = make([]int, len(w.rows))
	for i := range w.perm {
		w.perm[i] = i
	}
	pos := make([]int, len(w.rows))
	for level, si := range plan.levels {
		s := plan.specs[si]
		if plan.sorts[level] {
			// A stable sort: ties keep the order the previous window left.
			for i, r := range w.perm {
				pos[r] = i
			}
			slices.SortFunc(w.perm, func(a, b int) int {
				if c := compareRows(w.rows[a].vals, w.rows[b].vals, s.keys); c != 0 {
					return c
				}
				return pos[a] - pos[b]
			})
		}
		p := &winPartition{w: w, spec: s}
		for ps := 0; ps < len(w.perm); {
			pe := ps + 1
			for pe < len(w.perm) && compareRows(w.rows[w.perm[ps]].vals, w.rows[w.perm[pe]].vals, s.keys[:s.nPart]) == 0 {
				pe++
			}
			p.set(ps, pe)
			for ci, c := range plan.calls {
				if c.spec == si {
					if err := p.compute(ci, c); err != nil {
						return err
					}
				}
			}
			ps = pe
		}
	}
	return nil
}

func evalClone(x expr, e *env) (value.Value, error) {
	v, err := x.eval(e)
	return v.Clone(), err
}

// evalOffsets evaluates the frame offsets of every call and checks them as SQLite does: ROWS and
// GROUPS take a non-negative integer, RANGE a non-negative number.
func (w *windowIter) evalOffsets() error {
	calls := w.cp.win.calls
	w.offs = make([][2]value.Value, len(calls))
	for i, c := range calls {
		for j, b := range [2]winBound{c.frame.start, c.frame.end} {
			if b.off == nil {
				continue
			}
			which := [2]string{"starting", "ending"}[j]
			v, err := b.off.eval(w.e)
			if err != nil {
				return err
			}
			if c.frame.unit == ast.FrameRange {
				v = value.AffinityNumeric.Apply(v)
				if !v.IsNumeric() || value.Compare(v, value.Int(0), value.Binary) < 0 {
					return frameOffsetError(c.frame.unit, which)
				}
				w.offs[i][j] = v
				continue
			}
			n, ok := value.MustBeInt(v)
			if !ok || n < 0 {
				return frameOffsetError(c.frame.unit, which)
			}
			w.offs[i][j] = value.Int(n)
		}
	}
	return nil
}

// winPartition is one partition of a window, positions ps..pe-1 of w.perm, with its peer groups:
// for each position, the start and end of its group of peers and the group's number.
type winPartition struct {
	w                *windowIter
	spec             *winSpec
	ps, pe           int
	gStart, gEnd, gN []int // indexed by position - ps
	groupStarts      []int // the first position of each peer group, then pe
}

func (p *winPartition) set(ps, pe int) {
	p.ps, p.pe = ps, pe
	n := pe - ps
	p.gStart, p.gEnd, p.gN = resize(p.gStart, n), resize(p.gEnd, n), resize(p.gN, n)
	p.groupStarts = p.groupStarts[:0]
	order := p.spec.keys[p.spec.nPart:]
	for k := ps; k < pe; {
		e := k + 1
		for e < pe && compareRows(p.vals(k), p.vals(e), order) == 0 {
			e++
		}
		for j := k; j < e; j++ {
			p.gStart[j-ps], p.gEnd[j-ps], p.gN[j-ps] = k, e, len(p.groupStarts)
		}
		p.groupStarts = append(p.groupStarts, k)
		k = e
	}
	p.groupStarts = append(p.groupStarts, pe)
}

func resize(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// vals returns the window values of the row at position k.
func (p *winPartition) vals(k int) []value.Value { return p.w.rows[p.w.perm[k]].vals }

// setResult stores the result of call ci for the row at position k.
func (p *winPartition) setResult(k, ci int, v value.Value) { p.w.rows[p.w.perm[k]].res[ci] = v }

// compute computes call ci for every row of the partition.
func (p *winPartition) compute(ci int, c *winCall) error {
	n := p.pe - p.ps
	switch c.kind {
	case winAgg:
		return p.aggregate(ci, c)
	case winFirstValue, winLastValue, winNthValue:
		return p.value(ci, c)
	case winLag, winLead:
		for k := p.ps; k < p.pe; k++ {
			p.setResult(k, ci, p.lagLead(k, c))
		}
		return nil
	case winNtile:
		buckets := value.ToInt(p.vals(p.ps)[c.argOff])
		if buckets <= 0 {
			return fmt.Errorf("argument of ntile must be a positive integer")
		}
		size, large := int64(n)/buckets, int64(n)%buckets
		for k := p.ps; k < p.pe; k++ {
			i := int64(k - p.ps)
			var t int64
			switch {
			case size == 0:
				t = i
			case i < large*(size+1):
				t = i / (size + 1)
			default:
				t = large + (i-large*(size+1))/size
			}
			p.setResult(k, ci, value.Int(t+1))
		}
		return nil
	}
	for k := p.ps; k < p.pe; k++ {
		i := k - p.ps
		rank := int64(p.gStart[i]-p.ps) + 1
		var v value.Value
		switch c.kind {
		case winRowNumber:
			v = value.Int(int64(i) + 1)
		case winRank:
			v = value.Int(rank)
		case winDenseRank:
			v = value.Int(int64(p.gN[i]) + 1)
		case winPercentRank:
			v = value.Float(0)
			if n > 1 {
				v = value.Float(float64(rank-1) / float64(n-1))
			}
		case winCumeDist:
			v = value.Float(float64(p.gEnd[i]-p.ps) / float64(n))
		}
		p.setResult(k, ci, v)
	}
	return nil
}

// lagLead is lag(x, offset, default) or lead(...) for the row at position k: x of the row offset
// rows before (lag) or after (lead), else the default. An offset that is NULL or not an integer
// finds no row, as in SQLite.
func (p *winPartition) lagLead(k int, c *winCall) value.Value {
	vals := p.vals(k)
	def := value.Value{}
	if len(c.args) == 3 {
		def = vals[c.argOff+2]
	}
	off := int64(1)
	if len(c.args) >= 2 {
		v := value.Arith(value.OpAdd, vals[c.argOff+1], value.Int(0))
		switch {
		case v.Kind() == value.Integer:
			off = v.Int()
		case v.Kind() == value.Real && v.Float() == float64(int64(v.Float())):
			off = int64(v.Float())
		default:
			return def
		}
	}
	if c.kind == winLag {
		off = -off
	}
	t := int64(k) + off
	if t < int64(p.ps) || t >= int64(p.pe) {
		return def
	}
	return p.vals(int(t))[c.argOff]
}

// frameParts returns the frame of the row at position k as up to three ranges of positions
// [from, to), in order, EXCLUDE applied.
func (p *winPartition) frameParts(k, ci int, c *winCall, parts *[3][2]int) []([2]int) {
	fs, fe := p.frameEnd(k, ci, c, c.frame.start, true), p.frameEnd(k, ci, c, c.frame.end, false)
	fe = max(fe, fs)
	out := parts[:0]
	gs, ge := p.gStart[k-p.ps], p.gEnd[k-p.ps]
	switch c.frame.exclude {
	case ast.ExcludeNone, ast.ExcludeNoOthers:
		if fs < fe {
			out = append(out, [2]int{fs, fe})
		}
		return out
	case ast.ExcludeCurrentRow:
		gs, ge = k, k+1
	}
	if a, b := fs, min(fe, gs); a < b {
		out = append(out, [2]int{a, b})
	}
	if c.frame.exclude == ast.ExcludeTies && k >= fs && k < fe {
		out = append(out, [2]int{k, k + 1})
	}
	if a, b := max(fs, ge), fe; a < b {
		out = append(out, [2]int{a, b})
	}
	return out
}

// frameEnd returns where the frame of the row at position k starts (start: its first position)
// or ends (its last position + 1), clamped to the partition.
func (p *winPartition) frameEnd(k, ci int, c *winCall, b winBound, start bool) int {
	i := k - p.ps
	var off value.Value
	if start {
		off = p.w.offs[ci][0]
	} else {
		off = p.w.offs[ci][1]
	}
	clamp := func(x int) int { return min(max(x, p.ps), p.pe) }
	switch b.kind {
	case ast.UnboundedPreceding:
		return p.ps
	case ast.UnboundedFollowing:
		return p.pe
	case ast.CurrentRow:
		switch {
		case c.frame.unit == ast.FrameRows && start:
			return k
		case c.frame.unit == ast.FrameRows:
			return k + 1
		case start:
			return p.gStart[i]
		}
		return p.gEnd[i]
	}
	// The offset, at most the partition's size (a larger one reaches past either end anyway).
	size := int64(p.pe - p.ps)
	n := min(off.Int(), size+1)
	if b.kind == ast.Preceding {
		n = -n
	}
	switch c.frame.unit {
	case ast.FrameRows:
		t := int64(k) + n
		if start {
			return clamp(int(t))
		}
		return clamp(int(t) + 1)
	case ast.FrameGroups:
		g := int64(p.gN[i]) + n
		groups := int64(len(p.groupStarts) - 1)
		switch {
		case g < 0:
			return p.ps
		case g >= groups:
			return p.pe
		case start:
			return p.groupStarts[g]
		}
		return p.groupStarts[g+1]
	}
	return p.rangeEnd(k, off, b.kind == ast.Preceding, start)
}

// rangeEnd is frameEnd for RANGE with an offset: the rows whose ORDER BY value is within off of
// the current row's. A NULL value's frame is its peers; a TEXT or BLOB value is its own bound
// (SQLite adds the offset to numbers only).
func (p *winPartition) rangeEnd(k int, off value.Value, preceding, start bool) int {
	col := p.spec.first + p.spec.nPart
	key := p.spec.keys[p.spec.nPart]
	v := p.vals(k)[col]
	i := k - p.ps
	if v.IsNull() {
		if start {
			return p.gStart[i]
		}
		return p.gEnd[i]
	}
	bound := v
	if v.IsNumeric() {
		op := value.OpAdd
		if preceding != key.desc {
			op = value.OpSub
		}
		bound = value.Arith(op, v, off)
	}
	n := p.pe - p.ps
	if start {
		return p.ps + sort.Search(n, func(j int) bool { return compareKey(p.vals(p.ps + j)[col], bound, key) >= 0 })
	}
	return p.ps + sort.Search(n, func(j int) bool { return compareKey(p.vals(p.ps + j)[col], bound, key) > 0 })
}

// compareKey compares x with y (not NULL) as the sort key k orders them.
func compareKey(x, y value.Value, k orderKey) int {
	if x.IsNull() {
		if k.nullsFirst {
			return -1
		}
		return 1
	}
	c := value.Compare(x, y, k.coll)
	if k.desc {
		return -c
	}
	return c
}

// aggregate computes an aggregate over each row's frame. A frame that starts at the partition's
// start and excludes nothing only grows from row to row: one state takes the new rows. A frame
// that excludes nothing slides (both ends move forward only): an aggregate with an inverse
// (count, sum, total, avg, group_concat, string_agg) takes the rows that enter and gives back
// those that leave, as SQLite's xInverse does. Any other frame is computed afresh, unless it is
// the previous row's (peers).
func (p *winPartition) aggregate(ci int, c *winCall) error {
	if (c.name == "min" || c.name == "max") && c.frame.start.kind != ast.UnboundedPreceding &&
		c.frame.exclude == ast.ExcludeNone {
		p.slidingMinMax(ci, c)
		return nil
	}
	var parts [3][2]int
	var prev [][2]int
	var prevRes value.Value
	st := c.agg.make(c.coll)
	inv, canInvert := st.(aggInverse)
	grow := c.frame.start.kind == ast.UnboundedPreceding && c.frame.exclude == ast.ExcludeNone
	slide := !grow && canInvert && c.frame.exclude == ast.ExcludeNone
	if cs, ok := st.(*concatState); ok && slide {
		cs.track = true
	}
	lo, hi := p.ps, p.ps // the rows in st, when it grows or slides
	for k := p.ps; k < p.pe; k++ {
		switch {
		case grow || slide:
			fs := p.frameEnd(k, ci, c, c.frame.start, true)
			fe := max(p.frameEnd(k, ci, c, c.frame.end, false), fs)
			// Rows leave before others enter, in SQLite's order (which decides the rounding
			// of REAL sums); a row the frame's start passes before its end reached it enters
			// first (SQLite's end cursor passes every row before its start cursor does).
			for ; lo < fs; lo++ {
				if lo == hi {
					if err := p.step(st, c, hi); err != nil {
						return err
					}
					hi++
				}
				if err := p.inverse(inv, c, lo); err != nil {
					return err
				}
			}
			for ; hi < fe; hi++ {
				if err := p.step(st, c, hi); err != nil {
					return err
				}
			}
		default:
			fp := p.frameParts(k, ci, c, &parts)
			if prev != nil && slices.Equal(prev, fp) {
				p.setResult(k, ci, prevRes)
				continue
			}
			st = c.agg.make(c.coll)
			for _, r := range fp {
				for j := r[0]; j < r[1]; j++ {
					if err := p.step(st, c, j); err != nil {
						return err
					}
				}
			}
			prev = append(prev[:0], fp...)
		}
		v, err := st.result()
		if err != nil {
			return err
		}
		v = v.Clone()
		prevRes = v
		p.setResult(k, ci, v)
	}
	return nil
}

// slidingMinMax computes min or max over a sliding frame with a queue of the frame's candidates
// (positions whose values no later value in the frame beats), best first: a row entering drops the
// candidates it beats or equals, so of equal values the latest is the result, as SQLite's
// ordered table of the frame's values gives it; rows leaving drop off the front.
func (p *winPartition) slidingMinMax(ci int, c *winCall) {
	sign := 1
	if c.name == "min" {
		sign = -1
	}
	var queue []int
	head, hi := 0, p.ps
	for k := p.ps; k < p.pe; k++ {
		fs := p.frameEnd(k, ci, c, c.frame.start, true)
		fe := max(p.frameEnd(k, ci, c, c.frame.end, false), fs)
		for hi = max(hi, fs); hi < fe; hi++ {
			vals := p.vals(hi)
			v := vals[c.argOff]
			if v.IsNull() {
				continue
			}
			if c.filter != nil {
				if t, _ := value.Truth(vals[c.argOff+1]); !t {
					continue
				}
			}
			for len(queue) > head && value.Compare(v, p.vals(queue[len(queue)-1])[c.argOff], c.coll)*sign >= 0 {
				queue = queue[:len(queue)-1]
			}
			queue = append(queue, hi)
		}
		for head < len(queue) && queue[head] < fs {
			head++
		}
		var res value.Value
		if head < len(queue) {
			res = p.vals(queue[head])[c.argOff]
		}
		p.setResult(k, ci, res)
	}
}

// inverse takes the row at position j, which step added, out of st.
func (p *winPartition) inverse(st aggInverse, c *winCall, j int) error {
	vals := p.vals(j)
	if c.filter != nil {
		if t, _ := value.Truth(vals[c.argOff+len(c.args)]); !t {
			return nil
		}
	}
	return st.inverse(vals[c.argOff : c.argOff+len(c.args)])
}

// aggInverse is an aggregate state that can take back a row it was given (SQLite's xInverse),
// so that a sliding frame costs a step and an inverse per row.
type aggInverse interface {
	inverse(args []value.Value) error
}

func (c *countState) inverse(args []value.Value) error {
	if len(args) == 0 || !args[0].IsNull() {
		c.n--
	}
	return nil
}

// inverse subtracts v as step added it: exactly while the sum is an integer, else with the
// same compensated summation.
func (s *sumState) inverse(args []value.Value) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	if v.Kind() == value.Text || v.Kind() == value.Blob {
		v = value.AffinityNumeric.ApplyForCompare(v)
	}
	s.count--
	switch {
	case v.Kind() == value.Integer && !s.approx:
		x := s.iSum - v.Int()
		if (x < s.iSum) == (v.Int() > 0) || v.Int() == 0 {
			s.iSum = x
			return nil
		}
		s.overflow = true
		s.kbnInit(s.iSum)
		s.approx = true
		s.kbnInverseInt(v.Int())
	case v.Kind() == value.Integer:
		s.kbnInverseInt(v.Int())
	default:
		if !s.approx {
			s.kbnInit(s.iSum)
			s.approx = true
		}
		s.kbnStep(-value.ToFloat(v))
	}
	return nil
}

func (s *sumState) kbnInverseInt(i int64) {
	if i == -1<<63 {
		s.kbnStepInt(1<<63 - 1)
		s.kbnStepInt(1)
		return
	}
	s.kbnStepInt(-i)
}

// inverse drops the first value of the list and the separator after it.
func (c *concatState) inverse(args []value.Value) error {
	if args[0].IsNull() {
		return nil
	}
	if len(c.lens) == 0 {
		return nil
	}
	n := c.lens[0]
	c.lens = c.lens[1:]
	if len(c.lens) == 0 {
		c.buf, c.have = c.buf[:0], false
		return nil
	}
	n += c.seps[0]
	c.seps = c.seps[1:]
	c.buf = c.buf[:copy(c.buf, c.buf[n:])]
	return nil
}

// step adds the row at position j to st, unless FILTER rejects it.
func (p *winPartition) step(st aggState, c *winCall, j int) error {
	vals := p.vals(j)
	if c.filter != nil {
		if t, _ := value.Truth(vals[c.argOff+len(c.args)]); !t {
			return nil
		}
	}
	return st.step(vals[c.argOff : c.argOff+len(c.args)])
}

// value computes first_value, last_value or nth_value over each row's frame.
func (p *winPartition) value(ci int, c *winCall) error {
	var parts [3][2]int
	for k := p.ps; k < p.pe; k++ {
		fp := p.frameParts(k, ci, c, &parts)
		nth := int64(1)
		switch c.kind {
		case winLastValue:
			nth = -1
		case winNthValue:
			v := value.AffinityNumeric.Apply(p.vals(k)[c.argOff+1])
			switch {
			case v.Kind() == value.Integer:
				nth = v.Int()
			case v.Kind() == value.Real && v.Float() == float64(int64(v.Float())):
				nth = int64(v.Float())
			default:
				nth = 0
			}
			if nth <= 0 {
				return fmt.Errorf("second argument to nth_value must be a positive integer")
			}
		}
		var res value.Value
		if nth < 0 {
			if len(fp) > 0 {
				res = p.vals(fp[len(fp)-1][1] - 1)[c.argOff]
			}
		} else {
			for _, r := range fp {
				if size := int64(r[1] - r[0]); nth > size {
					nth -= size
					continue
				}
				res = p.vals(r[0] + int(nth) - 1)[c.argOff]
				break
			}
		}
		p.setResult(k, ci, res)
	}
	return nil
}

// explainWindows adds a core's windows to EXPLAIN QUERY PLAN in SQLite's shape: a co-routine per
// distinct window, the first outermost, each holding the next (the innermost the core's loops)
// and its sort, and read by a scan in its parent.
func explainWindows(wp *winPlan, parent int, add func(int, string) int, counter *int, body func(int)) {
	order := wp.levels // innermost first
	var win func(parent, level int)
	win = func(parent, level int) {
		*counter++
		name := fmt.Sprintf("(subquery-%d)", *counter)
		co := add(parent, "CO-ROUTINE "+name)
		if level > 0 {
			win(co, level-1)
		} else {
			body(co)
		}
		if wp.sorts[level] {
			add(co, "USE TEMP B-TREE FOR ORDER BY")
		}
		add(parent, "SCAN "+name)
	}
	win(parent, len(order)-1)
}

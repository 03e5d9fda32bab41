package engine

// FROM: the sources of a core, and the nested loops that join them, in FROM order. Each WHERE
// term (and each ON term of an inner join) is evaluated at the first loop where every source it
// reads has its row; each ON term of a LEFT JOIN decides, at its own loop, whether a row of the
// right side matches, and a left row without a match gets a row of NULLs.
//
// RIGHT and FULL joins: the loops from the first of them on keep their FROM order, so that the
// loops before a RIGHT (or FULL) join's loop are its left side. Its ON terms decide at its loop
// whether a row matches, and the loop records the rows of its source that matched some row of
// the left side; after the nested loops end, an unmatched pass per such loop (in loop order)
// reads its source's rows that never matched, with NULL rows for every loop before it, and runs
// the loops after it as usual. So a term that filters the join's result (a WHERE term, or an
// inner join's ON term after the RIGHT join) may not be evaluated, nor serve an access path,
// before the loop of the last RIGHT or FULL join before it: its floor.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// level is one loop of the join: a source, how its candidates are read, and the terms checked
// there.
type level struct {
	src    int
	access accessPath
	left   bool   // LEFT or FULL JOIN: a row of NULLs when nothing matches
	on     []expr // LEFT, RIGHT or FULL JOIN's ON terms: whether a candidate matches
	where  []expr // terms checked on every row this level produces
	// whereCols are the columns of the source that where reads (source.used's bits).
	whereCols uint64
	null      []value.Value
	// right is set for a RIGHT or FULL JOIN's loop: it records the rows of its source that
	// matched (by rowid or primary key, or for a source that is no table, from rows read once
	// into memory: mat), and the unmatched pass reads the source with scan.
	right bool
	mat   bool
	scan  accessPath
}

// addSources resolves the FROM items into sc's sources (where is the core's WHERE, which may
// give a table-valued function's arguments).
func addSources(pc *planCtx, from []ast.FromItem, where exprAST, sc *scope) error {
	first := len(sc.sources) // UPDATE ... FROM: the target's source is already there
	for i := range from {
		item := &from[i]
		src, err := newSource(pc, item, sc)
		if err != nil {
			return err
		}
		src.left = item.Join == ast.JoinLeft || item.Join == ast.JoinFull
		if item.Join == ast.JoinRight || item.Join == ast.JoinFull {
			src.right = true
			if src.rowidSlot >= 0 {
				src.markUsed(src.rowidSlot) // the unmatched pass knows rows by rowid
			} else if src.table != nil {
				for _, c := range src.table.PrimaryKey { // or by primary key
					src.markUsed(c.Column)
				}
			}
		}
		src.notIndexed = item.NotIndexed
		sc.sources = append(sc.sources, src)
		if item.Natural || len(item.Using) > 0 {
			if err := hideMergedColumns(item, sc); err != nil {
				return err
			}
		}
	}
	// The arguments of table-valued functions may read any source of the FROM clause.
	for i := range from {
		if src := sc.sources[first+i]; src.fn != nil {
			terms := conjuncts(from[i].On, nil) // a LEFT JOIN's right side: its ON only
			if j := from[i].Join; j != ast.JoinLeft && j != ast.JoinRight && j != ast.JoinFull {
				terms = conjuncts(where, terms)
			}
			if err := bindTableFuncArgs(pc, &from[i], src, sc, terms); err != nil {
				return err
			}
		}
	}
	return nil
}

func newSource(pc *planCtx, item *ast.FromItem, sc *scope) (*source, error) {
	if item.Subquery != nil {
		return subquerySource(pc, item.Subquery, item.Alias, sc, "(subquery)")
	}
	if item.Func {
		return tableFuncSource(pc, item, sc)
	}
	if def := pc.cte(item.Table); def != nil && item.Schema == "" {
		return cteSource(pc, def, item, sc)
	}
	if t := pc.table(item.Table); t != nil {
		name := t.Name
		if item.Alias != "" {
			name = item.Alias
		}
		src := &source{name: name, table: t, rowidSlot: -1}
		src.cols = tableColumns(t)
		if !t.WithoutRowid {
			src.rowidSlot = len(t.Columns)
		}
		return src, nil
	}
	if f := tableFuncs[strings.ToLower(item.Table)]; f != nil && !item.Func {
		return tableFuncSource(pc, item, sc) // an eponymous table-valued function without arguments
	}
	if v := pc.view(item.Table); v != nil {
		if pc.viewDepth > 32 {
			return nil, fmt.Errorf("view %s is circularly defined", v.Name)
		}
		pc.viewDepth++
		savedWith := pc.with // a view's select sees no CTE of the statement
		pc.with = nil
		defer func() { pc.viewDepth--; pc.with = savedWith }()
		name := v.Name
		if item.Alias != "" {
			name = item.Alias
		}
		src, err := subquerySource(pc, v.Select, name, sc, v.Name)
		if err != nil {
			return nil, err
		}
		if v.Columns != nil {
			if len(v.Columns) != len(src.cols) {
				return nil, fmt.Errorf("expected %d columns for '%s' but got %d", len(v.Columns), v.Name, len(src.cols))
			}
			for i, n := range v.Columns {
				src.cols[i].name = n
			}
		}
		return src, nil
	}
	if src := masterSource(item.Table, item.Alias); src != nil {
		return src, nil
	}
	if item.Schema != "" {
		return nil, fmt.Errorf("no such table: %s.%s", item.Schema, item.Table)
	}
	return nil, fmt.Errorf("no such table: %s", item.Table)
}

// subquerySource plans a subquery (or a view's select) of FROM as a source.
func subquerySource(pc *planCtx, sel *ast.Select, alias string, sc *scope, label string) (*source, error) {
	child := &scope{outer: sc.outer, unevaluated: sc.unevaluated}
	plan, err := planSelect(pc, sel, child)
	if err != nil {
		return nil, err
	}
	if child.usedOuter {
		sc.usedOuter = true
	}
	if alias == "" {
		alias = label
	}
	return planSource(plan, alias), nil
}

// planSource is the source called name whose rows plan yields: a subquery or view of FROM, a
// CTE, or a recursive CTE's current row.
func planSource(plan *selectPlan, name string) *source {
	src := &source{name: name, sub: plan, rowidSlot: -1}
	for i := 0; i < plan.ncols; i++ {
		info := plan.resultInfo(i)
		c := srcColumn{name: plan.names[i], collation: collationOf(info), declType: plan.decl[i]}
		aff, has := plan.columnAffinity(i)
		c.affinity, c.noAffinity = aff, !has
		src.cols = append(src.cols, c)
	}
	return src
}

// hideMergedColumns marks the right-hand copy of each column of USING (or of each common column,
// for NATURAL) hidden, so that an unqualified name finds the left one.
func hideMergedColumns(item *ast.FromItem, sc *scope) error {
	right := sc.sources[len(sc.sources)-1]
	names := item.Using
	if item.Natural {
		names = nil
		for _, c := range right.cols {
			for _, left := range sc.sources[sc.firstJoined() : len(sc.sources)-1] {
				if hasColumn(left, c.name) {
					names = append(names, c.name)
					break
				}
			}
		}
	}
	for _, n := range names {
		ok := false
		for i := range right.cols {
			if strings.EqualFold(right.cols[i].name, n) {
				right.cols[i].hidden = true
				ok = true
			}
		}
		leftFound := false
		for _, left := range sc.sources[sc.firstJoined() : len(sc.sources)-1] {
			if hasColumn(left, n) {
				leftFound = true
			}
		}
		if !ok || !leftFound {
			return fmt.Errorf("cannot join using column %s - column not present in both tables", n)
		}
		if item.Join == ast.JoinRight || item.Join == ast.JoinFull {
			mergeRight(sc, right, n)
		}
	}
	return nil
}

// mergeRight makes the unqualified name n (and *) read coalesce() of the left copy of n and
// right's, which a RIGHT or FULL join's USING or NATURAL merged: the right side's value where
// the left side is NULL-filled.
func mergeRight(sc *scope, right *source, n string) {
	for _, left := range sc.sources[sc.firstJoined() : len(sc.sources)-1] {
		for ci := range left.cols {
			c := &left.cols[ci]
			if c.hidden || !strings.EqualFold(c.name, n) {
				continue
			}
			if c.coalesce == nil {
				c.coalesce = []string{left.name}
			}
			c.coalesce = append(c.coalesce, right.name)
			return
		}
	}
}

// coalesceRef is the expression an unqualified name of a merged column reads.
func coalesceRef(c srcColumn, name string) exprAST {
	call := &ast.Call{Name: "coalesce"}
	for _, s := range c.coalesce {
		call.Args = append(call.Args, &ast.ColumnRef{Table: s, Column: name})
	}
	return call
}

func hasColumn(s *source, name string) bool {
	for _, c := range s.cols {
		if !c.hidden && strings.EqualFold(c.name, name) {
			return true
		}
	}
	return false
}

// usingTerms returns the equality terms a USING or NATURAL join adds: left.c = right.c.
func usingTerms(item *ast.FromItem, sc *scope, idx int) []exprAST {
	right := sc.sources[idx]
	var out []exprAST
	for _, c := range right.cols {
		if !c.hidden {
			continue
		}
		for _, left := range sc.sources[sc.firstJoined():idx] {
			if hasColumn(left, c.name) {
				out = append(out, &ast.Binary{At: item.At, Op: ast.Eq,
					X: &ast.ColumnRef{Table: left.name, Column: c.name},
					Y: &ast.ColumnRef{Table: right.name, Column: c.name}})
				break
			}
		}
	}
	return out
}

// boundTerm is a bound WHERE or ON term with the sources it reads.
type boundTerm struct {
	ast  exprAST
	x    expr
	refs uint64
	// cols are the columns the term reads of each source of its query (source.used's bits).
	cols []uint64
	// floor is the FROM index of the last RIGHT or FULL join whose result the term filters
	// (-1: none): the term is evaluated at that loop or after it.
	floor int
}

// planJoin binds the WHERE and ON terms, orders the loops, places the terms on them and picks
// each loop's access path.
func planJoin(pc *planCtx, core *ast.SelectCore, sc *scope, cp *corePlan) error {
	b := &binder{pc: pc, sc: sc, noAgg: "WHERE"}
	bindTerm := func(e exprAST) (boundTerm, error) {
		sc.refs = 0
		for _, src := range sc.sources {
			src.termCols = 0
		}
		x, _, err := b.bind(e)
		shortCircuit(x) // a term is a condition
		cols := make([]uint64, len(sc.sources))
		for i, src := range sc.sources {
			cols[i] = src.termCols
		}
		return boundTerm{ast: e, x: x, refs: sc.refs, cols: cols}, err
	}
	core = simplifyOuter(core, sc)
	n := len(sc.sources)
	onTerms := make([][]boundTerm, n)
	var where []boundTerm
	var leftSide []bool // of where: an inner ON term before the last RIGHT or FULL join
	floor, lastRight := -1, -1
	for i := range core.From {
		if j := core.From[i].Join; j == ast.JoinRight || j == ast.JoinFull {
			lastRight = i
		}
	}
	for i := range core.From {
		item := &core.From[i]
		outer := item.Join == ast.JoinLeft || item.Join == ast.JoinRight || item.Join == ast.JoinFull
		if item.Join == ast.JoinRight || item.Join == ast.JoinFull {
			floor = i
		}
		terms := conjuncts(item.On, nil)
		terms = append(terms, usingTerms(item, sc, i)...)
		sc.hideTarget = sc.updateTarget && i > 0 // UPDATE ... FROM: ON does not see the target
		for _, t := range terms {
			bt, err := bindTerm(t)
			if err != nil {
				sc.hideTarget = false
				return err
			}
			if bt.refs>>uint(i+1) != 0 && (outer || rightAfter(core.From, i, highestBit(bt.refs))) {
				sc.hideTarget = false
				return fmt.Errorf("ON clause references tables to its right")
			}
			bt.floor = floor
			if outer {
				onTerms[i] = append(onTerms[i], bt)
			} else {
				where = append(where, bt)
				leftSide = append(leftSide, i < lastRight)
			}
		}
	}
	sc.hideTarget = false
	for _, t := range conjuncts(core.Where, nil) {
		bt, err := bindTerm(t)
		if err != nil {
			return err
		}
		bt.floor = lastRight
		where = append(where, bt)
		leftSide = append(leftSide, false)
	}
	// A term that reads no source is checked once, before the loops, unless it is an inner
	// ON term of a RIGHT join's left side: that one empties the left side only.
	placed := make([]bool, len(where))
	for k, t := range where {
		if t.refs == 0 && !leftSide[k] {
			cp.consts = append(cp.consts, t.x)
			placed[k] = true
		}
	}
	cp.right = lastRight >= 0
	order, err := joinOrder(pc, core, sc, where, onTerms)
	if err != nil {
		return err
	}
	var avail uint64
	for p, i := range order {
		src := sc.sources[i]
		lv := &level{src: i, left: src.left, right: src.right}
		if src.left || cp.right {
			lv.null = make([]value.Value, src.rowLen())
		}
		for _, t := range onTerms[i] {
			lv.on = append(lv.on, t.x)
		}
		if src.fn != nil && src.fn.deps&^avail != 0 {
			if rightAfter(core.From, i, highestBit(src.fn.deps)) {
				return fmt.Errorf("table-function argument references tables to its right")
			}
			return fmt.Errorf("no query solution")
		}
		access, _, err := chooseAccess(pc, sc, i, usableTerms(i, src.left || src.right, where, onTerms, avail), core.From[i], avail)
		if err != nil {
			return err
		}
		lv.access = access
		bound := avail | 1<<uint(i)
		for k, t := range where {
			// The first loop where all it reads is bound, at its floor or after.
			if !placed[k] && t.refs&^bound == 0 && p >= t.floor {
				placed[k] = true
				if !src.left && !src.right && !cp.right && servedBy(access, t.ast) {
					continue // the access path selects exactly its rows
				}
				lv.where = append(lv.where, t.x)
				if i < len(t.cols) {
					lv.whereCols |= t.cols[i]
				}
			}
		}
		if src.right {
			if src.fn != nil && src.fn.deps != 0 {
				return fmt.Errorf("unsupported: a table-valued function reading other tables as the right side of a RIGHT or FULL join")
			}
			lv.mat = src.table == nil
			if lv.scan, _, err = chooseAccess(pc, sc, i, nil, core.From[i], 0); err != nil {
				return err
			}
			if lv.mat {
				lv.access = lv.scan // the main pass reads the rows in memory
			}
		}
		cp.levels = append(cp.levels, lv)
		avail = bound
	}
	return nil
}

// firstJoined is the first source USING and NATURAL look at: an UPDATE ... FROM's FROM joins
// its own items, not its target.
func (sc *scope) firstJoined() int {
	if sc.updateTarget {
		return 1
	}
	return 0
}

// simplifyOuter returns core with the RIGHT and FULL joins that its WHERE makes needless turned
// into the joins they amount to, as SQLite's planner turns them: a WHERE term that is not true
// when a source's column is NULL (a comparison or LIKE of the column, BETWEEN, IS NOT NULL)
// rejects the rows that NULL-fill the source, so a RIGHT join with such a source on its left
// side is an inner join, and a FULL join a LEFT one (a RIGHT one when its own source is
// rejected, an inner one when both are). The sources' left and right flags follow.
func simplifyOuter(core *ast.SelectCore, sc *scope) *ast.SelectCore {
	has := false
	for i := range core.From {
		if j := core.From[i].Join; j == ast.JoinRight || j == ast.JoinFull {
			has = true
		}
	}
	if !has || core.Where == nil {
		return core
	}
	var rejected uint64
	mark := func(e exprAST) {
		ref, ok := e.(*ast.ColumnRef)
		if !ok {
			return
		}
		r, found, err := sc.resolveHere(ref.Table, ref.Column)
		if found && err == nil && r.c.coalesce == nil && r.src < 64 {
			rejected |= 1 << uint(r.src)
		}
	}
	for _, t := range conjuncts(core.Where, nil) {
		switch e := t.(type) {
		case *ast.Binary:
			if e.Op >= ast.Eq && e.Op <= ast.Ge {
				mark(e.X)
				mark(e.Y)
			}
		case *ast.IsNull:
			if e.Not {
				mark(e.X)
			}
		case *ast.Like:
			mark(e.X)
		case *ast.Between:
			mark(e.X)
		}
	}
	if rejected == 0 {
		return core
	}
	out := *core
	out.From = slices.Clone(core.From)
	for k := range out.From {
		item := &out.From[k]
		if item.Join != ast.JoinRight && item.Join != ast.JoinFull {
			continue
		}
		leftRejected := rejected&(1<<uint(min(k, 63))-1) != 0
		selfRejected := rejected&(1<<uint(k)) != 0
		switch {
		case item.Join == ast.JoinRight && leftRejected:
			item.Join = ast.JoinInner
		case item.Join == ast.JoinFull && leftRejected && selfRejected:
			item.Join = ast.JoinInner
		case item.Join == ast.JoinFull && leftRejected:
			item.Join = ast.JoinLeft
		case item.Join == ast.JoinFull && selfRejected:
			item.Join = ast.JoinRight
		}
		src := sc.sources[k]
		src.left = item.Join == ast.JoinLeft || item.Join == ast.JoinFull
		src.right = item.Join == ast.JoinRight || item.Join == ast.JoinFull
	}
	return &out
}

// rightAfter reports whether a RIGHT or FULL join is among the FROM items (i, j]: a term of
// item i may then not read item j.
func rightAfter(from []ast.FromItem, i, j int) bool {
	for k := i + 1; k <= j && k < len(from); k++ {
		if from[k].Join == ast.JoinRight || from[k].Join == ast.JoinFull {
			return true
		}
	}
	return false
}

// usableTerms are the terms an access path of source i may use with the sources avail bound: a
// LEFT, RIGHT or FULL JOIN's right side its ON terms only; another source the WHERE (and inner ON) terms that
// read it and nothing of an inner loop.
func usableTerms(i int, left bool, where []boundTerm, onTerms [][]boundTerm, avail uint64) []boundTerm {
	if left {
		return onTerms[i]
	}
	var out []boundTerm
	for _, t := range where {
		// A term filtering a RIGHT join's result serves no loop of the join's left side (the
		// loops before the RIGHT join's are its left side; the loops from it on keep their FROM
		// index).
		if t.refs&(1<<uint(i)) != 0 && t.refs&^(avail|1<<uint(i)) == 0 && t.floor <= i {
			out = append(out, t)
		}
	}
	return out
}

// maxPermuted is the most sources whose every order joinOrder tries; beyond it, a greedy order.
const maxPermuted = 6

// joinOrder returns the order of the loops: the FROM order, except that the sources before the
// first LEFT JOIN (and CROSS JOIN, which SQLite never reorders) are ordered by estimated cost,
// so that a join on an indexed column puts the indexed side inside. The sources from the first
// LEFT or CROSS JOIN on keep their order after them.
func joinOrder(pc *planCtx, core *ast.SelectCore, sc *scope, where []boundTerm, onTerms [][]boundTerm) ([]int, error) {
	n := len(sc.sources)
	free := n // the sources [0, free) may be reordered
	for i := 1; i < n; i++ {
		if j := core.From[i].Join; j == ast.JoinLeft || j == ast.JoinCross || j == ast.JoinRight || j == ast.JoinFull {
			free = i
			break
		}
	}
	fixedTail := make([]int, 0, n-free)
	for i := free; i < n; i++ {
		fixedTail = append(fixedTail, i)
	}
	if free <= 1 {
		return append(identity(free), fixedTail...), nil
	}
	cost := func(order []int) (float64, error) {
		var total, rows float64 = 0, 1
		var avail uint64
		for _, i := range order {
			_, est, err := chooseAccess(pc, sc, i, usableTerms(i, false, where, onTerms, avail), core.From[i], avail)
			if err != nil {
				return 0, err
			}
			total += est.once + rows*est.cost
			rows *= est.rows
			avail |= 1 << uint(i)
		}
		return total, nil
	}
	var best []int
	bestCost := 0.0
	try := func(order []int) error {
		c, err := cost(order)
		if err != nil {
			return err
		}
		if best == nil || c < bestCost {
			best, bestCost = append([]int(nil), order...), c
		}
		return nil
	}
	if free <= maxPermuted {
		if err := permute(identity(free), 0, try); err != nil {
			return nil, err
		}
	} else {
		order, err := greedyOrder(free, cost)
		if err != nil {
			return nil, err
		}
		best = order
	}
	return append(best, fixedTail...), nil
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// permute calls fn with every permutation of a[k:] after a[:k] (Heap's algorithm would do; this
// is the plain recursive swap, in an order that tries the FROM order first).
func permute(a []int, k int, fn func([]int) error) error {
	if k == len(a) {
		return fn(a)
	}
	for i := k; i < len(a); i++ {
		a[k], a[i] = a[i], a[k]
		if err := permute(a, k+1, fn); err != nil {
			return err
		}
		a[k], a[i] = a[i], a[k]
	}
	return nil
}

// greedyOrder builds an order of n sources by adding, each time, the source that makes the
// cheapest prefix.
func greedyOrder(n int, cost func([]int) (float64, error)) ([]int, error) {
	var order []int
	used := make([]bool, n)
	for len(order) < n {
		bestI, bestC := -1, 0.0
		for i := 0; i < n; i++ {
			if used[i] {
				continue
			}
			c, err := cost(append(order, i))
			if err != nil {
				return nil, err
			}
			if bestI < 0 || c < bestC {
				bestI, bestC = i, c
			}
		}
		used[bestI] = true
		order = append(order, bestI)
	}
	return order, nil
}

func highestBit(x uint64) int {
	n := -1
	for x != 0 {
		x >>= 1
		n++
	}
	return n
}

package engine

// FROM: the sources of a core, and the nested loops that join them, in FROM order. Each WHERE
// term (and each ON term of an inner join) is evaluated at the first loop where every source it
// reads has its row; each ON term of a LEFT JOIN decides, at its own loop, whether a row of the
// right side matches, and a left row without a match gets a row of NULLs.

import (
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// level is one loop of the join: a source, how its candidates are read, and the terms checked
// there.
type level struct {
	src    int
	access accessPath
	left   bool   // LEFT JOIN: a row of NULLs when nothing matches
	on     []expr // LEFT JOIN's ON terms: whether a candidate matches
	where  []expr // terms checked on every row this level produces
	null   []value.Value
}

// addSources resolves the FROM items into sc's sources (where is the core's WHERE, which may
// give a table-valued function's arguments).
func addSources(pc *planCtx, from []ast.FromItem, where exprAST, sc *scope) error {
	for i := range from {
		item := &from[i]
		src, err := newSource(pc, item, sc)
		if err != nil {
			return err
		}
		src.left = item.Join == ast.JoinLeft
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
		if src := sc.sources[i]; src.fn != nil {
			terms := conjuncts(from[i].On, nil) // a LEFT JOIN's right side: its ON only
			if from[i].Join != ast.JoinLeft {
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
			for _, left := range sc.sources[:len(sc.sources)-1] {
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
		for _, left := range sc.sources[:len(sc.sources)-1] {
			if hasColumn(left, n) {
				leftFound = true
			}
		}
		if !ok || !leftFound {
			return fmt.Errorf("cannot join using column %s - column not present in both tables", n)
		}
	}
	return nil
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
		for _, left := range sc.sources[:idx] {
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
}

// planJoin binds the WHERE and ON terms, orders the loops, places the terms on them and picks
// each loop's access path.
func planJoin(pc *planCtx, core *ast.SelectCore, sc *scope, cp *corePlan) error {
	b := &binder{pc: pc, sc: sc, noAgg: "WHERE"}
	bindTerm := func(e exprAST) (boundTerm, error) {
		sc.refs = 0
		x, _, err := b.bind(e)
		shortCircuit(x) // a term is a condition
		return boundTerm{ast: e, x: x, refs: sc.refs}, err
	}
	n := len(sc.sources)
	onTerms := make([][]boundTerm, n)
	var where []boundTerm
	for i := range core.From {
		item := &core.From[i]
		terms := conjuncts(item.On, nil)
		terms = append(terms, usingTerms(item, sc, i)...)
		for _, t := range terms {
			bt, err := bindTerm(t)
			if err != nil {
				return err
			}
			if item.Join == ast.JoinLeft {
				onTerms[i] = append(onTerms[i], bt)
			} else {
				where = append(where, bt)
			}
		}
	}
	for _, t := range conjuncts(core.Where, nil) {
		bt, err := bindTerm(t)
		if err != nil {
			return err
		}
		where = append(where, bt)
	}
	for _, t := range where {
		if t.refs == 0 {
			cp.consts = append(cp.consts, t.x)
		}
	}
	order, err := joinOrder(pc, core, sc, where, onTerms)
	if err != nil {
		return err
	}
	var avail uint64
	for _, i := range order {
		src := sc.sources[i]
		lv := &level{src: i, left: src.left}
		if src.left {
			lv.null = make([]value.Value, src.rowLen())
		}
		for _, t := range onTerms[i] {
			lv.on = append(lv.on, t.x)
		}
		if src.fn != nil && src.fn.deps&^avail != 0 {
			return fmt.Errorf("no query solution")
		}
		bound := avail | 1<<uint(i)
		for _, t := range where {
			if t.refs != 0 && t.refs&^bound == 0 && t.refs&^avail != 0 {
				lv.where = append(lv.where, t.x) // the first loop where all it reads is bound
			}
		}
		access, _, err := chooseAccess(pc, sc, i, usableTerms(i, src.left, where, onTerms, avail), core.From[i], avail)
		if err != nil {
			return err
		}
		lv.access = access
		cp.levels = append(cp.levels, lv)
		avail = bound
	}
	return nil
}

// usableTerms are the terms an access path of source i may use with the sources avail bound: a
// LEFT JOIN's right side its ON terms only; another source the WHERE (and inner ON) terms that
// read it and nothing of an inner loop.
func usableTerms(i int, left bool, where []boundTerm, onTerms [][]boundTerm, avail uint64) []boundTerm {
	if left {
		return onTerms[i]
	}
	var out []boundTerm
	for _, t := range where {
		if t.refs&(1<<uint(i)) != 0 && t.refs&^(avail|1<<uint(i)) == 0 {
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
		if core.From[i].Join == ast.JoinLeft || core.From[i].Join == ast.JoinCross {
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

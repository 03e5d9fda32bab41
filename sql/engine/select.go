package engine

// Planning a SELECT: its cores (FROM, WHERE, GROUP BY, HAVING, the select list), compound
// operators, ORDER BY and LIMIT. Name resolution follows SQLite (resolve.c): ORDER BY terms are
// result column numbers, aliases, or expressions; GROUP BY terms result column numbers or
// expressions; aliases of the select list are visible where no column has their name.

import (
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// planCtx is what planning a statement needs: the schema, the session (TEMP views), and the
// parameters seen.
type planCtx struct {
	schema    *Schema
	sess      *Session
	maxParam  int
	viewDepth int
	// cx, when set, is the execution whose transaction the planner reads table sizes from
	// (tableRows); without it every table has estTableRows rows.
	cx    *execCtx
	sizes map[*Table]float64
	// with is the innermost frame of CTEs visible where the planner is (cte.go); cteDryRun is
	// set while it plans a part that it plans again, so that CTE uses count once.
	with      *cteFrame
	cteDryRun int
	// rowSubs are the row subqueries of SET (a, b) = (SELECT ...), bound once per scope
	// (rowvalue.go).
	rowSubs map[rowSubKey]*subquery
}

// minTableRows is the fewest rows the planner assumes a table has: below it a table's size
// decides no plan worth changing, and the plans of small and empty tables stay those of
// SQLite's default estimates (every table alike).
const minTableRows = 1000

// tableRows estimates the rows of t: its bucket's EstimatedKeys in the planning transaction (read
// once per plan), at least minTableRows; estTableRows without a transaction or on an error
// (which the execution then meets itself).
func (pc *planCtx) tableRows(t *Table) float64 {
	if pc.cx == nil || pc.cx.tx == nil {
		return estTableRows
	}
	if n, ok := pc.sizes[t]; ok {
		return n
	}
	n := float64(estTableRows)
	if b, err := pc.cx.bucket(t.bucket); err == nil {
		if keys, err := b.EstimatedKeys(); err == nil {
			n = max(float64(keys), minTableRows)
		}
	}
	if pc.sizes == nil {
		pc.sizes = map[*Table]float64{}
	}
	pc.sizes[t] = n
	return n
}

func (pc *planCtx) noteParam(i int) { pc.maxParam = max(pc.maxParam, i) }

// orderKey is one ORDER BY key: a column of the rows being sorted.
type orderKey struct {
	col        int
	desc       bool
	nullsFirst bool // NULLs sort first (ascending default) or last
	coll       value.Collation
	// expr is the ORDER BY term as written (without COLLATE) when it is an expression of a
	// single-core select, which an index on that expression may yield in order (order.go).
	expr exprAST
}

// selectPlan is a planned SELECT.
type selectPlan struct {
	cores []*corePlan
	ops   []ast.CompoundOp
	ncols int
	names []string
	decl  []string   // declared types of the result columns ("" for expressions)
	infos []exprInfo // of the first core's result columns
	// lastInfos are the last core's: SQLite takes the affinity and collation of an IN or scalar
	// subquery's column from its last core (the compound's own Select object).
	lastInfos []exprInfo
	// coreInfos and coreTypes describe the result columns of every core (see columnAffinity).
	coreInfos     [][]exprInfo
	coreTypes     [][]uint8
	order         []orderKey // sort keys: columns of the core's output (extra columns past ncols for one core)
	limit, offset expr
	sc            *scope
	// ordered is set when the outer loop's access path yields the order: no sort (order.go).
	ordered bool
	// cte, when set, yields the rows instead of the cores (a recursive CTE, cte.go).
	cte cteRunner
	// shared is set on the plan of a use of a CTE that reads no column of an enclosing query:
	// the uses of one execution that reopen it share its rows (cte.go).
	shared *cteDef
}

func (p *selectPlan) resultInfo(i int) exprInfo {
	if i < len(p.infos) {
		return p.infos[i]
	}
	return exprInfo{}
}

// lastResultInfo describes result column i of the last core (see lastInfos).
func (p *selectPlan) lastResultInfo(i int) exprInfo {
	if i < len(p.lastInfos) {
		return p.lastInfos[i]
	}
	return exprInfo{}
}

// corePlan is one planned core.
type corePlan struct {
	sources []*source
	levels  []*level
	// right is set when a level is a RIGHT or FULL join's: the join runs unmatched passes.
	right   bool
	agg     *aggPlan
	having  expr
	project []expr // the select list, then the extra ORDER BY keys of a single-core select
	// extraColl are the collations of the extra ORDER BY columns.
	extraColl []value.Collation
	// win holds the window calls of the core (window.go); nil without any.
	win      *winPlan
	ncols    int
	distinct bool
	dcolls   []value.Collation // collations for DISTINCT
	values   [][]expr          // a VALUES core
	consts   []expr            // WHERE terms that read no source of this query
}

// aggPlan is the grouping of an aggregate core.
type aggPlan struct {
	groupBy []expr
	gcolls  []value.Collation
	calls   []*aggCall
	bare    bool // the projection reads columns outside aggregates: keep a row per group
	// minMax is the call whose row the bare columns take (the only aggregate, a min or max), or -1.
	minMax int
	// firstDecides is set when the rows come in the min or max call's order (order.go): the
	// first value ends the scan.
	firstDecides bool
}

// planSelect plans sel with sc as its scope (its outer scope set by the caller).
func planSelect(pc *planCtx, sel *ast.Select, sc *scope) (*selectPlan, error) {
	if sel.With != nil {
		pop, err := pc.pushWith(sel.With)
		if err != nil {
			return nil, err
		}
		defer pop()
	}
	p := &selectPlan{sc: sc, ops: sel.Ops}
	single := len(sel.Cores) == 1
	for i, core := range sel.Cores {
		csc := sc
		if i > 0 {
			csc = &scope{outer: sc.outer, existsSelect: sc.existsSelect, unevaluated: sc.unevaluated}
		}
		var order []ast.OrderTerm
		if single {
			order = sel.OrderBy
		}
		cp, info, err := planCore(pc, core, csc, order, p)
		if err != nil {
			return nil, err
		}
		p.lastInfos = info.infos
		p.coreInfos = append(p.coreInfos, info.infos)
		p.coreTypes = append(p.coreTypes, info.types)
		if i == 0 {
			p.ncols = cp.ncols
			p.names, p.decl, p.infos = info.names, info.decl, info.infos
		} else {
			sc.usedOuter = sc.usedOuter || csc.usedOuter
			if cp.ncols != p.ncols {
				return nil, fmt.Errorf("SELECTs to the left and right of %s do not have the same number of result columns",
					compoundName(sel.Ops[i-1]))
			}
		}
		p.cores = append(p.cores, cp)
	}
	if !single && len(sel.OrderBy) > 0 {
		if err := p.compoundOrder(pc, sel.OrderBy); err != nil {
			return nil, err
		}
	}
	p.useAccessOrder()
	p.useCoveringIndexes()
	b := &binder{pc: pc, sc: &scope{outer: sc.outer}, noAgg: "LIMIT"}
	var err error
	if sel.Limit != nil {
		if p.limit, _, err = b.bind(sel.Limit); err != nil {
			return nil, err
		}
	}
	if sel.Offset != nil {
		if p.offset, _, err = b.bind(sel.Offset); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func compoundName(op ast.CompoundOp) string {
	return [...]string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"}[op]
}

// compoundOrder resolves the ORDER BY of a compound select: each term must be a result column's
// number, or name (alias or column name of the first core), or an expression equal to one.
func (p *selectPlan) compoundOrder(pc *planCtx, terms []ast.OrderTerm) error {
	for i, t := range terms {
		col := -1
		if n, ok := orderNumber(unwrapCollate(t.Expr)); ok {
			if n < 1 || n > p.ncols {
				return fmt.Errorf("%s ORDER BY term out of range - should be between 1 and %d", ordinal(i+1), p.ncols)
			}
			col = n - 1
		} else if ref, ok := unwrapCollate(t.Expr).(*ast.ColumnRef); ok && ref.Table == "" {
			for j, name := range p.names {
				if strings.EqualFold(name, ref.Column) {
					col = j
					break
				}
			}
		}
		if col < 0 {
			return fmt.Errorf("%s ORDER BY term does not match any column in the result set", ordinal(i+1))
		}
		coll := p.compoundCollation(col)
		if c, ok := t.Expr.(*ast.Collate); ok {
			cc, ok := value.CollationByName(c.Collation)
			if !ok {
				return fmt.Errorf("no such collation sequence: %s", c.Collation)
			}
			coll = cc
		}
		p.order = append(p.order, orderKey{col: col, desc: t.Desc, nullsFirst: nullsFirst(t), coll: coll})
	}
	return nil
}

// unwrapCollate returns e without the COLLATEs around it (SQLite's sqlite3ExprSkipCollate).
func unwrapCollate(e exprAST) exprAST {
	for {
		c, ok := e.(*ast.Collate)
		if !ok {
			return e
		}
		e = c.X
	}
}

func nullsFirst(t ast.OrderTerm) bool {
	switch {
	case t.NullsFirst:
		return true
	case t.NullsLast:
		return false
	}
	return !t.Desc
}

// orderNumber reports whether e is an integer constant that ORDER BY and GROUP BY take for a
// result column number: a literal of 32 bits, negated or under unary pluses (SQLite's
// sqlite3ExprIsInteger; a larger integer, or TRUE and FALSE, are ordinary constants).
func orderNumber(e exprAST) (int, bool) {
	for {
		u, ok := e.(*ast.Unary)
		if !ok || u.Op != ast.Plus {
			break
		}
		e = u.X
	}
	if l, ok := e.(*ast.Literal); ok && l.Value.Kind() == value.Integer && !l.TrueFalse {
		if n := l.Value.Int(); n >= -(1<<31-1) && n <= 1<<31-1 {
			return int(n), true
		}
	}
	return 0, false
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// resultInfo describes a core's result columns.
type resultInfo struct {
	names []string
	decl  []string
	infos []exprInfo
	types []uint8 // dataType of each column's expression
}

// planCore plans one core; order is the ORDER BY of a single-core select (its keys become extra
// columns of the projection and p.order).
func planCore(pc *planCtx, core *ast.SelectCore, sc *scope, order []ast.OrderTerm, p *selectPlan) (*corePlan, resultInfo, error) {
	cp := &corePlan{distinct: core.Distinct}
	if core.Values != nil {
		return planValues(pc, core, sc, cp)
	}
	if err := addSources(pc, core.From, core.Where, sc); err != nil {
		return nil, resultInfo{}, err
	}
	cp.sources = sc.sources
	// The select list: * expanded, aliases recorded for WHERE, GROUP BY, HAVING, ORDER BY.
	items, err := expandStars(core.Columns, sc)
	if err != nil {
		return nil, resultInfo{}, err
	}
	for _, it := range items {
		if it.alias != "" {
			sc.aliases = append(sc.aliases, aliasDef{name: it.alias, expr: it.expr})
		}
	}
	// WHERE and ON terms: placed on the join loops (with the HAVING terms SQLite moves there).
	sc.aggQuery = isAggregateCore(core, sc)
	core = havingToWhere(pc, core, items, sc)
	if err := planJoin(pc, core, sc, cp); err != nil {
		return nil, resultInfo{}, err
	}
	// Aggregation: bind the select list, HAVING and (of an aggregate query) ORDER BY with a
	// collector, which also takes the aggregates of subqueries that belong to this query.
	coll := &aggCollector{}
	ab := &binder{pc: pc, sc: sc, agg: coll}
	sc.aggs = coll
	defer func() { sc.aggs = nil }()
	var info resultInfo
	wc, err := newWinCollector(core.Windows)
	if err != nil {
		return nil, info, err
	}
	lb := &binder{pc: pc, sc: sc, agg: coll, existsList: sc.existsSelect, win: wc}
	readInside := sc.readInside // to learn whether a subquery there reads a column of this one
	for _, it := range items {
		wc.startColumn()
		x, xi, err := lb.bind(it.expr)
		if err != nil {
			return nil, info, err
		}
		cp.project = append(cp.project, x)
		info.names = append(info.names, it.name(xi))
		info.decl = append(info.decl, it.declType(xi, sc))
		info.infos = append(info.infos, xi)
		info.types = append(info.types, dataType(it.expr, sc))
	}
	cp.ncols = len(cp.project)
	aggregate := len(core.GroupBy) > 0 || len(coll.calls) > 0
	var groupBy []expr
	var gcolls []value.Collation
	if len(core.GroupBy) > 0 {
		sc.aggs = nil
		gb := &binder{pc: pc, sc: sc, noAgg: "GROUP BY"}
		for _, g := range core.GroupBy {
			if n, ok := orderNumber(g); ok {
				if n < 1 || n > len(items) {
					return nil, info, fmt.Errorf("%s GROUP BY term out of range - should be between 1 and %d", ordinal(len(groupBy)+1), len(items))
				}
				g = items[n-1].expr
			}
			x, xi, err := gb.bind(g)
			if err != nil {
				return nil, info, err
			}
			groupBy = append(groupBy, x)
			gcolls = append(gcolls, collationOf(xi))
		}
	}
	sc.aggs = coll
	if core.Having != nil {
		// Only a GROUP BY or an aggregate among the result columns makes an aggregate query (an
		// aggregate in HAVING does not), as SQLite's resolveSelectStep decides it.
		if !aggregate {
			return nil, info, fmt.Errorf("HAVING clause on a non-aggregate query")
		}
		x, _, err := ab.bind(core.Having)
		if err != nil {
			return nil, info, err
		}
		shortCircuit(x)
		cp.having = x
	}
	// ORDER BY of a single core: result column numbers, aliases, or expressions (extra columns);
	// aggregates only in an aggregate query.
	aggregate = aggregate || len(coll.calls) > 0
	ob := ab
	if !aggregate {
		ob, sc.aggs = &binder{pc: pc, sc: sc, noAgg: "ORDER BY"}, nil
	}
	ob = &binder{pc: ob.pc, sc: ob.sc, agg: ob.agg, noAgg: ob.noAgg, win: wc}
	for i, t := range order {
		col, err := orderColumn(t, i, items, info, cp, ob)
		if err != nil {
			return nil, info, err
		}
		wc.orderByColumn(col)
		coll := value.Binary
		if col < len(info.infos) && info.infos[col].hasColl {
			coll = info.infos[col].coll
		}
		if c, ok := t.Expr.(*ast.Collate); ok {
			cc, ok := value.CollationByName(c.Collation)
			if !ok {
				return nil, info, fmt.Errorf("no such collation sequence: %s", c.Collation)
			}
			coll = cc
		}
		if col >= cp.ncols {
			coll = cp.extraColl[col-cp.ncols]
			if c, ok := t.Expr.(*ast.Collate); ok {
				coll, _ = value.CollationByName(c.Collation)
			}
		}
		key := orderKey{col: col, desc: t.Desc, nullsFirst: nullsFirst(t), coll: coll}
		if x := unwrapCollate(t.Expr); !isIntegerLiteral(x) {
			key.expr = x
		}
		p.order = append(p.order, key)
	}
	aggregate = aggregate || len(coll.calls) > 0
	if len(wc.plan.calls) > 0 {
		wc.finish()
		cp.win = &wc.plan
	}
	if aggregate {
		// A subquery of the select list, HAVING or ORDER BY that reads a column of this query
		// reads it as a bare column does: from a row of the group.
		bare := coll.bare || sc.readInside != readInside
		cp.agg = &aggPlan{groupBy: groupBy, gcolls: gcolls, calls: coll.calls, bare: bare, minMax: -1}
		if len(coll.calls) == 1 && (coll.calls[0].name == "min" || coll.calls[0].name == "max") {
			cp.agg.minMax = 0
		}
	}
	if cp.distinct {
		for _, xi := range info.infos {
			cp.dcolls = append(cp.dcolls, collationOf(xi))
		}
	}
	return cp, info, nil
}

func collationOf(xi exprInfo) value.Collation {
	if xi.hasColl {
		return xi.coll
	}
	return value.Binary
}

// orderColumn resolves ORDER BY term i of a single-core select to a column of the projection,
// adding an extra column when the term is an expression.
func orderColumn(t ast.OrderTerm, i int, items []selectItem, info resultInfo, cp *corePlan, b *binder) (int, error) {
	e := unwrapCollate(t.Expr)
	if n, ok := orderNumber(e); ok {
		if n < 1 || n > cp.ncols {
			return 0, fmt.Errorf("%s ORDER BY term out of range - should be between 1 and %d", ordinal(i+1), cp.ncols)
		}
		return n - 1, nil
	}
	if ref, ok := e.(*ast.ColumnRef); ok && ref.Table == "" {
		for j, it := range items {
			if it.alias != "" && strings.EqualFold(it.alias, ref.Column) {
				return j, nil
			}
		}
	}
	x, xi, err := b.bind(e)
	if err != nil {
		return 0, err
	}
	cp.project = append(cp.project, x)
	cp.extraColl = append(cp.extraColl, collationOf(xi))
	return len(cp.project) - 1, nil
}

// planValues plans a VALUES core: every row must have the same number of values.
func planValues(pc *planCtx, core *ast.SelectCore, sc *scope, cp *corePlan) (*corePlan, resultInfo, error) {
	b := &binder{pc: pc, sc: sc, noAgg: "VALUES"}
	var info resultInfo
	for r, row := range core.Values {
		if r > 0 && len(row) != len(core.Values[0]) {
			return nil, info, fmt.Errorf("all VALUES must have the same number of terms")
		}
		var out []expr
		for _, e := range row {
			x, _, err := b.bind(e)
			if err != nil {
				return nil, info, err
			}
			out = append(out, x)
		}
		cp.values = append(cp.values, out)
	}
	cp.ncols = len(core.Values[0])
	for i := 0; i < cp.ncols; i++ {
		info.names = append(info.names, fmt.Sprintf("column%d", i+1))
		info.decl = append(info.decl, "")
		info.infos = append(info.infos, exprInfo{})
		info.types = append(info.types, dataType(core.Values[0][i], sc))
	}
	return cp, info, nil
}

// selectItem is one column of the select list after * is expanded.
type selectItem struct {
	expr  exprAST
	alias string
	text  string
}

func (it selectItem) name(xi exprInfo) string {
	switch {
	case it.alias != "":
		return it.alias
	case xi.column != nil:
		if ref, ok := it.expr.(*ast.ColumnRef); ok {
			return ref.Column
		}
	}
	return it.text
}

func (it selectItem) declType(xi exprInfo, sc *scope) string {
	if xi.column == nil {
		return xi.decl
	}
	if xi.column.depth != 0 {
		return ""
	}
	return xi.column.c.declType
}

// expandStars returns the select list with * and table.* replaced by column references.
func expandStars(cols []ast.ResultColumn, sc *scope) ([]selectItem, error) {
	var out []selectItem
	for _, c := range cols {
		if !c.Star {
			out = append(out, selectItem{expr: c.Expr, alias: c.Alias, text: c.Text})
			continue
		}
		found := false
		for _, src := range sc.sources {
			if c.Table != "" && !strings.EqualFold(src.name, c.Table) {
				continue
			}
			found = true
			for _, col := range src.cols {
				if col.hidden && c.Table == "" || col.notInStar {
					continue
				}
				var x exprAST = &ast.ColumnRef{Table: src.name, Column: col.name}
				if col.coalesce != nil && c.Table == "" {
					x = coalesceRef(col, col.name)
				}
				out = append(out, selectItem{expr: x, text: col.name})
			}
		}
		switch {
		case c.Table != "" && !found:
			return nil, fmt.Errorf("no such table: %s", c.Table)
		case len(sc.sources) == 0:
			return nil, fmt.Errorf("no tables specified")
		}
	}
	return out, nil
}

// columnAffinity returns the affinity of result column i of a subquery in FROM, a view or CREATE
// TABLE ... AS SELECT, as SQLite's sqlite3SubqueryColumnTypes computes it: the first core's
// expression's, or, where it has none, the next core's that has one; a TEXT or numeric affinity
// of a compound becomes BLOB when another core may give a number (for TEXT) or a text (for a
// numeric one) there (dataType). has is false when no core gives one.
func (p *selectPlan) columnAffinity(i int) (aff value.Affinity, has bool) {
	cores := len(p.coreInfos)
	if cores == 0 {
		return 0, false
	}
	k := 0
	var m uint8
	info := p.coreInfos[0][i]
	for !info.hasAff && k+1 < cores {
		m |= p.coreTypes[k][i]
		k++
		info = p.coreInfos[k][i]
	}
	if !info.hasAff {
		return 0, false
	}
	aff = info.aff
	if aff != value.AffinityBlob && (k+1 < cores || k != 0) {
		for j := k + 1; j < cores; j++ {
			m |= p.coreTypes[j][i]
		}
		if aff == value.AffinityText && m&typeNumeric != 0 || aff.IsNumeric() && m&typeText != 0 {
			aff = value.AffinityBlob
		}
	}
	return aff, true
}

// The kinds of value dataType reports.
const (
	typeNumeric uint8 = 1 << iota
	typeText
	typeBlob
)

// affinityTypes is what dataType says of a column with affinity aff (has: any).
func affinityTypes(aff value.Affinity, has bool) uint8 {
	switch {
	case has && aff.IsNumeric():
		return typeNumeric | typeBlob
	case has && aff == value.AffinityText:
		return typeText | typeBlob
	}
	return typeNumeric | typeText | typeBlob
}

// dataType returns the kinds of value e may give, as SQLite's sqlite3ExprDataType guesses them
// (NULL is none of them): a literal its own, || text and blob, a function (LIKE and GLOB are
// ones), aggregate or parameter any, a column, CAST or subquery what its affinity converts to,
// CASE any of its results', any other operator a number.
func dataType(e exprAST, sc *scope) uint8 {
	switch e := e.(type) {
	case *ast.Collate:
		return dataType(e.X, sc)
	case *ast.Unary:
		if e.Op == ast.Plus {
			return dataType(e.X, sc)
		}
	case *ast.Literal:
		switch e.Value.Kind() {
		case value.Null:
			return 0
		case value.Text:
			return typeText
		case value.Blob:
			return typeBlob
		}
	case *ast.Binary:
		if e.Op == ast.Concat {
			return typeText | typeBlob
		}
	case *ast.Param, *ast.Call, *ast.Like, *ast.Subquery: // LIKE and GLOB are functions to SQLite
		return typeNumeric | typeText | typeBlob
	case *ast.ColumnRef:
		c, ok := sc.columnInfo(e.Table, e.Column)
		return affinityTypes(c.affinity, ok && !c.noAffinity)
	case *ast.Cast:
		return affinityTypes(castAffinity(e.Type), true)
	case *ast.Case:
		var m uint8
		for _, w := range e.Whens {
			m |= dataType(w.Result, sc)
		}
		if e.Else != nil {
			m |= dataType(e.Else, sc)
		}
		return m
	}
	return typeNumeric
}

// compoundCollation is the collation with which a compound compares column i (for UNION,
// INTERSECT, EXCEPT and its ORDER BY): that of the first core, left to right, whose expression
// there has one, else BINARY (SQLite's multiSelectCollSeq).
func (p *selectPlan) compoundCollation(i int) value.Collation {
	for _, infos := range p.coreInfos {
		if i < len(infos) && infos[i].hasColl {
			return infos[i].coll
		}
	}
	return value.Binary
}

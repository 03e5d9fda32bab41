package engine

// EXPLAIN QUERY PLAN: the access path of each loop of a query, in SQLite's words
// ("SCAN t", "SEARCH t USING INDEX i (a=?)", "USE TEMP B-TREE FOR ORDER BY").

import (
	"fmt"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

func (st *Stmt) explain(cx *execCtx, ex *ast.Explain) (*Rows, error) {
	if !ex.QueryPlan {
		return nil, fmt.Errorf("unsupported: EXPLAIN without QUERY PLAN (cairn has no bytecode)")
	}
	sel, ok := ex.Stmt.(*ast.Select)
	if !ok {
		return nil, fmt.Errorf("unsupported: EXPLAIN QUERY PLAN of a %T", ex.Stmt)
	}
	pc := &planCtx{schema: cx.schema, sess: st.sess, cx: cx}
	plan, err := planSelect(pc, sel, &scope{})
	if err != nil {
		return nil, err
	}
	var rows [][]value.Value
	id := 0
	add := func(parent int, detail string) int {
		id++
		rows = append(rows, []value.Value{value.Int(int64(id)), value.Int(int64(parent)), value.Int(0), value.TextString(detail)})
		return id
	}
	windowSubqueries := 1 // SQLite numbers the main select 1
	var walk func(p *selectPlan, parent int)
	walk = func(p *selectPlan, parent int) {
		if r, ok := p.cte.(*recursiveCTE); ok {
			walk(r.setup, add(parent, "SETUP"))
			walk(r.steps, add(parent, "RECURSIVE STEP"))
			return
		}
		for i, core := range p.cores {
			at := parent
			if len(p.cores) > 1 {
				label := "LEFT-MOST SUBQUERY"
				if i > 0 {
					label = compoundName(p.ops[i-1])
				}
				at = add(parent, label)
			}
			body := func(at int) {
				for _, lv := range core.levels {
					if sq, ok := lv.access.(*subqueryScan); ok && !isCTERow(sq.plan) {
						walk(sq.plan, add(at, "CO-ROUTINE "+sq.name))
					}
					if u, ok := lv.access.(*orUnion); ok { // SQLite's shape: a child per disjunct
						or := add(at, u.explain())
						for k, b := range u.branches {
							add(add(or, fmt.Sprintf("INDEX %d", k+1)), b.explain())
						}
						continue
					}
					add(at, lv.access.explain())
				}
				if core.agg != nil && len(core.agg.groupBy) > 0 {
					add(at, "USE TEMP B-TREE FOR GROUP BY")
				}
			}
			if core.win == nil {
				body(at)
			} else {
				explainWindows(core.win, at, add, &windowSubqueries, body)
			}
			if core.distinct {
				add(at, "USE TEMP B-TREE FOR DISTINCT")
			}
		}
		if len(p.order) > 0 && !p.ordered {
			add(parent, "USE TEMP B-TREE FOR ORDER BY")
		}
	}
	walk(plan, 0)
	return &Rows{it: &sliceIter{rows: rows}, names: []string{"id", "parent", "notused", "detail"},
		decl: []string{"", "", "", ""}}, nil
}

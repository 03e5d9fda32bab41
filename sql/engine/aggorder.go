package engine

// ORDER BY inside an aggregate's parentheses (lang_aggfunc.html, SQLite 3.44+):
// group_concat(x, ',' ORDER BY y DESC), string_agg, json_group_array(x ORDER BY y), any
// aggregate. The ORDER BY terms are bound after the arguments and evaluated with them on each
// row (aggCall.args holds both); the group's rows are kept and, when the result is asked for,
// sorted stably by the terms (ties in arrival order, as SQLite's sorter gives them) and fed to
// the aggregate. DISTINCT sees the rows in arrival order first, keeping the first of equal
// arguments, as SQLite does. min and max ignore the ORDER BY (their value does not depend on the
// order; SQLite gives the same results), so the bare-column and min/max paths keep their
// minMaxState. Aggregates without ORDER BY are built as before: nothing here runs for them.

import (
	"fmt"
	"slices"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// checkCallOrderBy refuses an ORDER BY in the parentheses of a call that is not an aggregate
// (a scalar function or a window function), in SQLite's words.
func checkCallOrderBy(e *ast.Call) error {
	if e.OrderBy == nil {
		return nil
	}
	if e.Over == nil && isAggregate(e.Name, len(e.Args), e.Star) {
		return nil
	}
	_, win := winFuncs[e.Name]
	if win && e.Over != nil && len(e.Args) == 0 {
		return nil // row_number(ORDER BY x) OVER (...): SQLite accepts and ignores it
	}
	if !win && scalarFuncs[e.Name] == nil && aggDefs[e.Name] == nil {
		return fmt.Errorf("no such function: %s", e.Name)
	}
	return fmt.Errorf("ORDER BY may not be used with non-aggregate %s()", e.Name)
}

// bindAggOrder binds the ORDER BY terms of the aggregate call e with inner and appends them to
// call.args after the arguments.
func bindAggOrder(inner *binder, e *ast.Call, call *aggCall) error {
	if e.OrderBy == nil {
		return nil
	}
	nargs := len(call.args)
	var keys []orderKey
	// An aggregate in a term is SQLite's "misuse of aggregate function f()".
	inner = &binder{pc: inner.pc, sc: inner.sc}
	for i, t := range e.OrderBy {
		x, info, err := inner.bind(t.Expr)
		if err != nil {
			return err
		}
		if call.name == "min" || call.name == "max" {
			continue // bound for its errors only
		}
		call.args = append(call.args, x)
		k := orderKey{col: nargs + i, desc: t.Desc, nullsFirst: !t.Desc, coll: collationOf(info)}
		if t.NullsFirst || t.NullsLast {
			k.nullsFirst = t.NullsFirst
		}
		keys = append(keys, k)
	}
	if keys != nil {
		call.order, call.nargs = keys, nargs
	}
	return nil
}

// orderedAggState keeps a group's argument rows (arguments then ORDER BY values) and feeds them
// to inner in ORDER BY's order when the result is asked for.
type orderedAggState struct {
	inner aggState
	nargs int
	keys  []orderKey
	rows  [][]value.Value
}

func (o *orderedAggState) step(args []value.Value) error {
	row := make([]value.Value, len(args))
	for i, v := range args {
		row[i] = v.Clone()
	}
	o.rows = append(o.rows, row)
	return nil
}

func (o *orderedAggState) result() (value.Value, error) {
	slices.SortStableFunc(o.rows, func(a, b []value.Value) int { return compareRows(a, b, o.keys) })
	for _, r := range o.rows {
		if err := o.inner.step(r[:o.nargs]); err != nil {
			return value.Value{}, err
		}
	}
	o.rows = nil
	return o.inner.result()
}

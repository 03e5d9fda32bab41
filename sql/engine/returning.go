package engine

// RETURNING (lang_returning.html): INSERT, UPDATE and DELETE return a row per row they insert,
// update (upsert included) or delete, computed from the row as written (for DELETE, as it was).
// The statement makes all its changes before the caller sees the first row: the rows are
// collected in a returnSink while the statement runs and handed over when it has finished
// (Stmt.Query). A subquery of the list is evaluated for each row, seeing the table as the
// statement has changed it so far (SQLite computes the rows as it goes, too). Names resolve against the target table by its own name only (an alias of the
// statement does not count there, as in SQLite), and excluded.* is not visible.
//
// A statement without RETURNING has no returningPlan: its per-row cost is one nil check.

import (
	"errors"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// returningPlan is a RETURNING list bound over a row of the target table (its rowid in the last
// slot for a rowid table).
type returningPlan struct {
	exprs []expr
	names []string
	decl  []string
}

// returnSink receives the rows of a statement's RETURNING clause.
type returnSink struct {
	names, decl []string
	rows        [][]value.Value
}

// planReturning binds cols over a row of t (nil, nil for no RETURNING clause).
func planReturning(pc *planCtx, t *Table, cols []ast.ResultColumn) (*returningPlan, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	for _, c := range cols {
		if c.Star && c.Table != "" {
			return nil, errors.New(`RETURNING may not use "TABLE.*" wildcards`)
		}
	}
	sc := &scope{sources: []*source{tableSource(t, t.Name)}}
	items, err := expandStars(cols, sc)
	if err != nil {
		return nil, err
	}
	b := &binder{pc: pc, sc: sc}
	p := &returningPlan{}
	for _, it := range items {
		x, xi, err := b.bind(it.expr)
		if err != nil {
			return nil, err
		}
		p.exprs = append(p.exprs, x)
		p.names = append(p.names, it.name(xi))
		p.decl = append(p.decl, it.declType(xi, sc))
	}
	return p, nil
}

// returner evaluates a returningPlan for the rows of one execution.
type returner struct {
	p    *returningPlan
	e    *env
	sink *returnSink
}

// newReturner returns the returner of p for one execution (nil when p is nil). The rows go to
// x's sink, or nowhere for an Exec (the expressions are evaluated all the same, so that their
// errors are the statement's).
func (x *execCtx) newReturner(p *returningPlan, params []value.Value) *returner {
	if p == nil {
		return nil
	}
	sink := x.ret
	if sink != nil {
		sink.names, sink.decl = p.names, p.decl
	}
	run := &runState{cx: x, params: params}
	return &returner{p: p, e: &env{rows: make([][]value.Value, 1), params: params, run: run}, sink: sink}
}

// add evaluates the RETURNING list over row (a full row of the table, rowid last).
func (r *returner) add(row []value.Value) error {
	r.e.rows[0] = row
	// Each row's subqueries see the table as the statement has left it so far, as SQLite's do:
	// none is kept from the row before.
	clear(r.e.run.subqCache)
	out := make([]value.Value, len(r.p.exprs))
	for i, x := range r.p.exprs {
		v, err := x.eval(r.e)
		if err != nil {
			return err
		}
		out[i] = v.Clone()
	}
	if r.sink != nil {
		r.sink.rows = append(r.sink.rows, out)
	}
	return nil
}

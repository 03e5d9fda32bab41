package engine

// Generated columns (gencol.html): a column defined AS (expr) takes the value of expr on its row,
// with the column's affinity, and cannot be written. Invariants:
//   - Both kinds, VIRTUAL and STORED, are computed when a row is written (INSERT, UPDATE, and
//     ALTER TABLE ADD COLUMN for the rows already there) and stored in the record, so reads,
//     indexes and constraints see them as any column. The difference SQLite makes is one of
//     storage only: no result differs.
//   - Table.gen lists the generated columns in an order where each comes after the generated
//     columns it reads (a loop is refused when the table is defined).

import (
	"errors"
	"fmt"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// genColumn is a generated column with its bound expression.
type genColumn struct {
	col int
	x   *indexExpr
}

// bindGenerated checks and binds t's generated columns (newTable).
func (t *Table) bindGenerated(defs []ast.ColumnDef) error {
	n := 0
	for i, cd := range defs {
		if cd.Generated == nil {
			continue
		}
		n++
		if cd.DefaultSet {
			return fmt.Errorf("error in generated column %q", cd.Name)
		}
		if t.Columns[i].PK > 0 {
			return errors.New("generated columns cannot be part of the PRIMARY KEY")
		}
	}
	if n == 0 {
		return nil
	}
	if n == len(defs) {
		return errors.New("must have at least one non-generated column")
	}
	// Bind each, and order them: a generated column after the generated columns it reads.
	bound := map[int]*indexExpr{}
	deps := map[int][]int{}
	for i, cd := range defs {
		if cd.Generated == nil {
			continue
		}
		x, err := bindIndexExpr(t, cd.Generated, "generated columns")
		if err != nil {
			return err
		}
		bound[i] = x
		walkAST(cd.Generated, func(e exprAST) bool {
			if r, ok := e.(*ast.ColumnRef); ok {
				if j := t.columnIndex(r.Column); j >= 0 && defs[j].Generated != nil {
					deps[i] = append(deps[i], j)
				}
			}
			return true
		})
	}
	state := map[int]int{} // 1: being visited, 2: done
	var visit func(i int) error
	visit = func(i int) error {
		if state[i] == 2 {
			return nil
		}
		state[i] = 1
		for _, j := range deps[i] {
			if state[j] == 1 { // the loop is named by the column that closes it, as SQLite names it
				return fmt.Errorf("generated column loop on %q", t.Columns[i].Name)
			}
			if err := visit(j); err != nil {
				return err
			}
		}
		state[i] = 2
		t.gen = append(t.gen, genColumn{col: i, x: bound[i]})
		return nil
	}
	for i := range defs {
		if bound[i] != nil {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// computeGenerated sets the generated columns of a row (its other columns' affinities applied).
func (t *Table) computeGenerated(vals []value.Value) error {
	for _, g := range t.gen {
		v, err := g.x.value(vals)
		if err != nil {
			return err
		}
		vals[g.col] = t.Columns[g.col].Affinity.Apply(v)
	}
	return nil
}

// isGenerated reports whether column i is generated.
func (t *Table) isGenerated(i int) bool {
	return i >= 0 && i < len(t.Columns) && t.Columns[i].Generated != nil
}

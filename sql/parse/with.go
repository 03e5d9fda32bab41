package parse

import (
	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

// with converts a WITH clause (nil for none). Its CTEs' selects are converted like any select;
// which names they may reference, and recursion, are the engine's business.
func (c *converter) with(w *m.With) (*ast.With, error) {
	if w == nil {
		return nil, nil
	}
	out := &ast.With{At: pos(w), Recursive: w.Recursive}
	for _, cte := range w.CTEs {
		sel, err := c.selectStmt(cte.Select)
		if err != nil {
			return nil, err
		}
		d := &ast.CTE{At: pos(cte), Name: cte.Name.Name, Select: sel}
		for _, col := range cte.Columns {
			d.Columns = append(d.Columns, col.Name)
		}
		switch cte.Materialized {
		case m.MaterializedYes:
			d.Materialized = ast.MaterializedYes
		case m.MaterializedNo:
			d.Materialized = ast.MaterializedNo
		}
		out.CTEs = append(out.CTEs, d)
	}
	return out, nil
}

package parse

import (
	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

func (c *converter) insert(s *m.InsertStmt) (ast.Stmt, error) {
	switch {
	case len(s.Upserts) > 0:
		return nil, c.unsupported(s.Upserts[0], "upsert (ON CONFLICT ... DO)")
	case len(s.Returning) > 0:
		return nil, c.unsupported(s.Returning[0], "RETURNING")
	}
	name, err := c.name(s.Table)
	if err != nil {
		return nil, err
	}
	out := &ast.Insert{At: pos(s), Conflict: ast.Conflict(s.OrConflict), Table: name, DefaultValues: s.DefaultValues}
	if out.With, err = c.with(s.With); err != nil {
		return nil, err
	}
	if s.Replace {
		out.Conflict = ast.ConflictReplace
	}
	for _, col := range s.Columns {
		out.Columns = append(out.Columns, col.Name)
	}
	if s.Select != nil {
		if out.Select, err = c.selectStmt(s.Select); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *converter) update(s *m.UpdateStmt) (ast.Stmt, error) {
	switch {
	case len(s.From) > 0:
		return nil, c.unsupported(s.From[0], "UPDATE ... FROM")
	case len(s.Returning) > 0:
		return nil, c.unsupported(s.Returning[0], "RETURNING")
	case len(s.OrderBy) > 0 || s.Limit != nil:
		return nil, c.unsupported(s, "UPDATE ... ORDER BY/LIMIT")
	case s.IndexedBy != nil || s.NotIndexed:
		return nil, c.unsupported(s, "INDEXED BY")
	}
	name, err := c.name(s.Table)
	if err != nil {
		return nil, err
	}
	out := &ast.Update{At: pos(s), Conflict: ast.Conflict(s.OrConflict), Table: name}
	if out.With, err = c.with(s.With); err != nil {
		return nil, err
	}
	if s.Alias != nil {
		out.Alias = s.Alias.Name
	}
	for _, set := range s.Set {
		x, err := c.expr(set.Value)
		if err != nil {
			return nil, err
		}
		a := ast.Assignment{Expr: x}
		for _, col := range set.Columns {
			a.Columns = append(a.Columns, col.Name)
		}
		if len(a.Columns) > 1 {
			return nil, c.unsupported(set, "row values in SET")
		}
		out.Set = append(out.Set, a)
	}
	if out.Where, err = c.optExpr(s.Where); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *converter) delete(s *m.DeleteStmt) (ast.Stmt, error) {
	switch {
	case s.IndexedBy != nil || s.NotIndexed:
		return nil, c.unsupported(s, "INDEXED BY")
	}
	name, err := c.name(s.Table)
	if err != nil {
		return nil, err
	}
	out := &ast.Delete{At: pos(s), Table: name}
	if out.With, err = c.with(s.With); err != nil {
		return nil, err
	}
	if s.Alias != nil {
		out.Alias = s.Alias.Name
	}
	if out.Where, err = c.optExpr(s.Where); err != nil {
		return nil, err
	}
	return out, nil
}

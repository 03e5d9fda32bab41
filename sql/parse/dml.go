package parse

import (
	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

func (c *converter) insert(s *m.InsertStmt) (ast.Stmt, error) {
	name, err := c.name(s.Table)
	if err != nil {
		return nil, err
	}
	out := &ast.Insert{At: pos(s), Conflict: ast.Conflict(s.OrConflict), Table: name, DefaultValues: s.DefaultValues}
	if out.With, err = c.with(s.With); err != nil {
		return nil, err
	}
	if s.Alias != nil {
		out.Alias = s.Alias.Name
	}
	for _, u := range s.Upserts {
		up, err := c.upsert(u)
		if err != nil {
			return nil, err
		}
		out.Upserts = append(out.Upserts, up)
	}
	if out.Returning, err = c.returning(s.Returning); err != nil {
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
	if out.Set, err = c.setList(s.Set); err != nil {
		return nil, err
	}
	if out.From, err = c.from(s.From); err != nil {
		return nil, err
	}
	if len(out.From) > 0 && out.From[0].Join == ast.JoinNone {
		out.From[0].Join = ast.JoinInner
	}
	if out.Where, err = c.optExpr(s.Where); err != nil {
		return nil, err
	}
	if out.Returning, err = c.returning(s.Returning); err != nil {
		return nil, err
	}
	return out, nil
}

// setList converts the assignments of UPDATE ... SET or DO UPDATE SET. A row value (a, b) =
// (x, y) becomes a = x, b = y (each evaluated over the row before the update, as every SET
// expression is); (a, b) = (SELECT ...) gives each column an ast.RowColumn of the subquery.
func (c *converter) setList(sets []*m.SetPair) ([]ast.Assignment, error) {
	var out []ast.Assignment
	for _, set := range sets {
		if len(set.Columns) > 1 {
			vec, ok := unparen(set.Value).(*m.VectorExpr)
			if sub, isSub := unparen(set.Value).(*m.SubqueryExpr); isSub {
				sel, err := c.selectStmt(sub.Select)
				if err != nil {
					return nil, err
				}
				for i, col := range set.Columns {
					out = append(out, ast.Assignment{Columns: []string{col.Name},
						Expr: &ast.RowColumn{At: pos(sub), Select: sel, Index: i, Width: len(set.Columns)}})
				}
				continue
			}
			n := 1
			if ok {
				n = len(vec.List)
			}
			if n != len(set.Columns) {
				return nil, c.errorf(set, "%d columns assigned %d values", len(set.Columns), n)
			}
			for i, col := range set.Columns {
				x, err := c.expr(vec.List[i])
				if err != nil {
					return nil, err
				}
				out = append(out, ast.Assignment{Columns: []string{col.Name}, Expr: x})
			}
			continue
		}
		x, err := c.expr(set.Value)
		if err != nil {
			return nil, err
		}
		a := ast.Assignment{Expr: x}
		for _, col := range set.Columns {
			a.Columns = append(a.Columns, col.Name)
		}
		out = append(out, a)
	}
	return out, nil
}

// upsert converts one ON CONFLICT clause. Its target is column names, each with an optional
// COLLATE and direction (SQLite matches them against the columns of an index; an expression,
// which SQLite matches against an index on expressions, is unsupported).
func (c *converter) upsert(u *m.Upsert) (ast.Upsert, error) {
	out := ast.Upsert{At: pos(u), DoNothing: u.DoNothing}
	for _, t := range u.Target {
		col, e := indexedTerm(t)
		id, ok := unparen(e).(*m.Ident)
		if !ok {
			return out, c.unsupported(t, "an expression as ON CONFLICT target")
		}
		col.Name = id.Name
		out.Target = append(out.Target, col)
	}
	var err error
	if out.TargetWhere, err = c.optExpr(u.TargetWhere); err != nil {
		return out, err
	}
	if out.Set, err = c.setList(u.Set); err != nil {
		return out, err
	}
	if out.Where, err = c.optExpr(u.Where); err != nil {
		return out, err
	}
	return out, nil
}

// returning converts a RETURNING list (nil for none).
func (c *converter) returning(cols []*m.ResultColumn) ([]ast.ResultColumn, error) {
	var out []ast.ResultColumn
	for _, rc := range cols {
		col, err := c.resultColumn(rc)
		if err != nil {
			return nil, err
		}
		out = append(out, col)
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
	if out.Returning, err = c.returning(s.Returning); err != nil {
		return nil, err
	}
	return out, nil
}

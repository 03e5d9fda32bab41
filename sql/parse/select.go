package parse

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

var compoundOps = map[string]ast.CompoundOp{"UNION": ast.Union, "INTERSECT": ast.Intersect, "EXCEPT": ast.Except}

func (c *converter) selectStmt(s *m.SelectStmt) (*ast.Select, error) {
	out := &ast.Select{At: pos(s)}
	var err error
	if out.With, err = c.with(s.With); err != nil {
		return nil, err
	}
	for i, core := range s.Cores {
		last := i == len(s.Cores)-1
		cc, err := c.core(core, out, last)
		if err != nil {
			return nil, err
		}
		out.Cores = append(out.Cores, cc)
	}
	for _, op := range s.Ops {
		k := compoundOps[op.Op]
		if k == ast.Union && op.All {
			k = ast.UnionAll
		}
		out.Ops = append(out.Ops, k)
	}
	return out, nil
}

// core converts one core; the last core's ORDER BY and LIMIT become the whole select's, as in
// SQLite, and an earlier core may have neither.
func (c *converter) core(core m.SelectCore, sel *ast.Select, last bool) (*ast.SelectCore, error) {
	switch q := core.(type) {
	case *m.ValuesClause:
		out := &ast.SelectCore{At: pos(q)}
		for _, row := range q.Rows {
			r, err := c.exprs(row)
			if err != nil {
				return nil, err
			}
			out.Values = append(out.Values, r)
		}
		return out, nil
	case *m.SelectQuery:
		return c.selectQuery(q, sel, last)
	}
	return nil, c.unsupported(core, "select form")
}

func (c *converter) selectQuery(q *m.SelectQuery, sel *ast.Select, last bool) (*ast.SelectCore, error) {
	if (len(q.OrderBy) > 0 || q.Limit != nil) && !last {
		what := "ORDER BY"
		if len(q.OrderBy) == 0 {
			what = "LIMIT"
		}
		return nil, c.errorf(q, "%s clause should come after %s not before", what, "UNION")
	}
	out := &ast.SelectCore{At: pos(q), Distinct: q.Distinct == m.DistinctDistinct}
	for _, rc := range q.Columns {
		col, err := c.resultColumn(rc)
		if err != nil {
			return nil, err
		}
		out.Columns = append(out.Columns, col)
	}
	var err error
	if out.From, err = c.from(q.From); err != nil {
		return nil, err
	}
	if out.Where, err = c.optExpr(q.Where); err != nil {
		return nil, err
	}
	if out.GroupBy, err = c.exprs(q.GroupBy); err != nil {
		return nil, err
	}
	if out.Having, err = c.optExpr(q.Having); err != nil {
		return nil, err
	}
	if out.Windows, err = c.windows(q.Windows); err != nil {
		return nil, err
	}
	if sel.OrderBy, err = c.orderBy(q.OrderBy); err != nil {
		return nil, err
	}
	if q.Limit != nil {
		if sel.Limit, err = c.expr(q.Limit.Count); err != nil {
			return nil, err
		}
		if sel.Offset, err = c.optExpr(q.Limit.Offset); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *converter) resultColumn(rc *m.ResultColumn) (ast.ResultColumn, error) {
	if star, ok := rc.Expr.(*m.Star); ok {
		out := ast.ResultColumn{Star: true}
		if star.Table != nil {
			out.Table = star.Table.Name
		}
		return out, nil
	}
	x, err := c.expr(rc.Expr)
	if err != nil {
		return ast.ResultColumn{}, err
	}
	out := ast.ResultColumn{Expr: x, Text: c.text(rc.Expr)}
	if rc.Alias != nil {
		out.Alias = rc.Alias.Name
	}
	return out, nil
}

func (c *converter) orderBy(terms []*m.OrderingTerm) ([]ast.OrderTerm, error) {
	var out []ast.OrderTerm
	for _, t := range terms {
		x, err := c.expr(t.Expr)
		if err != nil {
			return nil, err
		}
		out = append(out, ast.OrderTerm{
			Expr:       x,
			Desc:       t.Order == m.SortDesc,
			NullsFirst: t.Nulls == m.NullsFirst,
			NullsLast:  t.Nulls == m.NullsLast,
		})
	}
	return out, nil
}

func (c *converter) from(items []*m.TableRef) ([]ast.FromItem, error) {
	var out []ast.FromItem
	for _, t := range items {
		if len(t.List) > 0 {
			if t.Join != nil && t.Join.Type&(m.JoinLeft|m.JoinRight|m.JoinNatural) != 0 || t.On != nil || len(t.Using) > 0 {
				return nil, c.unsupported(t, "a parenthesised join as the right side of a join")
			}
			inner, err := c.from(t.List)
			if err != nil {
				return nil, err
			}
			if len(out) > 0 && len(inner) > 0 && inner[0].Join == ast.JoinNone {
				inner[0].Join = ast.JoinInner
			}
			out = append(out, inner...)
			continue
		}
		item, err := c.fromItem(t)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

func (c *converter) fromItem(t *m.TableRef) (ast.FromItem, error) {
	item := ast.FromItem{At: pos(t)}
	if t.Join != nil {
		jt := t.Join.Type
		switch {
		case jt&m.JoinRight != 0:
			return item, c.unsupported(t, "RIGHT and FULL joins")
		case jt&m.JoinLeft != 0:
			item.Join = ast.JoinLeft
		case jt&m.JoinCross != 0:
			item.Join = ast.JoinCross
		default:
			item.Join = ast.JoinInner
		}
		item.Natural = jt&m.JoinNatural != 0
	}
	switch {
	case t.HasArgs:
		name, err := c.name(t.Name)
		if err != nil {
			return item, err
		}
		args, err := c.exprs(t.Args)
		if err != nil {
			return item, err
		}
		item.Table, item.FuncArgs, item.Func = strings.ToLower(name), args, true
	case t.Select != nil:
		s, err := c.selectStmt(t.Select)
		if err != nil {
			return item, err
		}
		item.Subquery = s
	default:
		name, err := c.name(t.Name)
		if err != nil {
			return item, err
		}
		item.Table = name
		if t.Name.Schema != nil {
			item.Schema = t.Name.Schema.Name
		}
	}
	if t.Alias != nil {
		item.Alias = t.Alias.Name
	}
	if t.IndexedBy != nil {
		item.IndexedBy = t.IndexedBy.Name
	}
	item.NotIndexed = t.NotIndexed
	var err error
	if item.On, err = c.optExpr(t.On); err != nil {
		return item, err
	}
	for _, u := range t.Using {
		item.Using = append(item.Using, u.Name)
	}
	return item, nil
}

package parse

// Window functions: the OVER and FILTER clauses of a call and the WINDOW clause of a select,
// converted as written; the engine resolves window names and checks frames.

import (
	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

var frameUnits = map[m.FrameType]ast.FrameUnit{
	m.FrameRange: ast.FrameRange, m.FrameRows: ast.FrameRows, m.FrameGroups: ast.FrameGroups,
}

var boundKinds = map[m.FrameBoundType]ast.BoundKind{
	m.BoundUnboundedPreceding: ast.UnboundedPreceding, m.BoundPreceding: ast.Preceding,
	m.BoundCurrentRow: ast.CurrentRow, m.BoundFollowing: ast.Following,
	m.BoundUnboundedFollowing: ast.UnboundedFollowing,
}

var excludes = map[m.FrameExclude]ast.FrameExclude{
	m.ExcludeNone: ast.ExcludeNone, m.ExcludeNoOthers: ast.ExcludeNoOthers,
	m.ExcludeCurrentRow: ast.ExcludeCurrentRow, m.ExcludeGroup: ast.ExcludeGroup, m.ExcludeTies: ast.ExcludeTies,
}

// window converts the body of an OVER clause or of a WINDOW clause entry.
func (c *converter) window(w *m.WindowDef) (*ast.Window, error) {
	out := &ast.Window{At: pos(w), NameOnly: w.NameOnly}
	if w.Base != nil {
		out.Base = w.Base.Name
	}
	var err error
	if out.Partition, err = c.exprs(w.Partition); err != nil {
		return nil, err
	}
	for _, p := range w.Partition {
		out.PartitionText = append(out.PartitionText, c.text(p))
	}
	if out.OrderBy, err = c.orderBy(w.OrderBy); err != nil {
		return nil, err
	}
	for _, t := range w.OrderBy {
		out.OrderText = append(out.OrderText, c.text(t.Expr))
	}
	if w.Frame == m.FrameNone {
		return out, nil
	}
	f := &ast.Frame{Unit: frameUnits[w.Frame], Exclude: excludes[w.Exclude], End: ast.FrameBound{Kind: ast.CurrentRow}}
	if f.Start, err = c.frameBound(w.StartBound); err != nil {
		return nil, err
	}
	if w.EndBound != nil {
		if f.End, err = c.frameBound(w.EndBound); err != nil {
			return nil, err
		}
	}
	out.Frame = f
	return out, nil
}

func (c *converter) frameBound(b *m.FrameBound) (ast.FrameBound, error) {
	out := ast.FrameBound{Kind: boundKinds[b.Type]}
	var err error
	out.Expr, err = c.optExpr(b.Expr)
	return out, err
}

// windows converts a WINDOW clause.
func (c *converter) windows(list []*m.WindowDef) ([]ast.NamedWindow, error) {
	var out []ast.NamedWindow
	for _, w := range list {
		win, err := c.window(w)
		if err != nil {
			return nil, err
		}
		name := ""
		if w.Name != nil {
			name = w.Name.Name
		}
		out = append(out, ast.NamedWindow{Name: name, Window: win})
	}
	return out, nil
}

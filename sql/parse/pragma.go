package parse

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

// pragma converts PRAGMA [schema.]name [= value | (value)]. The schema is passed on as written
// (the engine knows which databases exist); the value loses its quotes.
func (c *converter) pragma(s *m.PragmaStmt) (ast.Stmt, error) {
	p := &ast.Pragma{At: pos(s), Name: s.Name.Name.Name, HasValue: s.HasValue, Call: s.Paren}
	if s.Name.Schema != nil {
		p.Schema = s.Name.Schema.Name
	}
	if s.HasValue {
		p.Value = dequote(strings.TrimSpace(s.Value))
	}
	return p, nil
}

// dequote removes SQL quotes ('...', "...", `...`, [...]) around a word, undoing doubled quote
// characters inside; other text is returned as it is.
func dequote(v string) string {
	if len(v) < 2 {
		return v
	}
	switch q := v[0]; {
	case (q == '\'' || q == '"' || q == '`') && v[len(v)-1] == q:
		return strings.ReplaceAll(v[1:len(v)-1], string([]byte{q, q}), string(q))
	case q == '[' && v[len(v)-1] == ']':
		return v[1 : len(v)-1]
	}
	return v
}

// vacuum converts VACUUM [schema] [INTO expr].
func (c *converter) vacuum(s *m.VacuumStmt) (ast.Stmt, error) {
	v := &ast.Vacuum{At: pos(s)}
	if s.Schema != nil {
		v.Schema = s.Schema.Name
	}
	if s.Into != nil {
		x, err := c.expr(s.Into)
		if err != nil {
			return nil, err
		}
		v.Into = x
	}
	return v, nil
}

// analyze converts ANALYZE [[schema.]name].
func (c *converter) analyze(s *m.AnalyzeStmt) (ast.Stmt, error) {
	a := &ast.Analyze{At: pos(s)}
	if s.Name != nil {
		name, err := c.name(s.Name)
		if err != nil {
			return nil, err
		}
		if !(s.Name.Schema == nil && strings.EqualFold(name, "main")) {
			a.Name = name
		}
	}
	return a, nil
}

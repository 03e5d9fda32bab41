package parse

// CREATE TRIGGER, DROP TRIGGER and RAISE. A trigger's body holds INSERT, UPDATE, DELETE and
// SELECT statements; SQLite refuses in it qualified table names on INSERT, UPDATE and DELETE,
// parameters and RETURNING, with the errors below.

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

func (c *converter) createTrigger(s *m.CreateTriggerStmt) (ast.Stmt, error) {
	temp := s.Temp
	if q := s.Name.Schema; q != nil {
		switch {
		case strings.EqualFold(q.Name, "temp") || strings.EqualFold(q.Name, "temporary"):
			temp = true
		case !strings.EqualFold(q.Name, "main"):
			return nil, c.unsupported(q, "database "+q.Name+" (only main and temp)")
		case s.Temp:
			return nil, c.semantic("temporary trigger may not have qualified name")
		}
	}
	table, err := c.name(s.Table)
	if err != nil {
		return nil, err
	}
	out := &ast.CreateTrigger{At: pos(s), Temp: temp, IfNotExists: s.IfNotExists, Name: s.Name.Name.Name,
		Table: table, SQL: c.stmtText(s)}
	switch s.Time {
	case m.TriggerAfter:
		out.Time = ast.TriggerAfter
	case m.TriggerInsteadOf:
		out.Time = ast.TriggerInsteadOf
	default:
		out.Time = ast.TriggerBefore
	}
	switch strings.ToUpper(s.Event) {
	case "INSERT":
		out.Event = ast.TriggerInsert
	case "UPDATE":
		out.Event = ast.TriggerUpdate
	case "DELETE":
		out.Event = ast.TriggerDelete
	default:
		return nil, c.unsupported(s, "trigger event "+s.Event)
	}
	for _, col := range s.UpdateOf {
		out.UpdateOf = append(out.UpdateOf, col.Name)
	}
	if out.When, err = c.optExpr(s.When); err != nil {
		return nil, err
	}
	for _, b := range s.Body {
		var table *m.QualifiedName
		var returning bool
		indexed := "" // "INDEXED BY" or "NOT INDEXED" on UPDATE or DELETE
		clause := func(by *m.Ident, not bool) string {
			switch {
			case by != nil:
				return "INDEXED BY"
			case not:
				return "NOT INDEXED"
			}
			return ""
		}
		switch b := b.(type) {
		case *m.InsertStmt:
			table, returning = b.Table, len(b.Returning) > 0
		case *m.UpdateStmt:
			table, returning, indexed = b.Table, len(b.Returning) > 0, clause(b.IndexedBy, b.NotIndexed)
		case *m.DeleteStmt:
			table, returning, indexed = b.Table, len(b.Returning) > 0, clause(b.IndexedBy, b.NotIndexed)
		case *m.SelectStmt:
		default:
			return nil, c.unsupported(b, "this statement in a trigger")
		}
		if table != nil && table.Schema != nil {
			return nil, c.semantic("qualified table names are not allowed on INSERT, UPDATE, and DELETE statements within triggers")
		}
		if returning {
			return nil, c.semantic("cannot use RETURNING in a trigger")
		}
		if indexed != "" {
			return nil, c.semantic("the " + indexed + " clause is not allowed on UPDATE or DELETE statements within triggers")
		}
		st, err := c.stmt(b)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, st)
	}
	if c.params > 0 {
		return nil, c.semantic("trigger cannot use variables")
	}
	return out, nil
}

func (c *converter) raise(e *m.RaiseExpr) (ast.Expr, error) {
	out := &ast.Raise{At: pos(e)}
	switch strings.ToUpper(e.Action) {
	case "IGNORE":
		return out, nil
	case "ROLLBACK":
		out.Action = ast.RaiseRollback
	case "ABORT":
		out.Action = ast.RaiseAbort
	case "FAIL":
		out.Action = ast.RaiseFail
	default:
		return nil, c.unsupported(e, "RAISE("+e.Action+")")
	}
	msg, err := c.expr(e.Message)
	if err != nil {
		return nil, err
	}
	out.Message = msg
	return out, nil
}

// semantic is an error SQLite reports when it prepares the statement, not a syntax error: it
// has no position.
func (c *converter) semantic(msg string) error {
	return &Error{Msg: msg, Offset: -1, SQL: c.sql}
}

func (c *converter) dropTrigger(s *m.DropTriggerStmt) (ast.Stmt, error) {
	out := &ast.DropTrigger{At: pos(s), Name: s.Name.Name.Name, IfExists: s.IfExists}
	if q := s.Name.Schema; q != nil {
		switch {
		case strings.EqualFold(q.Name, "main"):
			out.Schema = "main"
		case strings.EqualFold(q.Name, "temp") || strings.EqualFold(q.Name, "temporary"):
			out.Schema = "temp"
		default:
			return nil, c.unsupported(q, "database "+q.Name+" (only main and temp)")
		}
	}
	return out, nil
}

// Package parse turns SQL text into the statement tree of package ast, with SQLite's grammar: it
// is the only package that imports the parser (github.com/sqlc-dev/meyer), so that it can be
// replaced. A construct the engine does not support is an error that names it
// ("unsupported: WINDOW clause"), never a tree that means something else.
package parse

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
	m "github.com/sqlc-dev/meyer/ast"
	"github.com/sqlc-dev/meyer/parser"
)

// Statement is one parsed statement.
type Statement struct {
	Stmt ast.Stmt
	// Text is the statement's SQL text, without the separating semicolon.
	Text string
	// Params is the number of parameters, the highest parameter number used; Names maps a
	// named parameter (with its sigil) to its number.
	Params int
	Names  map[string]int
}

// Error is an error of the SQL text: a syntax error, with SQLite's wording, or a construct the
// engine does not support. Offset is the byte offset in the text, or -1.
type Error struct {
	Msg         string
	Offset      int
	SQL         string
	unsupported bool
}

// Error renders the message with the 1-based line and column of the offset when it is known:
// `1:8: near "FROM": syntax error`.
func (e *Error) Error() string {
	if e.Offset < 0 || e.Offset > len(e.SQL) {
		return e.Msg
	}
	line, col := parser.LineCol(e.SQL, e.Offset)
	return fmt.Sprintf("%d:%d: %s", line, col, e.Msg)
}

// ErrUnsupported marks errors about constructs the engine does not support yet.
var ErrUnsupported = errors.New("unsupported")

// Unwrap returns ErrUnsupported for an error about an unsupported construct.
func (e *Error) Unwrap() error {
	if e.unsupported {
		return ErrUnsupported
	}
	return nil
}

// Parse parses sql, which may hold several statements separated by semicolons.
func Parse(sql string) ([]Statement, error) {
	stmts, err := parser.ParseString(sql)
	if err != nil {
		var perr *parser.Error
		if errors.As(err, &perr) {
			return nil, &Error{Msg: perr.Message, Offset: perr.Offset, SQL: sql}
		}
		return nil, err
	}
	out := make([]Statement, 0, len(stmts))
	for _, s := range stmts {
		c := converter{sql: sql}
		st, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		out = append(out, Statement{Stmt: st, Text: c.stmtText(s), Params: c.params, Names: c.names})
	}
	return out, nil
}

// converter converts one statement; it collects its parameters.
type converter struct {
	sql    string
	params int
	names  map[string]int
}

func (c *converter) unsupported(n m.Node, what string) error {
	return &Error{Msg: "unsupported: " + what, Offset: n.Pos(), SQL: c.sql, unsupported: true}
}

func (c *converter) errorf(n m.Node, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Offset: n.Pos(), SQL: c.sql}
}

func (c *converter) text(n m.Node) string { return c.sql[n.Pos():n.End()] }

// stmtText returns a statement's text without its terminating semicolon.
func (c *converter) stmtText(n m.Node) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.text(n)), ";"))
}

func pos(n m.Node) ast.Pos { return ast.Pos(n.Pos()) }

// name returns the table or object name of q, which may be qualified by "main" only.
func (c *converter) name(q *m.QualifiedName) (string, error) {
	if q.Schema != nil && strings.EqualFold(q.Schema.Name, "temp") {
		switch strings.ToLower(q.Name.Name) {
		case "sqlite_master", "sqlite_schema":
			return "sqlite_temp_master", nil // the TEMP database's schema table
		}
	}
	if q.Schema != nil && !strings.EqualFold(q.Schema.Name, "main") {
		return "", c.unsupported(q, "database "+q.Schema.Name+" (only main)")
	}
	return q.Name.Name, nil
}

func (c *converter) stmt(s m.Stmt) (ast.Stmt, error) {
	switch s := s.(type) {
	case *m.SelectStmt:
		return c.selectStmt(s)
	case *m.InsertStmt:
		return c.insert(s)
	case *m.UpdateStmt:
		return c.update(s)
	case *m.DeleteStmt:
		return c.delete(s)
	case *m.CreateTableStmt:
		return c.createTable(s)
	case *m.CreateIndexStmt:
		return c.createIndex(s)
	case *m.CreateViewStmt:
		return c.createView(s)
	case *m.DropTableStmt:
		name, err := c.name(s.Name)
		return &ast.Drop{At: pos(s), Kind: ast.TableObject, Name: name, IfExists: s.IfExists}, err
	case *m.DropIndexStmt:
		name, err := c.name(s.Name)
		return &ast.Drop{At: pos(s), Kind: ast.IndexObject, Name: name, IfExists: s.IfExists}, err
	case *m.DropViewStmt:
		name, err := c.name(s.Name)
		return &ast.Drop{At: pos(s), Kind: ast.ViewObject, Name: name, IfExists: s.IfExists}, err
	case *m.ReindexStmt:
		r := &ast.Reindex{At: pos(s)}
		if s.Name != nil {
			name, err := c.name(s.Name)
			if err != nil {
				return nil, err
			}
			r.Name = name
		}
		return r, nil
	case *m.BeginStmt:
		return &ast.Begin{At: pos(s), Mode: ast.TxMode(s.Type)}, nil
	case *m.CommitStmt:
		return &ast.Commit{At: pos(s)}, nil
	case *m.RollbackStmt:
		r := &ast.Rollback{At: pos(s)}
		if s.Savepoint != nil {
			r.Savepoint = s.Savepoint.Name
		}
		return r, nil
	case *m.SavepointStmt:
		return &ast.Savepoint{At: pos(s), Name: s.Name.Name}, nil
	case *m.ReleaseStmt:
		return &ast.Release{At: pos(s), Name: s.Name.Name}, nil
	case *m.ExplainStmt:
		inner, err := c.stmt(s.Stmt)
		if err != nil {
			return nil, err
		}
		return &ast.Explain{At: pos(s), QueryPlan: s.QueryPlan, Stmt: inner}, nil
	case *m.CreateTriggerStmt:
		return c.createTrigger(s)
	case *m.CreateVirtualTableStmt:
		return nil, c.unsupported(s, "CREATE VIRTUAL TABLE")
	case *m.AlterTableStmt:
		return c.alterTable(s)
	case *m.PragmaStmt:
		return c.pragma(s)
	case *m.AttachStmt:
		return nil, c.unsupported(s, "ATTACH")
	case *m.DetachStmt:
		return nil, c.unsupported(s, "DETACH")
	case *m.VacuumStmt:
		return c.vacuum(s)
	case *m.AnalyzeStmt:
		return c.analyze(s)
	case *m.DropTriggerStmt:
		return c.dropTrigger(s)
	}
	return nil, c.unsupported(s, fmt.Sprintf("statement %T", s))
}

// Literals.

func (c *converter) literal(l *m.Literal) (ast.Expr, error) {
	switch l.Kind {
	case m.LitNull:
		return &ast.Literal{At: pos(l), Value: value.NullValue()}, nil
	case m.LitInteger:
		v, err := c.integer(l, l.Value, false)
		return &ast.Literal{At: pos(l), Value: v}, err
	case m.LitFloat:
		f, err := strconv.ParseFloat(strings.ReplaceAll(l.Value, "_", ""), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, c.errorf(l, "malformed number %s", l.Raw)
		}
		return &ast.Literal{At: pos(l), Value: value.Float(f)}, nil
	case m.LitString:
		return &ast.Literal{At: pos(l), Value: value.TextString(l.Value)}, nil
	case m.LitBlob:
		raw := l.Raw
		b, err := hex.DecodeString(raw[2 : len(raw)-1])
		if err != nil {
			return nil, c.errorf(l, "malformed blob literal %s", raw)
		}
		return &ast.Literal{At: pos(l), Value: value.BlobBytes(b)}, nil
	case m.LitCurrentDate: // SQLite codes the keywords as calls of these functions
		return &ast.Call{At: pos(l), Name: "current_date"}, nil
	case m.LitCurrentTime:
		return &ast.Call{At: pos(l), Name: "current_time"}, nil
	case m.LitCurrentTimestamp:
		return &ast.Call{At: pos(l), Name: "current_timestamp"}, nil
	}
	return nil, c.unsupported(l, "literal "+l.Raw)
}

// integer converts an integer literal: decimal (a REAL when it does not fit in an int64, as in
// SQLite, unless negated is set and it is exactly 2^63) or hexadecimal (64-bit two's complement).
func (c *converter) integer(n m.Node, text string, negated bool) (value.Value, error) {
	text = strings.ReplaceAll(text, "_", "")
	if len(text) > 2 && (text[1] == 'x' || text[1] == 'X') {
		u, err := strconv.ParseUint(text[2:], 16, 64)
		if err != nil {
			return value.Value{}, c.errorf(n, "hex literal too big: %s", text)
		}
		if negated {
			return value.Int(-int64(u)), nil
		}
		return value.Int(int64(u)), nil
	}
	u, err := strconv.ParseUint(text, 10, 64)
	switch {
	case err == nil && u <= math.MaxInt64:
		if negated {
			return value.Int(-int64(u)), nil
		}
		return value.Int(int64(u)), nil
	case err == nil && u == 1<<63 && negated:
		return value.Int(math.MinInt64), nil
	}
	f, _ := strconv.ParseFloat(text, 64)
	if negated {
		f = -f
	}
	return value.Float(f), nil
}

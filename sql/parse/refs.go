package parse

// Names in a schema statement's text, with their byte ranges, so that ALTER TABLE can rewrite the
// stored CREATE texts as SQLite does (a renamed table or column is replaced where it is named,
// the rest of the text kept as written). Refs reports what the syntax says; which names refer to
// a given table or column (resolving aliases and unqualified names through the FROM clauses) is
// the engine's part.

import (
	"errors"
	"reflect"
	"strings"

	m "github.com/sqlc-dev/meyer/ast"
	"github.com/sqlc-dev/meyer/parser"
	"github.com/sqlc-dev/meyer/token"
)

// RefKind says what a name in a statement's text names.
type RefKind uint8

const (
	// RefTable is a table name: CREATE TABLE's or CREATE INDEX's table, a FROM item, a
	// REFERENCES clause, or the qualifier of a column reference (Qualifier set).
	RefTable RefKind = iota
	// RefColumn is a column name.
	RefColumn
)

// Ref is one name in a statement's text.
type Ref struct {
	// Start and End are the byte range of the name's token in the text, quotes included.
	Start, End int
	Kind       RefKind
	// Name is the name, unquoted.
	Name string
	// Table, for a column, is the table the syntax gives it: the qualifier as written (a table
	// or an alias), or the table being defined or indexed; "" for an unqualified name in a
	// SELECT, which Scope resolves.
	Table string
	// Qualifier marks a table name that qualifies a column (t.col, t.*).
	Qualifier bool
	// Scope is the select core (an index in Scopes) a name of a SELECT is in, or -1.
	Scope int
	// Definition marks a column's name in its own definition (CREATE TABLE's column list) or
	// a table's name in its CREATE TABLE.
	Definition bool
	// ForeignKey marks a column of the table's own side of a FOREIGN KEY clause.
	ForeignKey bool
}

// Scope is a select core of a statement: the tables of its FROM clause.
type Scope struct {
	Parent  int // the enclosing core, or -1
	Sources []Source
}

// Source is an item of a FROM clause.
type Source struct {
	Table string // the table or view named; "" for a subquery
	Alias string // "" when it has none
}

// Refs returns the names in the text of one CREATE TABLE, CREATE INDEX, CREATE VIEW or CREATE
// TRIGGER statement, in no particular order, and the select cores they are in. In a trigger,
// NEW.col and OLD.col are columns of the trigger's table (their qualifiers are table names NEW
// and OLD), and a name of an INSERT, UPDATE or DELETE of its body is outside any select core
// (Scope -1), of that statement's table.
func Refs(sql string) ([]Ref, []Scope, error) {
	stmts, err := Parse(sql) // the checks of the adapter: the text is one supported statement
	if err != nil {
		return nil, nil, err
	}
	if len(stmts) != 1 {
		return nil, nil, errors.New("not one statement")
	}
	w := &refWalker{}
	tree, err := parseTree(sql)
	if err != nil {
		return nil, nil, err
	}
	switch s := tree.(type) {
	case *m.CreateTableStmt:
		own := s.Name.Name.Name
		w.add(s.Name.Name, RefTable, "", -1, false).Definition = true
		for _, col := range s.Columns {
			w.add(col.Name, RefColumn, own, -1, false).Definition = true
			for _, k := range col.Constraints {
				if k.Expr != nil {
					w.expr(k.Expr, own, -1)
				}
				if k.References != nil {
					w.references(k.References)
				}
			}
		}
		for _, tc := range s.Constraints {
			for _, t := range tc.Columns {
				w.expr(t.Expr, own, -1)
			}
			if tc.Expr != nil {
				w.expr(tc.Expr, own, -1)
			}
			for _, c := range tc.FKColumns {
				w.add(c.Name, RefColumn, own, -1, false).ForeignKey = true
			}
			if tc.References != nil {
				w.references(tc.References)
			}
		}
		if s.Select != nil {
			w.selectStmt(s.Select, -1)
		}
	case *m.CreateIndexStmt:
		w.add(s.Table, RefTable, "", -1, false)
		for _, t := range s.Columns {
			w.expr(t.Expr, s.Table.Name, -1)
		}
		if s.Where != nil {
			w.expr(s.Where, s.Table.Name, -1)
		}
	case *m.CreateViewStmt:
		w.selectStmt(s.Select, -1)
	case *m.CreateTriggerStmt:
		w.trigger(s)
	default:
		return nil, nil, errors.New("not a CREATE TABLE, INDEX, VIEW or TRIGGER")
	}
	return w.refs, w.scopes, nil
}

// parseTree parses one statement into meyer's tree.
func parseTree(sql string) (m.Stmt, error) {
	stmts, err := parseMeyer(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, errors.New("not one statement")
	}
	return stmts[0], nil
}

type refWalker struct {
	refs   []Ref
	scopes []Scope
}

func (w *refWalker) add(id *m.Ident, kind RefKind, table string, scope int, qual bool) *Ref {
	w.refs = append(w.refs, Ref{Start: id.Pos(), End: id.End(), Kind: kind, Name: id.Name, Table: table,
		Scope: scope, Qualifier: qual})
	return &w.refs[len(w.refs)-1]
}

func (w *refWalker) references(fk *m.ForeignKeyClause) {
	w.add(fk.Table, RefTable, "", -1, false)
	for _, c := range fk.Columns {
		w.add(c.Name, RefColumn, fk.Table.Name, -1, false)
	}
}

// expr collects the names of an expression; table is the table unqualified columns belong to
// outside a SELECT ("" inside one), scope the select core it is in.
func (w *refWalker) expr(n m.Node, table string, scope int) {
	switch e := n.(type) {
	case nil:
		return
	case *m.Ident:
		w.add(e, RefColumn, table, scope, false)
		return
	case *m.QualifiedRef:
		parts := e.Parts
		if len(parts) == 3 {
			parts = parts[1:]
		}
		if len(parts) == 2 {
			w.add(parts[0], RefTable, "", scope, true)
			w.add(parts[1], RefColumn, parts[0].Name, scope, false)
		}
		return
	case *m.Star:
		if e.Table != nil {
			w.add(e.Table, RefTable, "", scope, true)
		}
		return
	case *m.FuncCall:
		for _, a := range e.Args {
			w.expr(a, table, scope)
		}
		for _, o := range e.OrderBy {
			w.expr(o.Expr, table, scope)
		}
		w.expr(e.Filter, table, scope)
		return
	case *m.CollateExpr:
		w.expr(e.X, table, scope)
		return
	case *m.CastExpr:
		w.expr(e.X, table, scope)
		return
	case *m.SelectStmt:
		w.selectStmt(e, scope)
		return
	case *m.InExpr:
		w.expr(e.X, table, scope)
		for _, x := range e.List {
			w.expr(x, table, scope)
		}
		if e.Select != nil {
			w.selectStmt(e.Select, scope)
		}
		if e.Table != nil {
			w.add(e.Table.Name, RefTable, "", scope, false)
		}
		return
	}
	for _, c := range n.Children() {
		if isNilNode(c) {
			continue
		}
		w.expr(c, table, scope)
	}
}

// selectStmt collects the names of a SELECT whose enclosing core is parent.
func (w *refWalker) selectStmt(s *m.SelectStmt, parent int) {
	if s.With != nil {
		for _, c := range s.With.CTEs {
			w.selectStmt(c.Select, parent)
		}
	}
	for _, core := range s.Cores {
		switch c := core.(type) {
		case *m.SelectQuery:
			sc := len(w.scopes)
			w.scopes = append(w.scopes, Scope{Parent: parent})
			w.from(c.From, sc, parent)
			for _, rc := range c.Columns {
				w.expr(rc.Expr, "", sc)
			}
			w.expr(c.Where, "", sc)
			for _, g := range c.GroupBy {
				w.expr(g, "", sc)
			}
			w.expr(c.Having, "", sc)
			for _, o := range c.OrderBy {
				w.expr(o.Expr, "", sc)
			}
			if c.Limit != nil {
				w.expr(c.Limit, "", sc)
			}
		case *m.ValuesClause:
			for _, row := range c.Rows {
				for _, x := range row {
					w.expr(x, "", parent)
				}
			}
		}
	}
}

// from collects the items of a FROM clause into scope sc.
func (w *refWalker) from(items []*m.TableRef, sc, parent int) {
	for _, t := range items {
		src := Source{}
		if t.Alias != nil {
			src.Alias = t.Alias.Name
		}
		switch {
		case t.Name != nil:
			src.Table = t.Name.Name.Name
			w.add(t.Name.Name, RefTable, "", sc, false)
		case t.Select != nil:
			w.selectStmt(t.Select, parent)
		case t.List != nil:
			w.from(t.List, sc, parent)
		}
		if t.Name != nil || t.Select != nil {
			w.scopes[sc].Sources = append(w.scopes[sc].Sources, src)
		}
		w.expr(t.On, "", sc)
		for _, u := range t.Using {
			w.add(u, RefColumn, "", sc, false)
		}
	}
}

func parseMeyer(sql string) ([]m.Stmt, error) { return parser.ParseString(sql) }

// isNilNode reports whether n is nil or a typed nil pointer (meyer's Children lists hold them).
func isNilNode(n m.Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// IsKeyword reports whether s is one of SQLite's keywords (so that it must be quoted to be a
// name).
func IsKeyword(s string) bool { return token.Lookup(s) != token.ID }

// ColumnSpans returns, for a CREATE TABLE text, the byte range of each column definition (from
// its name to the end of its last constraint), and after, the offset of the first token after
// the last definition: the comma before the table constraints, or the closing parenthesis.
func ColumnSpans(sql string) (spans [][2]int, after int, err error) {
	tree, err := parseTree(sql)
	if err != nil {
		return nil, 0, err
	}
	s, ok := tree.(*m.CreateTableStmt)
	if !ok || len(s.Columns) == 0 {
		return nil, 0, errors.New("not a CREATE TABLE with columns")
	}
	for _, c := range s.Columns {
		spans = append(spans, [2]int{c.Pos(), c.End()})
	}
	after = skipSpace(sql, spans[len(spans)-1][1])
	return spans, after, nil
}

// skipSpace returns the offset of the first byte at or after i that is not white space or part
// of a comment.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f':
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return len(s)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// trigger collects the names of a CREATE TRIGGER: its table, UPDATE OF columns, WHEN and the
// statements of its body.
func (w *refWalker) trigger(s *m.CreateTriggerStmt) {
	on := s.Table.Name.Name
	first := len(w.refs)
	defer func() {
		// NEW.col and OLD.col are columns of the trigger's table, wherever they are.
		for i := first; i < len(w.refs); i++ {
			if r := &w.refs[i]; r.Kind == RefColumn && (strings.EqualFold(r.Table, "new") || strings.EqualFold(r.Table, "old")) {
				r.Table, r.Scope = on, -1
			}
		}
	}()
	w.add(s.Table.Name, RefTable, "", -1, false)
	for _, c := range s.UpdateOf {
		w.add(c, RefColumn, on, -1, false)
	}
	w.expr(s.When, "", -1)
	for _, b := range s.Body {
		switch b := b.(type) {
		case *m.SelectStmt:
			w.selectStmt(b, -1)
		case *m.InsertStmt:
			table := b.Table.Name.Name
			w.add(b.Table.Name, RefTable, "", -1, false)
			for _, c := range b.Columns {
				w.add(c, RefColumn, table, -1, false)
			}
			if b.Select != nil {
				w.selectStmt(b.Select, -1)
			}
			for _, u := range b.Upserts {
				for _, t := range u.Target {
					w.expr(t.Expr, table, -1)
				}
				w.expr(u.TargetWhere, table, -1)
				w.setPairs(u.Set, table)
				w.expr(u.Where, table, -1)
			}
		case *m.UpdateStmt:
			table := b.Table.Name.Name
			w.add(b.Table.Name, RefTable, "", -1, false)
			w.setPairs(b.Set, table)
			w.expr(b.Where, table, -1)
		case *m.DeleteStmt:
			table := b.Table.Name.Name
			w.add(b.Table.Name, RefTable, "", -1, false)
			w.expr(b.Where, table, -1)
		}
	}
}

// setPairs collects the names of SET col = expr, ... of an UPDATE or upsert of table.
func (w *refWalker) setPairs(sets []*m.SetPair, table string) {
	for _, p := range sets {
		for _, c := range p.Columns {
			w.add(c, RefColumn, table, -1, false)
		}
		w.expr(p.Value, table, -1)
	}
}

package parse

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

func (c *converter) createTable(s *m.CreateTableStmt) (ast.Stmt, error) {
	name, err := c.name(s.Name)
	if err != nil {
		return nil, err
	}
	out := &ast.CreateTable{At: pos(s), Temp: s.Temp, Name: name, IfNotExists: s.IfNotExists, SQL: c.stmtText(s)}
	for _, o := range s.Options {
		switch {
		case o.Without && equalFold(o.Name.Name, "rowid"):
			out.WithoutRowid = true
		default:
			return nil, c.unsupported(o, "table option "+c.text(o))
		}
	}
	if s.Select != nil {
		if out.AsSelect, err = c.selectStmt(s.Select); err != nil {
			return nil, err
		}
		return out, nil
	}
	for _, col := range s.Columns {
		def, err := c.columnDef(col)
		if err != nil {
			return nil, err
		}
		out.Columns = append(out.Columns, def)
	}
	for _, tc := range s.Constraints {
		con, err := c.tableConstraint(tc)
		if err != nil {
			return nil, err
		}
		out.Constraints = append(out.Constraints, con)
	}
	out.ForeignKeys = foreignKeys(s)
	return out, nil
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// declType returns a column's declared type as SQLite keeps it (sqlite3AddColumn): the text as
// written, "varchar( 10 )", without the quotes around it when it is one quoted token
// (sqlite3DequoteToken). The affinity and the INTEGER PRIMARY KEY rule read this text:
// "INTEGER(10) PRIMARY KEY" is no rowid alias.
func declType(tn *m.TypeName) string {
	t := strings.TrimSpace(tn.Raw)
	if len(t) < 2 || !isQuote(t[0]) {
		return t
	}
	for i := 1; i < len(t)-1; i++ {
		if isQuote(t[i]) {
			return t
		}
	}
	return t[1 : len(t)-1]
}

// isQuote reports whether b opens a quoted token in SQLite.
func isQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' || b == '[' }

func (c *converter) columnDef(col *m.ColumnDef) (ast.ColumnDef, error) {
	def := ast.ColumnDef{Name: col.Name.Name}
	if col.Type != nil {
		def.Type = declType(col.Type)
	}
	for _, k := range col.Constraints {
		switch k.Kind {
		case m.ColumnNull:
		case m.ColumnNotNull:
			def.NotNull, def.NotNullConf = true, ast.Conflict(k.OnConflict)
		case m.ColumnPrimaryKey:
			def.PrimaryKey, def.PKDesc, def.AutoInc = true, k.Order == m.SortDesc, k.AutoIncrement
			def.PKConflict = ast.Conflict(k.OnConflict)
		case m.ColumnUnique:
			def.Unique, def.UniqueConf = true, ast.Conflict(k.OnConflict)
		case m.ColumnCheck:
			x, err := c.expr(k.Expr)
			if err != nil {
				return def, err
			}
			chk := ast.Check{Expr: x, Text: c.text(unparen(k.Expr))}
			if k.Name != nil {
				chk.Name = k.Name.Name
			}
			def.Checks = append(def.Checks, chk)
		case m.ColumnDefault:
			x, err := c.expr(k.Expr)
			if err != nil {
				return def, err
			}
			def.Default, def.DefaultSet, def.DefaultText = x, true, c.text(unparen(k.Expr))
		case m.ColumnCollate:
			def.Collation = k.Collation.Name
		case m.ColumnReferences, m.ColumnDeferrable:
			// FOREIGN KEY clauses are parsed and not enforced, as SQLite does by default
			// (PRAGMA foreign_keys is off).
		case m.ColumnGenerated:
			x, err := c.expr(k.Expr)
			if err != nil {
				return def, err
			}
			def.Generated = x
			def.Stored = k.GeneratedKind != nil && equalFold(k.GeneratedKind.Name, "stored")
		}
	}
	return def, nil
}

func (c *converter) tableConstraint(tc *m.TableConstraint) (ast.TableConstraint, error) {
	out := ast.TableConstraint{Conflict: ast.Conflict(tc.OnConflict)}
	if tc.Name != nil {
		out.Name = tc.Name.Name
	}
	switch tc.Kind {
	case m.TablePrimaryKey, m.TableUnique:
		out.Kind = ast.PrimaryKey
		if tc.Kind == m.TableUnique {
			out.Kind = ast.UniqueKey
		}
		cols, err := c.indexedColumns(tc.Columns, false)
		if err != nil {
			return out, err
		}
		out.Columns, out.AutoInc = cols, tc.AutoIncrement
	case m.TableCheck:
		out.Kind = ast.CheckConstraint
		x, err := c.expr(tc.Expr)
		if err != nil {
			return out, err
		}
		out.Check = &ast.Check{Expr: x, Text: c.text(unparen(tc.Expr)), Name: out.Name}
	case m.TableForeignKey:
		out.Kind = ast.CheckConstraint // not enforced: see columnDef; Check stays nil
	}
	return out, nil
}

// indexedTerm starts the column of an index, constraint or ON CONFLICT target from its term: the
// position, direction and COLLATE; it returns the expression under the COLLATE.
func indexedTerm(t *m.OrderingTerm) (ast.IndexedColumn, m.Expr) {
	col := ast.IndexedColumn{At: pos(t), Desc: t.Order == m.SortDesc}
	e := t.Expr
	if coll, ok := e.(*m.CollateExpr); ok {
		col.Collation = coll.Name.Name
		e = coll.X
	}
	return col, e
}

// indexedColumns converts the columns of an index, PRIMARY KEY or UNIQUE clause: each a column
// name, or for an index (exprs set) an expression, with an optional COLLATE and direction. A
// string literal names a column, as in SQLite.
func (c *converter) indexedColumns(terms []*m.OrderingTerm, exprs bool) ([]ast.IndexedColumn, error) {
	var out []ast.IndexedColumn
	for _, t := range terms {
		col, e := indexedTerm(t)
		id, isIdent := unparen(e).(*m.Ident)
		lit, isLit := unparen(e).(*m.Literal)
		switch {
		case isIdent:
			col.Name = id.Name
		case isLit && lit.Kind == m.LitString:
			col.Name = lit.Value
		case !exprs:
			return nil, c.errorf(t, "expressions prohibited in PRIMARY KEY and UNIQUE constraints")
		default:
			x, err := c.expr(e)
			if err != nil {
				return nil, err
			}
			col.Expr = x
		}
		out = append(out, col)
	}
	return out, nil
}

func (c *converter) createIndex(s *m.CreateIndexStmt) (ast.Stmt, error) {
	name, err := c.name(s.Name)
	if err != nil {
		return nil, err
	}
	cols, err := c.indexedColumns(s.Columns, true)
	if err != nil {
		return nil, err
	}
	out := &ast.CreateIndex{At: pos(s), Name: name, Table: s.Table.Name, Unique: s.Unique,
		IfNotExists: s.IfNotExists, Columns: cols, SQL: c.stmtText(s)}
	if s.Where != nil {
		if out.Where, err = c.expr(s.Where); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *converter) createView(s *m.CreateViewStmt) (ast.Stmt, error) {
	name, err := c.name(s.Name)
	if err != nil {
		return nil, err
	}
	sel, err := c.selectStmt(s.Select)
	if err != nil {
		return nil, err
	}
	out := &ast.CreateView{At: pos(s), Temp: s.Temp, Name: name, IfNotExists: s.IfNotExists, Select: sel, SQL: c.stmtText(s)}
	for _, col := range s.Columns {
		out.Columns = append(out.Columns, col.Name.Name)
	}
	return out, nil
}

func (c *converter) alterTable(s *m.AlterTableStmt) (ast.Stmt, error) {
	name, err := c.name(s.Table)
	if err != nil {
		return nil, err
	}
	out := &ast.AlterTable{At: pos(s), Table: name}
	switch s.Action {
	case m.AlterRenameTable:
		out.Kind, out.NewName = ast.RenameTable, s.NewName.Name
	case m.AlterRenameColumn:
		out.Kind, out.Column, out.NewName = ast.RenameColumn, s.Column.Name, s.NewName.Name
	case m.AlterDropColumn:
		out.Kind, out.Column = ast.DropColumn, s.Column.Name
	case m.AlterAddColumn:
		def, err := c.columnDef(s.ColumnDef)
		if err != nil {
			return nil, err
		}
		out.Kind, out.Def = ast.AddColumn, &def
		out.DefSQL = strings.TrimRight(c.text(s.ColumnDef), "; \t\r\n")
	default:
		what := map[m.AlterAction]string{m.AlterDropConstraint: "DROP CONSTRAINT",
			m.AlterDropNotNull: "ALTER COLUMN ... DROP NOT NULL", m.AlterSetNotNull: "ALTER COLUMN ... SET NOT NULL",
			m.AlterAddConstraintCheck: "ADD CHECK"}[s.Action]
		return nil, c.unsupported(s, "ALTER TABLE ... "+what)
	}
	return out, nil
}

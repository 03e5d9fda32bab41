package parse

import (
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	m "github.com/sqlc-dev/meyer/ast"
)

// foreignKeys collects the REFERENCES clauses of the columns and the FOREIGN KEY constraints
// of CREATE TABLE, in the order SQLite numbers them: the columns' first, in column order, then
// the constraints'.
func foreignKeys(s *m.CreateTableStmt) []ast.ForeignKey {
	var out []ast.ForeignKey
	for _, col := range s.Columns {
		for i, k := range col.Constraints {
			if k.Kind == m.ColumnReferences && k.References != nil {
				// The parser keeps a column's DEFERRABLE clause as a constraint of its own,
				// right after the REFERENCES it belongs to.
				d := k.Deferrable
				if d == nil && i+1 < len(col.Constraints) && col.Constraints[i+1].Kind == m.ColumnDeferrable {
					d = col.Constraints[i+1].Deferrable
				}
				out = append(out, foreignKey([]string{col.Name.Name}, k.References, d))
			}
		}
	}
	for _, tc := range s.Constraints {
		if tc.Kind != m.TableForeignKey || tc.References == nil {
			continue
		}
		var cols []string
		for _, ic := range tc.FKColumns {
			cols = append(cols, ic.Name.Name)
		}
		out = append(out, foreignKey(cols, tc.References, tc.Deferrable))
	}
	return out
}

func foreignKey(cols []string, r *m.ForeignKeyClause, d *m.DeferClause) ast.ForeignKey {
	fk := ast.ForeignKey{Columns: cols, Table: r.Table.Name, OnDelete: "NO ACTION", OnUpdate: "NO ACTION", Match: "NONE"}
	for _, c := range r.Columns {
		fk.RefColumns = append(fk.RefColumns, c.Name.Name)
	}
	for _, a := range r.Args {
		switch {
		case a.Match != nil:
			fk.Match = strings.ToUpper(a.Match.Name)
		case strings.EqualFold(a.Event, "DELETE"):
			fk.OnDelete = fkAction(a.Action)
		case strings.EqualFold(a.Event, "UPDATE"):
			fk.OnUpdate = fkAction(a.Action)
		}
	}
	fk.Deferred = d != nil && !d.Not && d.InitiallyDeferred
	return fk
}

func fkAction(a m.ForeignKeyAction) string {
	switch a {
	case m.FKSetNull:
		return "SET NULL"
	case m.FKSetDefault:
		return "SET DEFAULT"
	case m.FKCascade:
		return "CASCADE"
	case m.FKRestrict:
		return "RESTRICT"
	}
	return "NO ACTION"
}

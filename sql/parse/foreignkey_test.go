package parse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/sql/ast"
)

// TestForeignKeyDeferrable: DEFERRABLE INITIALLY DEFERRED reaches the foreign key on a column
// (where the parser keeps it as a constraint of its own) and on a table constraint; other
// forms leave the key immediate.
func TestForeignKeyDeferrable(t *testing.T) {
	for sql, want := range map[string]bool{
		"CREATE TABLE c(a REFERENCES p DEFERRABLE INITIALLY DEFERRED)":                   true,
		"CREATE TABLE c(a REFERENCES p ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED)": true,
		"CREATE TABLE c(a, FOREIGN KEY(a) REFERENCES p DEFERRABLE INITIALLY DEFERRED)":   true,
		"CREATE TABLE c(a REFERENCES p DEFERRABLE INITIALLY IMMEDIATE)":                  false,
		"CREATE TABLE c(a REFERENCES p NOT DEFERRABLE INITIALLY DEFERRED)":               false,
		"CREATE TABLE c(a REFERENCES p DEFERRABLE)":                                      false,
		"CREATE TABLE c(a REFERENCES p)":                                                 false,
	} {
		stmts, err := Parse(sql)
		require.NoError(t, err, sql)
		fks := stmts[0].Stmt.(*ast.CreateTable).ForeignKeys
		require.Len(t, fks, 1, sql)
		require.Equal(t, want, fks[0].Deferred, sql)
	}
}

package cairnsql_test

import (
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/cairndb/cairn/cairnsql"
	"github.com/cairndb/cairn/internal/slt"
)

// openMemory returns a fresh private in-memory database.
func openMemory(t *testing.T) *sql.DB {
	db, err := sql.Open("cairn", ":memory:")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// TestSQLLogic runs the sqllogictest corpus (testdata/slt, SOURCE.txt says where it comes from)
// on cairn, each file on a fresh database; every record must give SQLite's result.
func TestSQLLogic(t *testing.T) {
	slt.RunDir(t, "../testdata/slt", openMemory, slt.Options{MaxFailures: 5})
}

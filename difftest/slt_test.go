package difftest

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/cairndb/cairn/internal/slt"
)

// corpus is the sqllogictest corpus of the repository.
const corpus = "../testdata/slt"

// openSQLite returns a fresh SQLite database in a file of t's temporary directory, set up as
// SQLite's harness sets up its own (PRAGMA synchronous=OFF).
func openSQLite(t *testing.T) *sql.DB {
	dsn := "file:" + filepath.Join(t.TempDir(), "slt.db") + "?_pragma=synchronous(OFF)"
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// TestSLTOnSQLite runs the whole corpus on modernc.org/sqlite, the engine it was written for:
// every record must pass, which validates the runner.
func TestSLTOnSQLite(t *testing.T) {
	slt.RunDir(t, corpus, openSQLite, slt.Options{})
}

// TestSLTOnSQLiteCanFail proves that the corpus run can fail: each change to select1.test below
// must fail its record on SQLite, and the unchanged file passes.
func TestSLTOnSQLiteCanFail(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(corpus, "select1.test"))
	require.NoError(t, err)
	for _, c := range []struct {
		name     string
		old, new string
		line     int // the failing record's command line
		message  string
	}{
		{"none", "", "", 0, ""},
		{"hash", "30 values hashing to 3c13dee48d9356ae19af2515e05e6b54",
			"30 values hashing to 3c13dee48d9356ae19af2515e05e6b55", 94, "wrong result hash"},
		{"nosort order", " ORDER BY 1,2\n----\n60 values hashing to 808146289313018fce25f1a280bd8c30",
			" ORDER BY 1 DESC, 2\n----\n60 values hashing to 808146289313018fce25f1a280bd8c30", 101, "wrong result hash"},
		{"value", " ORDER BY 1\n----\n1000\n1180\n", " ORDER BY 1\n----\n1000\n1181\n", 395,
			`value 2 is "1180", expected "1181"`},
		{"statement", "INSERT INTO t1(e,c,b,d,a) VALUES(103,102,100,101,104)",
			"INSERT INTO t1(e,c,b,d,a,f) VALUES(103,102,100,101,104,0)", 4, "statement error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.True(t, bytes.Contains(orig, []byte(c.old)), "the change applies (to the first occurrence)")
			path := filepath.Join(t.TempDir(), "select1.test")
			require.NoError(t, os.WriteFile(path, bytes.Replace(orig, []byte(c.old), []byte(c.new), 1), 0o644))
			res, err := slt.RunFile(context.Background(), openSQLite(t), path, slt.Options{})
			require.NoError(t, err)
			if c.line == 0 {
				require.Zero(t, res.Failed(), "%v", res.Failures)
				return
			}
			// A missing row makes later queries differ too, so only the first failure is
			// pinned down, and only the row-free changes must fail alone.
			require.NotEmpty(t, res.Failures)
			require.Equal(t, c.line, res.Failures[0].Line)
			require.Contains(t, res.Failures[0].Message, c.message)
			if c.name != "statement" {
				require.Equal(t, 1, res.Failed(), "%v", res.Failures)
			}
		})
	}
}

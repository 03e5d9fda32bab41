package cairn

// Tests of what errors say (issue 27): each message names what is wrong once, gives the numbers
// of a limit, and still matches its sentinel with errors.Is.

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// newTestDB opens a new database in a temporary directory, closed at the end of the test.
func newTestDB(t *testing.T, opts *Options) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := Open(path, opts)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, path
}

func TestTooLargeErrorsGiveTheSizes(t *testing.T) {
	db, _ := newTestDB(t, nil)
	key := bytes.Repeat([]byte{'k'}, 20480)
	tests := []struct {
		name string
		fn   func(tx *Tx) error
		want string
		is   error
	}{
		{"key", func(tx *Tx) error { return tx.Put(key, []byte("v")) },
			"cairn: key of 20,480 bytes is larger than the 16,384-byte limit", ErrKeyTooLarge},
		{"key of Delete", func(tx *Tx) error { return tx.Delete(key[:MaxKeySize+1]) },
			"cairn: key of 16,385 bytes is larger than the 16,384-byte limit", ErrKeyTooLarge},
		{"value", func(tx *Tx) error { return tx.Put([]byte("k"), make([]byte, MaxValueSize+1)) },
			"cairn: value of 268,435,457 bytes is larger than the 268,435,456-byte limit", ErrValueTooLarge},
		{"bucket name", func(tx *Tx) error { _, err := tx.CreateBucket(key); return err },
			"cairn: bucket name of 20,480 bytes is larger than the 16,384-byte limit", ErrKeyTooLarge},
		{"bucket name of Bucket", func(tx *Tx) error { _, err := tx.Bucket(key); return err },
			"cairn: bucket name of 20,480 bytes is larger than the 16,384-byte limit", ErrKeyTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := db.Update(tc.fn)
			require.EqualError(t, err, tc.want)
			require.ErrorIs(t, err, tc.is)
		})
	}
	// A key of exactly the limit is accepted.
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put(key[:MaxKeySize], nil) }))
}

func TestTooLargeTransactionGivesTheSizes(t *testing.T) {
	db, _ := newTestDB(t, nil)
	defer func(old int) { maxTxSize = old }(maxTxSize)
	maxTxSize = 1 << 20
	var size int
	err := db.Update(func(tx *Tx) error {
		for i := range 3 {
			if err := tx.Put([]byte{'k', byte(i)}, make([]byte, 400<<10)); err != nil {
				return err
			}
		}
		size = len(tx.redo)
		return nil
	})
	require.ErrorIs(t, err, ErrTxTooLarge)
	require.EqualError(t, err, "cairn: transaction of "+commas(size)+" bytes is larger than the 1,048,576-byte limit")
	require.Greater(t, size, 3*400<<10)
}

func TestCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 16384: "16,384",
		100000: "100,000", 1073741824: "1,073,741,824", -1234: "-1,234", -123: "-123"} {
		require.Equal(t, want, commas(n), "%d", n)
	}
}

// packageDoc returns the documentation of the root package as go doc reads it.
func packageDoc(t *testing.T) (*doc.Package, *token.FileSet) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/cairndb/cairn")
	require.NoError(t, err)
	return p, fset
}

// TestLimitsShowTheirNumbersInGoDoc: `go doc cairn.MaxTxSize` shows the numbers of the limits.
func TestLimitsShowTheirNumbersInGoDoc(t *testing.T) {
	p, fset := packageDoc(t)
	var text string
	for _, c := range p.Consts {
		if len(c.Names) > 0 && c.Names[0] == "MaxKeySize" {
			var b strings.Builder
			require.NoError(t, printer.Fprint(&b, fset, c.Decl))
			text = strings.Join(strings.Fields(c.Doc+b.String()), " ")
		}
	}
	for _, want := range []string{"MaxKeySize = 16384", "MaxValueSize = 268435456", "MaxTxSize = 1073741824",
		"16 KiB", "256 MiB", "1 GiB"} {
		require.Contains(t, text, want)
	}
	require.Equal(t, 16384, MaxKeySize)
	require.Equal(t, 256<<20, MaxValueSize)
	require.Equal(t, 1<<30, MaxTxSize)
}

// TestOpenDocNamesTheFiles: `go doc cairn.Open` names both WAL files, says an empty file is made
// a database, and tells the errors.
func TestOpenDocNamesTheFiles(t *testing.T) {
	p, _ := packageDoc(t)
	var text string
	funcs := p.Funcs
	for _, typ := range p.Types {
		funcs = append(funcs, typ.Funcs...) // constructors: Open is listed under DB
	}
	for _, f := range funcs {
		if f.Name == "Open" {
			text = strings.Join(strings.Fields(f.Doc), " ")
		}
	}
	for _, want := range []string{`path+"-wal"`, `path+"-wal2"`, "An empty file at path is made a new database",
		"ErrLocked", "ErrCorrupt", "ErrNotDatabase", "Options.ReadOnly"} {
		require.Contains(t, text, want)
	}
}

// TestEmptyFileIsMadeADatabase: as Open's doc says, an empty file becomes a new database (and a
// read-only open refuses it).
func TestEmptyFileIsMadeADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
	require.NoError(t, db.Close())
	for _, wal := range []string{path + "-wal", path + "-wal2"} {
		require.FileExists(t, wal)
	}
	db, err = Open(path, &Options{ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, db.Close())
}

package slt

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A scripted database/sql driver: each SQL text has a fixed answer. It lets the runner's judging
// be tested without an SQL engine in this module.

// answer is what the fake database does with one SQL text.
type answer struct {
	prepErr error    // Prepare fails
	execErr error    // the statement fails when run; a query fails after its rows
	cols    []string // query columns
	rows    [][]driver.Value
}

type fakeDB struct {
	answers map[string]answer
	ran     []string // SQL texts run, in order
}

func (d *fakeDB) Connect(context.Context) (driver.Conn, error) { return &fakeConn{d}, nil }
func (d *fakeDB) Driver() driver.Driver                        { return nil }

type fakeConn struct{ db *fakeDB }

func (c *fakeConn) Prepare(query string) (driver.Stmt, error) {
	a, ok := c.db.answers[query]
	if !ok {
		return nil, errors.New("fake: no answer for " + query)
	}
	if a.prepErr != nil {
		return nil, a.prepErr
	}
	return &fakeStmt{c.db, query, a}, nil
}
func (c *fakeConn) Close() error              { return nil }
func (c *fakeConn) Begin() (driver.Tx, error) { return nil, errors.New("fake: no transactions") }

type fakeStmt struct {
	db    *fakeDB
	query string
	a     answer
}

func (s *fakeStmt) Close() error  { return nil }
func (s *fakeStmt) NumInput() int { return 0 }
func (s *fakeStmt) Exec([]driver.Value) (driver.Result, error) {
	s.db.ran = append(s.db.ran, s.query)
	if s.a.execErr != nil {
		return nil, s.a.execErr
	}
	return driver.RowsAffected(0), nil
}
func (s *fakeStmt) Query([]driver.Value) (driver.Rows, error) {
	s.db.ran = append(s.db.ran, s.query)
	return &fakeRows{a: s.a}, nil
}

type fakeRows struct {
	a answer
	i int
}

func (r *fakeRows) Columns() []string { return r.a.cols }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.i == len(r.a.rows) {
		if r.a.execErr != nil {
			return r.a.execErr
		}
		return io.EOF
	}
	copy(dest, r.a.rows[r.i])
	r.i++
	return nil
}

// rows builds query answers: n columns, values in row-major order.
func rows(n int, vals ...driver.Value) answer {
	a := answer{cols: make([]string, n)}
	for i := 0; i < len(vals); i += n {
		a.rows = append(a.rows, vals[i:i+n])
	}
	return a
}

// fakeAnswers answers every SQL text of testFile.
func fakeAnswers() map[string]answer {
	ten := make([]driver.Value, 10)
	for i := range ten {
		ten[i] = int64(i)
	}
	return map[string]answer{
		"CREATE TABLE t(a, b)":       {},
		"INSERT INTO nowhere":        {execErr: errors.New("no such table: nowhere")},
		"SELECT a, b FROM t":         rows(2, int64(2), "x", int64(1), nil),
		"SELECT b, a FROM t":         rows(2, "x", 2.5, nil, int64(1)),
		"SELECT a FROM t":            rows(1, int64(2), int64(1)),
		"SELECT a FROM t AS u":       rows(1, int64(2), int64(1)),
		"SELECT a FROM t ORDER BY a": rows(1, int64(1), int64(2)),
		"SELECT ten":                 rows(1, ten...),
		"SELECT ten DESC":            rows(1, ten[9], ten[8], ten[7], ten[6], ten[5], ten[4], ten[3], ten[2], ten[1], ten[0]),
		"SELECT overflow":            {cols: []string{"sum"}, execErr: errors.New("integer overflow")},
		"SELECT 'after halt'":        rows(1, "no"),
	}
}

// testFile exercises every record kind and rule; every record passes on fakeAnswers.
const testFile = `# A crafted file
statement ok
CREATE TABLE t(a, b)

statement error
INSERT INTO nowhere

query IT rowsort
SELECT a, b FROM t
----
1
NULL
2
x

query TR valuesort
SELECT b, a FROM t
----
1.000
2.500
NULL
x

query I nosort label-a
SELECT a FROM t
----
2
1

# valuesort reorders: the label compares the sorted values
query I valuesort label-b
SELECT a FROM t AS u
----
1
2

query I nosort label-b
SELECT a FROM t ORDER BY a
----
1
2

skipif sqlite
statement ok
DROP TABLE t

onlyif mysql
query I nosort label-b
SELECT a FROM t WHERE mysql
----
1
2

query I rowsort
SELECT ten
----
10 values hashing to e20b902b49a98b1a05ed62804c757f94

hash-threshold 0

query I nosort
SELECT ten DESC
----
9
8
7
6
5
4
3
2
1
0

onlyif mssql
halt

query I nosort
SELECT overflow
----

onlyif sqlite
halt

query T nosort
SELECT 'after halt'
----
no
`

// run writes file into a temporary directory and runs it on a fake database with answers.
func run(t *testing.T, file string, answers map[string]answer) (Result, *fakeDB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.test")
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	fake := &fakeDB{answers: answers}
	db := sql.OpenDB(fake)
	defer db.Close()
	res, err := RunFile(context.Background(), db, path, Options{MaxFailures: -1})
	require.NoError(t, err)
	return res, fake
}

func TestRunFilePasses(t *testing.T) {
	res, fake := run(t, testFile, fakeAnswers())
	require.Empty(t, res.Failures)
	require.Equal(t, Tally{Run: 2, Passed: 2, Skipped: 1}, res.Statements)
	require.Equal(t, Tally{Run: 8, Passed: 8, Skipped: 1}, res.Queries)
	require.Equal(t, Tally{Run: 2, Passed: 2, Skipped: 1}, res.Controls) // hash-threshold, halt; skipped halt
	require.True(t, res.Halted)
	require.Equal(t, 1, res.ExecErrors)
	require.Equal(t, 0, res.Failed())
	require.NotContains(t, fake.ran, "DROP TABLE t")
	require.NotContains(t, fake.ran, "SELECT 'after halt'")
	require.Contains(t, res.String(), "f.test: 15 records, 12 passed, 0 failed, 3 skipped")
}

// TestRunFileFails proves the runner can fail: each case changes one answer or one expectation of
// the passing file, and exactly that record must fail.
func TestRunFileFails(t *testing.T) {
	for _, c := range []struct {
		name    string
		answer  string // SQL whose answer changes
		to      answer
		file    [2]string // or: replace file text [0] by [1]
		line    int
		message string
	}{
		{name: "wrong value rendered", answer: "SELECT a, b FROM t", to: rows(2, int64(2), "y", int64(1), nil),
			line: 8, message: `wrong result: value 4 is "y", expected "x"`},
		{name: "real rendered wrong", answer: "SELECT b, a FROM t", to: rows(2, "x", 2.4994, nil, int64(1)),
			line: 16, message: `wrong result: value 2 is "2.499", expected "2.500"`},
		{name: "extra row", answer: "SELECT a FROM t ORDER BY a", to: rows(1, int64(1), int64(2), int64(3)),
			line: 37, message: "labeled result [label-b] does not agree with previous values"},
		{name: "missing row", answer: "SELECT a, b FROM t", to: rows(2, int64(2), "x"),
			line: 8, message: "wrong result: 2 values, expected 4"},
		{name: "hashed value wrong", answer: "SELECT ten", to: rows(1, int64(0), int64(1), int64(2), int64(3),
			int64(4), int64(5), int64(6), int64(7), int64(8), int64(10)), line: 54, message: "wrong result hash"},
		{name: "statement fails", answer: "CREATE TABLE t(a, b)", to: answer{execErr: errors.New("boom")},
			line: 2, message: "statement error"},
		{name: "statement succeeds", answer: "INSERT INTO nowhere", to: answer{},
			line: 5, message: "statement ok"},
		{name: "prepare fails", answer: "SELECT a FROM t", to: answer{prepErr: errors.New("no such table: t")},
			line: 24, message: "query failed"},
		{name: "column count", answer: "SELECT a FROM t", to: rows(2, int64(2), int64(1)),
			line: 24, message: "query failed"},
		{name: "label",
			file: [2]string{"query I valuesort label-b", "query I valuesort label-a"},
			line: 31, message: "labeled result [label-a] does not agree"},
		{name: "skipped label", file: [2]string{"SELECT a FROM t WHERE mysql\n----\n1\n2", "SELECT a FROM t WHERE mysql\n----\n2\n1"},
			line: 48, message: "skipped query: labeled result [label-b] does not agree"},
		{name: "skipped hashed label", file: [2]string{"SELECT a FROM t WHERE mysql\n----\n1\n2", "SELECT a FROM t WHERE mysql\n----\n2 values hashing to 0123"},
			line: 48, message: "skipped query: labeled result [label-b] does not agree"},
		{name: "sort mode", file: [2]string{"query TR valuesort", "query TR shuffle"},
			line: 16, message: `unknown sort method "shuffle"`},
		{name: "type letter", file: [2]string{"query TR valuesort", "query TX valuesort"},
			line: 16, message: "unknown type character 'X' in type string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			answers := fakeAnswers()
			if c.answer != "" {
				answers[c.answer] = c.to
			}
			file := testFile
			if c.file[0] != "" {
				require.Contains(t, file, c.file[0])
				file = strings.Replace(file, c.file[0], c.file[1], 1)
			}
			res, _ := run(t, file, answers)
			require.Equal(t, 1, res.Failed(), "%v", res.Failures)
			require.Len(t, res.Failures, 1)
			f := res.Failures[0]
			require.Equal(t, c.line, f.Line)
			require.Contains(t, f.Message, c.message)
			require.Contains(t, f.String(), filepath.Base(res.File)+":")
			require.True(t, res.Halted, "the file runs on after a failure")
		})
	}
}

func TestRunFileStops(t *testing.T) {
	// An unknown record kind and a query without types end the file, as in the harness.
	for _, bad := range []string{"frobnicate\n", "query\nSELECT 1\n----\n1\n"} {
		res, fake := run(t, "statement ok\nCREATE TABLE t(a, b)\n\n"+bad+"\nstatement ok\nCREATE TABLE t(a, b)\n", fakeAnswers())
		require.Equal(t, 1, res.Failed())
		require.Equal(t, []string{"CREATE TABLE t(a, b)"}, fake.ran)
	}
	// A cancelled context stops the run with its error.
	path := filepath.Join(t.TempDir(), "f.test")
	require.NoError(t, os.WriteFile(path, []byte(testFile), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunFile(ctx, sql.OpenDB(&fakeDB{answers: fakeAnswers()}), path, Options{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestMaxFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.test")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("statement ok\nINSERT INTO nowhere\n\n", 15)), 0o644))
	db := sql.OpenDB(&fakeDB{answers: fakeAnswers()})
	defer db.Close()
	res, err := RunFile(context.Background(), db, path, Options{})
	require.NoError(t, err)
	require.Equal(t, 15, res.Failed())
	require.Len(t, res.Failures, 10)
	res, err = RunFile(context.Background(), db, path, Options{MaxFailures: 3})
	require.NoError(t, err)
	require.Len(t, res.Failures, 3)
}

// TestRunDir runs a directory through the go test entry: a passing file, and a file with one
// failure that Allowed tolerates (without the allowance this test would fail).
func TestRunDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.test"), []byte(testFile), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b.test"),
		[]byte("statement ok\nINSERT INTO nowhere\n\nstatement error\nINSERT INTO nowhere\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("not a test"), 0o644))
	files, err := Files(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"a.test", "sub/b.test"}, files)
	opened := 0
	RunDir(t, dir, func(t *testing.T) *sql.DB {
		opened++
		db := sql.OpenDB(&fakeDB{answers: fakeAnswers()})
		t.Cleanup(func() { db.Close() })
		return db
	}, Options{Allowed: map[string]int{"sub/b.test": 1}})
	require.Equal(t, 2, opened, "one fresh database per file")
}

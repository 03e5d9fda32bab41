package cairnsql_test

// Bad input through database/sql: syntax errors with their position, unsupported features named,
// constraint violations in SQLite's words leaving the table unchanged, missing tables and
// columns, files that are no cairn database, and FuzzSQL: arbitrary SQL text never panics.

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/parse"
)

func TestSyntaxErrorsNameThePosition(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a)")
	tests := []struct{ sql, err string }{
		{"SELECT FROM t", `1:8: near "FROM": syntax error`},
		{"SELEC 1", `1:1: near "SELEC": syntax error`},
		{"SELECT * FROM t WHERE", `1:22: incomplete input`},
		{"SELECT 1;\nSELECT 2 +;\n", `2:11: near ";": syntax error`},
		{"INSERT INTO t VALUES (1,)", `1:25: near ")": syntax error`},
		{"SELECT x'0g'", `1:8: unrecognized token: "x'0g'"`},
		{"SELECT 'abc", `1:8: unrecognized token: "'abc"`},
		{"CREATE TABLE (a)", `1:14: near "(": syntax error`},
		{"SELECT * FROM t\n  WHERE a = = 1", `2:13: near "=": syntax error`},
		// Parameter numbers are 1 to 32766, as in SQLite (?0 used to panic).
		{"SELECT ?0", `1:8: variable number must be between ?1 and ?32766`},
		{"SELECT 1, ?32767", `1:11: variable number must be between ?1 and ?32766`},
		{"SELECT ?99999999999999999999", `1:8: variable number must be between ?1 and ?32766`},
	}
	for _, tc := range tests {
		_, err := db.Exec(tc.sql)
		require.EqualError(t, err, tc.err, "%q", tc.sql)
		_, err = db.Prepare(tc.sql)
		require.EqualError(t, err, tc.err, "%q prepared", tc.sql)
		_, err = db.Query(tc.sql)
		require.EqualError(t, err, tc.err, "%q queried", tc.sql)
	}
	var v int
	require.NoError(t, db.QueryRow("SELECT ?32766", 1).Scan(new(any)))
	require.NoError(t, db.QueryRow("SELECT ?2", 1, 41).Scan(&v))
	require.Equal(t, 41, v)
}

func TestUnsupportedFeaturesSaySo(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a, b)", "CREATE TABLE r(x)")
	for _, q := range []string{
		"SELECT a REGEXP b FROM t",
		"CREATE TRIGGER aux.tr AFTER INSERT ON t BEGIN SELECT 1; END",
		"ATTACH 'x.db' AS x",
		"CREATE VIRTUAL TABLE v USING fts5(a)",
		"SELECT * FROM t LEFT JOIN (r JOIN t AS u ON 1) ON 1",
		"INSERT INTO t(a) VALUES (5) ON CONFLICT(a + 1) DO NOTHING",
		"ALTER TABLE t DROP CONSTRAINT c",
		"CREATE TABLE s(a INTEGER) STRICT",
		"SELECT * FROM other.t",
	} {
		_, err := db.Exec(q)
		require.ErrorContains(t, err, "unsupported: ", "%s", q)
		require.ErrorIs(t, err, parse.ErrUnsupported, "%s", q)
	}
	// Nothing changed.
	require.Equal(t, 0, count(t, db, "t"))
}

func TestConstraintViolations(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db,
		"CREATE TABLE t(id INTEGER PRIMARY KEY, a UNIQUE, b NOT NULL, c CHECK (c > 0), d, CONSTRAINT pos CHECK (d >= 0))",
		"CREATE TABLE u(x, y, UNIQUE (x, y))",
		"CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID",
		"CREATE TABLE p(k TEXT PRIMARY KEY, v)",
		"INSERT INTO t VALUES (1, 1, 1, 1, 1), (2, 2, 2, 2, 2)",
		"INSERT INTO u VALUES (1, 1)",
		"INSERT INTO w VALUES ('k', 1)",
		"INSERT INTO p VALUES ('k', 1)",
	)
	snapshot := func() string {
		var s string
		require.NoError(t, db.QueryRow(`SELECT
			(SELECT group_concat(id||','||a||','||b||','||c||','||d, ';') FROM t) || '|' ||
			(SELECT group_concat(x||','||y, ';') FROM u) || '|' ||
			(SELECT group_concat(k||','||v, ';') FROM w) || '|' ||
			(SELECT group_concat(k||','||v, ';') FROM p)`).Scan(&s))
		return s
	}
	before := snapshot()
	tests := []struct{ sql, err string }{
		{"INSERT INTO t VALUES (1, 9, 9, 9, 9)", "UNIQUE constraint failed: t.id"},
		{"INSERT INTO t VALUES (3, 1, 9, 9, 9)", "UNIQUE constraint failed: t.a"},
		{"INSERT INTO t VALUES (3, 3, NULL, 9, 9)", "NOT NULL constraint failed: t.b"},
		{"INSERT INTO t(id, a, c, d) VALUES (3, 3, 9, 9)", "NOT NULL constraint failed: t.b"},
		{"INSERT INTO t VALUES (3, 3, 3, 0, 9)", "CHECK constraint failed: c > 0"},
		{"INSERT INTO t VALUES (3, 3, 3, 3, -1)", "CHECK constraint failed: pos"},
		{"INSERT INTO t VALUES (3, 3, 3, 3, 3), (4, 4, 4, 4, 4), (5, 1, 5, 5, 5)", "UNIQUE constraint failed: t.a"},
		{"INSERT INTO u VALUES (2, 2), (1, 1)", "UNIQUE constraint failed: u.x, u.y"},
		{"INSERT INTO w VALUES ('z', 0), ('k', 2)", "UNIQUE constraint failed: w.k"},
		{"INSERT INTO w VALUES (NULL, 2)", "NOT NULL constraint failed: w.k"},
		{"INSERT INTO p VALUES ('k', 2)", "UNIQUE constraint failed: p.k"},
		{"UPDATE t SET a = 1", "UNIQUE constraint failed: t.a"},
		{"UPDATE t SET id = 1 WHERE id = 2", "UNIQUE constraint failed: t.id"},
		{"UPDATE t SET b = NULL WHERE id = 2", "NOT NULL constraint failed: t.b"},
		{"UPDATE t SET c = c - 1", "CHECK constraint failed: c > 0"},
		{"UPDATE t SET d = d - 2", "CHECK constraint failed: pos"},
		{"UPDATE u SET x = 1, y = 1 WHERE 0 = 1 OR x = 1", ""}, // the row itself: no conflict
		{"REPLACE INTO t VALUES (3, 3, NULL, 3, 3)", "NOT NULL constraint failed: t.b"},
		{"INSERT INTO t SELECT id + 10, a, b, c, d FROM t", "UNIQUE constraint failed: t.a"},
		{"INSERT INTO t VALUES ('x', 9, 9, 9, 9)", "datatype mismatch"},
	}
	for _, tc := range tests {
		_, err := db.Exec(tc.sql)
		if tc.err == "" {
			require.NoError(t, err, "%s", tc.sql)
		} else {
			require.EqualError(t, err, tc.err, "%s", tc.sql)
		}
		require.Equal(t, before, snapshot(), "%s left the tables changed", tc.sql)
	}
}

// TestUniqueConstraintsCheckedAsSQLite: with several UNIQUE constraints, SQLite checks the newest
// first, and those whose ON CONFLICT is REPLACE after all others (sqlite3CreateIndex keeps a
// table's index list so): the error names the same constraint, and an ABORT or IGNORE
// constraint is decided before a REPLACE one deletes rows. Expected results from SQLite 3.54.
func TestUniqueConstraintsCheckedAsSQLite(t *testing.T) {
	tests := []struct {
		schema []string
		insert string
		err    string
		rows   string // the table afterwards, as group_concat of a||b
	}{
		{[]string{"CREATE TABLE x(a UNIQUE ON CONFLICT IGNORE, b UNIQUE ON CONFLICT ABORT)"},
			"INSERT INTO x VALUES (1, 1)", "UNIQUE constraint failed: x.b", "11"},
		{[]string{"CREATE TABLE x(a UNIQUE ON CONFLICT REPLACE, b UNIQUE)"},
			"INSERT INTO x VALUES (1, 1)", "UNIQUE constraint failed: x.b", "11"},
		{[]string{"CREATE TABLE x(a UNIQUE, b UNIQUE ON CONFLICT REPLACE)"},
			"INSERT INTO x VALUES (1, 1)", "UNIQUE constraint failed: x.a", "11"},
		{[]string{"CREATE TABLE x(a UNIQUE, b UNIQUE)"},
			"INSERT INTO x VALUES (1, 1)", "UNIQUE constraint failed: x.b", "11"},
		{[]string{"CREATE TABLE x(a, b)", "CREATE UNIQUE INDEX x1 ON x(a)", "CREATE UNIQUE INDEX x2 ON x(b)"},
			"INSERT INTO x VALUES (1, 1)", "UNIQUE constraint failed: x.b", "11"},
		{[]string{"CREATE TABLE x(a PRIMARY KEY, b UNIQUE)"},
			"INSERT INTO x VALUES (1, 1)", "UNIQUE constraint failed: x.b", "11"},
		{[]string{"CREATE TABLE x(a UNIQUE ON CONFLICT REPLACE, b UNIQUE ON CONFLICT REPLACE)"},
			"INSERT INTO x VALUES (1, 1)", "", "11"},
		{[]string{"CREATE TABLE x(a UNIQUE ON CONFLICT IGNORE, b UNIQUE ON CONFLICT REPLACE)"},
			"INSERT INTO x VALUES (1, 2)", "", "11"},
	}
	for _, tc := range tests {
		t.Run(tc.schema[len(tc.schema)-1], func(t *testing.T) {
			db := openMemory(t)
			mustExec(t, db, tc.schema...)
			mustExec(t, db, "INSERT INTO x VALUES (1, 1)")
			_, err := db.Exec(tc.insert)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tc.err)
			}
			var rows string
			require.NoError(t, db.QueryRow("SELECT group_concat(a||b, ',') FROM x").Scan(&rows))
			require.Equal(t, tc.rows, rows)
		})
	}
}

func TestMissingTablesAndColumns(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a, b)", "CREATE VIEW v AS SELECT a FROM t")
	tests := []struct{ sql, err string }{
		{"SELECT * FROM nosuch", "no such table: nosuch"},
		{"SELECT * FROM t, nosuch", "no such table: nosuch"},
		{"SELECT (SELECT 1 FROM nosuch)", "no such table: nosuch"},
		{"INSERT INTO nosuch VALUES (1)", "no such table: nosuch"},
		{"UPDATE nosuch SET a = 1", "no such table: nosuch"},
		{"DELETE FROM nosuch", "no such table: nosuch"},
		{"DROP TABLE nosuch", "no such table: nosuch"},
		{"DROP INDEX nosuch", "no such index: nosuch"},
		{"DROP VIEW nosuch", "no such view: nosuch"},
		{"CREATE INDEX i ON nosuch(a)", "no such table: main.nosuch"},
		{"SELECT x FROM t", "no such column: x"},
		{"SELECT t.x FROM t", "no such column: t.x"},
		{"SELECT a FROM t WHERE x = 1", "no such column: x"},
		{"SELECT a FROM t ORDER BY x", "no such column: x"},
		{"SELECT b FROM v", "no such column: b"},
		{"UPDATE t SET x = 1", "no such column: x"},
		{"INSERT INTO t(x) VALUES (1)", "table t has no column named x"},
		{"CREATE INDEX i ON t(x)", "no such column: x"},
		{"SELECT nosuch(1)", "no such function: nosuch"},
		{"INSERT INTO v VALUES (1)", "cannot modify v because it is a view"},
	}
	for _, tc := range tests {
		_, err := db.Exec(tc.sql)
		require.EqualError(t, err, tc.err, "%s", tc.sql)
	}
}

// TestOpeningWhatIsNoCairnDatabase: a file that is not a cairn database, or a damaged one, gives
// an error wrapping cairn.ErrNotDatabase or cairn.ErrCorrupt at the first connect (or at the first
// read of a damaged page), and is not changed.
func TestOpeningWhatIsNoCairnDatabase(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	text := write("notes.txt", []byte(strings.Repeat("these are my notes, not a database\n", 300)))
	sqlite := write("sqlite.db", append([]byte("SQLite format 3\x00"), make([]byte, 4080)...))
	zeros := write("zeros.db", make([]byte, 8192))
	for _, path := range []string{text, sqlite, zeros} {
		orig, err := os.ReadFile(path)
		require.NoError(t, err)
		db, err := sql.Open("cairn", path)
		require.NoError(t, err)
		err = db.Ping()
		require.Error(t, err, path)
		require.True(t, errors.Is(err, cairn.ErrNotDatabase) || errors.Is(err, cairn.ErrCorrupt), "%s: %v", path, err)
		_, err = db.Exec("CREATE TABLE t(a)")
		require.Error(t, err)
		require.NoError(t, db.Close())
		now, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, orig, now, "%s was changed", path)
	}

	// A cairn database whose pages are damaged: the header survives, the tables' pages do not.
	path := filepath.Join(dir, "damaged.db")
	db, err := sql.Open("cairn", path)
	require.NoError(t, err)
	mustExec(t, db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)", "CREATE INDEX tb ON t(b)")
	tx, err := db.Begin()
	require.NoError(t, err)
	for i := range 3000 {
		_, err := tx.Exec("INSERT INTO t(b) VALUES (?)", strings.Repeat("v", i%50))
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	require.NoError(t, db.Close()) // checkpoints: everything is in the page file
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(data), 64<<10)
	for off := 16 << 10; off+16 < len(data); off += 4096 {
		copy(data[off+100:], "damaged damaged damaged!")
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))
	db, err = sql.Open("cairn", path)
	require.NoError(t, err)
	defer db.Close()
	var n int
	err = db.Ping()
	if err == nil {
		err = db.QueryRow("SELECT count(*) FROM t WHERE b <> ''").Scan(&n)
	}
	require.ErrorIs(t, err, cairn.ErrCorrupt)
}

// TestHugeResultsAreRefused: a function asked for a string or blob longer than SQLite's limit
// (SQLITE_MAX_LENGTH, 10^9 bytes) fails with SQLite's error at once instead of allocating it, and
// printf reads widths and precisions as SQLite does (32-bit, negative ones negated). Expected
// results from SQLite 3.54.
func TestHugeResultsAreRefused(t *testing.T) {
	db := openMemory(t)
	tests := []struct {
		sql  string
		want int64 // the length, or -1 for "string or blob too big"
	}{
		{"SELECT length(printf('%2000000000d', 1))", -1},
		{"SELECT length(printf('%1000000001d', 1))", -1},
		{"SELECT length(printf('%99999999999999999999d', 1))", -1},
		{"SELECT length(printf('%.*d', 2000000000, 1))", -1},
		{"SELECT length(printf('%.*c', 2000000000, 'x'))", -1},
		{"SELECT length(printf('%*d', -9223372036854775808, 1))", 1},
		{"SELECT length(printf('%*d', 2147483648, 1))", 1},
		{"SELECT length(printf('%.*c', -5, 'x'))", 5},
		{"SELECT length(printf('%-*d|', -3, 1))", 4},
		{"SELECT length(printf('%.*g', 200000000, 1.0))", 1},
		{"SELECT length(printf('%.*f', 2000000000, 1.0))", 100000002}, // precision capped at 10^8
		{"SELECT length(zeroblob(1000000001))", -1},
		{"SELECT length(hex(zeroblob(500000000)))", -1},
		{"SELECT length(hex(zeroblob(1000)))", 2000},
	}
	for _, tc := range tests {
		var n int64
		err := within(t, 20*time.Second, tc.sql, func() error { return db.QueryRow(tc.sql).Scan(&n) })
		if tc.want < 0 {
			require.EqualError(t, err, "string or blob too big", "%s", tc.sql)
			continue
		}
		require.NoError(t, err, "%s", tc.sql)
		require.Equal(t, tc.want, n, "%s", tc.sql)
	}
}

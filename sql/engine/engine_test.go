package engine_test

// Tests of the engine through its API (engine.New, Session): regression tests of the behaviours
// the differential test (difftest/) found to differ from SQLite's, each a table of statements
// and the rows SQLite returns for them.

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

// newSession returns a session on a fresh in-memory database.
func newSession(t *testing.T) *engine.Session {
	t.Helper()
	db, err := cairn.Open("mem.db", &cairn.Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	s := engine.New(db).NewSession()
	t.Cleanup(s.Close)
	return s
}

// exec runs statements that must succeed, with args bound to their parameters.
func exec(t *testing.T, s *engine.Session, sql string, args ...value.Value) engine.Result {
	t.Helper()
	res, err := s.Exec(context.Background(), sql, args)
	require.NoError(t, err, sql)
	return res
}

// query runs a query and renders its rows as SQLite's quote() would, columns joined by "|", so
// that the storage class shows: 2 is an INTEGER, 2.0 a REAL, '2' a TEXT, X'32' a BLOB (and -0.0
// the REAL negative zero, which quote() shows as 0.0).
func query(t *testing.T, s *engine.Session, sql string) ([]string, error) {
	t.Helper()
	st, err := s.Prepare(sql)
	if err != nil {
		return nil, err
	}
	rows, err := st.Query(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		parts := make([]string, len(rows.Row()))
		for i, v := range rows.Row() {
			parts[i] = string(value.AppendQuoted(nil, v))
			if v.Kind() == value.Real && v.Float() == 0 && math.Signbit(v.Float()) {
				parts[i] = "-0.0" // quote() does not show the sign
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, rows.Err()
}

// queryCase is a query and what SQLite returns for it: rows, or an error (containing errText).
type queryCase struct {
	sql     string
	want    []string
	errText string
}

// runCases runs each case on s.
func runCases(t *testing.T, s *engine.Session, cases []queryCase) {
	t.Helper()
	for _, c := range cases {
		got, err := query(t, s, c.sql)
		if c.errText != "" {
			require.ErrorContains(t, err, c.errText, c.sql)
			continue
		}
		require.NoError(t, err, c.sql)
		require.Equal(t, c.want, got, c.sql)
	}
}

// TestLimitValues: LIMIT and OFFSET take an integer, or a value that NUMERIC affinity turns into
// one (a REAL or a text without a fractional part); anything else is a datatype mismatch.
func TestLimitValues(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (4)")
	runCases(t, s, []queryCase{
		{sql: "SELECT a FROM t ORDER BY a LIMIT 2", want: []string{"1", "2"}},
		{sql: "SELECT a FROM t ORDER BY a LIMIT 2.0", want: []string{"1", "2"}},
		{sql: "SELECT a FROM t ORDER BY a LIMIT '2.0'", want: []string{"1", "2"}},
		{sql: "SELECT a FROM t ORDER BY a LIMIT ' 2 '", want: []string{"1", "2"}},
		{sql: "SELECT a FROM t ORDER BY a LIMIT 2 OFFSET 1.0", want: []string{"2", "3"}},
		{sql: "SELECT a FROM t ORDER BY a LIMIT 2 OFFSET '1e0'", want: []string{"2", "3"}},
		{sql: "SELECT a FROM t ORDER BY a LIMIT 1.5", errText: "datatype mismatch"},
		{sql: "SELECT a FROM t ORDER BY a LIMIT X'32'", errText: "datatype mismatch"},
		{sql: "SELECT a FROM t ORDER BY a LIMIT 'abc'", errText: "datatype mismatch"},
		{sql: "SELECT a FROM t ORDER BY a LIMIT 2 OFFSET 0.5", errText: "datatype mismatch"},
	})
}

// TestCastWithoutTypeName: CAST(x AS) with an empty type name converts as NUMERIC does (SQLite's
// sqlite3AffinityType gives an empty name NUMERIC affinity; only a column declared without a type
// has none).
func TestCastWithoutTypeName(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT CAST('abc' AS ), CAST(X'31' AS ), CAST(' 2.50 ' AS ), CAST(2.0 AS ), CAST('7' AS )",
			want: []string{"0|1|2.5|2.0|7"}},
		{sql: "SELECT typeof(CAST(0.25 AS )), typeof(CAST(NULL AS ))", want: []string{"'real'|'null'"}},
	})
}

// TestOuterAggregates: an aggregate call in a subquery whose arguments read only columns of an
// enclosing query is an aggregate of that query (which becomes an aggregate query), as in SQLite;
// where that query takes no aggregate it is a misuse.
func TestOuterAggregates(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3); CREATE TABLE u(b); INSERT INTO u VALUES (10), (20)")
	runCases(t, s, []queryCase{
		{sql: "SELECT (SELECT count(t.a) FROM u) FROM t", want: []string{"3"}},
		{sql: "SELECT (SELECT count(a) FROM u) FROM t", want: []string{"3"}},
		{sql: "SELECT (SELECT count(t.a) + count(*) FROM u) FROM t", want: []string{"5"}},
		{sql: "SELECT t.a, (SELECT sum(t.a) FROM u) FROM t GROUP BY t.a ORDER BY 1", want: []string{"1|1", "2|2", "3|3"}},
		{sql: "SELECT (SELECT count(t.a) FROM u) FROM t WHERE 0", want: []string{"0"}},
		{sql: "SELECT count(*) FROM t HAVING (SELECT max(t.a) FROM u) > 2", want: []string{"3"}},
		{sql: "SELECT (SELECT (SELECT count(t.a) FROM u AS u2) FROM u) FROM t", want: []string{"3"}},
		{sql: "SELECT (SELECT count(t.a) FROM u) FROM t, u AS v", want: []string{"6"}},
		{sql: "SELECT (SELECT count(*) FROM u WHERE count(t.a) > 1) FROM t", want: []string{"2"}},
		{sql: "SELECT (SELECT max(t.a + u.b) FROM u) FROM t ORDER BY 1", want: []string{"21", "22", "23"}},
		{sql: "SELECT count(*) FROM t ORDER BY (SELECT count(t.a) FROM u)", want: []string{"3"}},
		{sql: "SELECT a FROM t WHERE a IN (SELECT max(t.a) FROM u)", errText: "misuse of aggregate: max()"},
		{sql: "SELECT 1 FROM t ORDER BY (SELECT count(t.a) FROM u)", errText: "misuse of aggregate: count()"},
		{sql: "SELECT a FROM t ORDER BY count(*)", errText: "misuse of aggregate: count()"},
		{sql: "SELECT a FROM t GROUP BY (SELECT count(t.a) FROM u)", errText: "aggregate"},
	})
}

// TestOuterAggregateInExists: SQLite never evaluates the select list of an EXISTS subquery, so an
// aggregate of an enclosing query that takes none (its WHERE) is no error there; where the
// enclosing query takes aggregates it still makes it an aggregate query.
func TestOuterAggregateInExists(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3); CREATE TABLE u(b); INSERT INTO u VALUES (10), (20)")
	runCases(t, s, []queryCase{
		{sql: "SELECT a FROM t WHERE EXISTS (SELECT sum(t.a) FROM u) ORDER BY a", want: []string{"1", "2", "3"}},
		{sql: "SELECT a FROM t WHERE EXISTS (SELECT sum(t.a) FROM u WHERE 0)"},
		{sql: "SELECT a FROM t WHERE EXISTS (SELECT sum(t.a), count(*) FROM u WHERE 0) ORDER BY a", want: []string{"1", "2", "3"}},
		{sql: "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE 0 UNION SELECT sum(t.a) FROM u) ORDER BY a", want: []string{"1", "2", "3"}},
		{sql: "SELECT EXISTS (SELECT sum(t.a) FROM u) FROM t", want: []string{"1"}},
		{sql: "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u GROUP BY b HAVING sum(t.a) > 1)", errText: "misuse of aggregate: sum()"},
		{sql: "SELECT a FROM t WHERE (SELECT sum(t.a) FROM u) > 0", errText: "misuse of aggregate: sum()"},
	})
}

// TestNegation: SQLite negates a REAL literal exactly (-0.0 and -(0.0) are -0.0) but computes
// any other -x as 0 - x (-(-0.0), -CAST(0 AS REAL) are 0.0) (SQLite 3.54.1).
func TestNegation(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT -0.0, -(0.0), -(-0.0), -(-(0.0)), -CAST(0 AS REAL), -'0.0', -'-0.0'",
			want: []string{"-0.0|-0.0|0.0|0.0|0.0|0.0|0.0"}},
		{sql: "SELECT -1.5, -(-1.5), -'2', -'x', -NULL, -(-9223372036854775808), typeof(-0.0)",
			want: []string{"-1.5|1.5|-2|0|NULL|9.2233720368547758e+18|'real'"}},
		{sql: "SELECT 0.0 * -1, CAST('-0.0' AS REAL), round(-0.0), quote(-0.0), -0.0 || ''",
			want: []string{"-0.0|-0.0|0.0|'0.0'|'0.0'"}},
	})
}

// TestRealColumnNegativeZero: a REAL column stores -0.0 as 0.0, a column without affinity keeps
// it, NUMERIC stores the INTEGER 0.
func TestRealColumnNegativeZero(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(r REAL, x, n NUMERIC); INSERT INTO t VALUES (-0.0, -0.0, -0.0), ('-0.0', '-0.0', '-0.0')")
	runCases(t, s, []queryCase{
		{sql: "SELECT r, x, n FROM t", want: []string{"0.0|-0.0|0", "0.0|'-0.0'|0"}},
	})
}

// TestAbsNegativeZero: SQLite's abs() negates only a value below zero, so abs(-0.0) is -0.0.
func TestAbsNegativeZero(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT abs(-0.0), abs(0.0), abs(-1.5), abs('-2'), abs(-3), abs('x'), abs(NULL)",
			want: []string{"-0.0|0.0|1.5|2.0|3|0.0|NULL"}},
	})
}

// TestCompoundOrderByNumberWithCollate: the ORDER BY of a compound select takes a result column
// number with a COLLATE.
func TestCompoundOrderByNumberWithCollate(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a, b); INSERT INTO t VALUES ('B', 1), ('a', 2), ('c', 3)")
	runCases(t, s, []queryCase{
		{sql: "SELECT a, b FROM t UNION SELECT 'A', 0 ORDER BY 1 COLLATE NOCASE, 2",
			want: []string{"'A'|0", "'a'|2", "'B'|1", "'c'|3"}},
		{sql: "SELECT a, b FROM t UNION ALL SELECT 'A', 0 ORDER BY 1 COLLATE BINARY DESC",
			want: []string{"'c'|3", "'a'|2", "'B'|1", "'A'|0"}},
		{sql: "SELECT a FROM t UNION SELECT 'x' ORDER BY 2 COLLATE NOCASE", errText: "1st ORDER BY term out of range - should be between 1 and 1"},
	})
}

// TestInsertDefaultValues: INSERT ... DEFAULT VALUES gives every column its default.
func TestInsertDefaultValues(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY, b DEFAULT 'x', c REAL DEFAULT '_', d, e TEXT DEFAULT 5)")
	exec(t, s, "INSERT INTO t DEFAULT VALUES; INSERT OR IGNORE INTO t DEFAULT VALUES")
	runCases(t, s, []queryCase{
		{sql: "SELECT * FROM t", want: []string{"1|'x'|'_'|NULL|'5'", "2|'x'|'_'|NULL|'5'"}},
	})
}

// TestUpdateOrFailKeepsTheFailingRow: UPDATE OR FAIL keeps the rows it changed before the
// conflict, and the row that conflicts as it was, also when its rowid was to change.
func TestUpdateOrFailKeepsTheFailingRow(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE); INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')")
	_, err := s.Exec(context.Background(), "UPDATE OR FAIL t SET a = a + 10, b = CASE WHEN a = 2 THEN 'z' ELSE b END", nil)
	require.EqualError(t, err, "UNIQUE constraint failed: t.b")
	runCases(t, s, []queryCase{{sql: "SELECT * FROM t ORDER BY a", want: []string{"2|'y'", "3|'z'", "11|'x'"}}})
	_, err = s.Exec(context.Background(), "UPDATE OR FAIL t SET a = 3 WHERE a = 11", nil)
	require.EqualError(t, err, "UNIQUE constraint failed: t.a")
	runCases(t, s, []queryCase{{sql: "SELECT * FROM t ORDER BY a", want: []string{"2|'y'", "3|'z'", "11|'x'"}}})
}

// TestOuterAggregateMisuse: an aggregate of an enclosing query inside the arguments of one of
// that query's aggregates is a misuse; inside the select list of an EXISTS subquery it is no
// error, but SQLite's name resolution still refuses it where no aggregate may be (the WHERE of a
// query that is not an aggregate query) (SQLite 3.54.1).
func TestOuterAggregateMisuse(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3); CREATE TABLE u(b); INSERT INTO u VALUES (10), (20)")
	runCases(t, s, []queryCase{
		{sql: "SELECT max((SELECT sum(t.a) FROM u)) FROM t", errText: "misuse of aggregate"},
		{sql: "SELECT max(t.a + (SELECT sum(t.a) FROM u)) FROM t", errText: "misuse of aggregate"},
		{sql: "SELECT count(*) FROM t WHERE EXISTS (SELECT (SELECT sum(t.a) FROM u AS v) FROM u)", want: []string{"3"}},
		{sql: "SELECT count(*) FROM t WHERE EXISTS (SELECT (SELECT 1 FROM u AS v WHERE sum(t.a) > 0) FROM u)",
			errText: "misuse of aggregate"},
		{sql: "SELECT count(*) FROM t WHERE EXISTS (SELECT (SELECT count(*) FROM u AS v WHERE sum(t.a) > 0) FROM u)",
			want: []string{"3"}},
		{sql: "SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM u WHERE (SELECT sum(t.a) FROM u AS v) > 0)",
			errText: "misuse of aggregate"},
		{sql: "SELECT (SELECT count(*) FROM u WHERE count(t.a) > 1) FROM t", want: []string{"2"}},
		{sql: "SELECT (SELECT 1 FROM u WHERE count(t.a) > 1) FROM t", errText: "misuse of aggregate"},
	})
}

// TestUniqueCheckOrder: when a row violates several UNIQUE constraints, the message names the one
// SQLite checks first: the rowid, then the constraints' indexes newest first (explicit UNIQUE
// indexes from the last made, then CREATE TABLE's constraints from the last declared, a WITHOUT
// ROWID table's PRIMARY KEY among them, its INTEGER PRIMARY KEY made last) (SQLite 3.54.1).
func TestUniqueCheckOrder(t *testing.T) {
	s := newSession(t)
	for _, c := range []struct{ create, insert, want string }{
		{"CREATE TABLE t(a UNIQUE, b UNIQUE)", "INSERT INTO t VALUES (1, 1)", "t.b"},
		{"CREATE TABLE t(a, b, c, UNIQUE(a), UNIQUE(b)); CREATE UNIQUE INDEX t_c ON t(c)", "INSERT INTO t VALUES (1, 1, 1)", "t.c"},
		{"CREATE TABLE t(a PRIMARY KEY, b UNIQUE)", "INSERT INTO t VALUES (1, 1)", "t.b"},
		{"CREATE TABLE t(a UNIQUE, b PRIMARY KEY)", "INSERT INTO t VALUES (1, 1)", "t.b"},
		{"CREATE TABLE t(a, b UNIQUE, PRIMARY KEY(a))", "INSERT INTO t VALUES (1, 1)", "t.a"},
		{"CREATE TABLE t(a PRIMARY KEY, b UNIQUE) WITHOUT ROWID", "INSERT INTO t VALUES (1, 1)", "t.b"},
		{"CREATE TABLE t(a UNIQUE, b PRIMARY KEY) WITHOUT ROWID", "INSERT INTO t VALUES (1, 1)", "t.b"},
		{"CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE) WITHOUT ROWID", "INSERT INTO t VALUES (1, 1)", "t.a"},
		{"CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE)", "INSERT INTO t VALUES (1, 1)", "t.a"},
		{"CREATE TABLE t(b UNIQUE, a INTEGER PRIMARY KEY)", "INSERT INTO t VALUES (1, 1)", "t.a"},
		{"CREATE TABLE t(a UNIQUE, b UNIQUE, c UNIQUE); CREATE UNIQUE INDEX t1 ON t(c); CREATE UNIQUE INDEX t2 ON t(a)",
			"INSERT INTO t VALUES (1, 1, 1)", "t.a"},
		{"CREATE TABLE t(a, b, UNIQUE(a, b), UNIQUE(b))", "INSERT INTO t VALUES (1, 1)", "t.b"},
		// A constraint on the columns of an earlier one makes no index of its own.
		{"CREATE TABLE t(a UNIQUE, d, PRIMARY KEY(a, d), UNIQUE(a)) WITHOUT ROWID", "INSERT INTO t VALUES (1, 1)", "t.a, t.d"},
		{"CREATE TABLE t(a UNIQUE, d, PRIMARY KEY(a, d), UNIQUE(a))", "INSERT INTO t VALUES (1, 1)", "t.a, t.d"},
		{"CREATE TABLE t(a UNIQUE, d UNIQUE, UNIQUE(a))", "INSERT INTO t VALUES (1, 1)", "t.d"},
		{"CREATE TABLE t(a COLLATE NOCASE UNIQUE, d UNIQUE, UNIQUE(a COLLATE BINARY))", "INSERT INTO t VALUES (1, 1)", "t.a"},
	} {
		exec(t, s, "DROP TABLE IF EXISTS t; "+c.create+"; "+c.insert)
		_, err := s.Exec(context.Background(), c.insert, nil)
		require.EqualError(t, err, "UNIQUE constraint failed: "+c.want, c.create)
	}
}

// TestLikeStopsAtNUL: LIKE and GLOB see their operands, and the ESCAPE character, as C strings:
// up to the first NUL character (SQLite 3.54.1).
func TestLikeStopsAtNUL(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT CAST(X'610062' AS TEXT) LIKE 'a', CAST(X'610062' AS TEXT) GLOB 'a', 'a' LIKE CAST(X'61002562' AS TEXT), " +
			"CAST(X'00' AS TEXT) LIKE '', CAST(X'00' AS TEXT) GLOB '[^a]*', 'ab' LIKE 'a%' ESCAPE CAST(X'2100' AS TEXT)",
			want: []string{"1|1|1|1|0|1"}},
		{sql: "SELECT 'ab' LIKE 'a%' ESCAPE CAST(X'00' AS TEXT)", errText: "ESCAPE expression must be a single character"},
	})
}

// TestOrderByNumberRange: an integer in ORDER BY or GROUP BY is a result column's number only
// if it fits in 32 bits (SQLite's EP_IntValue), unary plus or not; a larger one is a constant.
func TestOrderByNumberRange(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT 1 ORDER BY 2147483648", want: []string{"1"}},
		{sql: "SELECT 1 ORDER BY -2147483648", want: []string{"1"}},
		{sql: "SELECT 1 GROUP BY 9007199254740993", want: []string{"1"}},
		{sql: "SELECT 1 ORDER BY +1", want: []string{"1"}},
		{sql: "SELECT 1 ORDER BY 2147483647", errText: "1st ORDER BY term out of range - should be between 1 and 1"},
		{sql: "SELECT 1 ORDER BY -2147483647", errText: "1st ORDER BY term out of range"},
		{sql: "SELECT 1 ORDER BY 0x10", errText: "1st ORDER BY term out of range"},
		{sql: "SELECT 1 ORDER BY +(2)", errText: "1st ORDER BY term out of range"},
		{sql: "SELECT 1 GROUP BY 2", errText: "1st GROUP BY term out of range"},
		{sql: "SELECT 1 UNION SELECT 2 ORDER BY 2147483648", errText: "1st ORDER BY term does not match any column in the result set"},
	})
}

// TestPrintfCharOfEmpty: printf's %c of an empty text, NULL or a missing argument is the NUL
// character (SQLite 3.54.1).
func TestPrintfCharOfEmpty(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT hex(printf('%c', NULL)), hex(printf('%c', '')), hex(printf('%c')), hex(printf('%3c', '')), " +
			"hex(printf('%-3c', NULL)), hex(printf('%c', 'é')), hex(printf('%.3c', '')), hex(printf('%5.3c', NULL))",
			want: []string{"'00'|'00'|'00'|'202000'|'002020'|'C3A9'|'000000'|'2020000000'"}},
	})
}

// TestTextFunctionsStopAtNUL: the functions of SQLite that read their text as a C string stop at
// its first NUL: substr() counts the characters before it, printf() formats (and its %s, %q,
// %Q and %w write) up to it, quote() quotes up to it, trim()'s character set ends there, and
// unicode() of a text that starts with NUL is NULL; length() counts up to it; upper(), replace(),
// instr(), hex() and || take every byte (SQLite 3.54.1).
func TestTextFunctionsStopAtNUL(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT hex(substr(CAST(X'61620063' AS TEXT), -2)), hex(substr(CAST(X'61620063' AS TEXT), 1, 3)), " +
			"hex(substr(CAST(X'61620063' AS TEXT), -5, 3)), hex(substr(CAST(X'61620063' AS TEXT), 3))",
			want: []string{"'6162'|'6162'|''|''"}},
		{sql: "SELECT quote(CAST(X'0061' AS TEXT)), hex(printf('%q', CAST(X'610062' AS TEXT))), hex(printf('%Q', CAST(X'610062' AS TEXT))), " +
			"hex(printf('%w', CAST(X'610062' AS TEXT))), hex(printf('%.5s', CAST(X'610062' AS TEXT))), hex(printf('%5s', CAST(X'610062' AS TEXT))), " +
			"hex(printf(CAST(X'2573002573' AS TEXT), 'x', 'y'))",
			want: []string{"''''''|'61'|'276127'|'61'|'61'|'2020202061'|'78'"}},
		{sql: "SELECT hex(trim(CAST(X'2061200020' AS TEXT))), hex(rtrim(CAST(X'6100' AS TEXT), CAST(X'00' AS TEXT))), " +
			"hex(ltrim(CAST(X'0061' AS TEXT), CAST(X'0061' AS TEXT))), hex(trim(CAST(X'78617800' AS TEXT), CAST(X'7800' AS TEXT)))",
			want: []string{"'612000'|'6100'|'0061'|'617800'"}},
		{sql: "SELECT unicode(CAST(X'0061' AS TEXT)), length(CAST(X'610062' AS TEXT)), hex(upper(CAST(X'610062' AS TEXT))), " +
			"hex(replace(CAST(X'610062' AS TEXT), 'b', 'c')), instr(CAST(X'610062' AS TEXT), 'b'), hex(CAST(X'610062' AS TEXT) || 'x')",
			want: []string{"NULL|1|'410042'|'610063'|3|'61006278'"}},
	})
}

// TestSubstrOfEmptyBlob: substr() of a zero-length blob is NULL in SQLite (its blob pointer is
// NULL); substr() of an empty text is an empty text.
func TestSubstrOfEmptyBlob(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT substr(X'', 2), substr(X'', 1), substr(X'', 0, 1), substr('', 2), substr(X'61', 2), substr(zeroblob(0), 1), substr(zeroblob(2), 2)",
			want: []string{"NULL|NULL|NULL|''|X''|NULL|X'00'"}},
	})
}

// TestOrderByNumberUnderCollates: a result column number under several COLLATEs is still one;
// the outermost COLLATE orders.
func TestOrderByNumberUnderCollates(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES ('b'), ('B'), ('a')")
	runCases(t, s, []queryCase{
		{sql: "SELECT a FROM t ORDER BY (1 COLLATE RTRIM) COLLATE BINARY", want: []string{"'B'", "'a'", "'b'"}},
		{sql: "SELECT a FROM t ORDER BY (2 COLLATE RTRIM) COLLATE NOCASE", errText: "1st ORDER BY term out of range"},
		{sql: "SELECT a FROM t UNION SELECT 'c' ORDER BY (1 COLLATE NOCASE) COLLATE BINARY DESC", want: []string{"'c'", "'b'", "'a'", "'B'"}},
	})
}

// TestSubqueryColumnWithoutAffinity: a column of a subquery (or view) whose expression has no
// affinity has none (SQLite's SQLITE_AFF_NONE) and takes the other operand's affinity in a
// comparison, unlike a table column declared without a type, whose BLOB affinity converts
// nothing (SQLite 3.54.1).
func TestSubqueryColumnWithoutAffinity(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(c, d TEXT); INSERT INTO t VALUES (-9, '1'); CREATE VIEW v AS SELECT -9 AS r")
	runCases(t, s, []queryCase{
		{sql: "SELECT x.r = CAST(-9 AS TEXT), x.r = '-9' FROM (SELECT -9 AS r) AS x", want: []string{"1|0"}},
		{sql: "SELECT t.c = CAST(-9 AS TEXT), t.c = '-9' FROM t", want: []string{"0|0"}},
		{sql: "SELECT x.c = CAST(-9 AS TEXT) FROM (SELECT c FROM t) AS x", want: []string{"0"}},
		{sql: "SELECT x.r = CAST(-9 AS TEXT) FROM (SELECT c + 0 AS r FROM t) AS x", want: []string{"1"}},
		{sql: "SELECT x.r = CAST(1 AS TEXT) FROM (SELECT 1 AS r UNION SELECT 2) AS x ORDER BY 1", want: []string{"0", "1"}},
		{sql: "SELECT v.r = CAST(-9 AS TEXT) FROM v", want: []string{"1"}},
		{sql: "SELECT x.r IN (CAST(1 AS TEXT)) FROM (SELECT 1 AS r) AS x", want: []string{"0"}},
	})
}

// TestReplaceWithEmptyPattern: replace(x, y, z) with an empty y is x as text, even for a NULL z:
// SQLite returns before it reads z (a pattern whose first character is NUL is empty too).
func TestReplaceWithEmptyPattern(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT replace('abc', '', NULL), replace('abc', CAST(X'0078' AS TEXT), NULL), replace(NULL, '', 'x'), " +
			"replace('abc', NULL, 'x'), replace(5, '', NULL), replace('abc', 'b', NULL)",
			want: []string{"'abc'|'abc'|NULL|NULL|'5'|NULL"}},
	})
}

// TestAndWithZeroIsAColumnNumber: (0 AND x) folds to the integer 0 in SQLite's parser, which
// ORDER BY and GROUP BY take for a column number (out of range); the other operand is dropped
// unresolved.
func TestAndWithZeroIsAColumnNumber(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT 1 ORDER BY (0 AND 5)", errText: "1st ORDER BY term out of range"},
		{sql: "SELECT 1 GROUP BY (nosuch AND 0)", errText: "1st GROUP BY term out of range"},
		{sql: "SELECT 1 ORDER BY (-0 AND 1), (0.0 AND 1), (0 OR 5)", want: []string{"1"}},
		{sql: "SELECT 0 AND nosuch, (0 AND 1) + 1", want: []string{"0|1"}},
	})
}

// TestRowidOfRealMinInt64: a rowid (or LIMIT) may be the REAL -2^63, which SQLite's OP_MustBeInt
// takes for the smallest INTEGER, unlike a column of INTEGER affinity; a text of it may not
// (SQLite 3.54.1).
func TestRowidOfRealMinInt64(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(f, d INTEGER PRIMARY KEY, i INTEGER); INSERT INTO t VALUES (1, -9.2233720368547758e18, -9.2233720368547758e18)")
	exec(t, s, "INSERT INTO t VALUES (2, 5, 0); UPDATE t SET d = 7.0 WHERE f = 2")
	runCases(t, s, []queryCase{
		{sql: "SELECT f, d, typeof(i) FROM t ORDER BY f", want: []string{"1|-9223372036854775808|'real'", "2|7|'integer'"}},
		{sql: "SELECT 1 LIMIT -9.2233720368547758e18", want: []string{"1"}},
		{sql: "SELECT 1 LIMIT 1 OFFSET '-9.2233720368547758e18'", errText: "datatype mismatch"},
	})
	_, err := s.Exec(context.Background(), "INSERT INTO t VALUES (3, '-9223372036854775808.0', 0)", nil)
	require.EqualError(t, err, "datatype mismatch")
}

// TestCheckSeesTheRowid: a CHECK constraint sees an INTEGER PRIMARY KEY as the rowid it became:
// converted to an INTEGER, or the new rowid when none was given.
func TestCheckSeesTheRowid(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE c(d INTEGER PRIMARY KEY, e, CHECK (typeof(d) = 'integer' AND d IS NOT NULL))")
	exec(t, s, "INSERT INTO c VALUES ('5', 1), (6.0, 1), (NULL, 1); INSERT INTO c(e) VALUES (1)")
	exec(t, s, "UPDATE c SET d = '9' WHERE d = 5; UPDATE c SET d = 10.0 WHERE d = 6")
	runCases(t, s, []queryCase{{sql: "SELECT d FROM c ORDER BY d", want: []string{"7", "8", "9", "10"}}})
}

// TestRowidNearTheLimits: a REAL compared with the rowid selects the row of the same value up to
// the ends of the int64 range, by lookup and by range scan.
func TestRowidNearTheLimits(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY, b); INSERT INTO t VALUES (-9223372036854775808, 'min'), "+
		"(9223372036854775807, 'max'), (9210000000000000000, 'big'), (-9210000000000000000, 'neg'), (5, 'five')")
	runCases(t, s, []queryCase{
		{sql: "SELECT b FROM t WHERE a = -9.2233720368547758e18", want: []string{"'min'"}},
		{sql: "SELECT b FROM t WHERE a = 9.21e18", want: []string{"'big'"}},
		{sql: "SELECT b FROM t WHERE a > 9.2e18 ORDER BY a", want: []string{"'big'", "'max'"}},
		{sql: "SELECT b FROM t WHERE a >= 9.21e18 ORDER BY a", want: []string{"'big'", "'max'"}},
		{sql: "SELECT b FROM t WHERE a <= -9.21e18 ORDER BY a", want: []string{"'min'", "'neg'"}},
		{sql: "SELECT b FROM t WHERE a > 9.2233720368547758e18"},
		{sql: "SELECT count(*) FROM t WHERE a >= -9.2233720368547758e18", want: []string{"5"}},
	})
}

// TestNotNullReplaceOrder: with REPLACE, a NOT NULL column with a DEFAULT takes it first, so the
// error names a column without one, even a later one; a DEFAULT NULL fails only after every
// other column (SQLite's two passes).
func TestNotNullReplaceOrder(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t1(a, d NOT NULL DEFAULT NULL, c NOT NULL, PRIMARY KEY(d, c)) WITHOUT ROWID")
	exec(t, s, "CREATE TABLE t2(a, d NOT NULL DEFAULT NULL, c NOT NULL DEFAULT 5)")
	for _, c := range []struct{ sql, want string }{
		{"INSERT OR REPLACE INTO t1(a) VALUES (1)", "NOT NULL constraint failed: t1.c"},
		{"INSERT OR REPLACE INTO t2(a) VALUES (1)", "NOT NULL constraint failed: t2.d"},
		{"INSERT INTO t2(a) VALUES (1)", "NOT NULL constraint failed: t2.d"},
	} {
		_, err := s.Exec(context.Background(), c.sql, nil)
		require.EqualError(t, err, c.want, c.sql)
	}
}

// TestCompoundSubqueryTakesTheLastCore: an IN or scalar subquery that is a compound takes the
// affinity (and, for IN, the collation) of its column from its last core, as SQLite does; a
// compound in FROM takes its columns' from the first.
func TestCompoundSubqueryTakesTheLastCore(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(i INTEGER, s TEXT COLLATE NOCASE); INSERT INTO t VALUES (1, 'a')")
	runCases(t, s, []queryCase{
		{sql: "SELECT '1' = (SELECT i FROM t UNION ALL SELECT 2), '1' = (SELECT 2 WHERE 0 UNION ALL SELECT i FROM t)", want: []string{"0|1"}},
		{sql: "SELECT '1' IN (SELECT i FROM t UNION ALL SELECT 2), '1' IN (SELECT 2 UNION ALL SELECT i FROM t)", want: []string{"0|1"}},
		{sql: "SELECT 'A' IN (SELECT s FROM t UNION ALL SELECT 'z'), 'A' IN (SELECT 'z' UNION ALL SELECT s FROM t)", want: []string{"0|1"}},
		{sql: "SELECT 'A' = (SELECT 'b' WHERE 0 UNION ALL SELECT s FROM t)", want: []string{"0"}},
		{sql: "SELECT x.c = '1' FROM (SELECT i AS c FROM t UNION ALL SELECT 2) AS x", want: []string{"1", "0"}},
	})
}

// TestSubqueryReadsGroupColumns: a subquery in the select list or HAVING of an aggregate query
// that reads the query's columns reads them from a row of the group, not NULL.
func TestSubqueryReadsGroupColumns(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (1, 'x'), (2, 'z')")
	runCases(t, s, []queryCase{
		{sql: "SELECT (SELECT t.a + 1) FROM t GROUP BY (SELECT t.a) ORDER BY 1", want: []string{"2", "3"}},
		{sql: "SELECT a, (SELECT b) FROM t GROUP BY a ORDER BY a", want: []string{"1|'x'", "2|'z'"}},
		{sql: "SELECT a FROM t GROUP BY a HAVING (SELECT t.b) = 'z'", want: []string{"2"}},
		{sql: "SELECT count(*), (SELECT t.a * 10) FROM t WHERE a = 2", want: []string{"1|20"}},
	})
}

// TestBareColumnsReadTheFirstRow: the bare columns of an aggregate query (without a lone min()
// or max()) read the first row of each group, as SQLite 3.54's do.
func TestBareColumnsReadTheFirstRow(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (1, 'y'), (2, 'z'), (1, 'w')")
	runCases(t, s, []queryCase{
		{sql: "SELECT a, b, (SELECT b) FROM t GROUP BY a ORDER BY a", want: []string{"1|'x'|'x'", "2|'z'|'z'"}},
		{sql: "SELECT count(*), b FROM t", want: []string{"4|'x'"}},
		{sql: "SELECT max(b), a FROM t", want: []string{"'z'|2"}},
		{sql: "SELECT min(b), a FROM t", want: []string{"'w'|1"}},
	})
}

// TestCompoundColumnAffinity: a column of a compound subquery in FROM (or a view, or CREATE
// TABLE AS) takes the first core's affinity, or the next core's where the first has none, and
// none (BLOB) where another core may give a number to a TEXT column or a text to a numeric one
// (SQLite's sqlite3SubqueryColumnTypes, 3.54.1).
func TestCompoundColumnAffinity(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(i INTEGER, s TEXT, r REAL, x); INSERT INTO t VALUES (1, '2', 3.5, '4')")
	exec(t, s, "CREATE TABLE c1 AS SELECT CAST(1 AS TEXT) AS a UNION ALL SELECT 2")
	exec(t, s, "CREATE TABLE c3 AS SELECT 5 AS a, NULL AS b UNION ALL SELECT s, i FROM t")
	runCases(t, s, []queryCase{
		{sql: "SELECT a, typeof(a) FROM c1", want: []string{"'1'|'text'", "2|'integer'"}},
		{sql: "SELECT a, typeof(a), b, typeof(b) FROM c3", want: []string{"5|'integer'|NULL|'null'", "'2'|'text'|1|'integer'"}},
		{sql: "SELECT v.a = '1', v.b = 2, v.c = '3.5' FROM (SELECT i AS a, s AS b, r AS c FROM t UNION ALL SELECT NULL, NULL, NULL) AS v",
			want: []string{"1|1|1", "NULL|NULL|NULL"}},
		{sql: "SELECT v.a = '1', v.b = 2 FROM (SELECT i AS a, s AS b FROM t UNION ALL SELECT x, x FROM t) AS v", want: []string{"0|0", "0|0"}},
		{sql: "SELECT v.a = '1' FROM (SELECT CAST(i AS TEXT) AS a FROM t UNION ALL SELECT 9) AS v", want: []string{"1", "0"}},
		{sql: "SELECT v.r2, 1 > v.r2 FROM (SELECT r AS r2 FROM t UNION ALL SELECT x FROM t) AS v", want: []string{"3.5|0", "'4'|0"}},
	})
}

// TestCompoundCollation: a compound compares a column (for UNION, INTERSECT, EXCEPT and its
// ORDER BY) with the collation of the first core whose expression there has one.
func TestCompoundCollation(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a TEXT COLLATE NOCASE, b TEXT); INSERT INTO t VALUES ('abc', 'x'), ('B', 'y')")
	runCases(t, s, []queryCase{
		{sql: "SELECT count(*) FROM (SELECT 'ABC' AS c UNION SELECT a FROM t)", want: []string{"2"}},
		{sql: "SELECT upper('b') AS c UNION SELECT a FROM t ORDER BY 1", want: []string{"'abc'", "'B'"}},
		{sql: "SELECT b FROM t UNION SELECT a FROM t ORDER BY 1", want: []string{"'B'", "'abc'", "'x'", "'y'"}},
		{sql: "SELECT 'B' AS c INTERSECT SELECT a FROM t", want: []string{"'B'"}},
		{sql: "SELECT 'b' AS c EXCEPT SELECT a FROM t"},
	})
}

// TestUpdateOrReplaceRereadsRows: UPDATE finds each target row again at its key when it gets to
// it: a row an earlier REPLACE deleted is skipped, and a row an earlier change moved there is
// updated (SQLite does not test WHERE again).
func TestUpdateOrReplaceRereadsRows(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a INTEGER PRIMARY KEY, b); INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	exec(t, s, "CREATE TABLE u(a UNIQUE, b); INSERT INTO u VALUES (1, 'x'), (2, 'y'), (3, 'z')")
	exec(t, s, "CREATE TABLE w(a INTEGER PRIMARY KEY, b); INSERT INTO w VALUES (1, 'x'), (2, 'y'), (3, 'z')")
	require.Equal(t, int64(2), exec(t, s, "UPDATE OR REPLACE t SET a = a + 1, b = b || '!'").RowsAffected)
	require.Equal(t, int64(2), exec(t, s, "UPDATE OR REPLACE u SET a = 2, b = b || '!'").RowsAffected)
	require.Equal(t, int64(2), exec(t, s, "UPDATE OR REPLACE w SET a = a + 1 WHERE a < 3").RowsAffected)
	runCases(t, s, []queryCase{
		{sql: "SELECT * FROM t", want: []string{"3|'x!!'"}},
		{sql: "SELECT rowid, * FROM u", want: []string{"3|2|'z!'"}},
		{sql: "SELECT * FROM w", want: []string{"3|'x'"}},
	})
}

// TestCompoundInFromTakesItsAffinity: the integers of a compound subquery's column in FROM (or a
// view) become REALs when the column has REAL affinity, which may come from another core:
// (SELECT 1 UNION ALL SELECT r) with r REAL gives 1.0.
func TestCompoundInFromTakesItsAffinity(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(r REAL, s TEXT, i INTEGER); INSERT INTO t VALUES (2.5, 'x', 7)")
	exec(t, s, "CREATE VIEW v AS SELECT 1 AS a UNION ALL SELECT r FROM t")
	runCases(t, s, []queryCase{
		{sql: "SELECT typeof(x.a), x.a FROM (SELECT 1 AS a UNION ALL SELECT r FROM t) AS x", want: []string{"'real'|1.0", "'real'|2.5"}},
		{sql: "SELECT x.a FROM (SELECT 4 AS a UNION SELECT r FROM t) AS x ORDER BY 1", want: []string{"2.5", "4.0"}},
		{sql: "SELECT typeof(a) FROM v", want: []string{"'real'", "'real'"}},
		{sql: "SELECT typeof(x.a) FROM (SELECT '3' AS a UNION ALL SELECT i FROM t) AS x", want: []string{"'text'", "'integer'"}},
		{sql: "SELECT typeof(a) FROM (SELECT 1 AS a UNION ALL SELECT r FROM t) ORDER BY 1", want: []string{"'real'", "'real'"}},
		{sql: "SELECT typeof(1) UNION ALL SELECT typeof(r) FROM t", want: []string{"'integer'", "'real'"}},
	})
}

// TestTrueFalse: TRUE and FALSE are 1 and 0 where no column has the name; x IS [NOT] TRUE|FALSE
// tests the truth of x (NULL is neither); x IN () is FALSE and x NOT IN () TRUE without looking
// at x (SQLite 3.54.1).
func TestTrueFalse(t *testing.T) {
	s := newSession(t)
	exec(t, s, `CREATE TABLE tt("true", b); INSERT INTO tt VALUES (0, 1)`)
	runCases(t, s, []queryCase{
		{sql: "SELECT 5 IS TRUE, 0 IS FALSE, NULL IS FALSE, 5 IS NOT TRUE, TRUE, FALSE, typeof(TRUE), 2 = TRUE, 'x' IS NOT FALSE, TRUE + 1",
			want: []string{"1|1|0|0|1|0|'integer'|0|0|2"}},
		{sql: "SELECT NULL IS TRUE, NULL IS NOT TRUE, NULL IS NOT FALSE, 'x' IS FALSE, 0.5 IS TRUE, -2 IS (NULL NOT IN ())",
			want: []string{"0|1|1|1|1|1"}},
		{sql: "SELECT nosuch IN (), nosuch NOT IN (), 5 IS (nosuch IN ())", want: []string{"0|1|0"}},
		{sql: "SELECT true, false, 5 IS true FROM tt", want: []string{"0|0|0"}},
		{sql: `SELECT "false", 0 IS "false"`, want: []string{"'false'|0"}},
		{sql: "SELECT 1 WHERE TRUE", want: []string{"1"}},
		// A boolean literal is no column number.
		{sql: "SELECT 5 GROUP BY (NULL IN ()) ORDER BY TRUE, (1 NOT IN ())", want: []string{"5"}},
	})
}

// TestIndexForAFlippedTerm: a term other = col compares with other's collation first; an index
// of col with another collation cannot serve it.
func TestIndexForAFlippedTerm(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t0(f FLOAT NOT NULL, c); CREATE INDEX t0_i0 ON t0(f); CREATE TABLE t1(f BLOB COLLATE NOCASE, e)")
	exec(t, s, "INSERT INTO t0 VALUES ('aBc', 1); INSERT INTO t1 VALUES ('ABC', 2)")
	runCases(t, s, []queryCase{
		{sql: "SELECT * FROM t1 LEFT JOIN t0 USING (f)", want: []string{"'ABC'|2|1"}},
		{sql: "SELECT t0.c FROM t1, t0 WHERE t1.f = t0.f", want: []string{"1"}},
		{sql: "SELECT t0.c FROM t1, t0 WHERE t0.f = t1.f"},
	})
}

// TestPrintfWidthInBytes: printf's width and precision count bytes for %s, %q, %Q and %w (a
// precision may cut a character), characters with the ! flag and for %c (SQLite 3.54.1).
func TestPrintfWidthInBytes(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT printf('%5s|', 'é'), hex(printf('%.1s|', 'éa')), printf('%!5s|', 'é'), printf('%!.1s|', 'éa'), " +
			"printf('%-4s|', 'é'), printf('%5c|', 'é'), printf('%3q|', 'é'), printf('%.2c|', 'é')",
			want: []string{"'   é|'|'C37C'|'    é|'|'é|'|'é  |'|'    é|'|' é|'|'éé|'"}},
		{sql: "SELECT printf('%.2q|', 'éa'), printf('%!.2q|', 'é''a'), printf('%.3Q|', 'abcd'), printf('%-6Q|', 'é')",
			want: []string{"'é|'|'é''''|'|'''abc''|'|'''é''  |'"}},
	})
}

// TestCollationOfExpressions: an expression has the collation of an explicit COLLATE inside it,
// found as SQLite's sqlite3ExprCollSeq follows EP_Collate (the left operand first, then the
// others in order); without one it has none, not even an aggregate of a column (SQLite 3.54.1).
func TestCollationOfExpressions(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a TEXT COLLATE NOCASE, b TEXT); INSERT INTO t VALUES ('abc', 'x'), ('B', 'y'), ('NULL0', 'z'), ('a 0', 'w')")
	runCases(t, s, []queryCase{
		{sql: "SELECT b FROM t WHERE (b || '' COLLATE NOCASE) = 'X'", want: []string{"'x'"}},
		{sql: "SELECT b FROM t WHERE ('' || b COLLATE NOCASE) IN ('X', 'Y') ORDER BY 1", want: []string{"'x'", "'y'"}},
		{sql: "SELECT b FROM t WHERE coalesce(b COLLATE NOCASE, 1) = 'Y'", want: []string{"'y'"}},
		{sql: "SELECT max(b COLLATE NOCASE) = 'Z', max(b) = 'Z', max(a) = 'NULL0', min(a) = 'A 0' FROM t", want: []string{"1|0|1|0"}},
		{sql: "SELECT b FROM t ORDER BY upper(b) || (a COLLATE NOCASE) DESC LIMIT 1", want: []string{"'z'"}},
	})
}

// TestFunctionCollationIsTheFirstArguments: a function that compares (min, max, nullif) uses
// the collation of its first argument that has one, a column's too, not the first explicit
// COLLATE (SQLite 3.54.1).
func TestFunctionCollationIsTheFirstArguments(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a TEXT COLLATE NOCASE, b TEXT); INSERT INTO t VALUES ('B', 'a')")
	runCases(t, s, []queryCase{
		{sql: "SELECT min(a, b COLLATE BINARY), min(b COLLATE BINARY, a), max(b, a), max(b COLLATE NOCASE, a), nullif(a, 'b') FROM t",
			want: []string{"'a'|'B'|'a'|'B'|NULL"}},
	})
}

// TestInSubqueryRealAffinity: with REAL affinity, x IN (SELECT ...) compares integers beyond 48
// bits, on both sides, as the REALs SQLite makes of them for its IN table (losing low bits).
func TestInSubqueryRealAffinity(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE r(x REAL); INSERT INTO r VALUES (9007199254740992.0), (1.0)")
	runCases(t, s, []queryCase{
		{sql: "SELECT 9007199254740993 IN (SELECT x FROM r), 1 IN (SELECT x FROM r), x IN (SELECT 9007199254740993) FROM r",
			want: []string{"1|1|1", "1|1|0"}},
		{sql: "SELECT 140737488355328 IN (SELECT x + 0 FROM r), x IN (SELECT 140737488355328) FROM r", want: []string{"0|0", "0|0"}},
	})
}

// TestInListOfNullEvaluatesItems: x IN (list) with x NULL still evaluates the items, as SQLite
// compares x with each in turn: an item's error is the result (SQLite 3.54.1).
func TestInListOfNullEvaluatesItems(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(d INTEGER PRIMARY KEY, b); INSERT INTO t VALUES (-9223372036854775808, NULL)")
	runCases(t, s, []queryCase{
		{sql: "SELECT b IN (1, abs(d)) FROM t", errText: "integer overflow"},
		{sql: "SELECT NULL NOT IN (abs(d), 2) FROM t", errText: "integer overflow"},
		{sql: "SELECT 1 IN (1, abs(d)), b IN (1, 2) FROM t", want: []string{"1|NULL"}},
	})
}

// TestLazyFunctionArguments: coalesce and ifnull evaluate their arguments only up to the first
// that is not NULL, iif only the one its condition chooses, so one not needed cannot fail; nullif
// evaluates both (SQLite 3.54.1).
func TestLazyFunctionArguments(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
	runCases(t, s, []queryCase{
		{sql: "SELECT coalesce(1, abs(-9223372036854775808)), iif(a, 2, abs(a - 9223372036854775807 - 2)), " +
			"ifnull(a, abs(a - 9223372036854775807 - 2)), coalesce(NULL, NULL, a) FROM t", want: []string{"1|2|1|1"}},
		{sql: "SELECT iif(a, abs(a - 9223372036854775807 - 2), 2) FROM t", errText: "integer overflow"},
		{sql: "SELECT coalesce(NULL, abs(a - 9223372036854775807 - 2)) FROM t", errText: "integer overflow"},
		{sql: "SELECT nullif(a, abs(a - 9223372036854775807 - 2)) FROM t", errText: "integer overflow"},
	})
}

// TestCompoundSkipsCoresOfNothing: INTERSECT and EXCEPT do not run their right core when the rows
// on their left are none, so its errors do not happen; UNION and UNION ALL run it (SQLite 3.54.1).
func TestCompoundSkipsCoresOfNothing(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(b INTEGER PRIMARY KEY, c INT); INSERT INTO t VALUES (7, -9223372036854775807)")
	runCases(t, s, []queryCase{
		{sql: "SELECT 1 WHERE 0 EXCEPT SELECT abs(c - 1) FROM t"},
		{sql: "SELECT 1 INTERSECT SELECT 2 INTERSECT SELECT abs(c - 1) FROM t ORDER BY 1"},
		{sql: "SELECT 5 IN (SELECT 1 EXCEPT SELECT 1 EXCEPT SELECT abs(c - 1) FROM t)", want: []string{"0"}},
		{sql: "SELECT 1 WHERE 0 UNION SELECT abs(c - 1) FROM t", errText: "integer overflow"},
		{sql: "SELECT 1 EXCEPT SELECT abs(c - 1) FROM t", errText: "integer overflow"},
	})
}

// TestCompoundInFromOnlyRealAffinityConverts: reading a compound subquery of FROM, only a column
// of REAL affinity changes values (integers to REALs); 5.0 in a column of INTEGER affinity, 5 in
// one of TEXT, '5' in one of REAL or NUMERIC stay as they are (SQLite 3.54.1).
func TestCompoundInFromOnlyRealAffinityConverts(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(r REAL, s TEXT, i INTEGER, n NUMERIC); INSERT INTO t VALUES (2.5, 'x', 7, 8)")
	runCases(t, s, []queryCase{
		{sql: "SELECT a FROM (SELECT i AS a FROM t UNION ALL SELECT 5.0)", want: []string{"7", "5.0"}},
		{sql: "SELECT a FROM (SELECT n AS a FROM t UNION ALL SELECT i + 0.0 FROM t)", want: []string{"8", "7.0"}},
		{sql: "SELECT a FROM (SELECT i AS a FROM t UNION SELECT 5.0) ORDER BY 1", want: []string{"5.0", "7"}},
		{sql: "SELECT a FROM (SELECT s AS a FROM t UNION ALL SELECT 5)", want: []string{"'x'", "5"}},
		{sql: "SELECT a FROM (SELECT r AS a FROM t UNION ALL SELECT NULL UNION ALL SELECT 6)", want: []string{"2.5", "NULL", "6.0"}},
		{sql: "SELECT a FROM t AS z LEFT JOIN (SELECT n AS a FROM t UNION ALL SELECT '6') ON 1", want: []string{"8", "'6'"}},
	})
}

// TestHavingNeedsAnAggregateQuery: only a GROUP BY or an aggregate among the result columns makes
// a query an aggregate one; a HAVING on another query is an error, even with an aggregate in it
// (SQLite 3.54.1).
func TestHavingNeedsAnAggregateQuery(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(c); INSERT INTO t VALUES (1), (2), (3)")
	runCases(t, s, []queryCase{
		{sql: "SELECT 1 FROM t HAVING count(*) > 1", errText: "HAVING clause on a non-aggregate query"},
		{sql: "SELECT c FROM t HAVING 1", errText: "HAVING clause on a non-aggregate query"},
		{sql: "SELECT count(*) FROM t HAVING max(c) = 3", want: []string{"3"}},
		{sql: "SELECT 1 FROM t GROUP BY c HAVING count(*) > 1"},
	})
}

// TestFoldsKeepAggregates: x AND 0 and x IN () keep an aggregate in x, which makes the query an
// aggregate one (one row), and its errors (no such column); x AND 0 without a function folds
// to a column number in ORDER BY (SQLite 3.54.1).
func TestFoldsKeepAggregates(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(c); INSERT INTO t VALUES (1), (2), (3)")
	runCases(t, s, []queryCase{
		{sql: "SELECT (count(*) IN ()), (count(*) NOT IN ()), (0 AND max(c)) FROM t", want: []string{"0|1|0"}},
		{sql: "SELECT (sum(c) = 6 AND 0) + 1 FROM t WHERE 0", want: []string{"1"}},
		{sql: "SELECT abs(nosuch) IN ()", errText: "no such column: nosuch"},
		{sql: "SELECT 0 AND abs(nosuch)", errText: "no such column: nosuch"},
		{sql: "SELECT nosuch IN (), 0 AND nosuch, 0 AND (SELECT abs(nosuch))", want: []string{"0|0|0"}},
		{sql: "SELECT 1 ORDER BY (abs(0) AND 0), (5 IN ())", want: []string{"1"}},
		{sql: "SELECT 1 ORDER BY (0 AND (SELECT 5))", errText: "1st ORDER BY term out of range"},
	})
}

// TestInListTakesTheLeftCollation: x IN (list) compares with x's collation only (BINARY if it has
// none), neither an item column's nor an item's explicit COLLATE; x IN (SELECT ...) compares as =
// does (SQLite 3.54.1).
func TestInListTakesTheLeftCollation(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(b TEXT COLLATE NOCASE, c TEXT); INSERT INTO t VALUES ('b', 'b')")
	runCases(t, s, []queryCase{
		{sql: "SELECT 'B' IN (b), 'B' IN ('b' COLLATE NOCASE, 'c'), upper(c) NOT IN (b, 1), 'B' = b FROM t", want: []string{"0|0|1|1"}},
		{sql: "SELECT b IN ('B'), (c COLLATE NOCASE) IN (upper(c)), upper(c) IN (SELECT b FROM t) FROM t", want: []string{"1|1|1"}},
	})
}

// TestHavingTermsMoveToWhere: a HAVING term of a grouped query that reads only GROUP BY terms
// (compared with BINARY) and constants filters the rows before grouping, as SQLite moves it to
// the WHERE: the rows of the groups it rejects are never aggregated (no overflow in their sum),
// and of the equal 1 and 1.0 of a group it keeps the rows it accepts; the literal 0 stays
// (SQLite 3.54.1).
func TestHavingTermsMoveToWhere(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a, b TEXT COLLATE NOCASE, c INTEGER)")
	exec(t, s, "INSERT INTO t VALUES (1, 'x', 9223372036854775806), (1.0, 'X', 9223372036854775806), (2, 'y', 1), ('1', 'z', 5)")
	runCases(t, s, []queryCase{
		{sql: "SELECT a, count(*) FROM t GROUP BY a HAVING typeof(a) = 'real'", want: []string{"1.0|1"}},
		{sql: "SELECT a AS r, count(*) FROM t GROUP BY 1 HAVING typeof(r) = 'integer' AND count(*) > 0 ORDER BY 1",
			want: []string{"1|1", "2|1"}},
		{sql: "SELECT a, sum(c) FROM t GROUP BY a HAVING a = 2", want: []string{"2|1"}},
		{sql: "SELECT a, sum(c) FROM t GROUP BY a HAVING NULL"},
		{sql: "SELECT a, sum(c) FROM t GROUP BY a HAVING 0", errText: "integer overflow"},
		{sql: "SELECT a, count(*) FROM t GROUP BY a HAVING (SELECT typeof(a)) = 'real'"},
		{sql: "SELECT b, count(*) FROM t GROUP BY b HAVING b COLLATE BINARY = 'x'", want: []string{"'x'|2"}},
	})
}

// TestRowidAliasHasNoCollation: an INTEGER PRIMARY KEY column, like the rowid, has no collation
// in expressions whatever collation it is declared with, as SQLite reads it as the rowid: a
// compound takes its collation from a later core, CAST(f AS TEXT) compares with BINARY
// (SQLite 3.54.1).
func TestRowidAliasHasNoCollation(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(b TEXT, f INTEGER PRIMARY KEY COLLATE RTRIM); INSERT INTO t VALUES ('NULL', 10), ('inf', 3)")
	exec(t, s, "CREATE TABLE n(b TEXT COLLATE NOCASE, f INTEGER PRIMARY KEY); INSERT INTO n VALUES ('a', 1), ('A', 2)")
	runCases(t, s, []queryCase{
		{sql: "SELECT f FROM n WHERE 0 UNION SELECT b FROM n", want: []string{"'a'"}},
		{sql: "SELECT rowid FROM t WHERE 0 UNION SELECT b FROM n", want: []string{"'a'"}},
		{sql: "SELECT f AS x FROM t UNION SELECT 'a' UNION SELECT 'a ' ORDER BY 1", want: []string{"3", "10", "'a'", "'a '"}},
		{sql: "SELECT CAST(f AS TEXT) = '10 ' FROM t ORDER BY f", want: []string{"0", "0"}},
		{sql: "SELECT CAST(f AS BLOB) AS r FROM t WHERE 0 UNION ALL SELECT b FROM t ORDER BY 1", want: []string{"'NULL'", "'inf'"}},
	})
}

// TestPrintfCharCopiesBytes: printf's %c copies the first byte of its argument's text and, after
// a lead byte, the continuation bytes that follow (four bytes at most), not decoded: invalid
// UTF-8 stays as it is (SQLite 3.54.1).
func TestPrintfCharCopiesBytes(t *testing.T) {
	s := newSession(t)
	runCases(t, s, []queryCase{
		{sql: "SELECT hex(printf('%c', X'FF')), hex(printf('%c', X'C3A9C3')), hex(printf('%c', X'80')), " +
			"hex(printf('%c', X'FF8080808080')), hex(printf('%3c|', X'FF')), hex(printf('%.2c|', X'FF'))",
			want: []string{"'FF'|'C3A9'|'80'|'FF808080'|'2020FF7C'|'FFFF7C'"}},
	})
}

// TestLikeIsAFunctionToCompoundAffinity: LIKE and GLOB are functions to SQLite's
// sqlite3ExprDataType, which may give any kind of value: a compound core with one keeps a later
// core's REAL affinity from its column (SQLite 3.54.1).
func TestLikeIsAFunctionToCompoundAffinity(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a FLOAT); INSERT INTO t VALUES (2.5)")
	runCases(t, s, []queryCase{
		{sql: "SELECT r FROM (SELECT 1 AS r UNION ALL SELECT ('a' GLOB '*') UNION ALL SELECT a FROM t)", want: []string{"1", "1", "2.5"}},
		{sql: "SELECT r FROM (SELECT 1 AS r UNION ALL SELECT ('a' = 'b') UNION ALL SELECT a FROM t)", want: []string{"1.0", "0.0", "2.5"}},
	})
}

// TestLimitZeroRunsNothing: with LIMIT 0 a select runs no core at all, and its OFFSET is not
// looked at, as SQLite computes LIMIT first: an overflowing sum() never fails then (SQLite
// 3.54.1).
func TestLimitZeroRunsNothing(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(d INTEGER PRIMARY KEY); INSERT INTO t VALUES (-5), (-9223372036854775808)")
	runCases(t, s, []queryCase{
		{sql: "SELECT sum(d) FROM t LIMIT 0"},
		{sql: "SELECT sum(d) FROM t LIMIT 0 OFFSET 'abc'"},
		{sql: "SELECT d FROM t UNION SELECT sum(d) FROM t LIMIT 0"},
		{sql: "SELECT (SELECT sum(d) FROM t LIMIT 0), 1 IN (SELECT sum(d) FROM t LIMIT 0)", want: []string{"NULL|0"}},
		{sql: "SELECT sum(d) FROM t LIMIT 1 OFFSET 'abc'", errText: "datatype mismatch"},
		{sql: "SELECT sum(d) FROM t LIMIT 1", errText: "integer overflow"},
	})
}

// TestNoCaseStopsAtNUL: SQLite's NOCASE (sqlite3StrNICmp) stops comparing at a NUL byte both
// texts have at the same place and lets their lengths decide, so 'ab\0x' = 'AB\0y' under NOCASE
// (SQLite 3.54.1). Comparisons, ORDER BY, a NOCASE index (lookup and UNIQUE) and an automatic
// index follow it; BINARY and RTRIM do not stop.
func TestNoCaseStopsAtNUL(t *testing.T) {
	s := newSession(t)
	exec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, c TEXT COLLATE NOCASE);
		CREATE INDEX t_c ON t(c);
		INSERT INTO t VALUES (1, 'ab' || char(0) || 'x'), (2, 'AB' || char(0) || 'zz'), (3, 'ab'), (4, 'ab' || char(0));
		CREATE TABLE o(k TEXT);
		INSERT INTO o VALUES ('aB' || char(0) || 'q')`)
	cases := []queryCase{
		{sql: "SELECT 'ab' || char(0) || 'x' = 'AB' || char(0) || 'y' COLLATE NOCASE", want: []string{"1"}},
		{sql: "SELECT 'ab' || char(0) || 'x' = 'ab' || char(0) || 'y'", want: []string{"0"}},
		{sql: "SELECT 'ab' || char(0) || 'x' < 'AB' || char(0) || 'yy' COLLATE NOCASE", want: []string{"1"}},
		{sql: "SELECT 'ab' || char(0) < 'abc' COLLATE NOCASE", want: []string{"1"}},
		{sql: "SELECT id FROM t ORDER BY c, id", want: []string{"3", "4", "1", "2"}},
		{sql: "SELECT id FROM t WHERE c = 'AB' || char(0) || 'q' ORDER BY id", want: []string{"1"}},
		{sql: "SELECT id FROM t NOT INDEXED WHERE c = 'AB' || char(0) || 'q' ORDER BY id", want: []string{"1"}},
		{sql: "SELECT t.id FROM o JOIN t NOT INDEXED ON t.c = o.k", want: []string{"1"}},
		{sql: "SELECT t.id FROM o, t WHERE t.c = o.k", want: []string{"1"}},
	}
	runCases(t, s, cases)
	exec(t, s, "CREATE TABLE u(c TEXT COLLATE NOCASE UNIQUE); INSERT INTO u VALUES ('x' || char(0) || 'a')")
	_, err := s.Exec(context.Background(), "INSERT INTO u VALUES ('X' || char(0) || 'b')", nil)
	require.ErrorContains(t, err, "UNIQUE constraint failed: u.c")
}

// TestAndOrAsValuesEvaluateBoth: SQLite computes both operands of AND and OR where their result
// is a value (a result column, an operand of another operator: OP_And, OP_Or), so an error of
// the right one is the statement's even when the left one decides; where it jumps on a condition
// (WHERE, ON, HAVING, CASE WHEN, iif, under NOT) it skips the right one (SQLite 3.54.1).
func TestAndOrAsValuesEvaluateBoth(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(a, b); INSERT INTO t VALUES (-9223372036854775808, 1)")
	runCases(t, s, []queryCase{
		{sql: "SELECT (a < 0) OR abs(a) FROM t", errText: "integer overflow"},
		{sql: "SELECT (a > 0) AND abs(a) FROM t", errText: "integer overflow"},
		{sql: "SELECT b OR abs(a) FROM t", errText: "integer overflow"},
		{sql: "SELECT ((a < 0) OR abs(a)) + 0 FROM t", errText: "integer overflow"},
		{sql: "SELECT count(*) FROM t WHERE ((a < 0) OR abs(a)) = 1", errText: "integer overflow"},
		{sql: "SELECT 1 FROM t WHERE (a < 0) OR abs(a)", want: []string{"1"}},
		{sql: "SELECT 1 FROM t WHERE (a > 0) AND abs(a)", want: nil},
		{sql: "SELECT 1 FROM t WHERE NOT ((a > 0) AND abs(a))", want: []string{"1"}},
		{sql: "SELECT 1 FROM t JOIN t AS u ON (t.a < 0) OR abs(u.a)", want: []string{"1"}},
		{sql: "SELECT CASE WHEN (a < 0) OR abs(a) THEN 1 END FROM t", want: []string{"1"}},
		{sql: "SELECT iif((a < 0) OR abs(a), 1, 2) FROM t", want: []string{"1"}},
		{sql: "SELECT count(*) FROM t GROUP BY b HAVING (b = 1) OR abs(a)", want: []string{"1"}},
	})
}

// TestLargeTransactionInserts inserts more rows without a rowid in one transaction than a
// decoded B+tree node holds (each new rowid is found by the table's last key in the
// transaction's own tree), as bench/cmd/realdata loads its tables, and reads them back in it.
func TestLargeTransactionInserts(t *testing.T) {
	s := newSession(t)
	exec(t, s, "CREATE TABLE t(v TEXT); CREATE INDEX t_v ON t(v); BEGIN")
	for i := range 5000 {
		exec(t, s, "INSERT INTO t(v) VALUES ('row ' || ?)", value.Int(int64(4999-i)))
	}
	runCases(t, s, []queryCase{
		{sql: "SELECT count(*), min(rowid), max(rowid) FROM t", want: []string{"5000|1|5000"}},
		{sql: "SELECT rowid FROM t WHERE v = 'row 17'", want: []string{"4983"}},
		{sql: "SELECT count(*) FROM t WHERE v BETWEEN 'row 4990' AND 'row 4999'", want: []string{"10"}},
	})
	exec(t, s, "COMMIT")
}

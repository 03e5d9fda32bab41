package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestScanFastPathsKeepSQLiteResults runs WHERE terms that the scan's fast paths (columns left
// undecoded, INTEGER comparisons and arithmetic: exprint.go) see, over columns holding every
// class and the integers at the edges of overflow, and requires SQLite's rows (from
// modernc.org/sqlite 3.54).
func TestScanFastPathsKeepSQLiteResults(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL, d)`)
	mustExec(t, s, `INSERT INTO t VALUES(1, 3, '3', 3.0, 3), (2, 4, '4', 4.5, '4'),
		(3, 9223372036854775807, '9223372036854775807', 1e300, x'34'),
		(4, -9223372036854775808, 'x', NULL, 4.0), (5, NULL, NULL, -0.0, NULL),
		(6, 'abc', '06', 6, '6.0'), (7, 7.5, ' 7', 7, -1), (8, 0, '0', 0, 0)`)
	for _, c := range []struct {
		where string
		args  []value.Value
		want  string
	}{
		{"a % 3 = 0", nil, "1 6 8"},
		{"a % 0 IS NULL", nil, "1 2 3 4 5 6 7 8"},
		{"a + 1 > 5", nil, "3 7"},
		{"a - 1 < 0", nil, "4 6 8"},
		{"a * 2 >= 8", nil, "2 3 7"},
		{"a / -1 <= -4", nil, "2 3 7"},
		{"a << 1 = 8", nil, "2"},
		{"a >> 63 = -1", nil, "4"},
		{"a & 1 = 1", nil, "1 3 7"},
		{"a | 1 = 5", nil, "2"},
		{"b = 3", nil, "1"},
		{"b > 3", nil, "2 3 4"},
		{"c = 3", nil, "1"},
		{"c = id", nil, "6 7"},
		{"d = 4", nil, "4"},
		{"d = id", nil, "4 6"},
		{"d + 0 = id", nil, "4 6"},
		{"a = b", nil, "1 2 3 8"},
		{"a != 3", nil, "2 3 4 6 7 8"},
		{"a % 1000 = '3'", nil, ""},
		{"a % 1000 = 3.0", nil, "1"},
		{"a % 3 = ?", []value.Value{value.Int(0)}, "1 6 8"},
		{"a % 3 = ?", []value.Value{value.Float(0)}, "1 6 8"},
		{"a % 3 = ?", []value.Value{value.TextString("0")}, ""},
		{"a % 3 = ?", nil, ""},
	} {
		var got []string
		for _, r := range query(t, s, "SELECT id, b FROM t WHERE "+c.where, c.args...) {
			got = append(got, fmt.Sprint(r[0].Int()))
		}
		require.Equal(t, c.want, strings.Join(got, " "), "WHERE %s %v", c.where, c.args)
	}
	got := query(t, s, `SELECT a + 1, a % 0, a * 2 FROM t`)
	want := [][]value.Value{
		{value.Int(4), {}, value.Int(6)},
		{value.Int(5), {}, value.Int(8)},
		{value.Float(9.223372036854776e+18), {}, value.Float(1.8446744073709552e+19)},
		{value.Int(-9223372036854775807), {}, value.Float(-1.8446744073709552e+19)},
		{{}, {}, {}},
		{value.Int(1), {}, value.Int(0)},
		{value.Float(8.5), {}, value.Float(15)},
		{value.Int(1), {}, value.Int(0)},
	}
	require.Equal(t, want, got)
}

// TestScanFilterReadsItsColumns runs WHERE terms that read columns only through a correlated
// subquery, an alias or the rowid, and joins and aggregates over scans that check their terms
// themselves (cover.go), and requires SQLite's rows (from modernc.org/sqlite 3.54).
func TestScanFilterReadsItsColumns(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL, d)`)
	mustExec(t, s, `INSERT INTO t VALUES(1, 3, '3', 3.0, 3), (2, 4, '4', 4.5, '4'),
		(3, 9223372036854775807, '9223372036854775807', 1e300, x'34'),
		(4, -9223372036854775808, 'x', NULL, 4.0), (5, NULL, NULL, -0.0, NULL),
		(6, 'abc', '06', 6, '6.0'), (7, 7.5, ' 7', 7, -1), (8, 0, '0', 0, 0)`)
	for _, c := range []struct{ sql, want string }{
		{"SELECT id, b FROM t WHERE (SELECT t.c) = 3", "1 '3'"},
		{"SELECT id, b FROM t WHERE EXISTS (SELECT 1 FROM t AS u WHERE u.id = t.a)", "1 '3'; 2 '4'"},
		{"SELECT c + 1 AS x, b FROM t WHERE x > 5",
			"5.5 '4'; 1.0e+300 '9223372036854775807'; 7.0 '06'; 8.0 ' 7'"},
		{"SELECT b FROM t WHERE d IS NOT NULL AND c > 1 ORDER BY b",
			"' 7'; '06'; '3'; '4'; '9223372036854775807'"},
		{"SELECT b, rowid FROM t WHERE rowid % 2 = 0 AND a IS NOT NULL", "'4' 2; 'x' 4; '06' 6; '0' 8"},
		{"SELECT t.b, u.d FROM t, t AS u WHERE t.a = u.id AND u.c > 3", "'3' X'34'"},
		{"SELECT count(*), sum(c) FROM t WHERE a % 2 = 0", "4 10.5"},
		{"SELECT d, count(*) FROM t WHERE c >= 0 GROUP BY d ORDER BY d",
			"NULL 1; -1 1; 0 1; 3 1; '4' 1; '6.0' 1; X'34' 1"},
	} {
		var rows []string
		for _, r := range query(t, s, c.sql) {
			var cells []string
			for _, v := range r {
				cells = append(cells, v.String())
			}
			rows = append(rows, strings.Join(cells, " "))
		}
		require.Equal(t, c.want, strings.Join(rows, "; "), c.sql)
	}
}

// TestGroupSumOfIntegers runs sum, total and avg, whose INTEGER arguments skip value.Value
// (newAggIter), over integers at the edges of overflow mixed with NULL, text and REAL, and
// requires SQLite's results (modernc.org/sqlite 3.54).
func TestGroupSumOfIntegers(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE g(k, v INTEGER)`)
	mustExec(t, s, `INSERT INTO g VALUES(1, 9223372036854775807), (1, 1), (2, 5), (2, NULL),
		(2, '7'), (3, 2.5), (3, 4), (4, -9223372036854775808), (4, -1), (4, 1)`)
	render := func(sql string) string {
		var rows []string
		for _, r := range query(t, s, sql) {
			var cells []string
			for _, v := range r {
				cells = append(cells, v.String())
			}
			rows = append(rows, strings.Join(cells, " "))
		}
		return strings.Join(rows, "; ")
	}
	require.Equal(t, "1 9.2233720368547758e+18 4.6116860184273879e+18; 2 12.0 6.0; 3 6.5 3.25; "+
		"4 -9.2233720368547758e+18 -3.0744573456182584e+18",
		render(`SELECT k, total(v), avg(v) FROM g GROUP BY k`))
	require.Equal(t, "2 12; 3 6.5", render(`SELECT k, sum(v) FROM g WHERE k IN (2, 3) GROUP BY k`))
	require.Equal(t, "14", render(`SELECT sum(v + 1) FROM g WHERE k = 2`))
	st, err := s.Prepare(`SELECT k, sum(v) FROM g GROUP BY k`)
	require.NoError(t, err)
	rows, err := st.Query(context.Background(), nil)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	require.ErrorContains(t, err, "integer overflow")
}

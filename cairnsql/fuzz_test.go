package cairnsql_test

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// fuzzSchema is the small database every FuzzSQL input runs on: tables with and without rowid,
// indexes, constraints of each kind, a view, rows of every storage class.
var fuzzSchema = []string{
	`CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER UNIQUE, b TEXT NOT NULL DEFAULT 'x' COLLATE NOCASE,
		c REAL CHECK (c IS NULL OR c > -1000), d BLOB, e)`,
	"CREATE INDEX t_bc ON t(b, c DESC)",
	"CREATE TABLE w(k TEXT PRIMARY KEY, v ANY, n INT) WITHOUT ROWID",
	"CREATE TABLE u(x, y, UNIQUE (x, y) ON CONFLICT IGNORE)",
	"CREATE VIEW tv AS SELECT id, a + 1 AS a1, upper(b) AS ub FROM t WHERE c IS NOT NULL",
	`INSERT INTO t VALUES (1, 10, 'one', 1.5, x'01', NULL), (2, 20, 'Two', NULL, NULL, 'e'),
		(3, NULL, 'three', -2.25, x'', 3), (4, 40, 'FOUR', 4e10, x'ff00', 4.5)`,
	"INSERT INTO w VALUES ('a', 1, 1), ('b', 'two', 2), ('c', x'03', NULL), ('d', 4.5, 4)",
	"INSERT INTO u VALUES (1, 1), (1, 2), (NULL, NULL), ('a', 'b')",
}

// FuzzSQL runs arbitrary SQL text, through Exec and through Query (every row read), on a fresh
// copy of a small database: whatever the text, the driver returns an error or a result and never
// panics, and the database stays usable. Run it with
//
//	go test -run '^$' -fuzz FuzzSQL ./cairnsql
func FuzzSQL(f *testing.F) {
	for _, seed := range []string{
		"SELECT * FROM t",
		"SELECT a, count(*), sum(c), group_concat(b, '-') FROM t GROUP BY a HAVING count(*) > 0 ORDER BY 1 DESC",
		"SELECT * FROM t AS x LEFT JOIN w ON x.id = w.n JOIN u USING (x) WHERE x.b LIKE 'T%' ORDER BY x.c NULLS LAST LIMIT 2 OFFSET 1",
		"SELECT (SELECT max(a) FROM t WHERE t.id < o.id), EXISTS (SELECT 1 FROM w WHERE n = o.a) FROM t AS o",
		"SELECT * FROM (SELECT a, b FROM t UNION SELECT n, k FROM w EXCEPT SELECT x, y FROM u) ORDER BY 1",
		"SELECT CAST(b AS INTEGER), typeof(c + 1), abs(-a), coalesce(d, e, 'z'), nullif(a, 10), hex(d), quote(b) FROM t",
		"SELECT substr(b, 2, 3), trim(b, 'o'), replace(b, 'o', '00'), instr(b, 'o'), round(c, 1), printf('%5.2f|%d|%s', c, a, b) FROM t",
		"SELECT CASE WHEN a > 15 THEN 'big' WHEN a IS NULL THEN NULL ELSE 'small' END, a BETWEEN 10 AND 30, b IN ('one', 'two') FROM t",
		"SELECT 9223372036854775807 + 1, -9223372036854775808 / -1, 1 / 0, 5 % 0, '10' + 5, 'abc' < x'00'",
		"SELECT DISTINCT b COLLATE RTRIM FROM t WHERE b GLOB '*o*' OR b IS NOT DISTINCT FROM NULL",
		"INSERT INTO t(a, b, c) VALUES (50, 'five', 5), (60, 'six', 6)",
		"INSERT OR REPLACE INTO t(id, a, b) VALUES (1, 20, 'clash')",
		"INSERT OR IGNORE INTO u SELECT a, b FROM t",
		"INSERT INTO t(a, b) SELECT a + 100, b FROM t WHERE a IS NOT NULL",
		"REPLACE INTO w VALUES ('a', NULL, 0)",
		"UPDATE t SET c = c * 2, b = b || '!' WHERE id IN (SELECT n FROM w)",
		"UPDATE OR FAIL t SET a = 10 WHERE id > 1",
		"DELETE FROM t WHERE c < 0 OR d IS NULL",
		"BEGIN; INSERT INTO t(b) VALUES ('in tx'); SAVEPOINT s; DELETE FROM t; ROLLBACK TO s; RELEASE s; COMMIT",
		"BEGIN IMMEDIATE; UPDATE w SET v = v || 'x'; ROLLBACK",
		"CREATE TABLE n(a INTEGER PRIMARY KEY AUTOINCREMENT, b UNIQUE); INSERT INTO n(b) VALUES (1), (2); DROP TABLE n",
		"CREATE UNIQUE INDEX ub ON t(b); DROP INDEX ub; REINDEX t",
		"CREATE VIEW v2 AS SELECT * FROM tv WHERE a1 > 1; SELECT * FROM v2; DROP VIEW v2",
		"DROP TABLE t; SELECT * FROM tv",
		"EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 10",
		"SELECT ?, :a, @b, $c, ?5",
		"SELECT FROM t",
		"SELECT * FROM t WHERE",
		"SELECT x'0g', 'unterminated",
		"",
		";;;",
		"SELECT ?0",
		"SELECT zeroblob(10), length(randomblob(10)), random() IS NOT NULL",
		"SELECT * FROM t ORDER BY 7",
		"SELECT count(*) FROM t GROUP BY count(*)",
		"WITH c AS (SELECT 1) SELECT * FROM c",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		db, err := sql.Open("cairn", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}()
		for _, s := range fuzzSchema {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		// A connection is closed when given back, so that a transaction the text leaves open
		// (BEGIN without COMMIT) is rolled back rather than holding the writer slot.
		db.SetMaxIdleConns(0)
		// A bound on time: statements may be arbitrarily long to run (a join of every table
		// with itself ten times); what matters is that they end without a panic.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		defer func() {
			// ... and end soon after their context does.
			if d := time.Since(start); d > 15*time.Second {
				t.Fatalf("%q ran for %v, its context ended after 2 s", text, d)
			}
		}()
		args := []any{int64(1), "two", 3.5, []byte{4}, nil, sql.Named("a", 1), sql.Named("b", "b"), sql.Named("c", nil)}
		if rows, err := db.QueryContext(ctx, text, args...); err == nil {
			for rows.Next() {
				cols, err := rows.Columns()
				if err != nil {
					t.Fatal(err)
				}
				vals := make([]any, len(cols))
				for i := range vals {
					vals[i] = new(any)
				}
				if err := rows.Scan(vals...); err != nil {
					t.Fatal(err)
				}
			}
			_ = rows.Err()
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = db.ExecContext(ctx, text, args...)
		// The database is still usable: a new connection reads and writes it.
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.ExecContext(context.Background(), "CREATE TABLE IF NOT EXISTS after_fuzz(z); INSERT INTO after_fuzz VALUES (1)"); err != nil {
			t.Fatalf("the database is not usable after %q: %v", text, err)
		}
	})
}

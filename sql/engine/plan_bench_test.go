package engine_test

import (
	"context"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

// planRows is the size of the table BenchmarkAccessPaths reads.
const planRows = 100_000

// benchSession returns a session on a new in-memory database (SyncNone), closed when b ends, and
// a function that runs statements that must succeed.
func benchSession(b *testing.B) (*engine.Session, func(q string, args ...value.Value)) {
	db, err := cairn.Open("bench.db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s := engine.New(db).NewSession()
	b.Cleanup(s.Close)
	return s, func(q string, args ...value.Value) {
		if _, err := s.Exec(context.Background(), q, args); err != nil {
			b.Fatal(err, q)
		}
	}
}

// BenchmarkAccessPaths measures planner paths against the plan they replace, on one in-memory
// table of planRows rows with an index on a: path=planned is the query as written,
// path=unplanned the same query in a shape no access path takes (a FROM subquery, which is
// sorted; NOT (x NOT IN ...), which scans; no LIMIT, which sorts every row; a column outside
// the index, which reads the table; an expression, which min/max cannot take from an index; a
// column, which makes count decode rows; NOT INDEXED, which makes a join scan t once per row of
// the 10-row table u instead of building an automatic index): each reads its first 10 rows (1
// for an aggregate, all 1,000 for the join).
// Prepared, one session, one goroutine.
//
//	go test -run '^$' -bench AccessPaths -benchmem -benchtime 20x -count 6 ./sql/engine | tee paths.txt
//	benchstat -col /path paths.txt
func BenchmarkAccessPaths(b *testing.B) {
	s, exec := benchSession(b)
	ctx := context.Background()
	exec("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
	exec("CREATE INDEX t_a ON t(a)")
	exec("BEGIN")
	for r := int64(1); r <= planRows; r++ {
		exec("INSERT INTO t VALUES (?, ?, 'row ' || (? % 1000))", value.Int(r), value.Int(r*7919%planRows), value.Int(r))
	}
	exec("CREATE TABLE u(k TEXT)")
	for r := 1; r <= 10; r++ {
		exec("INSERT INTO u VALUES ('row ' || ?)", value.Int(int64(r*37)))
	}
	exec("COMMIT")
	in := "(17, 4242, 99999, 12, 50000, 31337, 8, 77777, 123, 65432)"
	for _, c := range []struct{ name, planned, other string }{
		{"query=rowid-desc-limit-10/path=", "SELECT * FROM t ORDER BY id DESC LIMIT 10",
			"SELECT * FROM (SELECT * FROM t) ORDER BY id DESC"},
		{"query=index-order-limit-10/path=", "SELECT * FROM t ORDER BY a LIMIT 10",
			"SELECT * FROM (SELECT * FROM t) ORDER BY a"},
		{"query=top-10/path=", "SELECT * FROM t ORDER BY b, a LIMIT 10", "SELECT * FROM t ORDER BY b, a"},
		{"query=rowid-in-10/path=", "SELECT * FROM t WHERE id IN " + in,
			"SELECT * FROM t WHERE NOT (id NOT IN " + in + ")"},
		{"query=index-in-10/path=", "SELECT * FROM t WHERE a IN " + in,
			"SELECT * FROM t WHERE NOT (a NOT IN " + in + ")"},
		{"query=covering-range-10/path=", "SELECT a, id FROM t WHERE a >= 500 AND a < 510",
			"SELECT a, id, b FROM t WHERE a >= 500 AND a < 510"},
		{"query=max/path=", "SELECT max(a) FROM t", "SELECT max(a + 0) FROM t"},
		{"query=count-star/path=", "SELECT count(*) FROM t", "SELECT count(id) FROM t"},
		{"query=join-auto-index/path=", "SELECT t.id FROM u JOIN t ON t.b = u.k",
			"SELECT t.id FROM u NOT INDEXED JOIN t NOT INDEXED ON t.b = u.k"},
	} {
		want := 10
		switch c.name {
		case "query=max/path=", "query=count-star/path=":
			want = 1
		case "query=join-auto-index/path=":
			want = 1000 // all: 10 rows of u, each matching 100 of t
		}
		for _, v := range []struct{ path, q string }{{"planned", c.planned}, {"unplanned", c.other}} {
			b.Run(c.name+v.path, func(b *testing.B) {
				st, err := s.Prepare(v.q)
				if err != nil {
					b.Fatal(err)
				}
				var args []value.Value
				for range b.N {
					rows, err := st.Query(ctx, args)
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for n < want && rows.Next() {
						n++
					}
					if err := rows.Err(); err != nil || n != want {
						b.Fatal(err, n)
					}
					rows.Close()
				}
			})
		}
	}
}

package cairnsql_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The statements of bench/'s per-statement rows (SQLPointSelect, SQLIndexSelect, SQLInsert,
// SQLSavepoints) on a small table, for the allocation pins below and a benchmark to profile.
const (
	allocSchema = `CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, g INTEGER);
CREATE INDEX t_a ON t(a);
CREATE TABLE log(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL)`
	allocPoint  = `SELECT a, b FROM t WHERE id = ?`
	allocIndex  = `SELECT id, b FROM t WHERE a = ?`
	allocInsert = `INSERT INTO log(k, v) VALUES(?, ?)`
	allocRows   = 1000
)

// allocA is row id's column a: distinct, and above 255 (Go boxes smaller integers without
// allocating, which would hide the driver's own allocations).
func allocA(id int64) int64 { return id*7919 + 100_000 }

// openAllocDB returns a database with allocSchema and allocRows rows in t, with _sync=none (the
// CPU path).
func openAllocDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("cairn", filepath.Join(tb.TempDir(), "a.db")+"?_sync=none")
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	_, err = db.Exec(allocSchema)
	require.NoError(tb, err)
	tx, err := db.Begin()
	require.NoError(tb, err)
	for id := int64(1); id <= allocRows; id++ {
		_, err := tx.Exec("INSERT INTO t VALUES (?, ?, ?, ?)", id, allocA(id), fmt.Sprintf("row %07d of the point table", id), id%100)
		require.NoError(tb, err)
	}
	require.NoError(tb, tx.Commit())
	return db
}

// allocWorkloads are the per-statement workloads: each returns a function running one op
// (it fails tb on an error or a wrong result).
func allocWorkloads(tb testing.TB, db *sql.DB) map[string]func(i int64) {
	tb.Helper()
	ctx := context.Background()
	prep := func(q string) *sql.Stmt {
		st, err := db.Prepare(q)
		require.NoError(tb, err)
		tb.Cleanup(func() { st.Close() })
		return st
	}
	point, index, insert := prep(allocPoint), prep(allocIndex), prep(allocInsert)
	conn, err := db.Conn(ctx)
	require.NoError(tb, err)
	tb.Cleanup(func() { conn.Close() })
	cprep := func(q string) *sql.Stmt {
		st, err := conn.PrepareContext(ctx, q)
		require.NoError(tb, err)
		tb.Cleanup(func() { st.Close() })
		return st
	}
	begin, commit, cinsert := cprep("BEGIN IMMEDIATE"), cprep("COMMIT"), cprep(allocInsert)
	var save, release []*sql.Stmt
	for i := 1; i <= 5; i++ {
		save = append(save, cprep(fmt.Sprintf("SAVEPOINT s%d", i)))
		release = append(release, cprep(fmt.Sprintf("RELEASE s%d", i)))
	}
	exec := func(st *sql.Stmt, args ...any) {
		if _, err := st.Exec(args...); err != nil {
			tb.Fatal(err)
		}
	}
	var a, id int64
	var b string
	const entry = "an entry of the log, fifty bytes or so of text"
	return map[string]func(i int64){
		"point": func(i int64) {
			want := 1 + i%allocRows
			if err := point.QueryRow(want).Scan(&a, &b); err != nil || a != allocA(want) {
				tb.Fatalf("point %d: %v, a = %d", want, err, a)
			}
		},
		"index": func(i int64) {
			want := 1 + i%allocRows
			rows, err := index.Query(allocA(want))
			if err != nil {
				tb.Fatal(err)
			}
			n := 0
			for rows.Next() {
				if err := rows.Scan(&id, &b); err != nil {
					tb.Fatal(err)
				}
				n++
			}
			if err := rows.Err(); err != nil || n != 1 || id != want {
				tb.Fatalf("index %d: %v, %d rows, id %d", want, err, n, id)
			}
		},
		"insert": func(i int64) { exec(insert, i+1000, entry) },
		"flat50": func(i int64) {
			exec(begin)
			for j := range int64(50) {
				exec(save[0])
				exec(cinsert, i*50+j, entry)
				exec(release[0])
			}
			exec(commit)
		},
		"nested5": func(i int64) {
			exec(begin)
			for _, s := range save {
				exec(s)
			}
			exec(cinsert, i+1000, entry)
			for j := len(release) - 1; j >= 0; j-- {
				exec(release[j])
			}
			exec(commit)
		},
	}
}

// BenchmarkStatement measures the per-statement workloads of allocWorkloads.
//
//	go test -run '^$' -bench Statement -benchmem ./cairnsql
func BenchmarkStatement(b *testing.B) {
	db := openAllocDB(b)
	w := allocWorkloads(b, db)
	for _, name := range []string{"point", "index", "insert", "flat50", "nested5"} {
		b.Run("stmt="+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := int64(0); b.Loop(); i++ {
				w[name](i)
			}
		})
	}
}

// TestStatementAllocs pins the allocations of one op of each per-statement workload through
// database/sql (bench/'s SQLPointSelect, SQLIndexSelect, SQLInsert, SQLSavepoints shapes), so
// that the per-statement costs cannot grow back unnoticed. A point SELECT's 12 are
// database/sql's 9 (QueryRow's Row among them), the boxed argument and the driver's int64 and
// string of the row's values: the engine allocates nothing. An index SELECT (Query: no Row) adds
// its cursor. The write shapes have a little room, as their commits' allocations depend on the
// tree.
func TestStatementAllocs(t *testing.T) {
	// Not parallel: AllocsPerRun counts the allocations of every goroutine.
	if raceEnabled {
		t.Skip("the race detector's instrumentation changes allocation counts")
	}
	db := openAllocDB(t)
	w := allocWorkloads(t, db)
	for _, c := range []struct {
		name string
		max  float64
	}{
		{"point", 12},
		{"index", 12},
		{"insert", 36},
		{"nested5", 55},
		{"flat50", 840},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := int64(0)
			allocs := testing.AllocsPerRun(100, func() {
				w[c.name](i)
				i++
			})
			t.Logf("%s: %.1f allocations", c.name, allocs)
			require.LessOrEqual(t, allocs, c.max)
		})
	}
}

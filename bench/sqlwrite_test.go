package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The SQL write workloads beyond the one-goroutine INSERT: each runs on a new database of its
// own, every commit durable (cairn SyncFull; SQLite WAL with synchronous=FULL). Writers of SQLite
// wait for its write lock with the busy timeout of the DSN (sqlite.go), as a program would.
const (
	// sqlUpdate rewrites the unindexed column b of one row of the point table.
	sqlUpdate = `UPDATE t SET b = ? WHERE id = ?`
	// logEntry is the text column of the rows the INSERT workloads write.
	logEntry = "an entry of the log, fifty bytes or so of text"
)

// updateRowCount is the point table of BenchmarkSQLUpdate: 100,000 rows in a full run, 20,000
// with -short.
func updateRowCount() int {
	if testing.Short() {
		return 20_000
	}
	return 100_000
}

// bulkRowCount is the load of BenchmarkSQLBulkLoad: 1,000,000 rows in a full run (issue 23's
// size), 20,000 with -short.
func bulkRowCount() int {
	if testing.Short() {
		return 20_000
	}
	return 1_000_000
}

// BenchmarkSQLInsertParallel measures 8 and 64 goroutines each inserting one row at a time with
// a prepared INSERT in autocommit mode: rows/s, and the latency percentiles of the commits.
// cairn's concurrent commits share fdatasyncs; SQLite's writers take its write lock in turn.
func BenchmarkSQLInsertParallel(b *testing.B) {
	for _, name := range SQLEngines {
		for _, writers := range []int{8, 64} {
			b.Run(fmt.Sprintf("engine=%s/goroutines=%d", name, writers), func(b *testing.B) {
				benchSQLInsertParallel(b, name, writers)
			})
		}
	}
}

func benchSQLInsertParallel(b *testing.B, name string, writers int) {
	db := openSQLEngine(b, name)
	sqlExec(b, db, sqlLogSchema)
	stmt := prepare(b, db, sqlLogInsert)
	holdConns(b, db, writers) // open the connections before the clock starts
	hists := make([]Histogram, writers)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	cpu := cpuTime(b)
	b.ResetTimer()
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				start := time.Now()
				if _, err := stmt.Exec(i, logEntry); err != nil {
					b.Error(err)
					return
				}
				hists[g].Record(time.Since(start))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	reportCPU(b, cpu)
	var h Histogram
	for i := range hists {
		h.Merge(&hists[i])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	reportLatency(b, &h)
}

// holdConns opens n connections of db's pool at once (and pings each), then returns them to the
// pool, which keeps up to 64 idle.
func holdConns(tb testing.TB, db *sql.DB, n int) {
	tb.Helper()
	ctx := context.Background()
	conns := make([]*sql.Conn, n)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.PingContext(ctx); err != nil {
			tb.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		if err := c.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkSQLUpdate measures one goroutine updating one random row of a point table of
// updateRowCount rows by primary key with a prepared UPDATE in autocommit mode: each op is a
// durable commit. The column updated is not indexed. Latency percentiles as BenchmarkSQLInsert.
func BenchmarkSQLUpdate(b *testing.B) {
	n := updateRowCount()
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/rows=%d/autocommit=1", name, n), func(b *testing.B) {
			db := openSQLEngine(b, name)
			loadPointTable(b, db, n)
			settle(b, name, db)
			stmt := prepare(b, db, sqlUpdate)
			texts := updateTexts()
			var h Histogram
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := uint64(0); b.Loop(); i++ {
				id := pointID(i, n)
				start := time.Now()
				res, err := stmt.Exec(texts[i%uint64(len(texts))], id)
				if err != nil {
					b.Fatal(err)
				}
				h.Record(time.Since(start))
				if c, err := res.RowsAffected(); err != nil || c != 1 {
					b.Fatalf("update of row %d: %d rows, %v", id, c, err)
				}
			}
			reportCPU(b, cpu)
			reportLatency(b, &h)
		})
	}
}

// updateTexts returns the values BenchmarkSQLUpdate writes into b, made before the clock runs.
func updateTexts() []string {
	texts := make([]string, 1024)
	for i := range texts {
		texts[i] = fmt.Sprintf("row updated, version %07d", i)
	}
	return texts
}

// BenchmarkSQLBulkLoad measures loading bulkRowCount rows of the point table into a new
// database (loadPointTable), its index on a made first (so maintained during the load, with a random order of
// keys), with a prepared INSERT in durable transactions of 10,000 rows. An op is the whole load
// (as BenchmarkBulkLoad's): ns/op is the load's time, which benchstat compares across engines,
// and rows/s the rate; one op per row would make b.N's small first rounds loads of a few rows in
// one transaction. The database's files are measured after Close (db-bytes, bytes/row).
func BenchmarkSQLBulkLoad(b *testing.B) {
	n := bulkRowCount()
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/rows=%d/txn=%d/indexes=1", name, n, sqlLoadTxnSize), func(b *testing.B) {
			var size int64
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				b.StopTimer()
				dir := tempDir(b)
				db, err := OpenSQL(name, dir, 0)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				loadPointTable(b, db, n)
				b.StopTimer()
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
				if size, err = dirSize(dir); err != nil {
					b.Fatal(err)
				}
				os.RemoveAll(dir)
				b.StartTimer()
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "db-bytes")
			b.ReportMetric(float64(size)/float64(n), "bytes/row")
		})
	}
}

// Shapes of BenchmarkSQLSavepoints' transactions.
const (
	flatSavepoints   = 50 // flat50: 50 × (SAVEPOINT s; INSERT; RELEASE s)
	nestedSavepoints = 5  // nested5: SAVEPOINT s1 .. s5; INSERT; RELEASE s5 .. s1
)

// savepointTx is a connection's prepared statements for BenchmarkSQLSavepoints: every
// statement of a transaction runs on one connection.
type savepointTx struct {
	conn                  *sql.Conn
	begin, commit, insert *sql.Stmt
	save, release         []*sql.Stmt // SAVEPOINT s1.., RELEASE s1..
}

// prepareSavepointTx takes a connection of db and prepares the statements on it; both are
// closed when tb ends.
func prepareSavepointTx(tb testing.TB, db *sql.DB) *savepointTx {
	tb.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	p := func(query string) *sql.Stmt {
		stmt, err := conn.PrepareContext(ctx, query)
		if err != nil {
			tb.Fatalf("%s: %v", query, err)
		}
		tb.Cleanup(func() { stmt.Close() })
		return stmt
	}
	t := &savepointTx{conn: conn, begin: p("BEGIN IMMEDIATE"), commit: p("COMMIT"), insert: p(sqlLogInsert)}
	for i := 1; i <= nestedSavepoints; i++ {
		t.save = append(t.save, p(fmt.Sprintf("SAVEPOINT s%d", i)))
		t.release = append(t.release, p(fmt.Sprintf("RELEASE s%d", i)))
	}
	return t
}

// run runs one transaction of shape ("flat50" or "nested5"), inserting rows k, k+1, ...; it
// returns the number of rows inserted.
func (t *savepointTx) run(shape string, k int64) (int, error) {
	exec := func(stmt *sql.Stmt, args ...any) error {
		_, err := stmt.Exec(args...)
		return err
	}
	if err := exec(t.begin); err != nil {
		return 0, err
	}
	rows := 0
	switch shape {
	case "flat50":
		for i := range int64(flatSavepoints) {
			if err := exec(t.save[0]); err != nil {
				return rows, err
			}
			if err := exec(t.insert, k+i, logEntry); err != nil {
				return rows, err
			}
			if err := exec(t.release[0]); err != nil {
				return rows, err
			}
			rows++
		}
	case "nested5":
		for _, s := range t.save {
			if err := exec(s); err != nil {
				return rows, err
			}
		}
		if err := exec(t.insert, k, logEntry); err != nil {
			return rows, err
		}
		rows++
		for i := len(t.release) - 1; i >= 0; i-- {
			if err := exec(t.release[i]); err != nil {
				return rows, err
			}
		}
	default:
		return 0, fmt.Errorf("unknown savepoint shape %q", shape)
	}
	return rows, exec(t.commit)
}

// BenchmarkSQLSavepoints measures one durable transaction (BEGIN IMMEDIATE .. COMMIT, on one
// *sql.Conn, every statement prepared) of 50 × (SAVEPOINT s; INSERT; RELEASE s) (shape=flat50),
// or of a chain of 5 nested savepoints around one INSERT (shape=nested5). An op is one
// transaction; rows/s counts inserted rows.
func BenchmarkSQLSavepoints(b *testing.B) {
	for _, name := range SQLEngines {
		for _, shape := range []string{"flat50", "nested5"} {
			b.Run(fmt.Sprintf("engine=%s/shape=%s", name, shape), func(b *testing.B) {
				db := openSQLEngine(b, name)
				sqlExec(b, db, sqlLogSchema)
				tx := prepareSavepointTx(b, db)
				rows := 0
				b.ReportAllocs()
				cpu := cpuTime(b)
				for i := int64(0); b.Loop(); i++ {
					n, err := tx.run(shape, i*flatSavepoints)
					if err != nil {
						b.Fatal(err)
					}
					rows += n
				}
				reportCPU(b, cpu)
				b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

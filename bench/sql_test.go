package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The SQL workloads: the same schema, data and prepared statements on every engine of
// SQLEngines, through database/sql as a Go program uses it.
const (
	// sqlPointSchema is the point table: a is nearly unique (30 random bits; about 500 of 1,000,000
	// rows share their a with another row), g has 100 values (id % 100). The read workloads
	// share it.
	sqlPointSchema = `CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT NOT NULL, g INTEGER NOT NULL)`
	sqlPointIndex  = `CREATE INDEX t_a ON t(a)`
	sqlPointInsert = `INSERT INTO t(id, a, b, g) VALUES(?, ?, ?, ?)`
	sqlPointSelect = `SELECT a, b FROM t WHERE id = ?`

	sqlCustomersSchema = `CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL)`
	sqlOrdersSchema    = `CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount INTEGER NOT NULL)`
	sqlOrdersIndex     = `CREATE INDEX orders_customer ON orders(customer_id)`
	sqlCustomerInsert  = `INSERT INTO customers(id, name, city) VALUES(?, ?, ?)`
	sqlOrderInsert     = `INSERT INTO orders(id, customer_id, amount) VALUES(?, ?, ?)`
	// sqlJoin reads the orders of joinCustomers consecutive customers: 1,000 rows. The outer loop
	// is a rowid range of customers, the inner one a search of orders_customer.
	sqlJoin = `SELECT c.name, o.id, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id
		WHERE c.id BETWEEN ? AND ?`

	sqlLogSchema = `CREATE TABLE log(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL)`
	sqlLogInsert = `INSERT INTO log(k, v) VALUES(?, ?)`
)

// Sizes of the join data set: every customer has ordersPerCustomer orders, spread over the
// orders table; a join reads joinCustomers customers.
const (
	joinCustomerCount = 10_000
	ordersPerCustomer = 10
	joinCustomers     = 100
	sqlLoadTxnSize    = 10_000
)

// pointRowCount is the table of BenchmarkSQLPointSelect: 1,000,000 rows in a full run (issue 23's
// size for reads), 20,000 with -short.
func pointRowCount() int {
	if testing.Short() {
		return 20_000
	}
	return 1_000_000
}

// pointRow returns the columns a and b of row id of the point table (g is id % 100).
func pointRow(id int) (int64, string) {
	return int64(mix(uint64(id)) >> 34), fmt.Sprintf("row %07d of the point table", id)
}

// orderCustomer returns the customer of order id (1-based): a bijection spreads the orders of
// one customer over the table, so that a customer's orders are not neighbours by rowid.
func orderCustomer(id int) int { return (id*7919)%joinCustomerCount + 1 }

// cpuTime returns the CPU time (user and system, every thread) the process has used so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time since start per op (cpu-ns/op): what an op costs in
// CPU whatever else runs on the machine, beside ns/op, the wall time, which other processes on
// a shared machine stretch.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// settle checkpoints db's WAL (SettleSQL) or fails tb.
func settle(tb testing.TB, name string, db *sql.DB) {
	tb.Helper()
	if err := SettleSQL(name, db); err != nil {
		tb.Fatal(err)
	}
}

// openSQLEngine opens engine name on a new database, closed when tb ends.
func openSQLEngine(tb testing.TB, name string) *sql.DB {
	tb.Helper()
	db, err := OpenSQL(name, tempDir(tb), 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

// sqlExec runs each statement or fails tb.
func sqlExec(tb testing.TB, db *sql.DB, stmts ...string) {
	tb.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

// sqlLoad inserts rows 1..n with the prepared statement insert, whose arguments row returns, in
// transactions of sqlLoadTxnSize rows.
func sqlLoad(tb testing.TB, db *sql.DB, insert string, n int, row func(i int) []any) {
	tb.Helper()
	for start := 1; start <= n; start += sqlLoadTxnSize {
		tx, err := db.Begin()
		if err != nil {
			tb.Fatal(err)
		}
		stmt, err := tx.Prepare(insert)
		if err != nil {
			tb.Fatal(err)
		}
		for i := start; i < min(start+sqlLoadTxnSize, n+1); i++ {
			if _, err := stmt.Exec(row(i)...); err != nil {
				tb.Fatalf("%s, row %d: %v", insert, i, err)
			}
		}
		if err := stmt.Close(); err != nil {
			tb.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
}

// loadPointTable creates the point table and its index on a, then loads rows 1..n into it, the
// index maintained by the INSERTs. (The index is made first because cairn's CREATE INDEX on a
// filled table takes time quadratic in its rows: 10 s for 50,000 rows, 47 s for 100,000, 180 s
// for 200,000.)
func loadPointTable(tb testing.TB, db *sql.DB, n int) {
	tb.Helper()
	sqlExec(tb, db, sqlPointSchema, sqlPointIndex)
	sqlLoad(tb, db, sqlPointInsert, n, pointArgs)
}

// pointArgs returns the arguments of sqlPointInsert for row i.
func pointArgs(i int) []any {
	a, b := pointRow(i)
	return []any{i, a, b, i % 100}
}

// sqlShared holds the databases that several SQL workloads read and none writes, each loaded
// once per process: a full run loads the 1,000,000-row point table once per engine, not once
// per workload and -count. TestMain closes them and removes their directories.
var sqlShared struct {
	mu   sync.Mutex
	dbs  map[string]*sql.DB // by engine "/" data set
	dirs []string
}

// sharedSQLDB returns engine name's database of the data set called set, which load creates,
// fills and warms on first use (logging the time it took with -v); it is checkpointed after the
// load. Callers must not write to it.
func sharedSQLDB(tb testing.TB, name, set string, load func(testing.TB, *sql.DB)) *sql.DB {
	tb.Helper()
	sqlShared.mu.Lock()
	defer sqlShared.mu.Unlock()
	key := name + "/" + set
	if db := sqlShared.dbs[key]; db != nil {
		return db
	}
	base, err := benchBase()
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "cairn-bench-shared-") // base "": the temporary directory
	if err != nil {
		tb.Fatal(err)
	}
	sqlShared.dirs = append(sqlShared.dirs, dir)
	db, err := OpenSQL(name, dir, 0)
	if err != nil {
		tb.Fatal(err)
	}
	loaded := false
	defer func() {
		if !loaded {
			db.Close()
		}
	}()
	start := time.Now()
	load(tb, db)
	if testing.Verbose() {
		tb.Logf("%s: loaded and warmed %s in %v", name, set, time.Since(start).Round(time.Millisecond))
	}
	settle(tb, name, db)
	if sqlShared.dbs == nil {
		sqlShared.dbs = map[string]*sql.DB{}
	}
	sqlShared.dbs[key], loaded = db, true
	return db
}

// closeSharedSQL closes the databases of sharedSQLDB and removes their directories.
func closeSharedSQL() error {
	sqlShared.mu.Lock()
	defer sqlShared.mu.Unlock()
	var errs []error
	for _, db := range sqlShared.dbs {
		errs = append(errs, db.Close())
	}
	for _, dir := range sqlShared.dirs {
		errs = append(errs, os.RemoveAll(dir))
	}
	sqlShared.dbs, sqlShared.dirs = nil, nil
	return errors.Join(errs...)
}

// TestMain runs the tests and benchmarks, then closes the databases they share.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := closeSharedSQL(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// sharedPointDB returns engine name's point table of pointRowCount rows, shared by the read
// workloads, its cache warm on 8 connections.
func sharedPointDB(tb testing.TB, name string) *sql.DB {
	n := pointRowCount()
	return sharedSQLDB(tb, name, fmt.Sprintf("point table of %d rows", n), func(tb testing.TB, db *sql.DB) {
		loadPointTable(tb, db, n)
		warmPointTable(tb, db, n, 8)
	})
}

// sharedJoinDB returns engine name's customers, orders and items, shared by the join workloads.
func sharedJoinDB(tb testing.TB, name string) *sql.DB {
	return sharedSQLDB(tb, name, "join tables", func(tb testing.TB, db *sql.DB) {
		loadJoinTables(tb, db)
		loadItemsTable(tb, db)
	})
}

// loadJoinTables creates and fills customers and orders.
func loadJoinTables(tb testing.TB, db *sql.DB) {
	tb.Helper()
	sqlExec(tb, db, sqlCustomersSchema, sqlOrdersSchema, sqlOrdersIndex)
	sqlLoad(tb, db, sqlCustomerInsert, joinCustomerCount, func(i int) []any {
		return []any{i, fmt.Sprintf("customer %05d", i), fmt.Sprintf("city %03d", i%997)}
	})
	sqlLoad(tb, db, sqlOrderInsert, joinCustomerCount*ordersPerCustomer, func(i int) []any {
		return []any{i, orderCustomer(i), int64(mix(uint64(i))>>50) + 1}
	})
}

// prepare prepares query on db or fails tb; the statement is closed when tb ends.
func prepare(tb testing.TB, db *sql.DB, query string) *sql.Stmt {
	tb.Helper()
	stmt, err := db.Prepare(query)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stmt.Close() })
	return stmt
}

// BenchmarkSQLPointSelect measures a prepared SELECT of one row by INTEGER PRIMARY KEY from a
// cached table of pointRowCount rows (sharedPointDB) (1,000,000 in a full run), through database/sql (QueryRow
// and Scan into an int64 and a string), from one goroutine and from 8 (b.RunParallel). Every SQL workload reports cpu-ns/op too.
func BenchmarkSQLPointSelect(b *testing.B) {
	n := pointRowCount()
	for _, name := range SQLEngines {
		b.Run("engine="+name, func(b *testing.B) {
			db := sharedPointDB(b, name)
			settle(b, name, db)
			stmt := prepare(b, db, sqlPointSelect)
			b.Run(fmt.Sprintf("rows=%d/goroutines=1", n), func(b *testing.B) {
				benchPointSelect(b, stmt, n)
			})
			par := max(1, 8/runtime.GOMAXPROCS(0))
			b.Run(fmt.Sprintf("rows=%d/goroutines=%d", n, par*runtime.GOMAXPROCS(0)), func(b *testing.B) {
				benchPointSelectParallel(b, stmt, n, par)
			})
		})
	}
}

// warmPointTable holds conns connections of db's pool at once and reads the whole point table
// on each, so that the cache of every connection the benchmarks use holds the table (SQLite has
// a page cache per connection, cairn one per database), then returns them to the pool.
func warmPointTable(b testing.TB, db *sql.DB, n, conns int) {
	ctx := context.Background()
	var held []*sql.Conn
	for range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		held = append(held, c)
		var count, sumA, sumB int64
		err = c.QueryRowContext(ctx, `SELECT count(*), sum(a), sum(length(b)) FROM t`).Scan(&count, &sumA, &sumB)
		if err != nil || count != int64(n) {
			b.Fatalf("warm-up scan: %d rows, %v; want %d", count, err, n)
		}
	}
	for _, c := range held {
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// pointID returns the i-th random row id of a table of n rows.
func pointID(i uint64, n int) int64 { return int64(mix(i)%uint64(n)) + 1 }

func benchPointSelect(b *testing.B, stmt *sql.Stmt, n int) {
	var a int64
	var s string
	b.ReportAllocs()
	cpu := cpuTime(b)
	for i := uint64(0); b.Loop(); i++ {
		id := pointID(i, n)
		if err := stmt.QueryRow(id).Scan(&a, &s); err != nil {
			b.Fatalf("row %d: %v", id, err)
		}
	}
	reportCPU(b, cpu)
}

// benchPointSelectParallel runs par × GOMAXPROCS goroutines of point SELECTs; ns/op is wall
// time per SELECT.
func benchPointSelectParallel(b *testing.B, stmt *sql.Stmt, n, par int) {
	var seq atomic.Uint64
	b.ReportAllocs()
	b.SetParallelism(par)
	cpu := cpuTime(b)
	b.RunParallel(func(pb *testing.PB) {
		var a int64
		var s string
		i := seq.Add(1) << 40
		for pb.Next() {
			i++
			id := pointID(i, n)
			if err := stmt.QueryRow(id).Scan(&a, &s); err != nil {
				b.Errorf("row %d: %v", id, err)
				return
			}
		}
	})
	reportCPU(b, cpu)
}

// BenchmarkSQLJoin measures a prepared join of customers (a rowid range of 100) with their
// orders by the indexed column orders.customer_id: 1,000 result rows per op, scanned into Go
// values. rows/s counts result rows. The tables are sharedJoinDB's.
func BenchmarkSQLJoin(b *testing.B) {
	for _, name := range SQLEngines {
		sub := fmt.Sprintf("engine=%s/customers=%d/orders=%d/rows=%d", name, joinCustomerCount,
			joinCustomerCount*ordersPerCustomer, joinCustomers*ordersPerCustomer)
		b.Run(sub, func(b *testing.B) {
			db := sharedJoinDB(b, name)
			stmt := prepare(b, db, sqlJoin)
			for first := 1; first <= joinCustomerCount; first += joinCustomers { // warm the caches
				runJoin(b, stmt, first)
			}
			settle(b, name, db)
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := uint64(0); b.Loop(); i++ {
				runJoin(b, stmt, int(mix(i)%(joinCustomerCount-joinCustomers+1))+1)
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N*joinCustomers*ordersPerCustomer)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// runJoin runs the join from customer first and checks that it read 1,000 rows.
func runJoin(b *testing.B, stmt *sql.Stmt, first int) {
	rows, err := stmt.Query(first, first+joinCustomers-1)
	if err != nil {
		b.Fatal(err)
	}
	var name string
	var id, amount int64
	n := 0
	for rows.Next() {
		if err := rows.Scan(&name, &id, &amount); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	if n != joinCustomers*ordersPerCustomer {
		b.Fatalf("join from customer %d: %d rows, want %d", first, n, joinCustomers*ordersPerCustomer)
	}
}

// BenchmarkSQLInsert measures one goroutine inserting one row at a time with a prepared INSERT
// in autocommit mode: each op is a durable commit (cairn SyncFull; SQLite WAL with
// synchronous=FULL). Latency percentiles as BenchmarkCommitSync reports them.
func BenchmarkSQLInsert(b *testing.B) {
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/autocommit=1", name), func(b *testing.B) {
			db := openSQLEngine(b, name)
			sqlExec(b, db, sqlLogSchema)
			stmt := prepare(b, db, sqlLogInsert)
			var h Histogram
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := int64(0); b.Loop(); i++ {
				start := time.Now()
				if _, err := stmt.Exec(i, "an entry of the log, fifty bytes or so of text"); err != nil {
					b.Fatal(err)
				}
				h.Record(time.Since(start))
			}
			reportCPU(b, cpu)
			reportLatency(b, &h)
		})
	}
}

package bench

import (
	"database/sql"
	"fmt"
	"testing"
)

// The SQL read workloads beyond the point SELECT and the two-table join: they read the shared
// point table (sharedPointDB) and join tables (sharedJoinDB), through prepared statements.
const (
	// sqlIndexSelect reads the row(s) of one value of the indexed column a: one row, or two
	// for the few values that two rows share.
	sqlIndexSelect = `SELECT id, b FROM t WHERE a = ?`
	// sqlRange reads rangeRows consecutive rows by primary key.
	sqlRange = `SELECT a, b FROM t WHERE id BETWEEN ? AND ?`
	// sqlFullScan reads the whole table and returns the rows (about 1 in 1,000) whose unindexed
	// expression a % 1000 has one value; b is selected so that no index covers the query.
	sqlFullScan = `SELECT id, b FROM t WHERE a % 1000 = ?`
	// sqlGroupBy aggregates the whole table into the 100 groups of g (no index on g).
	sqlGroupBy = `SELECT g, count(*), sum(a), avg(a) FROM t GROUP BY g`

	sqlItemsSchema = `CREATE TABLE items(id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, sku TEXT NOT NULL, qty INTEGER NOT NULL)`
	sqlItemsIndex  = `CREATE INDEX items_order ON items(order_id)`
	sqlItemInsert  = `INSERT INTO items(id, order_id, sku, qty) VALUES(?, ?, ?, ?)`
	// sqlJoin3 reads the items of the orders of join3Customers consecutive customers: 1,000 rows.
	// The outer loop is a rowid range of customers, the inner ones searches of orders_customer
	// and items_order.
	sqlJoin3 = `SELECT c.name, o.id, o.amount, i.id, i.sku, i.qty FROM customers c
		JOIN orders o ON o.customer_id = c.id
		JOIN items i ON i.order_id = o.id
		WHERE c.id BETWEEN ? AND ?`
)

// Sizes of the read workloads: a range reads rangeRows rows; every order has itemsPerOrder
// items, and a three-table join reads join3Customers customers (join3Rows result rows).
const (
	rangeRows      = 100
	itemsPerOrder  = 2
	join3Customers = 50
	join3Rows      = join3Customers * ordersPerCustomer * itemsPerOrder
	itemCount      = joinCustomerCount * ordersPerCustomer * itemsPerOrder
)

// itemOrder returns the order of item id (1-based): every order has itemsPerOrder items, spread
// over the table as orderCustomer spreads orders.
func itemOrder(id int) int { return (id*7919)%(joinCustomerCount*ordersPerCustomer) + 1 }

// loadItemsTable creates and fills items (loadJoinTables makes customers and orders).
func loadItemsTable(tb testing.TB, db *sql.DB) {
	tb.Helper()
	sqlExec(tb, db, sqlItemsSchema, sqlItemsIndex)
	sqlLoad(tb, db, sqlItemInsert, itemCount, func(i int) []any {
		return []any{i, itemOrder(i), fmt.Sprintf("sku-%06d", mix(uint64(i))>>44), int64(mix(uint64(i))>>60) + 1}
	})
}

// BenchmarkSQLIndexSelect measures a prepared SELECT of one row by the secondary index t_a of
// the point table (pointRowCount rows; sharedPointDB): QueryRow-like use of Query, scanning
// every matching row (one, rarely two) into an int64 and a string.
func BenchmarkSQLIndexSelect(b *testing.B) {
	n := pointRowCount()
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/rows=%d", name, n), func(b *testing.B) {
			db := sharedPointDB(b, name)
			settle(b, name, db)
			stmt := prepare(b, db, sqlIndexSelect)
			var id int64
			var s string
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := uint64(0); b.Loop(); i++ {
				a, _ := pointRow(int(pointID(i, n)))
				if got := queryRows(b, stmt, []any{a}, &id, &s); got == 0 {
					b.Fatalf("a = %d: no row", a)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// queryRows runs stmt with args, scans every row into dst and returns how many there were.
func queryRows(b *testing.B, stmt *sql.Stmt, args []any, dst ...any) int {
	rows, err := stmt.Query(args...)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkSQLRange measures a prepared SELECT of rangeRows (100) consecutive rows by primary
// key from a random start in the point table (sharedPointDB), scanned into an int64 and a
// string each. rows/s counts result rows.
func BenchmarkSQLRange(b *testing.B) {
	n := pointRowCount()
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/rows=%d/range=%d", name, n, rangeRows), func(b *testing.B) {
			db := sharedPointDB(b, name)
			settle(b, name, db)
			stmt := prepare(b, db, sqlRange)
			var a int64
			var s string
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := uint64(0); b.Loop(); i++ {
				first := pointID(i, n-rangeRows+1)
				if got := queryRows(b, stmt, []any{first, first + rangeRows - 1}, &a, &s); got != rangeRows {
					b.Fatalf("range from %d: %d rows, want %d", first, got, rangeRows)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N*rangeRows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkSQLScan measures a prepared full scan of the point table (sharedPointDB) with a
// WHERE on the unindexed expression a % 1000: each op reads every row and returns about 1 in
// 1,000. rows/s counts scanned rows (the table's).
func BenchmarkSQLScan(b *testing.B) {
	n := pointRowCount()
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/rows=%d", name, n), func(b *testing.B) {
			db := sharedPointDB(b, name)
			settle(b, name, db)
			stmt := prepare(b, db, sqlFullScan)
			var id int64
			var s string
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := 0; b.Loop(); i++ {
				if got := queryRows(b, stmt, []any{i % 1000}, &id, &s); got == 0 || got > n/100 {
					b.Fatalf("a %% 1000 = %d: %d rows", i%1000, got)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkSQLGroupBy measures a prepared GROUP BY of the point table (sharedPointDB) into
// 100 groups with count, sum and avg, its 100 result rows scanned into Go values. rows/s counts
// aggregated rows (the table's).
func BenchmarkSQLGroupBy(b *testing.B) {
	n := pointRowCount()
	for _, name := range SQLEngines {
		b.Run(fmt.Sprintf("engine=%s/rows=%d/groups=100", name, n), func(b *testing.B) {
			db := sharedPointDB(b, name)
			settle(b, name, db)
			stmt := prepare(b, db, sqlGroupBy)
			var g, count, sum int64
			var avg float64
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				if got := queryRows(b, stmt, nil, &g, &count, &sum, &avg); got != 100 {
					b.Fatalf("GROUP BY g: %d groups, want 100", got)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkSQLJoin3 measures a prepared join of customers (a rowid range of 50) with their
// orders (by the indexed orders.customer_id) and the orders' items (by the indexed
// items.order_id): 1,000 result rows per op, scanned into Go values. rows/s counts result rows.
// The tables are sharedJoinDB's.
func BenchmarkSQLJoin3(b *testing.B) {
	for _, name := range SQLEngines {
		sub := fmt.Sprintf("engine=%s/customers=%d/orders=%d/items=%d/rows=%d", name, joinCustomerCount,
			joinCustomerCount*ordersPerCustomer, itemCount, join3Rows)
		b.Run(sub, func(b *testing.B) {
			db := sharedJoinDB(b, name)
			stmt := prepare(b, db, sqlJoin3)
			var cname, sku string
			var oid, amount, iid, qty int64
			dst := []any{&cname, &oid, &amount, &iid, &sku, &qty}
			join3 := func(first int) {
				if got := queryRows(b, stmt, []any{first, first + join3Customers - 1}, dst...); got != join3Rows {
					b.Fatalf("join from customer %d: %d rows, want %d", first, got, join3Rows)
				}
			}
			warmJoin3(b, db)
			for i := range uint64(3) {
				join3(int(mix(i)%(joinCustomerCount-join3Customers+1)) + 1)
			}
			settle(b, name, db)
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := uint64(0); b.Loop(); i++ {
				join3(int(mix(i)%(joinCustomerCount-join3Customers+1)) + 1)
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N*join3Rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// warmJoin3 reads the three tables of the join and their indexes whole, so that the cache of
// the connection the benchmark then uses (SQLite's are per connection) holds them. (Warming by
// running the join over every customer, as BenchmarkSQLJoin does, would take minutes with a
// plan that scans items for every join, as cairn's did before its planner knew table sizes.)
func warmJoin3(b *testing.B, db *sql.DB) {
	for _, q := range []string{
		`SELECT count(*), sum(length(name)), sum(length(city)) FROM customers`,
		`SELECT count(*), sum(amount) FROM orders`,
		`SELECT count(*) FROM orders WHERE customer_id >= 0`,
		`SELECT count(*), sum(length(sku)), sum(qty) FROM items`,
		`SELECT count(*) FROM items WHERE order_id >= 0`,
	} {
		var count int64
		var sums [2]sql.NullInt64
		dst := []any{&count, &sums[0], &sums[1]}
		rows, err := db.Query(q)
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			if err := rows.Scan(dst[:len(cols)]...); err != nil {
				b.Fatal(err)
			}
		}
		if err := rows.Close(); err != nil || count == 0 {
			b.Fatalf("%s: %d rows, %v", q, count, err)
		}
	}
}

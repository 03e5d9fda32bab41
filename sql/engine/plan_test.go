package engine

import (
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// explainPlan returns the detail lines of EXPLAIN QUERY PLAN for query.
func explainPlan(t *testing.T, s *Session, query string) []string {
	t.Helper()
	var out []string
	for _, r := range querySQL(t, s, "EXPLAIN QUERY PLAN "+query) {
		out = append(out, string(r[3].Bytes()))
	}
	return out
}

func querySQL(t *testing.T, s *Session, sql string) [][]value.Value {
	t.Helper()
	rows := query(t, s, sql)
	out := make([][]value.Value, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}

// TestPlans is the table of queries and the plans they must get: a planner change that makes one
// of them worse fails here.
func TestPlans(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT);
		CREATE INDEX customers_city ON customers(city);
		CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, total REAL, day TEXT);
		CREATE INDEX orders_customer ON orders(customer);
		CREATE TABLE items(order_id INTEGER, sku TEXT, qty INTEGER, PRIMARY KEY(order_id, sku)) WITHOUT ROWID;
		CREATE TABLE a(x INTEGER, y INTEGER);
		CREATE INDEX a_x ON a(x);
		CREATE TABLE b(y INTEGER, z INTEGER);
		CREATE TABLE kv(k TEXT UNIQUE, v);
		CREATE TABLE t3(a UNIQUE, b PRIMARY KEY, c UNIQUE);
		CREATE TABLE u3(a UNIQUE, b, PRIMARY KEY(b));`)
	for _, c := range []struct {
		query string
		plan  []string
	}{
		{"SELECT * FROM customers WHERE id = 5", []string{"SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"SELECT * FROM customers WHERE id > 5 AND id < 9", []string{"SEARCH customers USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"SELECT * FROM customers WHERE city = 'Oslo'", []string{"SEARCH customers USING INDEX customers_city (city=?)"}},
		{"SELECT * FROM customers WHERE name = 'Ada'", []string{"SCAN customers"}},
		{"SELECT * FROM kv WHERE k = 'a'", []string{"SEARCH kv USING INDEX sqlite_autoindex_kv_1 (k=?)"}},
		// Automatic indexes are numbered in declaration order, as SQLite numbers them.
		{"SELECT * FROM t3 WHERE b = 1", []string{"SEARCH t3 USING INDEX sqlite_autoindex_t3_2 (b=?)"}},
		{"SELECT * FROM t3 WHERE c = 1", []string{"SEARCH t3 USING INDEX sqlite_autoindex_t3_3 (c=?)"}},
		{"SELECT * FROM u3 WHERE b = 1", []string{"SEARCH u3 USING INDEX sqlite_autoindex_u3_2 (b=?)"}},
		{"SELECT * FROM items WHERE order_id = 3", []string{"SEARCH items USING PRIMARY KEY (order_id=?)"}},
		{"SELECT * FROM items WHERE order_id = 3 AND sku = 'x'", []string{"SEARCH items USING PRIMARY KEY (order_id=? AND sku=?)"}},
		// Joins put the indexed side inside, whatever the FROM order.
		{"SELECT * FROM orders JOIN customers ON customers.id = orders.customer",
			[]string{"SCAN orders", "SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"SELECT * FROM customers JOIN orders ON orders.customer = customers.id",
			[]string{"SCAN orders", "SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"SELECT * FROM customers JOIN orders ON orders.customer = customers.id WHERE customers.city = 'Oslo'",
			[]string{"SEARCH customers USING INDEX customers_city (city=?)", "SEARCH orders USING INDEX orders_customer (customer=?)"}},
		{"SELECT * FROM a JOIN b ON a.x = b.y", []string{"SCAN b", "SEARCH a USING INDEX a_x (x=?)"}},
		{"SELECT * FROM b, a WHERE a.x = b.y", []string{"SCAN b", "SEARCH a USING INDEX a_x (x=?)"}},
		// A LEFT JOIN keeps its order.
		{"SELECT * FROM b LEFT JOIN a ON a.x = b.y", []string{"SCAN b", "SEARCH a USING INDEX a_x (x=?) LEFT-JOIN"}},
		// An equality no index serves gets an automatic index on the inner side, never a scan per
		// outer row; a real index is preferred.
		{"SELECT * FROM a LEFT JOIN b ON a.x = b.y", []string{"SCAN a", "SEARCH b USING AUTOMATIC INDEX (y=?) LEFT-JOIN"}},
		{"SELECT * FROM b JOIN a ON a.y = b.z", []string{"SCAN b", "SEARCH a USING AUTOMATIC INDEX (y=?)"}},
		{"SELECT * FROM b JOIN a ON a.y = b.z AND a.x = b.y", []string{"SCAN b", "SEARCH a USING INDEX a_x (x=?)"}},
		{"SELECT * FROM a NOT INDEXED, b NOT INDEXED WHERE a.y = b.z", []string{"SCAN a", "SCAN b"}},
		{"SELECT * FROM customers JOIN orders ON orders.day = customers.name",
			[]string{"SCAN customers", "SEARCH orders USING AUTOMATIC INDEX (day=?)"}},
		{"SELECT * FROM b WHERE b.y = 5", []string{"SCAN b"}},
		// IN lists are multi-point lookups.
		{"SELECT * FROM customers WHERE id IN (1, 5, 9)", []string{"SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"SELECT * FROM customers WHERE city IN ('Oslo', 'Rome')", []string{"SEARCH customers USING INDEX customers_city (city=?)"}},
		{"SELECT * FROM items WHERE order_id IN (1, 2) AND sku = 'x'", []string{"SEARCH items USING PRIMARY KEY (order_id=? AND sku=?)"}},
		{"SELECT * FROM items WHERE order_id IN (1, 2) AND sku IN ('x', 'y')", []string{"SEARCH items USING PRIMARY KEY (order_id=? AND sku=?)"}},
		{"SELECT * FROM customers WHERE city NOT IN ('Oslo')", []string{"SCAN customers"}},
		{"SELECT * FROM b JOIN a ON a.x IN (b.y, b.z)", []string{"SCAN b", "SEARCH a USING INDEX a_x (x=?)"}},
		// OR of indexable terms is a union of their searches; one unindexable disjunct scans.
		{"SELECT * FROM customers WHERE city = 'Oslo' OR id = 5", []string{"MULTI-INDEX OR",
			"INDEX 1", "SEARCH customers USING INDEX customers_city (city=?)",
			"INDEX 2", "SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"SELECT * FROM customers WHERE city = 'Oslo' OR name = 'Ada'", []string{"SCAN customers"}},
		{"SELECT * FROM customers NOT INDEXED WHERE city = 'Oslo' OR id = 5", []string{"SCAN customers"}},
		{"SELECT city, count(*) FROM customers GROUP BY city ORDER BY 2",
			[]string{"SCAN customers", "USE TEMP B-TREE FOR GROUP BY", "USE TEMP B-TREE FOR ORDER BY"}},
	} {
		require.Equal(t, c.plan, explainPlan(t, s, c.query), c.query)
	}
}

package engine

import (
	"context"
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestOuterJoinPlans holds the plans of RIGHT and FULL joins. Each is SQLite 3.54's text for the
// same schema, except where noted.
func TestOuterJoinPlans(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT);
		CREATE INDEX customers_city ON customers(city);
		CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, total REAL, day TEXT);
		CREATE INDEX orders_customer ON orders(customer);
		CREATE TABLE items(order_id INTEGER, sku TEXT, qty INTEGER, PRIMARY KEY(order_id, sku)) WITHOUT ROWID;`)
	for _, c := range []struct {
		query string
		plan  []string
	}{
		{"SELECT * FROM orders RIGHT JOIN customers ON customers.id = orders.customer",
			[]string{"SCAN orders", "SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)", "RIGHT-JOIN customers", "SCAN customers"}},
		{"SELECT * FROM customers RIGHT JOIN orders ON customers.id = orders.customer ORDER BY orders.id",
			[]string{"SCAN customers", "SEARCH orders USING INDEX orders_customer (customer=?)", "RIGHT-JOIN orders", "SCAN orders",
				"USE TEMP B-TREE FOR ORDER BY"}},
		// A WITHOUT ROWID table on either side keeps its primary key's searches.
		{"SELECT * FROM orders RIGHT JOIN items ON items.order_id = orders.id",
			[]string{"SCAN orders", "SEARCH items USING PRIMARY KEY (order_id=?)", "RIGHT-JOIN items", "SCAN items"}},
		{"SELECT * FROM items RIGHT JOIN orders ON items.order_id = orders.id",
			[]string{"SCAN items", "SEARCH orders USING INTEGER PRIMARY KEY (rowid=?)", "RIGHT-JOIN orders", "SCAN orders"}},
		// The tables before the RIGHT join reorder among themselves (by cairn's estimates, as
		// for any inner join: SQLite starts from customers here); the RIGHT join stays after.
		{"SELECT * FROM customers JOIN orders ON orders.customer = customers.id RIGHT JOIN items ON items.order_id = orders.id",
			[]string{"SCAN orders", "SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)",
				"SEARCH items USING PRIMARY KEY (order_id=?)", "RIGHT-JOIN items", "SCAN items"}},
		// A WHERE term on the left side that rejects NULLs makes the FULL join a LEFT one.
		{"SELECT * FROM customers FULL JOIN orders ON customers.id = orders.customer WHERE customers.city = 'x'",
			[]string{"SEARCH customers USING INDEX customers_city (city=?)", "SEARCH orders USING INDEX orders_customer (customer=?) LEFT-JOIN"}},
		// Not SQLite's: cairn gives the right side an automatic index where SQLite scans it.
		{"SELECT * FROM customers AS c RIGHT JOIN orders AS o ON c.name = o.day",
			[]string{"SCAN c", "SEARCH o USING AUTOMATIC INDEX (day=?)", "RIGHT-JOIN orders", "SCAN o"}},
	} {
		require.Equal(t, c.plan, explainPlan(t, s, c.query), c.query)
	}
}

// A prepared RIGHT join starts each execution with no row matched, and a correlated subquery
// holding one runs it afresh per outer row.
func TestRightJoinRunsAgain(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE a(x INTEGER PRIMARY KEY, v TEXT);
		CREATE TABLE b(x INTEGER, w TEXT);
		INSERT INTO a VALUES (1, 'a1'), (2, 'a2');
		INSERT INTO b VALUES (2, 'b2'), (3, 'b3');`)
	st, err := s.Prepare("SELECT a.v, b.w FROM a RIGHT JOIN (SELECT * FROM b WHERE x >= ?) AS b ON a.x = b.x")
	require.NoError(t, err)
	for _, tc := range []struct {
		min  int64
		want [][]value.Value
	}{
		{2, [][]value.Value{{value.TextString("a2"), value.TextString("b2")}, {value.NullValue(), value.TextString("b3")}}},
		{3, [][]value.Value{{value.NullValue(), value.TextString("b3")}}},
		{2, [][]value.Value{{value.TextString("a2"), value.TextString("b2")}, {value.NullValue(), value.TextString("b3")}}},
	} {
		rows, err := st.Query(context.Background(), []value.Value{value.Int(tc.min)})
		require.NoError(t, err)
		var got [][]value.Value
		for rows.Next() {
			got = append(got, cloneRow(rows.Row()))
		}
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
		require.Equal(t, tc.want, got)
	}
	got := query(t, s, `SELECT a.x, (SELECT count(*) FROM b AS c FULL JOIN b AS d ON c.x = d.x + a.x) FROM a ORDER BY a.x`)
	require.Equal(t, [][]value.Value{{value.Int(1), value.Int(3)}, {value.Int(2), value.Int(4)}}, got)
}

// UPDATE ... FROM refuses RIGHT and FULL joins: SQLite joins the target with the FROM's result,
// which cairn's loops would not give.
func TestUpdateFromRefusesRightJoins(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a); CREATE TABLE s(k); CREATE TABLE u(k)`)
	for _, q := range []string{
		"UPDATE t SET a = 1 FROM s RIGHT JOIN u ON u.k = s.k",
		"UPDATE t SET a = 1 FROM s FULL JOIN u ON u.k = s.k",
	} {
		_, err := s.Exec(context.Background(), q, nil)
		require.EqualError(t, err, "unsupported: RIGHT or FULL join in UPDATE ... FROM", q)
	}
}

package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
)

// TestExprAndPartialIndexPlans: the plans SQLite 3.54.1 gives these queries (checked with
// EXPLAIN QUERY PLAN there), where an index on an expression serves a term on the same
// expression, and a partial index serves only a query whose WHERE implies its condition.
func TestExprAndPartialIndexPlans(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `
		CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT, name TEXT, age INT);
		CREATE INDEX users_email ON users(lower(email));
		CREATE INDEX users_age ON users(age * 2, substr(name, 1, 1));
		CREATE TABLE logins(user_email, at INT);
		CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INT, status TEXT, total REAL);
		CREATE INDEX orders_open ON orders(customer) WHERE status = 'open';
		CREATE INDEX orders_total ON orders(total) WHERE total IS NOT NULL;
		CREATE TABLE docs(id INTEGER PRIMARY KEY, doc TEXT);
		CREATE INDEX docs_email ON docs(json_extract(doc, '$.email'));
		CREATE UNIQUE INDEX docs_uemail ON docs(json_extract(doc, '$.email')) WHERE json_extract(doc, '$.email') IS NOT NULL;`)
	for _, c := range []struct {
		query string
		plan  []string
	}{
		{"SELECT name FROM users WHERE lower(email) = ?", []string{"SEARCH users USING INDEX users_email (<expr>=?)"}},
		{"SELECT name FROM users AS u WHERE ? = lower(u.email)", []string{"SEARCH u USING INDEX users_email (<expr>=?)"}},
		{"SELECT name FROM users WHERE lower(email) > 'b'", []string{"SEARCH users USING INDEX users_email (<expr>>?)"}},
		{"SELECT name FROM users WHERE lower(email) IN ('a', 'b')", []string{"SEARCH users USING INDEX users_email (<expr>=?)"}},
		{"SELECT name FROM users WHERE upper(email) = 'A'", []string{"SCAN users"}},
		{"SELECT name FROM users ORDER BY lower(email)", []string{"SCAN users USING INDEX users_email"}},
		{"SELECT name FROM users ORDER BY lower(email) DESC, id DESC LIMIT 2", []string{"SCAN users USING INDEX users_email"}},
		{"SELECT name FROM users WHERE lower(email) > 'b' ORDER BY lower(email)",
			[]string{"SEARCH users USING INDEX users_email (<expr>>?)"}},
		{"SELECT name FROM users ORDER BY lower(email) COLLATE nocase", []string{"SCAN users", "USE TEMP B-TREE FOR ORDER BY"}},
		{"SELECT name FROM users ORDER BY upper(email)", []string{"SCAN users", "USE TEMP B-TREE FOR ORDER BY"}},
		{"SELECT name FROM users WHERE lower(name) = 'a'", []string{"SCAN users"}},
		{"SELECT name FROM users WHERE age * 2 = 60 AND substr(name, 1, 1) = 'a'",
			[]string{"SEARCH users USING INDEX users_age (<expr>=? AND <expr>=?)"}},
		{"SELECT name FROM users WHERE age = 30", []string{"SCAN users"}},
		{"SELECT * FROM logins CROSS JOIN users ON lower(users.email) = logins.user_email",
			[]string{"SCAN logins", "SEARCH users USING INDEX users_email (<expr>=?)"}},
		{"SELECT id, total FROM orders WHERE customer = 1 AND status = 'open'",
			[]string{"SEARCH orders USING INDEX orders_open (customer=?)"}},
		{"SELECT id FROM orders WHERE customer = 1", []string{"SCAN orders"}},
		{"SELECT id FROM orders WHERE customer = 1 AND status = 'closed'", []string{"SCAN orders"}},
		{"SELECT id FROM orders WHERE customer = 1 OR status = 'open'", []string{"SCAN orders"}},
		{"SELECT id, total FROM orders WHERE status = 'open' ORDER BY customer", []string{"SCAN orders USING INDEX orders_open"}},
		{"SELECT id FROM orders ORDER BY customer", []string{"SCAN orders", "USE TEMP B-TREE FOR ORDER BY"}},
		{"SELECT id, status FROM orders WHERE total > 6", []string{"SEARCH orders USING INDEX orders_total (total>?)"}},
		{"SELECT id FROM orders WHERE total > 6", []string{"SEARCH orders USING COVERING INDEX orders_total (total>?)"}},
		// json_extract: the partial index is taken over the full one, as SQLite takes it.
		{"SELECT doc FROM docs WHERE json_extract(doc, '$.email') = ?", []string{"SEARCH docs USING INDEX docs_uemail (<expr>=?)"}},
		{"SELECT doc FROM docs WHERE json_extract(doc, '$.other') = ?", []string{"SCAN docs"}},
	} {
		require.Equal(t, c.plan, explainPlan(t, s, c.query), c.query)
	}
}

// TestPartialIndexRows: a partial index holds the rows that meet its condition, and follows
// UPDATEs into and out of it; a UNIQUE partial index constrains only those rows.
func TestPartialIndexRows(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE a(id INTEGER PRIMARY KEY, email TEXT, active INT);
		CREATE UNIQUE INDEX a_email ON a(email) WHERE active = 1;
		INSERT INTO a(email, active) VALUES ('x', 1), ('x', 0), ('x', 0)`)
	_, err := s.Exec(t.Context(), "INSERT INTO a(email, active) VALUES ('x', 1)", nil)
	require.EqualError(t, err, "UNIQUE constraint failed: a.email")
	mustExec(t, s, "UPDATE a SET active = 0 WHERE id = 1; UPDATE a SET active = 1 WHERE id = 2")
	require.Equal(t, []string{"2"}, textRows(query(t, s, "SELECT id FROM a WHERE email = 'x' AND active = 1")))
	require.Equal(t, []string{"SEARCH a USING INDEX a_email (email=?)"},
		explainPlan(t, s, "SELECT id FROM a WHERE email = 'x' AND active = 1"))
	// The index holds one entry: the row that meets the condition.
	n := 0
	require.NoError(t, s.eng.db.View(func(tx *cairn.Tx) error {
		sc, err := s.eng.schemaFor(tx)
		if err != nil {
			return err
		}
		b, err := tx.Bucket(sc.index("a_email").bucket)
		if err != nil {
			return err
		}
		for range b.Range(nil, nil) {
			n++
		}
		return tx.Err()
	}))
	require.Equal(t, 1, n)
}

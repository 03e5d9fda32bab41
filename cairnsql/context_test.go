package cairnsql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bigTable returns a database with table t of n rows (a INTEGER, b TEXT) and no index.
func bigTable(t *testing.T, n int) *sql.DB {
	t.Helper()
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a INTEGER, b TEXT)")
	tx, err := db.Begin()
	require.NoError(t, err)
	st, err := tx.Prepare("INSERT INTO t VALUES (?, ?)")
	require.NoError(t, err)
	for i := range n {
		_, err := st.Exec(i, "row")
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())
	require.NoError(t, tx.Commit())
	return db
}

// TestLongQueryStopsWithItsContext: queries and statements that would run for hours stop soon
// after their context is done, with the context's error, and change nothing.
func TestLongQueryStopsWithItsContext(t *testing.T) {
	db := bigTable(t, 2000)
	const cross = "SELECT count(*) FROM t AS x, t AS y, t AS z WHERE x.b || y.b <> z.b" // 8e9 rows
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"QueryRow of an aggregate", func(ctx context.Context) error {
			var n int64
			return db.QueryRowContext(ctx, cross).Scan(&n)
		}},
		{"joins of VALUES and subqueries, no table", func(ctx context.Context) error {
			v := "(VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10))"
			q := "SELECT count(*) FROM (SELECT 1 AS x UNION ALL SELECT 2) AS s"
			for i := range 9 { // 2e9 rows
				q += fmt.Sprintf(", %s AS v%d", v, i)
			}
			var n int64
			return db.QueryRowContext(ctx, q).Scan(&n)
		}},
		{"prepared query", func(ctx context.Context) error {
			st, err := db.PrepareContext(context.Background(), cross)
			if err != nil {
				return err
			}
			defer st.Close()
			var n int64
			return st.QueryRowContext(ctx).Scan(&n)
		}},
		{"rows read one by one", func(ctx context.Context) error {
			rows, err := db.QueryContext(ctx, "SELECT x.a, y.a FROM t AS x, t AS y ORDER BY x.a + y.a * 7 % 13")
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		}},
		{"INSERT ... SELECT", func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, "INSERT INTO t SELECT x.a, y.b FROM t AS x, t AS y, t AS z")
			return err
		}},
		{"DELETE with a slow WHERE", func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, "DELETE FROM t WHERE (SELECT count(*) FROM t AS y, t AS z WHERE y.a > t.a) >= 0")
			return err
		}},
		{"statement in a transaction", func(ctx context.Context) error {
			tx, err := db.BeginTx(context.Background(), nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.Exec("INSERT INTO t VALUES (-1, 'in tx')"); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, "UPDATE t SET b = 'x' WHERE a IN (SELECT x.a FROM t AS x, t AS y, t AS z)")
			if err == nil {
				return errors.New("the UPDATE finished")
			}
			// Only the statement is undone: the transaction goes on with its first INSERT.
			var n int
			if err2 := tx.QueryRow("SELECT count(*) FROM t WHERE a = -1 AND b = 'in tx'").Scan(&n); err2 != nil || n != 1 {
				return errors.Join(err2, errors.New("the transaction lost its earlier statement"))
			}
			return err
		}},
	}
	for _, tc := range tests {
		for _, kind := range []string{"deadline", "cancel"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				var ctx context.Context
				var cancel context.CancelFunc
				var want error
				if kind == "deadline" {
					ctx, cancel = context.WithTimeout(context.Background(), 150*time.Millisecond)
					want = context.DeadlineExceeded
				} else {
					ctx, cancel = context.WithCancel(context.Background())
					time.AfterFunc(150*time.Millisecond, cancel)
					want = context.Canceled
				}
				defer cancel()
				start := time.Now()
				err := within(t, 20*time.Second, tc.name, func() error { return tc.run(ctx) })
				require.ErrorIs(t, err, want)
				t.Logf("stopped %v after the start", time.Since(start).Round(time.Millisecond))
				require.Equal(t, 2000, count(t, db, "t"), "the table is unchanged")
			})
		}
	}
}

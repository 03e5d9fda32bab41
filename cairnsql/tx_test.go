package cairnsql_test

// Transactions and concurrency through database/sql: read-only transactions, isolation levels,
// DEFERRED and IMMEDIATE, the stale snapshot of a deferred transaction, statement-level atomicity,
// savepoints, group commit of autocommit writes, readers beside a writer, and the wait for the
// writer slot under a context and the busy timeout.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/cairnsql"
	"github.com/cairndb/cairn/sql/engine"
)

// values returns the values of column a of table t, in rowid order.
func values(t *testing.T, q interface {
	Query(string, ...any) (*sql.Rows, error)
}, table string) []int64 {
	t.Helper()
	rows, err := q.Query("SELECT a FROM " + table + " ORDER BY rowid")
	require.NoError(t, err)
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		require.NoError(t, rows.Scan(&v))
		out = append(out, v)
	}
	require.NoError(t, rows.Err())
	return out
}

// within runs fn and fails the test if it does not return within d.
func within(t *testing.T, d time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s: still waiting after %v", what, d)
		return nil
	}
}

func TestReadOnlyTransaction(t *testing.T) {
	db, _ := openFile(t, "_busy_timeout=100")
	mustExec(t, db, "CREATE TABLE t(a INTEGER)", "INSERT INTO t VALUES (1)")
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, []int64{1}, values(t, tx, "t"))

	for _, stmt := range []string{
		"INSERT INTO t VALUES (2)", "UPDATE t SET a = 5", "DELETE FROM t", "CREATE TABLE u(x)",
		"DROP TABLE t", "CREATE INDEX i ON t(a)", "SAVEPOINT s", "REPLACE INTO t VALUES (3)",
	} {
		_, err := tx.Exec(stmt)
		require.ErrorIs(t, err, engine.ErrReadOnlyTx, "%s", stmt)
		require.ErrorContains(t, err, "read-only transaction", "%s", stmt)
	}
	// The transaction goes on reading, and took no writer slot: another connection writes
	// meanwhile (it would wait for the busy timeout, then fail, were the slot taken).
	_, err = db.Exec("INSERT INTO t VALUES (10)")
	require.NoError(t, err)
	require.Equal(t, []int64{1}, values(t, tx, "t"), "the transaction reads its snapshot")
	require.NoError(t, tx.Commit())
	require.Equal(t, []int64{1, 10}, values(t, db, "t"))

	// A read-only transaction in an IMMEDIATE DSN does not take the slot either.
	db2, _ := openFile(t, "_txlock=immediate&_busy_timeout=100")
	mustExec(t, db2, "CREATE TABLE t(a)")
	ro, err := db2.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	require.NoError(t, err)
	_, err = db2.Exec("INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	require.NoError(t, ro.Rollback())
}

func TestIsolationLevels(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a)")
	ctx := context.Background()
	tests := []struct {
		level    sql.IsolationLevel
		readOnly bool
		ok       bool
	}{
		{sql.LevelDefault, false, true},
		{sql.LevelDefault, true, true},
		{sql.LevelSerializable, false, true},
		{sql.LevelSerializable, true, true},
		{sql.LevelSnapshot, true, true},
		{sql.LevelSnapshot, false, false},
		{sql.LevelReadUncommitted, false, false},
		{sql.LevelReadCommitted, false, false},
		{sql.LevelWriteCommitted, false, false},
		{sql.LevelRepeatableRead, true, false},
		{sql.LevelLinearizable, false, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/readonly=%v", tc.level, tc.readOnly), func(t *testing.T) {
			tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: tc.level, ReadOnly: tc.readOnly})
			if !tc.ok {
				require.ErrorContains(t, err, "isolation")
				require.ErrorContains(t, err, tc.level.String())
				return
			}
			require.NoError(t, err)
			_, err = tx.Exec("SELECT * FROM t")
			require.NoError(t, err)
			require.NoError(t, tx.Rollback())
		})
	}
	// A refused level leaves the connection usable.
	mustExec(t, db, "INSERT INTO t VALUES (1)")
}

// TestDeferredAndImmediate: with _txlock=deferred (the default) BeginTx takes nothing and a
// transaction that has not written leaves other writers alone; with _txlock=immediate BeginTx
// takes the writer slot, so another connection's write waits for it (here: until the busy
// timeout, then ErrBusy).
func TestDeferredAndImmediate(t *testing.T) {
	ctx := context.Background()
	for _, lock := range []string{"deferred", "immediate", ""} {
		t.Run(lock, func(t *testing.T) {
			opts := "_busy_timeout=80"
			if lock != "" {
				opts += "&_txlock=" + lock
			}
			db, _ := openFile(t, opts)
			mustExec(t, db, "CREATE TABLE t(a)")
			tx, err := db.BeginTx(ctx, nil)
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO t VALUES (1)") // another connection
			if lock == "immediate" {
				require.ErrorIs(t, err, engine.ErrBusy)
				require.ErrorContains(t, err, "database is locked")
			} else {
				require.NoError(t, err)
			}
			// The transaction writes in both cases (a deferred one that has not read yet
			// begins at the newest version).
			_, err = tx.Exec("INSERT INTO t VALUES (2)")
			require.NoError(t, err)
			require.NoError(t, tx.Commit())
			if lock == "immediate" {
				require.Equal(t, []int64{2}, values(t, db, "t"))
			} else {
				require.Equal(t, []int64{1, 2}, values(t, db, "t"))
			}
		})
	}

	// The same through SQL on one connection: BEGIN IMMEDIATE and BEGIN EXCLUSIVE take the slot,
	// BEGIN and BEGIN DEFERRED do not.
	db, _ := openFile(t, "_busy_timeout=50")
	mustExec(t, db, "CREATE TABLE t(a)")
	for _, begin := range []string{"BEGIN", "BEGIN DEFERRED", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE TRANSACTION"} {
		c, err := db.Conn(ctx)
		require.NoError(t, err)
		_, err = c.ExecContext(ctx, begin)
		require.NoError(t, err)
		_, err = db.Exec("INSERT INTO t VALUES (0)")
		if begin == "BEGIN" || begin == "BEGIN DEFERRED" {
			require.NoError(t, err, begin)
		} else {
			require.ErrorIs(t, err, engine.ErrBusy, begin)
		}
		_, err = c.ExecContext(ctx, "COMMIT")
		require.NoError(t, err)
		require.NoError(t, c.Close())
	}
}

// TestStaleSnapshot is SQLite's SQLITE_BUSY_SNAPSHOT case with two connections: a deferred
// transaction reads, another connection commits, then the first one writes: the write fails with
// engine.ErrBusySnapshot, and a retry of the whole transaction succeeds.
func TestStaleSnapshot(t *testing.T) {
	db, _ := openFile(t, "")
	mustExec(t, db, "CREATE TABLE acct(id INTEGER PRIMARY KEY, a INTEGER)", "INSERT INTO acct VALUES (1, 100)")
	ctx := context.Background()
	c1, err := db.Conn(ctx)
	require.NoError(t, err)
	defer c1.Close()
	c2, err := db.Conn(ctx)
	require.NoError(t, err)
	defer c2.Close()

	// withdraw reads the balance in a deferred transaction on c1, lets between run, then writes.
	withdraw := func(between func()) error {
		tx, err := c1.BeginTx(ctx, nil)
		require.NoError(t, err)
		var bal int64
		require.NoError(t, tx.QueryRow("SELECT a FROM acct WHERE id = 1").Scan(&bal))
		between()
		if _, err := tx.Exec("UPDATE acct SET a = ? WHERE id = 1", bal-30); err != nil {
			require.NoError(t, tx.Rollback())
			return err
		}
		return tx.Commit()
	}
	err = withdraw(func() {
		_, err := c2.ExecContext(ctx, "UPDATE acct SET a = a + 5 WHERE id = 1")
		require.NoError(t, err)
	})
	require.ErrorIs(t, err, engine.ErrBusySnapshot)
	require.ErrorContains(t, err, "retry")
	// Nothing of the failed transaction was written; the other commit stays.
	require.Equal(t, []int64{105}, values(t, db, "acct"))
	// The retry sees the new balance and succeeds.
	require.NoError(t, withdraw(func() {}))
	require.Equal(t, []int64{75}, values(t, db, "acct"))

	// A deferred transaction that writes first, or reads with no commit in between, never fails.
	tx, err := c1.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.Exec("UPDATE acct SET a = a - 1")
	require.NoError(t, err)
	var bal int64
	require.NoError(t, tx.QueryRow("SELECT a FROM acct").Scan(&bal))
	require.EqualValues(t, 74, bal)
	require.NoError(t, tx.Commit())

	// The failed write leaves the transaction open for reads and for Rollback.
	tx, err = c1.BeginTx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, tx.QueryRow("SELECT a FROM acct").Scan(&bal))
	_, err = c2.ExecContext(ctx, "UPDATE acct SET a = 0")
	require.NoError(t, err)
	_, err = tx.Exec("DELETE FROM acct")
	require.ErrorIs(t, err, engine.ErrBusySnapshot)
	require.NoError(t, tx.QueryRow("SELECT a FROM acct").Scan(&bal))
	require.EqualValues(t, 74, bal, "still its snapshot")
	require.NoError(t, tx.Rollback())
	require.Equal(t, []int64{0}, values(t, db, "acct"))
}

// TestStatementAtomicity: a statement that fails inside a transaction undoes its own changes and
// nothing else; the transaction goes on.
func TestStatementAtomicity(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a INTEGER UNIQUE, b TEXT NOT NULL DEFAULT 'x', CHECK (a < 100))")
	tx, err := db.Begin()
	require.NoError(t, err)
	mustExec(t, tx, "INSERT INTO t(a) VALUES (1)", "INSERT INTO t(a) VALUES (2), (3)")

	for _, c := range []struct{ stmt, err string }{
		{"INSERT INTO t(a) VALUES (4), (5), (1), (6)", "UNIQUE constraint failed: t.a"},
		{"INSERT INTO t(a, b) VALUES (7, 'y'), (8, NULL)", "NOT NULL constraint failed: t.b"},
		{"INSERT INTO t(a) VALUES (9), (100)", "CHECK constraint failed"},
		{"UPDATE t SET a = a + 1", "UNIQUE constraint failed: t.a"}, // 1 -> 2 collides
		{"UPDATE t SET a = a * 50", "CHECK constraint failed"},      // 2*50 = 100 fails on the second row
		{"DELETE FROM t WHERE a = 1 OR nosuch = 1", "no such column: nosuch"},
		{"INSERT INTO t(a) SELECT a + 10 FROM t UNION ALL SELECT 2", "UNIQUE constraint failed: t.a"},
	} {
		_, err := tx.Exec(c.stmt)
		require.ErrorContains(t, err, c.err, "%s", c.stmt)
		require.Equal(t, []int64{1, 2, 3}, values(t, tx, "t"), "after %s", c.stmt)
	}
	// INSERT OR FAIL keeps the rows it wrote before the failing one; OR IGNORE skips it.
	_, err = tx.Exec("INSERT OR FAIL INTO t(a) VALUES (4), (1), (5)")
	require.ErrorContains(t, err, "UNIQUE constraint failed: t.a")
	_, err = tx.Exec("INSERT OR IGNORE INTO t(a) VALUES (6), (1), (7)")
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3, 4, 6, 7}, values(t, tx, "t"))
	require.NoError(t, tx.Commit())
	require.Equal(t, []int64{1, 2, 3, 4, 6, 7}, values(t, db, "t"))

	// Outside a transaction a failing statement changes nothing either.
	_, err = db.Exec("INSERT INTO t(a) VALUES (50), (51), (1)")
	require.ErrorContains(t, err, "UNIQUE constraint failed: t.a")
	require.Equal(t, []int64{1, 2, 3, 4, 6, 7}, values(t, db, "t"))

	// INSERT OR ROLLBACK ends the whole transaction.
	tx, err = db.Begin()
	require.NoError(t, err)
	mustExec(t, tx, "INSERT INTO t(a) VALUES (20)")
	_, err = tx.Exec("INSERT OR ROLLBACK INTO t(a) VALUES (21), (1)")
	require.ErrorContains(t, err, "UNIQUE constraint failed: t.a")
	require.ErrorContains(t, tx.Commit(), "no transaction is active")
	require.Equal(t, []int64{1, 2, 3, 4, 6, 7}, values(t, db, "t"))
}

func TestSavepoints(t *testing.T) {
	db := openMemory(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	require.NoError(t, err)
	defer c.Close()
	exec := func(stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			_, err := c.ExecContext(ctx, s)
			require.NoError(t, err, "%s", s)
		}
	}
	query := func() []int64 {
		t.Helper()
		rows, err := c.QueryContext(ctx, "SELECT a FROM t ORDER BY a")
		require.NoError(t, err)
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var v int64
			require.NoError(t, rows.Scan(&v))
			out = append(out, v)
		}
		return out
	}
	exec("CREATE TABLE t(a)")

	// Inside BEGIN: nested savepoints, ROLLBACK TO keeps the savepoint, RELEASE forgets it.
	exec("BEGIN", "INSERT INTO t VALUES (1)", "SAVEPOINT a", "INSERT INTO t VALUES (2)",
		"SAVEPOINT b", "INSERT INTO t VALUES (3)")
	require.Equal(t, []int64{1, 2, 3}, query())
	exec("ROLLBACK TO b")
	require.Equal(t, []int64{1, 2}, query())
	exec("INSERT INTO t VALUES (4)", "ROLLBACK TRANSACTION TO SAVEPOINT b") // b is still there
	require.Equal(t, []int64{1, 2}, query())
	exec("INSERT INTO t VALUES (5)", "RELEASE b", "ROLLBACK TO A") // names ignore case
	require.Equal(t, []int64{1}, query())
	_, err = c.ExecContext(ctx, "ROLLBACK TO b")
	require.ErrorContains(t, err, "no such savepoint: b")
	exec("INSERT INTO t VALUES (6)", "RELEASE SAVEPOINT a", "COMMIT")
	require.Equal(t, []int64{1, 6}, values(t, db, "t"))

	// Outside a transaction SAVEPOINT begins one; its RELEASE commits, and a ROLLBACK undoes it.
	exec("SAVEPOINT outer", "INSERT INTO t VALUES (7)", "SAVEPOINT inner", "INSERT INTO t VALUES (8)", "RELEASE inner")
	require.Equal(t, []int64{1, 6}, values(t, db, "t"), "not committed yet")
	exec("RELEASE outer")
	require.Equal(t, []int64{1, 6, 7, 8}, values(t, db, "t"))
	exec("SAVEPOINT s", "INSERT INTO t VALUES (9)", "ROLLBACK")
	require.Equal(t, []int64{1, 6, 7, 8}, values(t, db, "t"))

	// DDL in a savepoint is undone by ROLLBACK TO.
	exec("BEGIN", "SAVEPOINT d", "CREATE TABLE u(x)", "INSERT INTO u VALUES (1)", "DROP TABLE t")
	_, err = c.ExecContext(ctx, "SELECT * FROM t")
	require.ErrorContains(t, err, "no such table: t")
	exec("ROLLBACK TO d")
	_, err = c.ExecContext(ctx, "SELECT * FROM u")
	require.ErrorContains(t, err, "no such table: u")
	require.Equal(t, []int64{1, 6, 7, 8}, query())
	exec("COMMIT")

	// Savepoints through a database/sql transaction.
	tx, err := db.Begin()
	require.NoError(t, err)
	mustExec(t, tx, "SAVEPOINT x", "DELETE FROM t", "ROLLBACK TO x", "RELEASE x", "INSERT INTO t VALUES (10)")
	require.NoError(t, tx.Commit())
	require.Equal(t, []int64{1, 6, 7, 8, 10}, values(t, db, "t"))

	_, err = c.ExecContext(ctx, "RELEASE foo")
	require.ErrorContains(t, err, "no such savepoint: foo")
}

// TestAutocommitSharesGroupCommits: autocommit INSERTs of many goroutines through one *sql.DB
// commit through cairn's group commit: fewer WAL batches (fdatasyncs) than commits.
func TestAutocommitSharesGroupCommits(t *testing.T) {
	db, _ := openFile(t, "_sync=full")
	mustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, v TEXT)")
	kv, err := cairnsql.DB(db)
	require.NoError(t, err)
	before := kv.Stats()
	const goroutines, each = 16, 40
	db.SetMaxOpenConns(goroutines)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if _, err := db.Exec("INSERT INTO t(g, v) VALUES (?, ?)", g, fmt.Sprint(i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, goroutines*each, count(t, db, "t"))
	st := kv.Stats()
	commits, batches := st.Commits-before.Commits, st.Batches-before.Batches
	t.Logf("%d autocommit INSERTs: %d commits in %d WAL batches (%.1f commits per fdatasync)",
		goroutines*each, commits, batches, float64(commits)/float64(batches))
	require.EqualValues(t, goroutines*each, commits)
	require.Less(t, batches, commits, "commits share batches")
}

// TestReadersBesideAnOpenWriter: a transaction holding the writer slot (it has written and is
// not committed) blocks no reader: queries of other connections and read-only transactions run
// at once and see the last commit.
func TestReadersBesideAnOpenWriter(t *testing.T) {
	db, _ := openFile(t, "_txlock=immediate")
	mustExec(t, db, "CREATE TABLE t(a)", "INSERT INTO t VALUES (1), (2)")
	ctx := context.Background()
	w, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	mustExec(t, w, "INSERT INTO t VALUES (3)", "DELETE FROM t WHERE a = 1")
	for range 3 {
		require.NoError(t, within(t, 10*time.Second, "a query beside a writer", func() error {
			require.Equal(t, []int64{1, 2}, values(t, db, "t"))
			return nil
		}))
	}
	require.NoError(t, within(t, 10*time.Second, "a read-only transaction beside a writer", func() error {
		ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer ro.Rollback()
		require.Equal(t, []int64{1, 2}, values(t, ro, "t"))
		return nil
	}))
	// Concurrent readers while the writer goes on.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				require.Equal(t, []int64{1, 2}, values(t, db, "t"))
			}
		})
	}
	mustExec(t, w, "INSERT INTO t VALUES (4)")
	wg.Wait()
	require.NoError(t, w.Commit())
	require.Equal(t, []int64{2, 3, 4}, values(t, db, "t"))
}

// TestWriterWaitHonoursContextAndBusyTimeout: a write waiting for the writer slot, held by a
// transaction of another connection, gives up when its context is done (with the context's
// error) or when the busy timeout passes (engine.ErrBusy), and proceeds once the slot is freed.
func TestWriterWaitHonoursContextAndBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	holderDB, err := sql.Open("cairn", path+"?_txlock=immediate")
	require.NoError(t, err)
	defer holderDB.Close()
	mustExec(t, holderDB, "CREATE TABLE t(a)")
	ctx := context.Background()
	holder, err := holderDB.BeginTx(ctx, nil) // immediate: holds the slot
	require.NoError(t, err)

	noTimeout, err := sql.Open("cairn", path) // the same cairn.DB, no busy timeout
	require.NoError(t, err)
	defer noTimeout.Close()
	busy, err := sql.Open("cairn", path+"?_busy_timeout=100")
	require.NoError(t, err)
	defer busy.Close()
	busyImmediate, err := sql.Open("cairn", path+"?_busy_timeout=100&_txlock=immediate")
	require.NoError(t, err)
	defer busyImmediate.Close()

	deadline := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	cancelled := func(after time.Duration) context.Context {
		c, cancel := context.WithCancel(ctx)
		time.AfterFunc(after, cancel)
		t.Cleanup(cancel)
		return c
	}
	tests := []struct {
		name string
		run  func() error
		want error
		min  time.Duration
	}{
		{"autocommit, context deadline", func() error {
			_, err := noTimeout.ExecContext(deadline(80*time.Millisecond), "INSERT INTO t VALUES (1)")
			return err
		}, context.DeadlineExceeded, 80 * time.Millisecond},
		{"autocommit, context cancelled", func() error {
			_, err := noTimeout.ExecContext(cancelled(50*time.Millisecond), "INSERT INTO t VALUES (1)")
			return err
		}, context.Canceled, 50 * time.Millisecond},
		{"autocommit, busy timeout", func() error {
			_, err := busy.Exec("INSERT INTO t VALUES (1)")
			return err
		}, engine.ErrBusy, 100 * time.Millisecond},
		{"autocommit, context shorter than the busy timeout", func() error {
			_, err := busy.ExecContext(deadline(30*time.Millisecond), "INSERT INTO t VALUES (1)")
			return err
		}, context.DeadlineExceeded, 30 * time.Millisecond},
		{"prepared statement, busy timeout", func() error {
			st, err := busy.Prepare("INSERT INTO t VALUES (?)")
			if err != nil {
				return err
			}
			defer st.Close()
			_, err = st.Exec(1)
			return err
		}, engine.ErrBusy, 100 * time.Millisecond},
		{"BeginTx immediate, busy timeout", func() error {
			tx, err := busyImmediate.BeginTx(ctx, nil)
			if err == nil {
				tx.Rollback()
			}
			return err
		}, engine.ErrBusy, 100 * time.Millisecond},
		{"BeginTx immediate, context deadline", func() error {
			tx, err := busyImmediate.BeginTx(deadline(40*time.Millisecond), nil)
			if err == nil {
				tx.Rollback()
			}
			return err
		}, context.DeadlineExceeded, 40 * time.Millisecond},
		{"deferred transaction's first write, busy timeout", func() error {
			tx, err := busy.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			_, err = tx.Exec("INSERT INTO t VALUES (1)")
			return err
		}, engine.ErrBusy, 100 * time.Millisecond},
		{"BEGIN IMMEDIATE in SQL, busy timeout", func() error {
			c, err := busy.Conn(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = c.ExecContext(ctx, "BEGIN IMMEDIATE")
			return err
		}, engine.ErrBusy, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := within(t, 10*time.Second, tc.name, tc.run)
			require.ErrorIs(t, err, tc.want)
			require.GreaterOrEqual(t, time.Since(start), tc.min)
		})
	}

	// A waiter with time to spare proceeds once the holder commits.
	errc := make(chan error, 1)
	go func() {
		_, err := busy.ExecContext(deadline(20*time.Second), "INSERT INTO t VALUES (2)")
		errc <- err
	}()
	go func() {
		_, err := noTimeout.Exec("INSERT INTO t VALUES (3)")
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	mustExec(t, holder, "INSERT INTO t VALUES (1)")
	require.NoError(t, holder.Commit())
	for range 2 {
		select {
		case err := <-errc:
			require.NoError(t, err)
		case <-time.After(15 * time.Second):
			t.Fatal("a waiting writer did not proceed after the commit")
		}
	}
	got := values(t, noTimeout, "t")
	require.Len(t, got, 3)
	require.Equal(t, int64(1), got[0])
	require.ElementsMatch(t, []int64{1, 2, 3}, got)
}

// TestBeginOnAPooledConnection: a transaction begun with Exec("BEGIN") on the *sql.DB stays open
// on its connection, as with SQLite's drivers: with one connection, the statements that follow
// are in it, and ROLLBACK undoes them.
func TestBeginOnAPooledConnection(t *testing.T) {
	db := openMemory(t)
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE t(a)", "BEGIN", "INSERT INTO t VALUES (1)")
	require.Equal(t, []int64{1}, values(t, db, "t"))
	mustExec(t, db, "ROLLBACK")
	require.Empty(t, values(t, db, "t"))
	mustExec(t, db, "BEGIN", "INSERT INTO t VALUES (2)", "COMMIT")
	require.Equal(t, []int64{2}, values(t, db, "t"))
	_, err := db.Exec("COMMIT")
	require.ErrorIs(t, err, engine.ErrNoTransaction)
}

// TestTransactionAfterErrors: database/sql transactions keep working after failed statements, and
// a BEGIN inside one is refused.
func TestTransactionAfterErrors(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a UNIQUE)")
	tx, err := db.Begin()
	require.NoError(t, err)
	_, err = tx.Exec("BEGIN")
	require.ErrorContains(t, err, "cannot start a transaction within a transaction")
	_, err = tx.Exec("SELECT * FROM nosuch")
	require.ErrorContains(t, err, "no such table: nosuch")
	_, err = tx.Exec("INSERT INTO t VALUES (1), (1)")
	require.Error(t, err)
	mustExec(t, tx, "INSERT INTO t VALUES (2)")
	require.NoError(t, tx.Commit())
	require.Equal(t, []int64{2}, values(t, db, "t"))
	require.True(t, errors.Is(tx.Commit(), sql.ErrTxDone))
}
func TestConnectorBusyTimeoutOption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	conn, err := cairnsql.NewConnector(path, &cairnsql.Options{BusyTimeout: 50 * time.Millisecond, TxLock: cairnsql.TxImmediate})
	require.NoError(t, err)
	db := sql.OpenDB(conn)
	defer db.Close()
	mustExec(t, db, "CREATE TABLE t(a)")
	tx, err := db.Begin() // immediate: holds the writer slot
	require.NoError(t, err)
	defer tx.Rollback()
	start := time.Now()
	_, err = db.Exec("INSERT INTO t VALUES (1)")
	require.ErrorIs(t, err, engine.ErrBusy)
	require.Less(t, time.Since(start), 5*time.Second)
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
}

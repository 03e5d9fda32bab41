package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
)

// openSQL opens a *sql.DB on node n's SQLConnector.
func openSQL(t *testing.T, n *Node, opts *SQLOptions) *sql.DB {
	t.Helper()
	c, err := n.SQLConnector(opts)
	require.NoError(t, err)
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// count returns SELECT count(*) FROM table through db, with ctx.
func count(t *testing.T, ctx context.Context, db *sql.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n))
	return n
}

// TestSQLReplicates: DDL and writes through the leader's connector are visible on the followers,
// with follower reads that wait for the leader's LSN, and with linearizable reads (a read index
// from the leader) without waiting for anything.
func TestSQLReplicates(t *testing.T) {
	tc := newTCPCluster(t, 3, nil)
	leader := tc.leader()
	ldb := openSQL(t, leader, nil)
	_, err := ldb.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
	require.NoError(t, err)
	for i := range 20 {
		_, err := ldb.Exec("INSERT INTO t(name) VALUES (?)", fmt.Sprintf("n%d", i))
		require.NoError(t, err)
	}
	lsn := leader.LastLSN()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, f := range tc.followers(leader) {
		fdb := openSQL(t, f, &SQLOptions{Consistency: Follower})
		require.Equal(t, 20+i, count(t, WithMinLSN(ctx, lsn), fdb, "t"), "node %s", f.cfg.NodeID)
		var name string
		require.NoError(t, fdb.QueryRow("SELECT name FROM t WHERE id = 7").Scan(&name))
		require.Equal(t, "n6", name)

		_, err := ldb.Exec("INSERT INTO t(name) VALUES ('more')")
		require.NoError(t, err)
		lsn = leader.LastLSN()
		lin := openSQL(t, f, nil) // linearizable: sees the write just acknowledged
		var got string
		require.NoError(t, lin.QueryRow("SELECT name FROM t ORDER BY id DESC LIMIT 1").Scan(&got))
		require.Equal(t, "more", got)
	}
}

// TestSQLForwardedWrites: a follower's autocommit writes go to the leader, and their results
// (RowsAffected, LastInsertId, RETURNING rows) come back.
func TestSQLForwardedWrites(t *testing.T) {
	tc := newTCPCluster(t, 3, nil)
	leader := tc.leader()
	f := tc.followers(leader)[0]
	fdb := openSQL(t, f, nil)
	_, err := fdb.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, at DATETIME)")
	require.NoError(t, err, "DDL forwarded")
	res, err := fdb.Exec("INSERT INTO t(id, name) VALUES (41, 'a')")
	require.NoError(t, err)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	require.Equal(t, int64(41), id)
	res, err = fdb.Exec("INSERT INTO t(name, at) VALUES (?, ?), (:n, '2026-01-02 03:04:05')", "b", "2026-11-26", sql.Named("n", "c"))
	require.NoError(t, err)
	id, _ = res.LastInsertId()
	rows, _ := res.RowsAffected()
	require.Equal(t, int64(43), id)
	require.Equal(t, int64(2), rows)

	var newID int64
	var name string
	var at time.Time
	require.NoError(t, fdb.QueryRow("INSERT INTO t(name, at) VALUES ('d', '2026-05-06') RETURNING id, upper(name), at").Scan(&newID, &name, &at))
	require.Equal(t, int64(44), newID)
	require.Equal(t, "D", name)
	require.Equal(t, time.Date(2026, 5, 6, 0, 0, 0, 0, time.UTC), at, "declared types come back: DATETIME scans as time")

	r, err := fdb.Query("UPDATE t SET name = name || '!' WHERE id > 42 RETURNING id")
	require.NoError(t, err)
	var ids []int64
	for r.Next() {
		var v int64
		require.NoError(t, r.Scan(&v))
		ids = append(ids, v)
	}
	require.NoError(t, r.Err())
	require.ElementsMatch(t, []int64{43, 44}, ids)
	res, err = fdb.Exec("DELETE FROM t WHERE name LIKE '%!'")
	require.NoError(t, err)
	rows, _ = res.RowsAffected()
	require.Equal(t, int64(2), rows)

	_, err = fdb.Exec("INSERT INTO t(id, name) VALUES (41, 'dup')")
	require.ErrorContains(t, err, "UNIQUE constraint failed", "the leader's error comes back")
	require.False(t, errors.Is(err, ErrNotLeader))

	// Foreign keys are the session's, and travel with the statement.
	c, err := fdb.Conn(context.Background())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.ExecContext(context.Background(), "CREATE TABLE child(p INTEGER REFERENCES t(id))")
	require.NoError(t, err)
	_, err = c.ExecContext(context.Background(), "PRAGMA foreign_keys = ON")
	require.NoError(t, err)
	_, err = c.ExecContext(context.Background(), "INSERT INTO child VALUES (999)")
	require.ErrorContains(t, err, "FOREIGN KEY constraint failed")
	_, err = c.ExecContext(context.Background(), "INSERT INTO child VALUES (41)")
	require.NoError(t, err)

	// Linearizable reads on the follower see the forwarded writes; so does the leader.
	require.Equal(t, 2, count(t, context.Background(), fdb, "t"))
	require.Equal(t, 1, count(t, context.Background(), openSQL(t, leader, nil), "child"))
	// Follower reads of the same connector see its own forwarded writes.
	fol := openSQL(t, f, &SQLOptions{Consistency: Follower})
	_, err = fol.Exec("INSERT INTO t(name) VALUES ('mine')")
	require.NoError(t, err)
	require.Equal(t, 3, count(t, context.Background(), fol, "t"))
}

// TestSQLFollowerTransactionRefused: an explicit transaction on a follower reads, and its first
// write fails with a *NotLeaderError naming the leader; CREATE TEMP TABLE and VIEW and
// transaction statements are not forwarded.
func TestSQLFollowerTransactionRefused(t *testing.T) {
	tc := newTCPCluster(t, 3, nil)
	leader := tc.leader()
	_, err := openSQL(t, leader, nil).Exec("CREATE TABLE t(x)")
	require.NoError(t, err)
	f := tc.followers(leader)[0]
	_, err = f.WaitLeader(context.Background()) // it has heard from the leader
	require.NoError(t, err)
	fdb := openSQL(t, f, nil)
	tx, err := fdb.Begin()
	require.NoError(t, err)
	var n int
	require.NoError(t, tx.QueryRow("SELECT count(*) FROM t").Scan(&n))
	_, err = tx.Exec("INSERT INTO t VALUES (1)")
	var nl *NotLeaderError
	require.ErrorAs(t, err, &nl)
	require.Equal(t, leader.cfg.NodeID, nl.LeaderID)
	require.NoError(t, tx.Rollback())

	_, err = fdb.BeginTx(context.Background(), nil)
	require.NoError(t, err, "a deferred transaction begins")
	_, err = fdb.Exec("CREATE TEMP TABLE tmp(x)")
	require.ErrorIs(t, err, ErrNotLeader)
	_, err = fdb.Exec("CREATE TEMP VIEW v AS SELECT 1")
	require.ErrorIs(t, err, ErrNotLeader, "TEMP objects are not forwarded")
	c, err := fdb.Conn(context.Background())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.ExecContext(context.Background(), "SAVEPOINT a")
	require.ErrorIs(t, err, ErrNotLeader, "SAVEPOINT begins a write transaction: never forwarded")
	require.Equal(t, 0, count(t, context.Background(), fdb, "t"))
}

// TestSQLNoForwarding: with forwarding off, a follower's writes and linearizable reads fail with
// a *NotLeaderError carrying the leader's ID and address; follower reads work.
func TestSQLNoForwarding(t *testing.T) {
	tc := newTCPCluster(t, 3, func(c *Config) { c.DisableForwarding = true })
	leader := tc.leader()
	_, err := openSQL(t, leader, nil).Exec("CREATE TABLE t(x)")
	require.NoError(t, err)
	f := tc.followers(leader)[0]
	id, err := f.WaitLeader(context.Background()) // it has heard from the leader
	require.NoError(t, err)
	require.Equal(t, leader.cfg.NodeID, id)
	fdb := openSQL(t, f, nil)
	_, err = fdb.Exec("INSERT INTO t VALUES (1)")
	var nl *NotLeaderError
	require.ErrorAs(t, err, &nl)
	require.Equal(t, leader.cfg.NodeID, nl.LeaderID)
	require.Equal(t, leader.Addr(), nl.LeaderAddr)
	require.ErrorContains(t, err, "the leader is "+leader.cfg.NodeID)
	err = fdb.QueryRow("SELECT count(*) FROM t").Scan(new(int))
	require.ErrorAs(t, err, &nl)

	fol := openSQL(t, f, &SQLOptions{Consistency: Follower})
	ctx := WithMinLSN(context.Background(), leader.LastLSN())
	require.Equal(t, 0, count(t, ctx, fol, "t"))
	_, err = f.Write(context.Background(), []Op{{Kind: OpPut, Key: []byte("k"), Value: []byte("v")}})
	require.ErrorAs(t, err, &nl)
}

// TestSQLLeaderChange: the leader is stopped; the connectors of the other nodes go on working
// against the new leader, and the old leader's rows are all there.
func TestSQLLeaderChange(t *testing.T) {
	tc := newTCPCluster(t, 3, nil)
	old := tc.leader()
	_, err := openSQL(t, old, nil).Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, who TEXT)")
	require.NoError(t, err)
	dbs := map[string]*sql.DB{}
	for _, f := range tc.followers(old) {
		dbs[f.cfg.NodeID] = openSQL(t, f, nil)
		_, err := dbs[f.cfg.NodeID].Exec("INSERT INTO t(who) VALUES (?)", f.cfg.NodeID)
		require.NoError(t, err)
	}
	tc.stop(old.cfg.NodeID)
	next := tc.leader()
	require.NotEqual(t, old.cfg.NodeID, next.cfg.NodeID)
	for id, db := range dbs {
		for i := range 5 {
			_, err := db.Exec("INSERT INTO t(who) VALUES (?)", fmt.Sprintf("%s-after-%d", id, i))
			require.NoError(t, err, "node %s", id)
		}
	}
	for id, db := range dbs {
		require.Equal(t, 12, count(t, context.Background(), db, "t"), "node %s", id)
	}
	back := tc.start(old.cfg.NodeID, false)
	bdb := openSQL(t, back, &SQLOptions{Consistency: Follower})
	require.Equal(t, 12, count(t, WithMinLSN(context.Background(), next.LastLSN()), bdb, "t"))
	_, err = bdb.Exec("INSERT INTO t(who) VALUES ('back')")
	require.NoError(t, err, "the old leader forwards to the new one")
}

// TestSQLSchemaChangeOnFollower: a schema change replicated to a follower is seen by the next
// statement of a follower connection, prepared statements included.
func TestSQLSchemaChangeOnFollower(t *testing.T) {
	tc := newTCPCluster(t, 3, nil)
	leader := tc.leader()
	ldb := openSQL(t, leader, nil)
	_, err := ldb.Exec("CREATE TABLE t(a)")
	require.NoError(t, err)
	_, err = ldb.Exec("INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	f := tc.followers(leader)[0]
	fdb := openSQL(t, f, &SQLOptions{Consistency: Follower})
	fdb.SetMaxOpenConns(1)
	ctx := WithMinLSN(context.Background(), leader.LastLSN())
	st, err := fdb.PrepareContext(ctx, "SELECT * FROM t")
	require.NoError(t, err)
	cols := func() []string {
		r, err := st.QueryContext(WithMinLSN(context.Background(), leader.LastLSN()))
		require.NoError(t, err)
		defer r.Close()
		c, err := r.Columns()
		require.NoError(t, err)
		return c
	}
	require.Equal(t, []string{"a"}, cols())
	_, err = fdb.Exec("SELECT * FROM u")
	require.ErrorContains(t, err, "no such table")

	_, err = ldb.Exec("ALTER TABLE t ADD COLUMN b DEFAULT 2")
	require.NoError(t, err)
	_, err = ldb.Exec("CREATE TABLE u(x)")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, cols(), "the prepared statement planned again")
	require.Equal(t, 0, count(t, WithMinLSN(context.Background(), leader.LastLSN()), fdb, "u"))
	var b int
	require.NoError(t, fdb.QueryRow("SELECT b FROM t").Scan(&b))
	require.Equal(t, 2, b)
}

// TestSQLAfterSnapshotInstall: a follower wiped and restored from a snapshot (its database
// replaced under its engine) serves SQL from the new database.
func TestSQLAfterSnapshotInstall(t *testing.T) {
	tc := newTCPCluster(t, 3, func(c *Config) { c.SnapshotThreshold, c.TrailingLogs = 20, 5 })
	leader := tc.leader()
	ldb := openSQL(t, leader, nil)
	_, err := ldb.Exec("CREATE TABLE t(x)")
	require.NoError(t, err)
	victim := tc.followers(leader)[0].cfg.NodeID
	tc.stop(victim)
	tc.wipe(victim)
	back := tc.start(victim, false)
	bdb := openSQL(t, back, &SQLOptions{Consistency: Follower})
	for i := range 100 {
		_, err := ldb.Exec("INSERT INTO t VALUES (?)", i)
		require.NoError(t, err)
	}
	require.NoError(t, leader.Snapshot())
	require.Equal(t, 100, count(t, WithMinLSN(context.Background(), leader.LastLSN()), bdb, "t"))
	_, err = bdb.Exec("INSERT INTO t VALUES (100)")
	require.NoError(t, err)
	require.Equal(t, 101, count(t, context.Background(), bdb, "t"))
}

// TestWriteForwarded: KV batches from any node, with compare-and-set conditions.
func TestWriteForwarded(t *testing.T) {
	tc := newTCPCluster(t, 3, nil)
	leader := tc.leader()
	ctx := context.Background()
	bucket := []byte("b")
	for _, n := range tc.running() {
		key := []byte("k-" + n.cfg.NodeID)
		lsn, err := n.Write(ctx, []Op{{Kind: OpIfAbsent, Bucket: bucket, Key: key}, {Kind: OpPut, Bucket: bucket, Key: key, Value: []byte("1")}})
		require.NoError(t, err, "node %s", n.cfg.NodeID)
		_, err = n.Write(ctx, []Op{{Kind: OpIfAbsent, Bucket: bucket, Key: key}, {Kind: OpPut, Bucket: bucket, Key: key, Value: []byte("x")}})
		require.ErrorIs(t, err, ErrConditionFailed)
		_, err = n.Write(ctx, []Op{{Kind: OpIfEqual, Bucket: bucket, Key: key, Value: []byte("2")}, {Kind: OpPut, Bucket: bucket, Key: key, Value: []byte("3")}})
		require.ErrorIs(t, err, ErrConditionFailed, "compare fails: nothing written")
		lsn2, err := n.Write(ctx, []Op{{Kind: OpIfEqual, Bucket: bucket, Key: key, Value: []byte("1")}, {Kind: OpPut, Bucket: bucket, Key: key, Value: []byte("2")},
			{Kind: OpPut, Key: []byte("default-" + n.cfg.NodeID), Value: []byte("d")}, {Kind: OpDelete, Key: []byte("missing")}})
		require.NoError(t, err)
		require.Greater(t, lsn2, lsn)
		require.NoError(t, n.ViewWith(ctx, ReadOptions{Consistency: Follower, MinLSN: lsn2}, func(tx *cairn.Tx) error {
			b, err := tx.Bucket(bucket)
			require.NoError(t, err)
			v, err := b.Get(key)
			require.NoError(t, err)
			require.Equal(t, "2", string(v))
			v, err = tx.Get([]byte("default-" + n.cfg.NodeID))
			require.NoError(t, err)
			require.Equal(t, "d", string(v))
			return nil
		}))
	}
	_, err := tc.followers(leader)[0].Write(ctx, []Op{{Kind: OpDelete, Bucket: bucket, Key: []byte("k-" + leader.cfg.NodeID)}})
	require.NoError(t, err)
	require.ErrorIs(t, leader.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket(bucket)
		require.NoError(t, err)
		_, err = b.Get([]byte("k-" + leader.cfg.NodeID))
		return err
	}), cairn.ErrNotFound)
	_, err = leader.Write(ctx, []Op{{Kind: 9}})
	require.Error(t, err)
}

// TestNoNetworkNoForwarding: nodes on in-memory transports have no listener to forward over: a
// follower's writes fail at once with the *NotLeaderError.
func TestNoNetworkNoForwarding(t *testing.T) {
	tc := newTestCluster(t, 3, nil)
	leader := tc.leader()
	f := tc.followers(leader)[0]
	_, err := f.Write(context.Background(), []Op{{Kind: OpPut, Key: []byte("k"), Value: []byte("v")}})
	require.ErrorIs(t, err, ErrNotLeader)
	_, err = openSQL(t, f, nil).Exec("CREATE TABLE t(x)")
	require.ErrorIs(t, err, ErrNotLeader)
}

//go:build invariants

package cairn

// Tests of the invariants build's checks (invariants.go): each breaks an invariant on purpose, in
// a crafted state or through the function that moves a marker, and expects the check's panic.
// Run with: go test -tags invariants -run Invariant .

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/internal/invariants/invtest"
	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// openInvariantsDB opens a new database on an in-memory file system with n keys committed one
// transaction each; it is closed at the end of the test.
func openInvariantsDB(t *testing.T, n int) *DB {
	t.Helper()
	db, err := Open("/d/db", &Options{fs: vfs.NewMem()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	for i := range n {
		require.NoError(t, db.Update(func(tx *Tx) error {
			return tx.Put(fmt.Appendf(nil, "key%05d", i), make([]byte, 100))
		}))
	}
	return db
}

func TestInvariantsBuild(t *testing.T) {
	require.True(t, invariants.Enabled, "this file builds only with -tags invariants")
}

// TestInvariantVersionMarkers: published <= latest <= headLSN, and latest and headLSN never move
// back (setLatest, assertMarkers).
func TestInvariantVersionMarkers(t *testing.T) {
	db := openInvariantsDB(t, 3)
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	latest := db.latest.Load()
	require.Equal(t, uint64(3), latest.lsn)
	db.assertMarkers("test") // the real state passes

	older := *latest
	older.lsn--
	invtest.RequireViolation(t, invariants.VersionMarkers, func() { db.setLatest(&older) })
	require.Same(t, latest, db.latest.Load(), "the check ran before the store")

	published := db.published.Load()
	db.published.Store(&version{lsn: latest.lsn + 1})
	invtest.RequireViolation(t, invariants.VersionMarkers, func() { db.assertMarkers("test") })
	db.published.Store(published)

	db.headLSN.Store(latest.lsn - 1)
	invtest.RequireViolation(t, invariants.VersionMarkers, func() { db.assertMarkers("test") })
	db.headLSN.Store(latest.lsn)
}

// TestInvariantHeldCommits: the commits in (latest, headLSN] are the held records, whose lengths
// held.bytes sums (setLatest, holdCommit, assertHeld).
func TestInvariantHeldCommits(t *testing.T) {
	db := openInvariantsDB(t, 2)
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	latest := *db.latest.Load()
	db.assertHeld("test")

	// setLatest: nothing may be held after the new latest.
	db.held.records, db.held.bytes = [][]byte{{1, 2, 3}}, 3
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.setLatest(&latest) })

	// One record held but headLSN not moved past latest.
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.assertHeld("test") })

	// headLSN one past latest, but held.bytes off.
	db.headLSN.Store(latest.lsn + 1)
	db.assertHeld("test") // consistent again
	db.held.bytes = 4
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.assertHeld("test") })

	// Two commits after latest, one record.
	db.held.bytes = 3
	db.headLSN.Store(latest.lsn + 2)
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.assertHeld("test") })

	db.clearHeld()
	db.headLSN.Store(latest.lsn)
	db.latest.Store(&latest)
	db.assertHeld("test")
}

// TestInvariantHoldCommit: a held commit's LSN follows headLSN, its transaction is on latest, and
// it leaves the drop stack alone (holdCommit's checks run before it changes anything).
func TestInvariantHoldCommit(t *testing.T) {
	db := openInvariantsDB(t, 2)
	tx, err := db.Begin(true)
	require.NoError(t, err)
	defer func() { require.NoError(t, tx.Rollback()) }()
	require.NoError(t, tx.Put([]byte("k"), []byte("v")))
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	head := db.headLSN.Load()
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.holdCommit(tx, head+2) })

	base := tx.base
	tx.base = &version{lsn: base.lsn - 1}
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.holdCommit(tx, head+1) })
	tx.base = base

	tx.dropPending = true
	invtest.RequireViolation(t, invariants.HeldCommits, func() { db.holdCommit(tx, head+1) })
	tx.dropPending = false
	require.Empty(t, db.held.records, "no check let holdCommit go on")
}

// TestInvariantPendingVersions: the pending versions are in LSN order, after published and at
// most headLSN (assertPending).
func TestInvariantPendingVersions(t *testing.T) {
	db := openInvariantsDB(t, 2)
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	db.pendingMu.Lock()
	defer db.pendingMu.Unlock()
	pub, head := db.published.Load().lsn, db.headLSN.Load()
	require.Empty(t, db.pending)
	saved := db.pending
	defer func() { db.pending = saved }()

	db.pending = []*version{{lsn: pub + 1}, {lsn: pub + 2}}
	db.headLSN.Store(pub + 2)
	db.assertPending("test")
	db.pending = []*version{{lsn: pub + 2}, {lsn: pub + 1}}
	invtest.RequireViolation(t, invariants.PendingVersions, func() { db.assertPending("test") })
	db.pending = []*version{{lsn: pub}}
	invtest.RequireViolation(t, invariants.PendingVersions, func() { db.assertPending("test") })
	db.pending = []*version{{lsn: pub + 3}}
	invtest.RequireViolation(t, invariants.PendingVersions, func() { db.assertPending("test") })
	db.headLSN.Store(head)
}

// TestInvariantPublication: published moves forward only and is durable, and a batch reported
// durable is covered by a materialization (onDurable's checks).
func TestInvariantPublication(t *testing.T) {
	db := openInvariantsDB(t, 2)
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	latest := db.latest.Load()
	require.Same(t, latest, db.published.Load())

	onDurable := func(lastLSN uint64) {
		defer func() {
			if r := recover(); r != nil {
				db.pendingMu.Unlock() // onDurable panicked holding it
				panic(r)
			}
		}()
		db.onDurable(lastLSN)
	}

	// A batch beyond latest: its last record is in no materialized version.
	invtest.RequireViolation(t, invariants.DurableMaterialized, func() { onDurable(latest.lsn + 1) })

	// A pending version older than the published one.
	db.pending = []*version{{lsn: latest.lsn - 1}}
	invtest.RequireViolation(t, invariants.VersionMarkers, func() { onDurable(latest.lsn) })
	require.Same(t, latest, db.published.Load(), "the check ran before the store")
	require.Empty(t, db.pending)

	// Published past the durable LSN.
	invtest.RequireViolation(t, invariants.VersionMarkers, func() { db.assertDurable(latest.lsn - 1) })
	db.assertDurable(latest.lsn)
}

// TestInvariantCheckpointPages: the pages a checkpointed version reaches are neither free nor
// pending, every page is in one structure, and every page allocated since the last checkpoint
// is in the trees (assertCheckpointPages, which Checkpoint runs). A reader keeps the pages of an
// older version pending; that version passed as the one to checkpoint reaches them.
func TestInvariantCheckpointPages(t *testing.T) {
	db := openInvariantsDB(t, 300)
	require.NoError(t, db.Update(func(tx *Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), make([]byte, 10000)) // an overflow value, through the catalog
	}))
	require.NoError(t, db.Checkpoint(context.Background()))
	r, err := db.Begin(false)
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Rollback()) }()
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range 150 {
			if err := tx.Delete(fmt.Appendf(nil, "key%05d", i)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Checkpoint(context.Background()), "the real state passes")

	db.lockWriter()
	defer db.unlockWriter()
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	require.True(t, db.pager.AccountingTrusted())
	latest := db.latest.Load()
	require.NotEqual(t, latest.root, r.base.root)
	require.NotZero(t, latest.root)
	require.NotZero(t, latest.catalog)
	db.assertCheckpointPages(latest)
	// The reader's version reaches pages the delete freed: pending.
	invtest.RequireViolation(t, invariants.CheckpointPages, func() { db.assertCheckpointPages(r.base) })
	// Without its catalog, the catalog's and the bucket's pages are in no structure: lost.
	invtest.RequireViolation(t, invariants.CheckpointPages, func() {
		db.assertCheckpointPages(&version{lsn: latest.lsn, root: latest.root})
	})
	// The catalog as the default key space too: its pages are reached twice.
	invtest.RequireViolation(t, invariants.CheckpointPages, func() {
		db.assertCheckpointPages(&version{lsn: latest.lsn, root: latest.catalog, catalog: latest.catalog})
	})
}

// TestInvariantChecksTrustOnlySoundAccounting: a database opened from a file whose free list
// lists a page its tree uses (damage that only Check sees) takes writes and checkpoints without a
// panic: the accounting checks wait for a Check to find the accounting sound.
func TestInvariantChecksTrustOnlySoundAccounting(t *testing.T) {
	db, err := Open(damagedFiles(t, "freelist-lists-a-tree-page"), nil)
	require.NoError(t, err)
	require.False(t, db.pager.AccountingTrusted())
	require.ErrorIs(t, db.Check(), ErrCorrupt)
	require.False(t, db.pager.AccountingTrusted())
	for i := range 50 {
		_ = db.Update(func(tx *Tx) error { return tx.Put(fmt.Appendf(nil, "new%03d", i), make([]byte, 500)) })
	}
	_ = db.Checkpoint(context.Background())
	_ = db.Close()

	db, err = Open(damagedFiles(t, "base"), nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	require.False(t, db.pager.AccountingTrusted())
	require.NoError(t, db.Check())
	require.True(t, db.pager.AccountingTrusted())
}

package cairn

// Regression tests for the bugs TestFaultSites found (docs/RELIABILITY.md, "Error injection at
// every call site"). Each fails on the code before its fix.

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// TestCloseReturnsCheckpointFailure: a failure of Close's own checkpoint, and one of a background
// checkpoint that no caller waited for, are returned by Close (they were swallowed: Close turned
// every ErrFailed into nil). Reopening still finds every commit.
func TestCloseReturnsCheckpointFailure(t *testing.T) {
	t.Parallel()
	t.Run("in Close", func(t *testing.T) {
		mem := vfs.NewMem()
		efs := vfs.NewErrFS(mem)
		db, _ := openMem(t, &Options{fs: efs})
		putN(t, db, 0, 50)
		efs.Inject(vfs.Rule{Op: vfs.OpSync, Err: syscall.EIO}) // Close's first: its checkpoint's
		err := db.Close()
		require.ErrorIs(t, err, ErrFailed)
		require.ErrorIs(t, err, vfs.ErrInjected)
		require.ErrorIs(t, err, syscall.EIO)
		db, err = Open("/d/db", &Options{fs: mem})
		require.NoError(t, err)
		require.Equal(t, 50, countKeys(t, db))
		require.NoError(t, db.Check())
		require.NoError(t, db.Close())
	})
	t.Run("in the background", func(t *testing.T) {
		mem := vfs.NewMem()
		efs := vfs.NewErrFS(mem)
		db, _ := openMem(t, &Options{fs: efs, CheckpointBytes: 4 << 10})
		// The first truncate is the background checkpoint's growth of the page file (commits
		// only write and sync the WAL).
		efs.Inject(vfs.Rule{Op: vfs.OpTruncate, Err: syscall.EIO})
		for i := 0; db.Stats().CheckpointErr == 0; i++ {
			require.Less(t, i, 10000, "no background checkpoint failed")
			if err := db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), make([]byte, 100)) }); err != nil {
				require.ErrorIs(t, err, ErrFailed) // the checkpoint failed meanwhile
				break
			}
		}
		for db.Stats().CheckpointErr == 0 {
			time.Sleep(time.Millisecond)
		}
		err := db.Close()
		require.ErrorIs(t, err, ErrFailed, "the background failure reaches Close")
		require.ErrorIs(t, err, vfs.ErrInjected)
	})
}

// checkpointedDB returns a MemFS holding a closed database whose meta pages are both written
// (two checkpoints), with n keys.
func checkpointedDB(t *testing.T, n int) *vfs.MemFS {
	mem := vfs.NewMem()
	db, err := Open("/d/db", &Options{fs: mem, CacheBytes: 4096})
	require.NoError(t, err)
	putN(t, db, 0, n/2)
	require.NoError(t, db.Checkpoint(context.Background()))
	putN(t, db, n/2, n)
	require.NoError(t, db.Close())
	return mem
}

// TestOpenMetaPageReadError: an I/O error reading a meta page fails Open with that error. Open
// used to count the page as damaged and go on with the other one, which may be older: it then
// refused with a misleading ErrCorrupt ("commits after LSN n are lost"), or, with WAL records
// after the older page, opened on the older checkpoint while the newer one was intact on disk.
func TestOpenMetaPageReadError(t *testing.T) {
	t.Parallel()
	mem := checkpointedDB(t, 100)
	for slot := range 2 { // the first read is meta page 0, the second meta page 1
		efs := vfs.NewErrFS(mem)
		efs.Inject(vfs.Rule{Op: vfs.OpRead, Path: "/d/db", After: slot, Err: syscall.EIO})
		_, err := Open("/d/db", &Options{fs: efs})
		require.ErrorIs(t, err, vfs.ErrInjected, "meta page %d", slot)
		require.ErrorIs(t, err, syscall.EIO, "meta page %d", slot)
		require.NotErrorIs(t, err, ErrCorrupt, "meta page %d: a read error is not damage", slot)
	}
	db, err := Open("/d/db", &Options{fs: mem})
	require.NoError(t, err)
	require.Equal(t, 100, countKeys(t, db))
	require.NoError(t, db.Close())
}

// TestMetaPageReadErrorThenCrash is the harm the old behaviour could do: checkpoint B's meta page
// is durable but its WAL reset failed, so the WAL still holds the records after the older
// checkpoint A. A read error on B's slot made Open go on from A (replaying the WAL, no error);
// the next checkpoint then wrote its pages at ids free in A but used by B, and a crash before its
// meta page left B current over those pages: the database no longer opened (ErrCorrupt, its 400
// commits unreachable). Now Open fails on the read error, and the next Open uses B.
func TestMetaPageReadErrorThenCrash(t *testing.T) {
	t.Parallel()
	mem := vfs.NewMem()
	efs := vfs.NewErrFS(mem)
	db, err := Open("/d/db", &Options{fs: efs, CacheBytes: 4096})
	require.NoError(t, err)
	putN(t, db, 0, 200)
	require.NoError(t, db.Checkpoint(context.Background())) // A
	putN(t, db, 200, 400)
	efs.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "-wal"}) // B: meta page durable, WAL reset fails
	require.ErrorIs(t, db.Checkpoint(context.Background()), ErrFailed)
	b := db.pager.Durable()
	require.ErrorIs(t, db.Close(), ErrFailed)

	efs = vfs.NewErrFS(mem)
	efs.Inject(vfs.Rule{Op: vfs.OpRead, After: int(b.Seq % 2)}) // B's slot cannot be read, once
	_, err = Open("/d/db", &Options{fs: efs, CacheBytes: 4096})
	require.ErrorIs(t, err, vfs.ErrInjected, "Open must not go on without the meta page it could not read")
	db, err = Open("/d/db", &Options{fs: efs, CacheBytes: 4096})
	require.NoError(t, err)
	require.Equal(t, b.LSN, db.Stats().CheckpointLSN)
	putN(t, db, 400, 600)
	_, err = db.preflush() // the next checkpoint's page writes; a crash before its meta page
	require.NoError(t, err)
	clone := mem.CrashClone(vfs.CrashOptions{KeepProb: 1})
	db.abandon()
	db, err = Open("/d/db", &Options{fs: clone})
	require.NoError(t, err)
	require.Equal(t, 600, countKeys(t, db))
	require.NoError(t, db.Check())
	require.NoError(t, db.Close())
}

// TestCheckReadErrors fails each read Check makes, one at a time: Check returns the read error
// (wrapped), never ErrCorrupt, and a Check without the fault passes. Check used to report a meta
// page it could not read as corrupt (formatting the cause with %v, so it was not wrapped), and
// the pages below a tree page it could not read as lost.
func TestCheckReadErrors(t *testing.T) {
	t.Parallel()
	mem := checkpointedDB(t, 300)
	efs := vfs.NewErrFS(mem)
	db, err := Open("/d/db", &Options{fs: efs, CacheBytes: 4096})
	require.NoError(t, err)
	defer db.Close()
	before := efs.Calls(vfs.OpRead)
	require.NoError(t, db.Check())
	reads := efs.Calls(vfs.OpRead) - before
	require.Greater(t, reads, 5)
	for k := range reads {
		efs.Inject(vfs.Rule{Op: vfs.OpRead, After: k, Err: syscall.EIO})
		err := db.Check()
		efs.Clear()
		require.ErrorIs(t, err, vfs.ErrInjected, "read %d of %d", k+1, reads)
		require.NotErrorIs(t, err, ErrCorrupt, "read %d of %d: %v", k+1, reads, err)
		require.NoError(t, db.Check())
	}
}

// TestFailedCreateCanBeRetried: an Open that fails while creating the database leaves files that
// the next Open creates again. A short write of the meta pages or of the WAL header used to leave
// a file that every later Open refused as damaged (ErrCorrupt).
func TestFailedCreateCanBeRetried(t *testing.T) {
	t.Parallel()
	for _, rule := range []vfs.Rule{
		{Op: vfs.OpWrite, Path: "/d/db", ShortWrite: true, Err: syscall.ENOSPC}, // the meta pages
		{Op: vfs.OpWrite, Path: "-wal", ShortWrite: true, Err: syscall.ENOSPC},  // the WAL header
		{Op: vfs.OpSync, Path: "-wal"},
		{Op: vfs.OpSyncDir},
	} {
		mem := vfs.NewMem()
		efs := vfs.NewErrFS(mem)
		efs.Inject(rule)
		_, err := Open("/d/db", &Options{fs: efs})
		require.ErrorIs(t, err, vfs.ErrInjected, "%+v", rule)
		db, err := Open("/d/db", &Options{fs: mem})
		require.NoError(t, err, "%+v: the next Open", rule)
		putN(t, db, 0, 10)
		require.NoError(t, db.Check())
		require.NoError(t, db.Close())
	}
}

package cairn

// Regression tests for the bugs TestFaultSites found (docs/RELIABILITY.md, "Error injection at
// every call site"). Each fails on the code before its fix.

import (
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
	t.Run("in Close", func(t *testing.T) {
		mem := vfs.NewMem()
		efs := vfs.NewErrFS(mem)
		db, err := Open("/d/db", &Options{fs: efs})
		require.NoError(t, err)
		putN(t, db, 0, 50)
		efs.Inject(vfs.Rule{Op: vfs.OpSync, Err: syscall.EIO}) // Close's first: its checkpoint's
		err = db.Close()
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
		db, err := Open("/d/db", &Options{fs: efs, CheckpointBytes: 4 << 10})
		require.NoError(t, err)
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
		err = db.Close()
		require.ErrorIs(t, err, ErrFailed, "the background failure reaches Close")
		require.ErrorIs(t, err, vfs.ErrInjected)
	})
}

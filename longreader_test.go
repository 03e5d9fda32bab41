package cairn

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLongReaderKeepsItsSnapshotWhileWritersAndCheckpointsProceed holds one read transaction open
// across 20,000 commits and checkpoints. The reader must see exactly its snapshot throughout,
// writers and checkpoints must not wait for it, the file must not grow with the churn (only the
// snapshot's own pages are held), and once the reader ends the pages it held are reused. Each
// commit rewrites a leaf and the root: a reader that held the pages of later versions too would
// grow the file by about two pages a commit, far past the bound of four times its starting size
// (28 pages; 84 after the churn).
func TestLongReaderKeepsItsSnapshotWhileWritersAndCheckpointsProceed(t *testing.T) {
	t.Parallel()
	commits := 20_000
	if testing.Short() {
		commits = 5_000
	}
	db, _ := openMem(t, &Options{Sync: SyncNone, CheckpointBytes: 1 << 20})
	const keys = 2000
	key := func(i int) []byte { return fmt.Appendf(nil, "key%05d", i) }
	snapshot := map[string][]byte{}
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range keys {
			v := fmt.Appendf(nil, "initial value %d", i)
			snapshot[string(key(i))] = v
			if err := tx.Put(key(i), v); err != nil {
				return err
			}
		}
		return nil
	}))
	reader, err := db.Begin(false)
	require.NoError(t, err)
	defer func() {
		if !reader.closed {
			reader.Rollback() // a failed assertion must not leave Close waiting for the reader
		}
	}()
	startPages := db.Stats().PageCount
	rng := rand.New(rand.NewPCG(3, 4))
	checkReader := func(n int) {
		for range n {
			k := key(rng.IntN(keys))
			v, err := reader.Get(k)
			require.NoError(t, err)
			require.True(t, bytes.Equal(snapshot[string(k)], v), "reader lost its snapshot at %q", k)
		}
	}
	churn := func(n int) {
		for i := range n {
			require.NoError(t, db.Update(func(tx *Tx) error {
				return tx.Put(key(rng.IntN(keys)), fmt.Appendf(nil, "commit %d", i))
			}))
			if i%1000 == 0 && !reader.closed {
				checkReader(20)
			}
			if i%5000 == 4999 {
				require.NoError(t, db.Checkpoint(t.Context()))
			}
		}
	}
	churn(commits)
	st := db.Stats()
	require.Positive(t, st.Checkpoints, "checkpoints must run while the reader is open")
	require.Equal(t, reader.base.lsn, st.OldestReaderLSN)
	require.Positive(t, st.OldestReaderAge)
	t.Logf("after %d commits with the reader open: %d pages (started at %d), %d pending", commits, st.PageCount, startPages, st.PendingPages)
	require.Less(t, st.PageCount, 4*startPages, "the file grew with the churn: the reader holds more than its snapshot")
	n := 0
	for k, v := range reader.Range(nil, nil) {
		require.True(t, bytes.Equal(snapshot[string(k)], v))
		n++
	}
	require.Equal(t, keys, n)
	require.NoError(t, reader.Rollback())

	// The pages the reader held become reusable: further churn does not grow the file.
	require.NoError(t, db.Checkpoint(t.Context()))
	churn(2000)
	require.NoError(t, db.Checkpoint(t.Context()))
	held := db.Stats().PageCount
	churn(10_000)
	st = db.Stats()
	require.LessOrEqual(t, st.PageCount, held, "pages held by the reader were not reused")
	require.Zero(t, st.ActiveReaders)
	require.NoError(t, db.check())
}

package cairn

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatsCounters checks the commit, batch and fdatasync counters against each other after
// concurrent commits, and that taking Stats allocates nothing.
func TestStatsCounters(t *testing.T) {
	// Not parallel: AllocsPerRun counts the allocations of every goroutine.
	db, _ := openTemp(t, nil)
	commitConcurrently(t, db, 8, 25)
	st := db.Stats()
	require.Equal(t, uint64(200), st.Commits)
	require.LessOrEqual(t, st.Batches, st.Commits)
	require.Equal(t, st.Batches, st.Syncs, "one fdatasync per batch")
	require.InDelta(t, float64(st.Commits)/float64(st.Batches), st.MeanBatch, 1e-9)
	require.Positive(t, st.Materializations)
	require.LessOrEqual(t, st.Materializations, st.Commits)
	require.LessOrEqual(t, st.CopyMaterializations, st.Materializations)
	var inHistogram uint64
	for _, n := range st.SyncHistogram {
		inHistogram += n
	}
	require.Equal(t, st.Syncs, inHistogram)
	require.Positive(t, st.SyncTime)
	t.Logf("%d commits in %d batches (mean %.2f), %d materializations (%d of copies), fdatasync total %v", st.Commits, st.Batches, st.MeanBatch, st.Materializations, st.CopyMaterializations, st.SyncTime)
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = db.Stats() }))

	nosync, _ := openTemp(t, &Options{Sync: SyncNone})
	require.NoError(t, nosync.Update(func(tx *Tx) error { return tx.Put([]byte("k"), nil) }))
	require.Zero(t, nosync.Stats().Syncs)
}

// TestViewGetAllocatesNothing guards the read path's promise (issue 4): a View with a Get on a
// cached tree allocates nothing, in the default key space; a bucket lookup allocates its handle.
func TestViewGetAllocatesNothing(t *testing.T) {
	// Not parallel: AllocsPerRun counts the allocations of every goroutine.
	db, _ := openTemp(t, nil)
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range 1000 {
			if err := tx.Put(fmt.Appendf(nil, "k%04d", i), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}))
	key := []byte("k0500")
	allocs := testing.AllocsPerRun(1000, func() {
		_ = db.View(func(tx *Tx) error {
			_, err := tx.Get(key)
			return err
		})
	})
	require.Zero(t, allocs)
}

// commitConcurrently runs writers goroutines that each commit perWriter single-put Updates.
func commitConcurrently(t *testing.T, db *DB, writers, perWriter int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				require.NoError(t, db.Update(func(tx *Tx) error {
					return tx.Put(fmt.Appendf(nil, "w%d-%d", w, i), []byte("v"))
				}))
			}
		})
	}
	wg.Wait()
}

// TestMaxBatchBytes checks Options.MaxBatchBytes through Stats: with a bound below one record
// every batch holds one commit, however many writers wait; a negative bound is refused.
func TestMaxBatchBytes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, &Options{MaxBatchBytes: 1})
	commitConcurrently(t, db, 8, 25)
	st := db.Stats()
	require.Equal(t, uint64(200), st.Commits)
	require.Equal(t, st.Commits, st.Batches, "one commit per batch")
	require.Equal(t, st.Batches, st.Syncs)

	_, err := Open(t.TempDir()+"/neg.db", &Options{MaxBatchBytes: -1})
	require.ErrorContains(t, err, "MaxBatchBytes")
}

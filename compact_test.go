package cairn

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// shrinkable fills db with keys in the default key space and two buckets, deletes 90% of them and
// one bucket, and returns the keys left per bucket ("" is the default key space).
func shrinkable(t *testing.T, db *DB) map[string]int {
	fillBucket(t, db, "gone", 20_000, 100)
	fillBucket(t, db, "kept", 20_000, 100)
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range 20_000 {
			if err := tx.Put(fmt.Appendf(nil, "key%08d", i), make([]byte, 100)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Update(func(tx *Tx) error {
		require.NoError(t, tx.DeleteBucket([]byte("gone")))
		kept, err := tx.Bucket([]byte("kept"))
		require.NoError(t, err)
		for i := range 20_000 {
			if i%10 != 0 {
				require.NoError(t, tx.Delete(fmt.Appendf(nil, "key%08d", i)))
				require.NoError(t, kept.Delete(fmt.Appendf(nil, "key%08d", i)))
			}
		}
		return nil
	}))
	require.NoError(t, db.Checkpoint(context.Background()))
	return map[string]int{"": 2000, "kept": 2000}
}

func requireCompacted(t *testing.T, db *DB, want map[string]int) {
	t.Helper()
	require.NoError(t, db.View(func(tx *Tx) error {
		for name, n := range want {
			b := &tx.main
			if name != "" {
				var err error
				b, err = tx.Bucket([]byte(name))
				require.NoError(t, err)
			}
			i := 0
			for k := range b.Prefix([]byte("key")) {
				require.Equal(t, fmt.Sprintf("key%08d", i*10), string(k))
				i++
			}
			require.Equal(t, n, i, "bucket %q", name)
		}
		return nil
	}))
}

// TestCompactDuringLoad compacts while a writer commits to its own keys and readers scan: every
// key stays, Check passes, and the file shrinks to a fraction of its size.
func TestCompactDuringLoad(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t, nil)
	want := shrinkable(t, db)
	before, err := os.Stat(path)
	require.NoError(t, err)

	var stop atomic.Bool
	var wg sync.WaitGroup
	var writes atomic.Uint64
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := uint64(0); !stop.Load(); i++ {
			require.NoError(t, db.Update(func(tx *Tx) error {
				return tx.Put([]byte("writer"), binary.BigEndian.AppendUint64(nil, i))
			}))
			writes.Add(1)
		}
	}()
	go func() {
		defer wg.Done()
		for !stop.Load() {
			requireCompacted(t, db, want)
			require.NoError(t, db.Check(), "Check during Compact")
		}
	}()
	var steps int
	st, err := db.Compact(context.Background(), func(CompactStats) { steps++ })
	stop.Store(true)
	wg.Wait()
	require.NoError(t, err)
	after, err := os.Stat(path)
	require.NoError(t, err)
	t.Logf("%+v, %d steps, %d concurrent commits; file %d -> %d bytes", st, steps, writes.Load(), before.Size(), after.Size())
	require.Positive(t, st.Moved)
	require.Less(t, after.Size(), before.Size()/3, "the file shrank")
	requireCompacted(t, db, want)
	require.NoError(t, db.Check())
	require.NoError(t, db.Close())

	db, err = Open(path, nil)
	require.NoError(t, err)
	requireCompacted(t, db, want)
	require.NoError(t, db.Check())
	require.NoError(t, db.Close())
}

// TestCompactCrash abandons the database (a killed process) after each step of a compaction in
// turn, on copies of the same files: reopening loses nothing and passes Check.
func TestCompactCrash(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t, nil)
	want := shrinkable(t, db)
	require.NoError(t, db.Close())
	image, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, crashAt := range []int{1, 3, 8, 20, 40} {
		t.Run(fmt.Sprint(crashAt), func(t *testing.T) {
			copyPath := path + fmt.Sprint(crashAt)
			require.NoError(t, os.WriteFile(copyPath, image, 0o600))
			db, err := Open(copyPath, nil)
			require.NoError(t, err)
			steps := 0
			ctx, cancel := context.WithCancel(context.Background())
			_, err = db.Compact(ctx, func(CompactStats) {
				if steps++; steps == crashAt {
					cancel()
				}
			})
			cancel()
			if steps >= crashAt { // stopped by the cancel; otherwise it finished first
				require.ErrorIs(t, err, context.Canceled)
			} else {
				require.NoError(t, err)
			}
			db.abandon()
			db, err = Open(copyPath, nil)
			require.NoError(t, err)
			requireCompacted(t, db, want)
			require.NoError(t, db.Check())
			require.NoError(t, db.Close())
		})
	}
}

// TestCompactAfterDeleteBucket: one Compact right after deleting a large bucket gives back
// nearly all of its pages (its drop, the checkpoint that makes them reusable, the relocation).
func TestCompactAfterDeleteBucket(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("keep"), []byte("me")) }))
	fillBucket(t, db, "big", 20_000, 100)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.DeleteBucket([]byte("big")) }))
	st, err := db.Compact(context.Background(), nil)
	require.NoError(t, err)
	t.Logf("%+v", st)
	require.LessOrEqual(t, st.PagesAfter, uint64(32), "pages left of %d", st.PagesBefore)
	require.NoError(t, db.Check())
}

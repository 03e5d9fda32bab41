package cairn

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBucketErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	defer db.Close()
	require.NoError(t, db.Update(func(tx *Tx) error {
		_, err := tx.Bucket([]byte("none"))
		require.ErrorIs(t, err, ErrBucketNotFound)
		_, err = tx.CreateBucket(nil)
		require.ErrorIs(t, err, ErrBucketNameRequired)
		_, err = tx.CreateBucket(make([]byte, MaxKeySize+1))
		require.ErrorIs(t, err, ErrKeyTooLarge)
		require.ErrorIs(t, tx.DeleteBucket([]byte("none")), ErrBucketNotFound)
		b, err := tx.CreateBucket([]byte("b"))
		require.NoError(t, err)
		require.Equal(t, []byte("b"), b.Name())
		_, err = tx.CreateBucket([]byte("b"))
		require.ErrorIs(t, err, ErrBucketExists)
		again, err := tx.CreateBucketIfNotExists([]byte("b"))
		require.NoError(t, err)
		require.Same(t, b, again)
		require.NoError(t, b.Put([]byte("k"), []byte("v")))
		// Keys of a bucket are not in the default key space, nor the reverse.
		_, err = tx.Get([]byte("k"))
		require.ErrorIs(t, err, ErrNotFound)
		require.NoError(t, tx.DeleteBucket([]byte("b")))
		require.ErrorIs(t, b.Put([]byte("k"), nil), ErrBucketNotFound)
		_, err = b.Get([]byte("k"))
		require.ErrorIs(t, err, ErrBucketNotFound)
		// The handle names the bucket: a new bucket of that name is empty and usable through it.
		_, err = tx.CreateBucket([]byte("b"))
		require.NoError(t, err)
		_, err = b.Get([]byte("k"))
		require.ErrorIs(t, err, ErrNotFound)
		return b.Put([]byte("k2"), []byte("v2"))
	}))
	var handle *Bucket
	require.NoError(t, db.View(func(tx *Tx) error {
		b, err := tx.Bucket([]byte("b"))
		require.NoError(t, err)
		v, err := b.Get([]byte("k2"))
		require.NoError(t, err)
		require.Equal(t, "v2", string(v))
		require.ErrorIs(t, b.Put([]byte("x"), nil), ErrTxReadOnly)
		_, err = tx.CreateBucket([]byte("c"))
		require.ErrorIs(t, err, ErrTxReadOnly)
		require.ErrorIs(t, tx.DeleteBucket([]byte("b")), ErrTxReadOnly)
		handle = b
		return nil
	}))
	_, err := handle.Get([]byte("k2"))
	require.ErrorIs(t, err, ErrTxClosed)
	require.NoError(t, db.Check())
}

// TestDeleteBucketFreesInSteps deletes a bucket of a few thousand pages: the deleting commit does
// not walk it, later commits free at most dropBudget extents each, Check accounts for every page
// at each step (also after a crash in the middle), and the freed pages are reused.
func TestDeleteBucketFreesInSteps(t *testing.T) {
	t.Parallel()
	db, path := openMem(t, nil)
	fs := db.opts.fs
	fillBucket(t, db, "big", 40_000, 100)
	require.NoError(t, db.Checkpoint(context.Background()))
	grown := db.Stats().PageCount
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.DeleteBucket([]byte("big")) }))
	require.True(t, db.latest.Load().dropping)
	require.NoError(t, db.Check())

	steps := 0
	for db.latest.Load().dropping {
		steps++
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("tick"), fmt.Append(nil, steps)) }))
		if steps%5 == 0 {
			require.NoError(t, db.Check(), "after %d steps", steps)
		}
		if steps == 3 {
			// Crash in the middle of the drop: reopen replays and the drop goes on.
			db.abandon()
			var err error
			db, err = Open(path, &Options{fs: fs})
			require.NoError(t, err)
			require.NoError(t, db.Check())
		}
		require.Less(t, steps, 1000)
	}
	require.NoError(t, db.Check())
	extents := int(grown) / dropBudget
	require.GreaterOrEqual(t, steps, extents/2, "freed in bounded steps")
	t.Logf("%d pages freed in %d commits", grown, steps)
	require.NoError(t, db.Checkpoint(context.Background()))
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("tick"), nil) }))
	require.Greater(t, db.Stats().FreePages, int(grown)/2)

	fillBucket(t, db, "again", 40_000, 100)
	require.LessOrEqual(t, db.Stats().PageCount, grown+grown/10, "the freed pages were reused")
	require.NoError(t, db.Check())
	require.NoError(t, db.Close())
}

// TestSavepointAfterSplitAndBucketCreate rolls back over page splits and bucket creation and
// deletion, and checks what remains, before and after commit and reopen.
func TestSavepointAfterSplitAndBucketCreate(t *testing.T) {
	t.Parallel()
	db, path := openMem(t, nil)
	require.NoError(t, db.Update(func(tx *Tx) error {
		require.NoError(t, tx.Put([]byte("before"), []byte("1")))
		keep, err := tx.CreateBucket([]byte("keep"))
		require.NoError(t, err)
		require.NoError(t, keep.Put([]byte("a"), []byte("1")))
		sp, err := tx.Savepoint()
		require.NoError(t, err)
		for i := range 2000 { // splits the leaf many times
			require.NoError(t, tx.Put(fmt.Appendf(nil, "split%05d", i), make([]byte, 50)))
		}
		gone, err := tx.CreateBucket([]byte("gone"))
		require.NoError(t, err)
		require.NoError(t, gone.Put([]byte("x"), []byte("y")))
		require.NoError(t, tx.DeleteBucket([]byte("keep")))
		c := tx.Cursor()
		k, _ := c.First()
		require.NotNil(t, k)

		require.NoError(t, tx.RollbackTo(sp))
		k, _ = c.Next()
		require.Nil(t, k)
		require.ErrorIs(t, c.Err(), ErrCursorInvalid)
		_, err = gone.Get([]byte("x"))
		require.ErrorIs(t, err, ErrBucketNotFound)
		v, err := keep.Get([]byte("a"))
		require.NoError(t, err, "the handle of a bucket deleted after the savepoint works again")
		require.Equal(t, "1", string(v))
		n := 0
		for range tx.Range(nil, nil) {
			n++
		}
		require.Equal(t, 1, n)

		// Nested savepoints: roll back the inner one, release the outer one.
		outer, err := tx.Savepoint()
		require.NoError(t, err)
		require.NoError(t, keep.Put([]byte("b"), []byte("2")))
		inner, err := tx.Savepoint()
		require.NoError(t, err)
		require.NoError(t, keep.Put([]byte("c"), []byte("3")))
		require.NoError(t, tx.RollbackTo(inner))
		require.NoError(t, tx.Release(outer))
		require.ErrorIs(t, tx.RollbackTo(inner), ErrSavepointInvalid)
		require.ErrorIs(t, tx.Release(outer), ErrSavepointInvalid)
		return nil
	}))
	check := func(db *DB) {
		require.NoError(t, db.View(func(tx *Tx) error {
			var names []string
			require.NoError(t, tx.ForEachBucket(func(name []byte) error {
				names = append(names, string(name))
				return nil
			}))
			require.Equal(t, []string{"keep"}, names)
			b, err := tx.Bucket([]byte("keep"))
			require.NoError(t, err)
			var keys []string
			for k := range b.Range(nil, nil) {
				keys = append(keys, string(k))
			}
			require.Equal(t, []string{"a", "b"}, keys)
			_, err = tx.Get([]byte("split00000"))
			require.ErrorIs(t, err, ErrNotFound)
			return nil
		}))
		require.NoError(t, db.Check())
	}
	check(db)
	db.abandon() // reopen replays the WAL record written after the rollback
	db, err := Open(path, &Options{fs: db.opts.fs})
	require.NoError(t, err)
	check(db)
	require.NoError(t, db.Close())
}

func TestSavepointMisuse(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	defer db.Close()
	require.NoError(t, db.View(func(tx *Tx) error {
		_, err := tx.Savepoint()
		require.ErrorIs(t, err, ErrTxReadOnly)
		return nil
	}))
	tx1, err := db.Begin(true)
	require.NoError(t, err)
	sp, err := tx1.Savepoint()
	require.NoError(t, err)
	require.NoError(t, tx1.Rollback())
	require.ErrorIs(t, tx1.RollbackTo(sp), ErrTxClosed)
	tx2, err := db.Begin(true)
	require.NoError(t, err)
	require.ErrorIs(t, tx2.RollbackTo(sp), ErrSavepointInvalid, "a savepoint of another transaction")
	require.NoError(t, tx2.Rollback())
}

// TestLargeTransactionReadsItsWrites puts more keys into one bucket in one transaction than a
// decoded node holds (the B+tree splits it in memory), in random and descending order, and
// reads them back in the same transaction with Get, a cursor and Last, then after the commit.
func TestLargeTransactionReadsItsWrites(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, &Options{Sync: SyncNone})
	for _, order := range []string{"random", "descending"} {
		name := []byte(order)
		const n = 6000
		key := func(i int) []byte { return fmt.Appendf(nil, "k%06d", i) }
		check := func(tx *Tx) {
			b, err := tx.Bucket(name)
			require.NoError(t, err)
			for i := range n {
				v, err := b.Get(key(i))
				require.NoError(t, err, "%s", key(i))
				require.Equal(t, key(i), v)
			}
			c := b.Cursor()
			i := 0
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				require.Equal(t, key(i), k)
				i++
			}
			require.Equal(t, n, i)
			last, _ := c.Last()
			require.Equal(t, key(n-1), last)
		}
		require.NoError(t, db.Update(func(tx *Tx) error {
			b, err := tx.CreateBucket(name)
			require.NoError(t, err)
			for j := range n {
				i := n - 1 - j
				if order == "random" {
					i = j * 4001 % n
				}
				require.NoError(t, b.Put(key(i), key(i)))
			}
			check(tx)
			return nil
		}), order)
		require.NoError(t, db.View(func(tx *Tx) error { check(tx); return nil }), order)
	}
}

package cairn

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBucketEstimatedKeys checks EstimatedKeys through the public API: zero for an empty bucket,
// exact for a small one, within a factor of two for a large one in a read transaction and in a
// write transaction with changes of its own, and the bucket's usual errors.
func TestBucketEstimatedKeys(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, &Options{Sync: SyncNone})
	name := []byte("t")
	require.NoError(t, db.Update(func(tx *Tx) error {
		b, err := tx.CreateBucket(name)
		require.NoError(t, err)
		n, err := b.EstimatedKeys()
		require.NoError(t, err)
		require.Zero(t, n)
		for i := range 20 {
			require.NoError(t, b.Put(fmt.Appendf(nil, "k%03d", i), []byte("v")))
		}
		n, err = b.EstimatedKeys()
		require.NoError(t, err)
		require.Equal(t, int64(20), n)
		return nil
	}))
	for batch := range 50 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			b, err := tx.Bucket(name)
			require.NoError(t, err)
			for i := range 1000 {
				require.NoError(t, b.Put(fmt.Appendf(nil, "k%06d", (batch*1000+i)*7919%50_000), make([]byte, 40)))
			}
			return nil
		}))
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		b, err := tx.Bucket(name)
		require.NoError(t, err)
		n, err := b.EstimatedKeys()
		require.NoError(t, err)
		require.InDelta(t, 50_020, n, 25_000, "estimate of 50,020 keys")
		return nil
	}))
	require.NoError(t, db.Update(func(tx *Tx) error {
		b, err := tx.Bucket(name)
		require.NoError(t, err)
		for i := range 50_000 {
			require.NoError(t, b.Put(fmt.Appendf(nil, "z%06d", i), []byte("v")))
		}
		n, err := b.EstimatedKeys()
		require.NoError(t, err)
		require.InDelta(t, 100_020, n, 50_000, "estimate with the transaction's own puts")
		require.NoError(t, tx.DeleteBucket(name))
		_, err = b.EstimatedKeys()
		require.ErrorIs(t, err, ErrBucketNotFound)
		return nil
	}))
	var kept *Bucket
	require.NoError(t, db.View(func(tx *Tx) error {
		kept, _ = tx.Bucket([]byte("gone"))
		return nil
	}))
	require.NoError(t, db.Update(func(tx *Tx) error {
		b, err := tx.CreateBucket([]byte("gone"))
		kept = b
		return err
	}))
	_, err := kept.EstimatedKeys()
	require.ErrorIs(t, err, ErrTxClosed)
}

package cairn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBulkInsertAndDeleteKeepTreeInvariants grows a tree of many levels and shrinks it again in
// transactions of various sizes, checking the tree and page accounting after each phase, and that
// once most keys are gone (and a checkpoint released their pages) re-inserting reuses pages
// instead of growing the file. 60,000 keys make a tree of three levels, as 200,000 do (a fourth
// needs several hundred thousand); -short runs 30,000, also three levels.
func TestBulkInsertAndDeleteKeepTreeInvariants(t *testing.T) {
	t.Parallel()
	n := 60_000
	if testing.Short() {
		n = 30_000
	}
	db, _ := openMem(t, &Options{CheckpointBytes: 4 << 20})
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(n)
	key := func(i int) []byte { return fmt.Appendf(nil, "%08d-%x", i, i*7919) }
	value := func(i int) []byte { return fmt.Appendf(nil, "%0*d", i%40, i) }
	apply := func(ids []int, txSize int, del bool) {
		for start := 0; start < len(ids); start += txSize {
			require.NoError(t, db.Update(func(tx *Tx) error {
				for _, i := range ids[start:min(start+txSize, len(ids))] {
					var err error
					if del {
						err = tx.Delete(key(i))
					} else {
						err = tx.Put(key(i), value(i))
					}
					if err != nil {
						return err
					}
				}
				return nil
			}))
		}
	}
	apply(perm[:n/2], 5000, false)
	apply(perm[n/2:], 7, false)
	require.NoError(t, db.check())
	require.Equal(t, n, countKeys(t, db))

	apply(perm[:n*9/10], 1000, true)
	require.NoError(t, db.check())
	require.Equal(t, n-n*9/10, countKeys(t, db))
	// Pages freed by the deletes are reusable once a checkpoint no longer references them.
	require.NoError(t, db.Checkpoint(t.Context()))
	afterDelete := db.Stats().PageCount
	apply(perm[:n/2], 3000, false) // re-insert 50%: pages come from the free list
	require.NoError(t, db.check())
	require.Equal(t, afterDelete, db.Stats().PageCount, "freed pages must be reused: the file must not grow")
	require.NoError(t, db.View(func(tx *Tx) error {
		for _, i := range perm[:n/2] {
			v, err := tx.Get(key(i))
			require.NoError(t, err)
			require.Equal(t, value(i), v)
		}
		return nil
	}))
}

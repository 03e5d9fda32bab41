package cairn

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCursorRandomWalkMatchesModel moves a cursor at random (First, Last, Seek, Next, Prev) over
// a tree of many leaf pages whose values are inline, empty or in overflow extents, and checks
// every key and value it lands on against a sorted model. It is the test of Next's fast path and
// its leaf window (btree/cursor.go): a window left on the wrong page after a move back, a seek
// or the end would return another element's key or value here. It walks a read transaction's
// pages and, after a few puts, a write transaction's mix of decoded nodes and pages.
func TestCursorRandomWalkMatchesModel(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	value := func(i int) []byte {
		switch {
		case i%11 == 5:
			return nil // stored empty
		case i%13 == 7:
			return bytes.Repeat([]byte{byte(i)}, 2000) // overflow on 4 KiB pages
		}
		return fmt.Appendf(nil, "value-%05d", i)
	}
	key := func(i int) []byte { return fmt.Appendf(nil, "key-%05d", i) }
	var keys []int
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := 0; i < 6000; i += 2 {
			keys = append(keys, i)
			require.NoError(t, tx.Put(key(i), value(i)))
		}
		return nil
	}))
	walk := func(tx *Tx, keys []int, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 1))
		c := tx.Cursor()
		pos := -1 // the model's position in keys; -1: past either end
		for step := range 20_000 {
			var k, v []byte
			switch op := rng.IntN(100); {
			case op < 2:
				k, v = c.First()
				pos = 0
			case op < 4:
				k, v = c.Last()
				pos = len(keys) - 1
			case op < 8:
				target := rng.IntN(6100)
				k, v = c.Seek(key(target))
				pos, _ = slices.BinarySearch(keys, target)
				if pos == len(keys) {
					pos = -1
				}
			case op < 30:
				k, v = c.Prev()
				if pos >= 0 {
					pos--
				}
			default:
				k, v = c.Next()
				if pos >= 0 {
					pos++
				}
				if pos == len(keys) {
					pos = -1
				}
			}
			if pos < 0 {
				require.Nil(t, k, "step %d: want the end", step)
				continue
			}
			require.Equal(t, string(key(keys[pos])), string(k), "step %d", step)
			require.Equal(t, string(value(keys[pos])), string(v), "step %d: value of %s", step, k)
		}
		require.NoError(t, c.Err())
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		walk(tx, keys, 1)
		return nil
	}))
	require.NoError(t, db.Update(func(tx *Tx) error {
		// Decode a few leaves: the walk then crosses decoded nodes and pages.
		for i := 1; i < 6000; i += 600 {
			require.NoError(t, tx.Put(key(i), value(i)))
			keys = append(keys, i)
		}
		slices.Sort(keys)
		walk(tx, keys, 2)
		return nil
	}))
}

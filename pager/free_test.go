package pager

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFreeListTakesLowestIDsAndRuns(t *testing.T) {
	var l freeList
	l.add([]uint64{9, 3, 4, 7, 5, 12})
	require.Equal(t, uint64(3), l.take(1))
	require.Equal(t, uint64(4), l.take(2), "run 4,5")
	require.Equal(t, uint64(0), l.take(2), "no run of 2 left (7, 9, 12)")
	require.Equal(t, uint64(7), l.take(1))
	require.Equal(t, []uint64{12, 9}, l.ids)
}

// TestFreedPagesWaitForReadersAndCheckpoint checks the two reuse rules of free.go.
func TestFreedPagesWaitForReadersAndCheckpoint(t *testing.T) {
	tests := []struct {
		name            string
		fresh           bool
		oldest, durable uint64
		reusable        bool
	}{
		{"fresh page, readers past", true, 10, 0, true},
		{"fresh page, old reader", true, 9, 100, false},
		{"checkpointed page, readers past, no checkpoint since", false, 10, 9, false},
		{"checkpointed page, readers past, checkpoint since", false, 10, 10, true},
		{"checkpointed page, old reader, checkpoint since", false, 9, 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l freeList
			if tc.fresh {
				l.fresh = pushPending(l.fresh, 10, 42)
			} else {
				l.durable = pushPending(l.durable, 10, 42)
			}
			ready := l.release(tc.oldest, tc.durable)
			require.Equal(t, tc.reusable, len(ready) == 1)
			require.Equal(t, tc.reusable, l.take(1) == 42)
		})
	}
}

func TestMetaRoundTripAndDamage(t *testing.T) {
	m := Meta{PageSize: 8192, DBID: 77, Seq: 5, LSN: 900, Root: 12, PageCount: 40, FreelistID: 30, FreelistPages: 2}
	b := make([]byte, 8192)
	m.encode(b)
	got, err := decodeMeta(b)
	require.NoError(t, err)
	require.Equal(t, m, got)
	for _, off := range []int{0, 9, 13, 20, 33, 41, 50, 60, 70, 81} {
		bad := append([]byte(nil), b...)
		bad[off] ^= 1
		_, err := decodeMeta(bad)
		require.Error(t, err, "flipped byte %d", off)
	}
}

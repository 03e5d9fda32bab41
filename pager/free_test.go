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

// TestFreedPagesWaitForReadersAndCheckpoint checks the two reuse rules of free.go for a page
// allocated at LSN 5 (when known) and freed at LSN 10.
func TestFreedPagesWaitForReadersAndCheckpoint(t *testing.T) {
	tests := []struct {
		name      string
		fresh     bool
		published uint64
		pinned    []uint64
		durable   uint64
		reusable  bool
	}{
		{"fresh, no readers", true, 10, nil, 0, true},
		{"fresh, not yet published", true, 9, nil, 0, false},
		{"fresh, reader inside [5, 10)", true, 12, []uint64{7}, 0, false},
		{"fresh, reader before it existed", true, 12, []uint64{3}, 0, true},
		{"fresh, reader after it was freed", true, 12, []uint64{10, 11}, 0, true},
		{"checkpointed, readers past, no checkpoint since", false, 10, nil, 9, false},
		{"checkpointed, readers past, checkpoint since", false, 10, nil, 10, true},
		{"checkpointed, old reader (allocation unknown)", false, 12, []uint64{3}, 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l freeList
			if tc.fresh {
				l.fresh = pushPending(l.fresh, 10, 5, 42, 1)
			} else {
				l.durable = pushPending(l.durable, 10, 0, 42, 1)
			}
			ready := l.reclaim(nil, Readers{Published: tc.published, Pinned: tc.pinned}, tc.durable)
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

func TestFreeListAddKeepsDescendingOrder(t *testing.T) {
	var l freeList
	l.add([]uint64{10, 2, 30})
	l.add([]uint64{5, 40, 1})
	l.add(nil)
	l.add([]uint64{20})
	require.Equal(t, []uint64{40, 30, 20, 10, 5, 2, 1}, l.ids)
}

// TestFreeListQueues follows extents through the fresh, durable and held queues: an extent of a
// version not yet published is not looked at, one a reader pins waits in held, and one written to
// the file meanwhile (moveToDurable) leaves held to wait for a checkpoint.
func TestFreeListQueues(t *testing.T) {
	var l freeList
	l.fresh = pushPending(l.fresh, 5, 1, 10, 1) // in version 3, which a reader pins
	l.fresh = pushPending(l.fresh, 6, 4, 11, 1) // allocated after that reader's version
	l.fresh = pushPending(l.fresh, 8, 1, 12, 2) // freed by a commit not yet published
	l.durable = pushPending(l.durable, 7, 0, 20, 1)
	require.Equal(t, 5, l.pendingCount())

	ready := l.reclaim(nil, Readers{Published: 7, Pinned: []uint64{3}}, 7)
	require.ElementsMatch(t, []uint64{11}, ready, "20 is held by the reader too (allocation unknown)")
	require.Equal(t, []pendingFree{{lsn: 8, alloc: 1, id: 12, n: 2}}, l.fresh, "unpublished: untouched")
	require.Len(t, l.held, 2)
	require.Equal(t, 4, l.pendingCount())

	l.moveToDurable(10) // written by a flush after it was freed: now it waits for rule 2 as well
	require.Len(t, l.held, 1)
	require.Equal(t, uint64(10), l.durable[0].id)

	ready = l.reclaim(nil, Readers{Published: 9}, 4)
	require.ElementsMatch(t, []uint64{12, 13, 20}, ready, "10 waits for a checkpoint at or after LSN 5")
	ready = l.reclaim(nil, Readers{Published: 9}, 5)
	require.Equal(t, []uint64{10}, ready)
	require.Zero(t, l.pendingCount())
	require.Empty(t, l.held)
}

package btree

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestArenaReusesZeroedChunks checks the workspace arena: slices do not overlap and have the
// asked capacity, memory is reused after reset and comes back zeroed, an oversized request and
// requests past maxChunks are served by make.
func TestArenaReusesZeroedChunks(t *testing.T) {
	var a arena[int]
	s1 := a.take(3, 4, 8)
	s2 := a.take(2, 2, 8)
	require.Equal(t, 3, len(s1))
	require.Equal(t, 4, cap(s1))
	s1 = append(s1, 7) // within its capacity: must not reach s2
	s2[0], s2[1] = 5, 6
	require.Equal(t, []int{0, 0, 0, 7}, s1)
	s3 := a.take(4, 4, 8) // does not fit the first chunk's rest: a second chunk
	require.Len(t, a.chunks, 2)
	s3[3] = 9

	a.reset()
	r := a.take(8, 8, 8)
	require.Equal(t, &a.chunks[0][0], &r[0], "the first chunk is reused")
	require.Equal(t, make([]int, 8), r, "reused memory is zeroed")
	r = a.take(4, 4, 8)
	require.Equal(t, &a.chunks[1][0], &r[0])
	require.Equal(t, []int{0, 0, 0, 0}, r)

	require.Len(t, a.take(1, 9, 8), 1, "larger than a chunk: made apart")
	require.Len(t, a.chunks, 2)
	for range 2 * maxChunks {
		a.take(8, 8, 8)
	}
	require.Len(t, a.chunks, maxChunks, "no more chunks kept than maxChunks")
}

// TestPrefetchRuns calls the assembly prefetch on a page-sized buffer: it must return and change
// nothing.
func TestPrefetchRuns(t *testing.T) {
	b := make([]byte, 4096)
	b[0] = 7
	prefetch(unsafe.Pointer(&b[0]))
	require.Equal(t, byte(7), b[0])
}

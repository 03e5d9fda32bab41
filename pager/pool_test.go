package pager

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestReleasedBuffersAreReusedZeroed checks the page-buffer recycling of Reclaim and Allocate: a
// buffer is reused only once its page is released (no reader can reach it), it comes back zeroed,
// and multi-page extents are not pooled.
func TestReleasedBuffersAreReusedZeroed(t *testing.T) {
	p, _ := memPager(t, 4096)
	id, buf := p.Allocate(1, 1)
	for i := range buf {
		buf[i] = 0xAB
	}
	bigID, big := p.Allocate(3, 1)
	p.Free(id, 1, 2, 1)
	p.Free(bigID, 3, 2, 1)

	// A reader pins version 1, which holds both extents: nothing may be reused.
	p.Reclaim(Readers{Published: 2, Pinned: []uint64{1}})
	_, other := p.Allocate(1, 3)
	require.NotEqual(t, addr(buf), addr(other), "a held page's buffer was reused")
	require.Equal(t, byte(0xAB), buf[0], "a held page's bytes changed")

	// The reader is gone: the single page's buffer comes back, zeroed; the extent's does not.
	p.Reclaim(Readers{Published: 3})
	gotID, reused := p.Allocate(1, 4)
	require.Equal(t, id, gotID, "the lowest free id is reused")
	require.Equal(t, addr(buf), addr(reused), "the released buffer was not reused")
	require.Equal(t, make([]byte, 4096), reused, "a reused buffer must be zeroed")
	_, fresh := p.Allocate(1, 4)
	require.NotEqual(t, addr(big), addr(fresh), "a multi-page buffer was pooled")
	require.Len(t, p.pool, 0)
}

// addr is the address of b's first byte (testify compares pointers by what they point to).
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// TestCachedAddr checks the prefetch hint's lookup: the address of a cached extent, nil for an id
// that is not cached or past the table.
func TestCachedAddr(t *testing.T) {
	p, _ := memPager(t, 4096)
	id, buf := p.Allocate(1, 1)
	require.Equal(t, uintptr(unsafe.Pointer(&buf[0])), uintptr(p.CachedAddr(id)))
	require.Nil(t, p.CachedAddr(id+1))
	require.Nil(t, p.CachedAddr(1<<40))
}

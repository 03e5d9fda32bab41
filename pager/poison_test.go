package pager

import (
	"bytes"
	"os"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// TestPoisonFillsReclaimedBuffers: with Options.Poison, Reclaim fills the buffers of the extents
// it drops (single pages and longer extents) with poisonByte; held ones are untouched, and a
// pooled buffer still comes back zeroed from Allocate.
func TestPoisonFillsReclaimedBuffers(t *testing.T) {
	f, err := vfs.NewMem().OpenFile("/db", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	p, _, err := Open(f, Options{PageSize: 4096, Poison: true})
	require.NoError(t, err)
	id, buf := p.Allocate(1, 1)
	bigID, big := p.Allocate(3, 1)
	fill(buf, 0xAB)
	fill(big, 0xCD)
	p.Free(id, 1, 2, 1)
	p.Free(bigID, 3, 2, 1)

	p.Reclaim(Readers{Published: 2, Pinned: []uint64{1}})
	require.Equal(t, bytes.Repeat([]byte{0xAB}, 4096), buf, "a held page was poisoned")
	require.Equal(t, bytes.Repeat([]byte{0xCD}, 3*4096), big, "a held extent was poisoned")

	p.Reclaim(Readers{Published: 3})
	require.Equal(t, bytes.Repeat([]byte{poisonByte}, 4096), buf)
	require.Equal(t, bytes.Repeat([]byte{poisonByte}, 3*4096), big)
	_, reused := p.Allocate(1, 4)
	require.Equal(t, addr(buf), addr(reused), "the poisoned buffer is reused")
	require.Equal(t, make([]byte, 4096), reused, "and zeroed first")
}

func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 8, 4096, 5000} {
		b := make([]byte, n)
		fill(b, 0xdb)
		require.Equal(t, bytes.Repeat([]byte{0xdb}, n), b)
	}
}

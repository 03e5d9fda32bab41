package btree

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
)

// TestOverflowValue checks what a reader of the tree checks of an overflow extent: its type and
// that the value fits; the value aliases the extent.
func TestOverflowValue(t *testing.T) {
	p := make([]byte, 2*4096)
	pager.SetHeader(p, pager.PageOverflow, 0, 4096, 7)
	copy(p[pager.HeaderSize:], bytes.Repeat([]byte("v"), 5000))
	v, err := OverflowValue(9, p, 5000)
	require.NoError(t, err)
	require.Equal(t, bytes.Repeat([]byte("v"), 5000), v)
	require.Equal(t, 5000, cap(v), "the value is capped at its end")
	_, err = OverflowValue(9, p, uint32(len(p)-pager.HeaderSize+1))
	require.ErrorIs(t, err, errs.ErrCorrupt)
	p[4] = pager.PageLeaf
	_, err = OverflowValue(9, p, 10)
	require.ErrorIs(t, err, errs.ErrCorrupt)
	_, err = OverflowValue(9, p[:10], 1)
	require.ErrorIs(t, err, errs.ErrCorrupt)
}

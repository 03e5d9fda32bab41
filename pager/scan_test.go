package pager

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
)

// scanAllPages runs ScanExtents on b and returns what it reported, the extents copied.
func scanAllPages(t *testing.T, b []byte, ps int) []ScannedPage {
	t.Helper()
	var out []ScannedPage
	require.NoError(t, ScanExtents(bytes.NewReader(b), int64(len(b)), ps, func(p ScannedPage) error {
		p.Extent = bytes.Clone(p.Extent)
		out = append(out, p)
		return nil
	}))
	return out
}

// TestScanExtents: every page after the meta pages is reported once: a verified extent with
// its pages (covering the pages after its first), a zero page, or a page that starts no
// verified extent with why; a damaged multi-page extent does not hide the pages after its first.
func TestScanExtents(t *testing.T) {
	fx := newInspectFixture(t) // a leaf (root), a freed leaf, a three-page overflow extent
	size := fx.size(t)
	b := make([]byte, size)
	_, err := fx.f.ReadAt(b, 0)
	require.NoError(t, err)
	got := scanAllPages(t, b, 4096)
	byID := map[uint64]ScannedPage{}
	var ids []uint64
	for _, p := range got {
		byID[p.ID] = p
		ids = append(ids, p.ID)
	}
	require.Equal(t, uint64(MetaPages), ids[0])
	require.Equal(t, uint64(1), byID[fx.root].Pages)
	require.NotNil(t, byID[fx.root].Extent)
	require.Equal(t, uint64(3), byID[fx.big].Pages)
	require.Len(t, byID[fx.big].Extent, 3*4096)
	require.NotContains(t, ids, fx.big+1, "pages inside a verified extent are not reported alone")
	last := got[len(got)-1]
	require.Equal(t, uint64(size/4096)-1, last.ID+last.Pages-1, "the scan reaches the end of the file")
	for _, p := range got {
		require.True(t, p.Extent != nil || p.Zero || p.Err != nil)
	}

	// The overflow extent damaged: its first page is reported with the checksum mismatch, and
	// its other pages on their own (not extents, so not the start of one).
	d := bytes.Clone(b)
	d[fx.big*4096+4096+10] ^= 1
	got = scanAllPages(t, d, 4096)
	var first, second ScannedPage
	for _, p := range got {
		switch p.ID {
		case fx.big:
			first = p
		case fx.big + 1:
			second = p
		}
	}
	require.Nil(t, first.Extent)
	require.ErrorIs(t, first.Err, errs.ErrCorrupt)
	require.ErrorContains(t, first.Err, "checksum mismatch")
	require.ErrorIs(t, second.Err, errs.ErrCorrupt)

	// A header claiming more pages than the file has, and a cut last page.
	d = bytes.Clone(b[:len(b)-100])
	d[fx.root*4096+8] = 0xff
	got = scanAllPages(t, d, 4096)
	for _, p := range got {
		if p.ID == fx.root {
			require.ErrorContains(t, p.Err, "passes the end of the file")
		}
	}
	require.ErrorContains(t, got[len(got)-1].Err, "cut by the end of the file")

	// An error of fn stops the scan and comes back as it is.
	stop := errors.New("stop")
	require.Equal(t, stop, ScanExtents(bytes.NewReader(b), size, 4096, func(ScannedPage) error { return stop }))
	require.Error(t, ScanExtents(bytes.NewReader(b), size, 1000, func(ScannedPage) error { return nil }))
}

// FuzzScanExtents feeds arbitrary bytes as a page file: ScanExtents never panics, reports every
// page once in ascending order, and every extent it reports verifies.
func FuzzScanExtents(f *testing.F) {
	f.Add(make([]byte, 3*4096))
	f.Add([]byte("short"))
	f.Fuzz(func(t *testing.T, b []byte) {
		next := uint64(MetaPages)
		err := ScanExtents(bytes.NewReader(b), int64(len(b)), 4096, func(p ScannedPage) error {
			require.Equal(t, next, p.ID)
			next += p.Pages
			if p.Extent != nil {
				require.NoError(t, VerifyExtent(p.ID, p.Extent, 4096))
			}
			return nil
		})
		require.NoError(t, err)
		if len(b) > MetaPages*4096 {
			require.Equal(t, uint64((len(b)+4095)/4096), next)
		}
	})
}

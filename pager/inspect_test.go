package pager

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// inspectFixture is a page file with three checkpoints: a one-page extent (the "root"), a
// three-page extent, and a free list of one extent freed before the last checkpoint.
type inspectFixture struct {
	f     vfs.File
	p     *Pager
	root  uint64 // one-page extent, type PageLeaf
	big   uint64 // three-page extent, type PageOverflow
	freed uint64 // one-page extent freed at LSN 3
}

func newInspectFixture(t *testing.T) inspectFixture {
	t.Helper()
	p, f := memPager(t, 4096)
	fx := inspectFixture{f: f, p: p}
	alloc := func(n int, typ byte, lsn uint64) uint64 {
		id, b := p.Allocate(n, lsn)
		SetHeader(b, typ, 0, 4096, lsn)
		b[HeaderSize] = byte(id)
		Seal(id, b)
		return id
	}
	fx.root = alloc(1, PageLeaf, 1)
	fx.freed = alloc(1, PageLeaf, 1)
	require.NoError(t, p.Checkpoint(fx.root, 0, 1))
	fx.big = alloc(3, PageOverflow, 2)
	require.NoError(t, p.Checkpoint(fx.root, 0, 2))
	p.Free(fx.freed, 1, 3, 1)
	p.Reclaim(Readers{Published: 3})
	require.NoError(t, p.Checkpoint(fx.root, 0, 3))
	return fx
}

func (fx inspectFixture) size(t *testing.T) int64 {
	size, err := fx.f.Size()
	require.NoError(t, err)
	return size
}

func TestReadMetaPages(t *testing.T) {
	fx := newInspectFixture(t)
	d := fx.p.Durable()
	mp, err := ReadMetaPages(fx.f, fx.size(t))
	require.NoError(t, err)
	require.Equal(t, int(d.Seq%MetaPages), mp.Current)
	require.Equal(t, [MetaPages]int64{0, 4096}, mp.Offsets)
	cur, other := mp.Pages[mp.Current], mp.Pages[1-mp.Current]
	require.NoError(t, cur.Err)
	require.NoError(t, other.Err)
	require.Equal(t, d, cur.Meta)
	require.Equal(t, d.Seq-1, other.Seq)
	require.Equal(t, metaMagic, string(cur.Magic[:]))
	require.Equal(t, uint32(FormatVersion), cur.Version)
	require.Equal(t, cur.CRC, cur.WantCRC)
	require.Zero(t, cur.Catalog)

	// Damage the current slot: the other one becomes current; the damaged one still decodes.
	flip(t, fx.f, int64(mp.Current)*4096+40)
	mp2, err := ReadMetaPages(fx.f, fx.size(t))
	require.NoError(t, err)
	require.Equal(t, 1-mp.Current, mp2.Current)
	bad := mp2.Pages[mp.Current]
	require.True(t, errors.Is(bad.Err, errs.ErrCorrupt), "%v", bad.Err)
	require.NotEqual(t, bad.CRC, bad.WantCRC)
	require.Equal(t, d.PageCount, bad.PageCount)
	require.Equal(t, d.Root^0x80, bad.Root)
}

func TestInspectMetaCatalog(t *testing.T) {
	b := encodeMeta(seedMeta)
	binary.LittleEndian.PutUint64(b[72:80], 5) // the catalog root, inside the file
	binary.LittleEndian.PutUint32(b[80:84], crc32.Checksum(b[0:80], castagnoli))
	mi := InspectMeta(b)
	require.NoError(t, mi.Err)
	require.Equal(t, uint64(5), mi.Catalog)
	want := seedMeta
	want.Catalog = 5
	require.Equal(t, want, mi.Meta)

	binary.LittleEndian.PutUint64(b[72:80], 0x0102030405060708) // outside the file
	binary.LittleEndian.PutUint32(b[80:84], crc32.Checksum(b[0:80], castagnoli))
	mi = InspectMeta(b)
	require.ErrorIs(t, mi.Err, errs.ErrCorrupt)
	require.Equal(t, uint64(0x0102030405060708), mi.Catalog)

	mi = InspectMeta(b[:metaSize-1])
	require.ErrorIs(t, mi.Err, errs.ErrCorrupt)
	require.Zero(t, mi.Meta)
}

func TestReadMetaPagesProbesSlot1(t *testing.T) {
	_, f := memPager(t, 16384)
	flip(t, f, 0) // slot 0's magic: its page size field cannot be trusted
	size, err := f.Size()
	require.NoError(t, err)
	mp, err := ReadMetaPages(f, size)
	require.NoError(t, err)
	require.Equal(t, 1, mp.Current)
	require.Equal(t, int64(16384), mp.Offsets[1])
	require.Error(t, mp.Pages[0].Err)

	// A file too short for either slot: both report it, none is current, no read error.
	mp, err = ReadMetaPages(f, 40)
	require.NoError(t, err)
	require.Equal(t, -1, mp.Current)
	for _, p := range mp.Pages {
		require.True(t, errors.Is(p.Err, errs.ErrCorrupt), "%v", p.Err)
	}
}

func TestReadExtentAt(t *testing.T) {
	fx := newInspectFixture(t)
	d := fx.p.Durable()
	b, err := ReadExtentAt(fx.f, 4096, d.PageCount, fx.big)
	require.NoError(t, err)
	require.Len(t, b, 3*4096)
	require.NoError(t, VerifyExtent(fx.big, b, 4096))
	h, err := DecodeHeader(b)
	require.NoError(t, err)
	require.Equal(t, Header{Checksum: ExtentChecksum(fx.big, b), Type: PageOverflow, Pages: 3, AllocLSN: 2}, h)
	require.Equal(t, "overflow", TypeName(h.Type))

	// The same bytes at another id fail the checksum (it is seeded with the id).
	require.True(t, errors.Is(VerifyExtent(fx.big+1, b, 4096), errs.ErrCorrupt))
	for _, id := range []uint64{0, 1, d.PageCount, d.PageCount + 100} {
		_, err := ReadExtentAt(fx.f, 4096, d.PageCount, id)
		require.True(t, errors.Is(err, errs.ErrCorrupt), "id %d: %v", id, err)
	}
	// A limit inside the extent: its length passes the end.
	_, err = ReadExtentAt(fx.f, 4096, fx.big+2, fx.big)
	require.True(t, errors.Is(err, errs.ErrCorrupt), "%v", err)
	_, err = DecodeHeader(b[:HeaderSize-1])
	require.True(t, errors.Is(err, errs.ErrCorrupt))

	flip(t, fx.f, int64(fx.big)*4096+2*4096+7) // a byte of the third page
	b, err = ReadExtentAt(fx.f, 4096, d.PageCount, fx.big)
	require.NoError(t, err)
	require.True(t, errors.Is(VerifyExtent(fx.big, b, 4096), errs.ErrCorrupt))
}

func TestDecodeFreelistExported(t *testing.T) {
	fx := newInspectFixture(t)
	d := fx.p.Durable()
	require.NotZero(t, d.FreelistID)
	b, err := ReadExtentAt(fx.f, 4096, d.PageCount, d.FreelistID)
	require.NoError(t, err)
	require.NoError(t, VerifyExtent(d.FreelistID, b, 4096))
	ids, err := DecodeFreelist(b, d)
	require.NoError(t, err)
	require.True(t, slices.Contains(ids, fx.freed), "free list %v lacks %d", ids, fx.freed)
	wrong := d
	wrong.FreelistPages++
	_, err = DecodeFreelist(b, wrong)
	require.True(t, errors.Is(err, errs.ErrCorrupt))
}

// FuzzInspect feeds arbitrary bytes as a page file to the inspection functions: none may panic,
// and every error they return for damage wraps ErrCorrupt (a memory file has no read errors).
func FuzzInspect(f *testing.F) {
	valid := make([]byte, 3*4096)
	seedMeta.encode(valid)
	m := seedMeta
	m.Seq++
	m.encode(valid[4096:])
	SetHeader(valid[8192:], PageLeaf, 1, 4096, 5)
	Seal(2, valid[8192:])
	f.Add(valid, uint64(2))
	f.Add(valid[:5000], uint64(1))
	f.Add([]byte{}, uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, id uint64) {
		r := byteReader(b)
		mp, err := ReadMetaPages(r, int64(len(b)))
		require.NoError(t, err)
		for _, p := range mp.Pages {
			require.True(t, p.Err == nil || errors.Is(p.Err, errs.ErrCorrupt), "%v", p.Err)
		}
		limit := uint64(len(b)) / 4096
		ext, err := ReadExtentAt(r, 4096, limit, id)
		if err != nil {
			require.True(t, errors.Is(err, errs.ErrCorrupt), "%v", err)
			return
		}
		if _, err := DecodeHeader(ext); err != nil {
			t.Fatalf("header of a read extent: %v", err)
		}
		if err := VerifyExtent(id, ext, 4096); err != nil {
			require.True(t, errors.Is(err, errs.ErrCorrupt), "%v", err)
		}
	})
}

// byteReader is an io.ReaderAt over a byte slice.
type byteReader []byte

func (b byteReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// flip inverts the top bit of the byte at off in f.
func flip(t *testing.T, f vfs.File, off int64) {
	t.Helper()
	b := make([]byte, 1)
	_, err := f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= 0x80
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

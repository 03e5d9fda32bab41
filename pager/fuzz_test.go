package pager

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// FuzzDecodeMeta feeds arbitrary bytes as a meta page. decodeMeta must never panic; its errors
// wrap ErrCorrupt; a page it accepts passes validate and encodes back to the same bytes. With
// reseal the CRC is recomputed first, so that the fuzzer explores the field checks behind it.
func FuzzDecodeMeta(f *testing.F) {
	valid := encodeMeta(seedMeta)
	f.Add(valid, false)
	f.Add(encodeMeta(Meta{PageSize: 65536, DBID: 1, PageCount: 2}), false)
	for _, off := range []int{0, 9, 13, 41, 49, 57, 65, 81} {
		b := slices.Clone(valid)
		b[off] ^= 0x80
		f.Add(b, off != 0 && off < 80)
	}
	f.Add(valid[:40], false)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, b []byte, reseal bool) {
		if reseal && len(b) >= metaSize {
			binary.LittleEndian.PutUint32(b[80:84], crc32.Checksum(b[0:80], castagnoli))
		}
		m, err := decodeMeta(b)
		if err != nil {
			require.True(t, errors.Is(err, errs.ErrCorrupt), "error does not wrap ErrCorrupt: %v", err)
			return
		}
		require.NoError(t, m.validate())
		again := make([]byte, metaSize)
		m.encode(again)
		got, err := decodeMeta(again)
		require.NoError(t, err)
		require.Equal(t, m, got)
		require.Equal(t, b[:8], again[:8], "magic")
		require.Equal(t, b[12:80], again[12:80], "fields decode and encode back unchanged")
		require.Equal(t, uint32(FormatVersion), binary.LittleEndian.Uint32(again[8:12]))
	})
}

// freelistBuf builds a free-list extent of pages pages (page size 4096) listing ids.
func freelistBuf(pages int, ids ...uint64) []byte {
	b := make([]byte, pages*4096)
	SetHeader(b, PageFreelist, 0, 4096, 3)
	binary.LittleEndian.PutUint64(b[freelistCount:], uint64(len(ids)))
	for i, id := range ids {
		binary.LittleEndian.PutUint64(b[freelistIDs+8*i:], id)
	}
	return b
}

// FuzzDecodeFreelist feeds arbitrary bytes (at most two pages, in a buffer of a whole number of
// pages) as the free-list extent of a meta page with arbitrary counts. decodeFreelist must never
// panic nor allocate more than the extent's size; its errors wrap ErrCorrupt; ids it accepts are
// strictly ascending, inside the file and outside the extent.
func FuzzDecodeFreelist(f *testing.F) {
	at := func(n int) int { return freelistIDs + 8*n } // bytes up to the end of n ids
	f.Add(freelistBuf(1, 2, 3, 7, 19)[:at(4)], uint64(20), uint64(12), uint64(1), uint16(1))
	f.Add(freelistBuf(2, 2, 5)[:at(2)], uint64(20), uint64(12), uint64(2), uint16(2))
	f.Add(freelistBuf(1, 12)[:at(1)], uint64(20), uint64(12), uint64(1), uint16(1))   // its own page
	f.Add(freelistBuf(1, 3, 3)[:at(2)], uint64(20), uint64(12), uint64(1), uint16(1)) // not ascending
	f.Add(freelistBuf(1, 25)[:at(1)], uint64(20), uint64(12), uint64(1), uint16(1))   // outside
	f.Add(freelistBuf(1)[:at(0)], uint64(1<<63), uint64(1<<62), uint64(1), uint16(1)) // huge counts
	huge := freelistBuf(1)[:at(0)]
	binary.LittleEndian.PutUint64(huge[freelistCount:], 1<<64-1)
	f.Add(huge, uint64(20), uint64(12), uint64(1), uint16(1)) // count 2^64-1

	f.Add([]byte{}, uint64(2), uint64(0), uint64(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, pageCount, flID, flPages uint64, bufPages uint16) {
		if len(data) > 2*4096 {
			data = data[:2*4096]
		}
		buf := make([]byte, int(bufPages%3)*4096)
		copy(buf, data)
		m := Meta{PageSize: 4096, PageCount: pageCount, FreelistID: flID, FreelistPages: flPages}
		ids, err := decodeFreelist(buf, m)
		if err != nil {
			require.True(t, errors.Is(err, errs.ErrCorrupt), "error does not wrap ErrCorrupt: %v", err)
			return
		}
		require.LessOrEqual(t, freelistIDs+8*len(ids), len(buf))
		for i, id := range ids {
			require.True(t, id >= MetaPages && id < pageCount, "id %d outside the file", id)
			require.False(t, id >= flID && id < flID+flPages, "id %d inside the extent", id)
			if i > 0 {
				require.Greater(t, id, ids[i-1])
			}
		}
	})
}

// FuzzOpen feeds arbitrary bytes as a whole page file (meta pages, free list). Open must never
// panic, and its errors wrap ErrCorrupt, or are ErrNotDatabase for a file without the magic. With reseal the CRCs of both meta pages (at the page size
// of meta page 0) and of the free-list extent are recomputed first.
func FuzzOpen(f *testing.F) {
	file := make([]byte, 20*4096)
	m := seedMeta
	m.encode(file[4096:])
	m.Seq--
	m.encode(file)
	fl := freelistBuf(1, 2, 3, 7, 19)
	Seal(12, fl)
	copy(file[12*4096:], fl)
	f.Add(file, false)
	f.Add(file[:13*4096], false)
	f.Add(file[:4096+100], false)
	f.Add(file[:50], false)
	damaged := slices.Clone(file)
	damaged[12*4096+30] ^= 1
	f.Add(damaged, true)
	f.Fuzz(func(t *testing.T, data []byte, reseal bool) {
		if reseal {
			resealFile(data)
		}
		fs := vfs.NewMem()
		require.NoError(t, fs.WriteFile("/db", data))
		fh, err := fs.OpenFile("/db", os.O_RDWR, 0)
		require.NoError(t, err)
		defer fh.Close()
		p, _, err := Open(fh, Options{PageSize: 4096})
		if errors.Is(err, errs.ErrNotDatabase) {
			require.False(t, strings.HasPrefix(string(data), metaMagic), "a file starting with the magic is a cairn file")
			return
		}
		if err != nil {
			require.True(t, errors.Is(err, errs.ErrCorrupt), "error does not wrap ErrCorrupt: %v", err)
			return
		}
		d := p.Durable()
		require.NoError(t, d.validate())
		p.CheckMeta()
		_, _ = p.CheckpointFreelist()
	})
}

// resealFile recomputes the meta-page CRCs of file and the checksum of the free-list extent the
// first valid meta page names, where they lie inside the file.
func resealFile(b []byte) {
	if len(b) < metaSize {
		return
	}
	ps := int(binary.LittleEndian.Uint32(b[12:16]))
	binary.LittleEndian.PutUint32(b[80:84], crc32.Checksum(b[0:80], castagnoli))
	if !ValidPageSize(ps) || len(b) < ps+metaSize {
		return
	}
	binary.LittleEndian.PutUint32(b[ps+80:ps+84], crc32.Checksum(b[ps:ps+80], castagnoli))
	id, n := binary.LittleEndian.Uint64(b[56:64]), binary.LittleEndian.Uint64(b[64:72])
	if id < MetaPages || n == 0 || n > 16 || id > uint64(len(b)/ps) || uint64(len(b)/ps)-id < n {
		return
	}
	Seal(id, b[id*uint64(ps):(id+n)*uint64(ps)])
}

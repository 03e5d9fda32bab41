package pager

// Page scan for salvage: every page of a page file is looked at, whether a meta page or a tree
// references it or not, so that extents orphaned by damage elsewhere are found. Invariant: the
// scan reads only, holds at most one chunk of the file plus one verified extent in memory, and
// never panics or allocates more than the file's size, whatever the bytes say.

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/cairndb/cairn/internal/errs"
)

// scanChunk is how many bytes ScanExtents reads at once (at least one page).
const scanChunk = 1 << 20

// ScannedPage is what ScanExtents found at one page id.
type ScannedPage struct {
	// ID is the page id.
	ID uint64
	// Pages is the length in pages of the verified extent starting at ID (the scan goes on after
	// it), or 1 when Extent is nil.
	Pages uint64
	// Extent holds the bytes of the extent starting at ID when its header is plausible and its
	// checksum matches (VerifyExtent); nil otherwise. It is valid only during the callback.
	Extent []byte
	// Zero is set when the page is all zero bytes: a page that was never written (the writer
	// allocates pages that may be freed before a checkpoint writes them, and extends the file
	// with zeros). Err is nil then.
	Zero bool
	// Err says why no extent starts at ID (Extent nil and Zero false): the header is not one the
	// writer writes (unknown type, reserved field not 0), the extent passes the end of the file,
	// the checksum does not match, or the page is cut by the end of the file. It wraps
	// errs.ErrCorrupt.
	Err error
}

// ScanExtents reads the page file r, size bytes long with pages of pageSize bytes, from page id
// MetaPages to the last page the file holds (a last partial page included), and calls fn for
// each verified extent and for each other page, in ascending id order. A verified extent is one
// whose header has a page type the writer writes (PageBranch to PageFreelist), a reserved field
// of 0 and a length inside the file, and whose checksum matches: the pages it covers are not
// reported on their own. A page that does not start a verified extent is reported alone (Pages 1)
// and the scan goes on with the next page, so an extent whose damaged header claims too many
// pages hides nothing after it. The structure of tree pages is not checked (btree.Validate).
//
// It stops at the first error of fn, which it returns, or at a read error of r (returned
// wrapped). It reads each page once, plus the extents whose header passes the checks above twice
// (their checksum is computed while streaming, before they are read into memory).
func ScanExtents(r io.ReaderAt, size int64, pageSize int, fn func(ScannedPage) error) error {
	if !ValidPageSize(pageSize) {
		return fmt.Errorf("pager: scan: page size %d is not a power of two in [%d, %d]", pageSize, MinPageSize, MaxPageSize)
	}
	ps := uint64(pageSize)
	if size <= 0 {
		return nil
	}
	whole := uint64(size) / ps
	s := scanner{r: r, ps: ps, whole: whole, buf: make([]byte, max(scanChunk, pageSize))}
	for id := uint64(MetaPages); id < whole; {
		p, err := s.page(id)
		if err != nil {
			return err
		}
		sp, err := s.examine(id, p)
		if err != nil {
			return err
		}
		if err := fn(sp); err != nil {
			return err
		}
		id += sp.Pages
	}
	if rest := uint64(size) % ps; rest != 0 && whole >= MetaPages {
		return fn(ScannedPage{ID: whole, Pages: 1, Err: fmt.Errorf("pager: page %d: cut by the end of the file (%d of %d bytes): %w",
			whole, rest, ps, errs.ErrCorrupt)})
	}
	return nil
}

// scanner reads a page file in chunks for ScanExtents.
type scanner struct {
	r     io.ReaderAt
	ps    uint64
	whole uint64 // number of whole pages in the file
	buf   []byte
	first uint64 // page id of buf[0]
	n     uint64 // pages held in buf
}

// page returns the bytes of page id, reading the chunk that starts there if needed.
func (s *scanner) page(id uint64) ([]byte, error) {
	if id < s.first || id >= s.first+s.n {
		s.first = id
		s.n = min(uint64(len(s.buf))/s.ps, s.whole-id)
		if err := readAtFull(s.r, s.buf[:s.n*s.ps], id*s.ps); err != nil {
			return nil, fmt.Errorf("pager: scan: read pages %d-%d: %w", id, id+s.n-1, err)
		}
	}
	off := (id - s.first) * s.ps
	return s.buf[off : off+s.ps], nil
}

// examine decides what page id, whose bytes are p, is.
func (s *scanner) examine(id uint64, p []byte) (ScannedPage, error) {
	sp := ScannedPage{ID: id, Pages: 1}
	bad := func(format string, a ...any) (ScannedPage, error) {
		sp.Err = fmt.Errorf("pager: page %d: %s: %w", id, fmt.Sprintf(format, a...), errs.ErrCorrupt)
		return sp, nil
	}
	if allZero(p) {
		sp.Zero = true
		return sp, nil
	}
	le := binary.LittleEndian
	typ, n := Type(p), extentPages(p)
	switch {
	case typ < PageBranch || typ > PageFreelist:
		return bad("not the start of an extent (page type %d)", typ)
	case le.Uint32(p[12:16]) != 0:
		return bad("not the start of an extent (reserved header field %#x)", le.Uint32(p[12:16]))
	case n > s.whole-id:
		return bad("%s extent of %d pages passes the end of the file (%d pages)", TypeName(typ), n, s.whole)
	}
	if n == 1 {
		if !verify(id, p) {
			return bad("%s extent: checksum mismatch", TypeName(typ))
		}
		sp.Extent = p
		return sp, nil
	}
	ok, err := s.streamVerify(id, n)
	if err != nil || !ok {
		if err != nil {
			return sp, err
		}
		return bad("%s extent of %d pages: checksum mismatch", TypeName(typ), n)
	}
	ext := make([]byte, n*s.ps)
	if err := readAtFull(s.r, ext, id*s.ps); err != nil {
		return sp, fmt.Errorf("pager: scan: read page %d: %w", id, err)
	}
	if !verify(id, ext) { // the file changed between the two reads
		return bad("%s extent of %d pages: checksum mismatch", TypeName(typ), n)
	}
	sp.Extent, sp.Pages = ext, n
	return sp, nil
}

// streamVerify reports whether the extent of n pages at id has the checksum its first page
// holds, reading it a chunk at a time without holding it whole.
func (s *scanner) streamVerify(id, n uint64) (bool, error) {
	first, err := s.page(id)
	if err != nil {
		return false, err
	}
	want := binary.LittleEndian.Uint32(first[0:4])
	crc := crc32.Update(uint32(id)^uint32(id>>32), castagnoli, first[4:])
	tmp := make([]byte, min(uint64(scanChunk)/s.ps, n)*s.ps)
	for next := id + 1; next < id+n; {
		k := min(uint64(len(tmp))/s.ps, id+n-next)
		b := tmp[:k*s.ps]
		if err := readAtFull(s.r, b, next*s.ps); err != nil {
			return false, fmt.Errorf("pager: scan: read page %d: %w", next, err)
		}
		crc = crc32.Update(crc, castagnoli, b)
		next += k
	}
	return crc == want, nil
}

func allZero(p []byte) bool {
	for _, c := range p {
		if c != 0 {
			return false
		}
	}
	return true
}

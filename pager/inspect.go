package pager

// Read-only decoding of a page file for inspection tools (kvsh's .meta, .pages and .page). These
// functions read bytes given to them or an io.ReaderAt; they never write, take no lock and keep
// no state, so a tool may use them on the file of a database that is open elsewhere (it then
// sees the state of the last checkpoint, and a checkpoint running meanwhile may change it).
// Nothing here panics on damaged input: damage is reported in errors wrapping errs.ErrCorrupt.

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/cairndb/cairn/internal/errs"
)

// MetaInfo is one meta page decoded field by field, whether it is valid or not.
type MetaInfo struct {
	// Meta holds the fields at offsets 12 to 80 as stored (meaningless if Err says the page is
	// not a meta page at all).
	Meta
	// Magic is the 8 bytes at offset 0 ("cairnDB\x00" in a meta page).
	Magic [8]byte
	// Version is the format version at offset 8.
	Version uint32
	// CRC is the checksum stored at offset 80; WantCRC the CRC32C of bytes [0, 80).
	CRC, WantCRC uint32
	// Err is nil if the page passes every check a reader makes (docs/FORMAT.md, "valid"),
	// otherwise the first failed check, wrapping errs.ErrCorrupt.
	Err error
}

// InspectMeta decodes the meta page whose first bytes are b (at least the 84 bytes of its fields
// and checksum; fewer leave the fields zero and set Err) and checks it as Open does. b is not
// retained.
func InspectMeta(b []byte) MetaInfo {
	var mi MetaInfo
	if len(b) < metaSize {
		mi.Err = fmt.Errorf("pager: meta page short (%d bytes): %w", len(b), errs.ErrCorrupt)
		return mi
	}
	le := binary.LittleEndian
	copy(mi.Magic[:], b[0:8])
	mi.Version = le.Uint32(b[8:12])
	mi.Meta = Meta{
		PageSize: le.Uint32(b[12:16]), DBID: le.Uint64(b[16:24]), Seq: le.Uint64(b[24:32]),
		LSN: le.Uint64(b[32:40]), Root: le.Uint64(b[40:48]), PageCount: le.Uint64(b[48:56]),
		FreelistID: le.Uint64(b[56:64]), FreelistPages: le.Uint64(b[64:72]), Catalog: le.Uint64(b[72:80]),
	}
	mi.CRC, mi.WantCRC = le.Uint32(b[80:84]), crc32.Checksum(b[0:80], castagnoli)
	_, mi.Err = decodeMeta(b)
	return mi
}

// MetaSlots is what ReadMetaPages found in the two meta page slots of a page file.
type MetaSlots struct {
	// Pages are slot 0 and slot 1, decoded.
	Pages [MetaPages]MetaInfo
	// Offsets are the byte offsets the slots were read at: 0, and the page size (taken from slot
	// 0 if it is valid, else the first page size at which slot 1 is valid, else slot 0's page
	// size field if that is a valid size, else DefaultPageSize).
	Offsets [MetaPages]int64
	// Current is the slot of the current meta page (the valid one with the higher sequence
	// number, slot 0 on a tie), or -1 if neither is valid.
	Current int
}

// ReadMetaPages reads and decodes both meta pages of the page file r, size bytes long, choosing
// the current one as Open does. A slot the file is too short to hold has Err set. The error is
// a read error of r; damage is reported in the slots.
func ReadMetaPages(r io.ReaderAt, size int64) (MetaSlots, error) {
	mp := MetaSlots{Current: -1}
	var err error
	if mp.Pages[0], err = readMetaInfo(r, size, 0); err != nil {
		return mp, err
	}
	p0 := mp.Pages[0]
	if p0.Err == nil {
		mp.Offsets[1] = int64(p0.PageSize)
		if mp.Pages[1], err = readMetaInfo(r, size, mp.Offsets[1]); err != nil {
			return mp, err
		}
		if p1 := &mp.Pages[1]; p1.Err == nil && p1.PageSize != p0.PageSize {
			p1.Err = fmt.Errorf("pager: meta page 1 page size %d, meta page 0 says %d: %w", p1.PageSize, p0.PageSize, errs.ErrCorrupt)
		}
	} else if err := mp.probeSlot1(r, size); err != nil {
		return mp, err
	}
	for slot, p := range mp.Pages {
		if p.Err == nil && (mp.Current < 0 || p.Seq > mp.Pages[mp.Current].Seq) {
			mp.Current = slot
		}
	}
	return mp, nil
}

// probeSlot1 looks for a valid slot 1 at every page size, as Open does when slot 0 is damaged,
// and otherwise decodes it at the offset slot 0 suggests.
func (mp *MetaSlots) probeSlot1(r io.ReaderAt, size int64) error {
	for ps := MinPageSize; ps <= MaxPageSize; ps *= 2 {
		mi, err := readMetaInfo(r, size, int64(ps))
		if err != nil {
			return err
		}
		if mi.Err == nil && mi.PageSize == uint32(ps) {
			mp.Pages[1], mp.Offsets[1] = mi, int64(ps)
			return nil
		}
	}
	mp.Offsets[1] = DefaultPageSize
	if ps := mp.Pages[0].PageSize; ValidPageSize(int(ps)) {
		mp.Offsets[1] = int64(ps)
	}
	var err error
	mp.Pages[1], err = readMetaInfo(r, size, mp.Offsets[1])
	return err
}

// readMetaInfo reads and decodes the meta page at off; a file too short to hold it gives a
// MetaInfo whose Err says so.
func readMetaInfo(r io.ReaderAt, size, off int64) (MetaInfo, error) {
	if off+metaSize > size {
		return MetaInfo{Err: fmt.Errorf("pager: file of %d bytes ends before the meta page at offset %d: %w",
			size, off, errs.ErrCorrupt)}, nil
	}
	buf := make([]byte, metaSize)
	if err := readAtFull(r, buf, uint64(off)); err != nil {
		return MetaInfo{}, fmt.Errorf("pager: read meta page at offset %d: %w", off, err)
	}
	return InspectMeta(buf), nil
}

// Header is the decoded page header at the start of an extent (see format.go).
type Header struct {
	// Checksum is the stored CRC32C (offset 0); compare it with ExtentChecksum.
	Checksum uint32
	// Type is the page type (PageBranch, PageLeaf, PageOverflow, PageFreelist; other values
	// are damage).
	Type byte
	// Flags is the flags byte (offset 5): FlagKeyPrefix on tree pages.
	Flags byte
	// Count is the element count of a tree page.
	Count int
	// Pages is the extent length in pages: the stored number of extra pages plus 1.
	Pages uint64
	// Reserved is the 4-byte field at offset 12, written 0.
	Reserved uint32
	// AllocLSN is the LSN of the commit that allocated the extent.
	AllocLSN uint64
}

// DecodeHeader decodes the page header at the start of b. It fails, wrapping errs.ErrCorrupt,
// only if b is shorter than HeaderSize; it checks nothing else.
func DecodeHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("pager: page header short (%d bytes): %w", len(b), errs.ErrCorrupt)
	}
	le := binary.LittleEndian
	return Header{
		Checksum: le.Uint32(b[0:4]), Type: b[4], Flags: b[5], Count: int(le.Uint16(b[6:8])),
		Pages: extentPages(b), Reserved: le.Uint32(b[12:16]), AllocLSN: le.Uint64(b[16:24]),
	}, nil
}

// ExtentChecksum returns the checksum that extent b, first page id, must carry at offset 0: the
// CRC32C of b[4:] seeded with the page id. b must be at least 4 bytes long.
func ExtentChecksum(id uint64, b []byte) uint32 { return checksum(id, b) }

// TypeName returns the name of page type typ ("branch", "leaf", "overflow", "free-list"), or
// "unknown".
func TypeName(typ byte) string {
	switch typ {
	case PageBranch:
		return "branch"
	case PageLeaf:
		return "leaf"
	case PageOverflow:
		return "overflow"
	case PageFreelist:
		return "free-list"
	}
	return "unknown"
}

// ReadExtentAt reads the extent whose first page is id from the page file r with pages of
// pageSize bytes: the first page, then as many more as its header says, without verifying the
// checksum (see VerifyExtent). Only pages below limit are read: pass the smaller of the meta
// page's page count and the number of whole pages in the file. Errors wrap errs.ErrCorrupt when
// id is outside [MetaPages, limit), the header's length passes limit, or the file ends early;
// other errors are read errors of r. It allocates at most (limit-id) pages.
func ReadExtentAt(r io.ReaderAt, pageSize int, limit, id uint64) ([]byte, error) {
	if id < MetaPages || id >= limit {
		return nil, fmt.Errorf("pager: page id %d outside [%d, %d): %w", id, MetaPages, limit, errs.ErrCorrupt)
	}
	ps := uint64(pageSize)
	first := make([]byte, ps)
	if err := readAtFull(r, first, id*ps); err != nil {
		return nil, fmt.Errorf("pager: read page %d: %w", id, err)
	}
	n := extentPages(first)
	if n > limit-id {
		return nil, fmt.Errorf("pager: page %d: extent of %d pages passes the end (%d pages): %w", id, n, limit, errs.ErrCorrupt)
	}
	if n == 1 {
		return first, nil
	}
	data := make([]byte, n*ps)
	copy(data, first)
	if err := readAtFull(r, data[ps:], (id+1)*ps); err != nil {
		return nil, fmt.Errorf("pager: read page %d: %w", id, err)
	}
	return data, nil
}

// readAtFull fills p from r at off; a short read is corruption (the file ends early).
func readAtFull(r io.ReaderAt, p []byte, off uint64) error {
	n, err := r.ReadAt(p, int64(off))
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return ioErr(err)
}

// VerifyExtent checks extent b, read at first page id with pages of pageSize bytes, as a reader
// does before using it: b is as long as its header says and its checksum matches. It does not
// check the structure of tree pages (btree.Validate does). Errors wrap errs.ErrCorrupt.
func VerifyExtent(id uint64, b []byte, pageSize int) error {
	if len(b) < HeaderSize || extentPages(b)*uint64(pageSize) != uint64(len(b)) {
		return fmt.Errorf("pager: page %d: extent of %d bytes does not match its header: %w", id, len(b), errs.ErrCorrupt)
	}
	if !verify(id, b) {
		return fmt.Errorf("pager: page %d: checksum mismatch: %w", id, errs.ErrCorrupt)
	}
	return nil
}

// DecodeFreelist decodes free-list extent buf (its checksum verified by the caller) as meta page
// m describes it (m.PageSize, m.PageCount, m.FreelistID, m.FreelistPages) and returns the ids it
// lists, ascending. To decode a free-list extent that m does not name, set m.FreelistID and
// m.FreelistPages to its id and length. It never panics and allocates at most len(buf) bytes.
// Errors wrap errs.ErrCorrupt.
func DecodeFreelist(buf []byte, m Meta) ([]uint64, error) { return decodeFreelist(buf, m) }

package pager

// Meta page format (pages 0 and 1; the rest of the page is zero). The valid meta page with the
// higher sequence number is current; a checkpoint writes the other one, so a torn meta write
// leaves the previous checkpoint intact.
//
//	| Offset | Size | Field                                             |
//	| 0      | 8    | magic "cairnDB\x00"                               |
//	| 8      | 4    | format version (FormatVersion)                    |
//	| 12     | 4    | page size in bytes                                |
//	| 16     | 8    | database id (random, also in the WAL header)      |
//	| 24     | 8    | sequence number (+1 per checkpoint)               |
//	| 32     | 8    | LSN: last WAL record contained in this version    |
//	| 40     | 8    | root page id of the tree (0: empty tree)          |
//	| 48     | 8    | page count: ids [0, count) are allocated in file  |
//	| 56     | 8    | free-list extent page id (0: none)                |
//	| 64     | 8    | free-list extent length in pages                  |
//	| 72     | 8    | root page id of the bucket catalog (0: none)      |
//	| 80     | 4    | CRC32C of bytes [0, 80)                           |

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/cairndb/cairn/internal/errs"
)

const metaMagic = "cairnDB\x00"

// metaSize is the number of meaningful bytes at the start of a meta page.
const metaSize = 84

// Meta is the decoded content of a meta page: the durable root of a checkpointed version.
type Meta struct {
	PageSize      uint32
	DBID          uint64
	Seq           uint64
	LSN           uint64
	Root          uint64
	PageCount     uint64
	FreelistID    uint64
	FreelistPages uint64
	// Catalog is the root page id of the bucket catalog tree (0: no bucket).
	Catalog uint64
}

func (m *Meta) encode(b []byte) {
	clear(b)
	copy(b[0:8], metaMagic)
	le := binary.LittleEndian
	le.PutUint32(b[8:12], FormatVersion)
	le.PutUint32(b[12:16], m.PageSize)
	le.PutUint64(b[16:24], m.DBID)
	le.PutUint64(b[24:32], m.Seq)
	le.PutUint64(b[32:40], m.LSN)
	le.PutUint64(b[40:48], m.Root)
	le.PutUint64(b[48:56], m.PageCount)
	le.PutUint64(b[56:64], m.FreelistID)
	le.PutUint64(b[64:72], m.FreelistPages)
	le.PutUint64(b[72:80], m.Catalog)
	le.PutUint32(b[80:84], crc32.Checksum(b[0:80], castagnoli))
}

// decodeMeta decodes and validates a meta page. Errors wrap errs.ErrCorrupt; an intact meta page
// of an older format version gives an *errs.VersionError.
func decodeMeta(b []byte) (Meta, error) {
	var m Meta
	if len(b) < metaSize {
		return m, fmt.Errorf("pager: meta page short (%d bytes): %w", len(b), errs.ErrCorrupt)
	}
	le := binary.LittleEndian
	if string(b[0:8]) != metaMagic {
		return m, fmt.Errorf("pager: meta page: bad magic (not a cairn database): %w", errs.ErrCorrupt)
	}
	if crc32.Checksum(b[0:80], castagnoli) != le.Uint32(b[80:84]) {
		return m, fmt.Errorf("pager: meta page: checksum mismatch: %w", errs.ErrCorrupt)
	}
	if v := le.Uint32(b[8:12]); v != 0 && v < FormatVersion {
		return m, fmt.Errorf("pager: %w", &errs.VersionError{File: "page file", Found: v, Reads: FormatVersion})
	} else if v != FormatVersion {
		return m, fmt.Errorf("pager: meta page: format version %d, this build reads %d: %w", v, FormatVersion, errs.ErrCorrupt)
	}
	m = Meta{
		PageSize: le.Uint32(b[12:16]), DBID: le.Uint64(b[16:24]), Seq: le.Uint64(b[24:32]),
		LSN: le.Uint64(b[32:40]), Root: le.Uint64(b[40:48]), PageCount: le.Uint64(b[48:56]),
		FreelistID: le.Uint64(b[56:64]), FreelistPages: le.Uint64(b[64:72]),
		Catalog: le.Uint64(b[72:80]),
	}
	return m, m.validate()
}

func (m *Meta) validate() error {
	bad := func(what string) error {
		return fmt.Errorf("pager: meta page seq %d: %s: %w", m.Seq, what, errs.ErrCorrupt)
	}
	switch {
	case !ValidPageSize(int(m.PageSize)):
		return bad(fmt.Sprintf("invalid page size %d", m.PageSize))
	case m.PageCount < MetaPages:
		return bad("page count below 2")
	case m.Root != 0 && (m.Root < MetaPages || m.Root >= m.PageCount):
		return bad(fmt.Sprintf("root %d outside [2, %d)", m.Root, m.PageCount))
	case m.Catalog != 0 && (m.Catalog < MetaPages || m.Catalog >= m.PageCount):
		return bad(fmt.Sprintf("catalog root %d outside [2, %d)", m.Catalog, m.PageCount))
	case m.FreelistID != 0 && (m.FreelistID < MetaPages || m.FreelistID+m.FreelistPages > m.PageCount):
		return bad("free list outside the file")
	}
	return nil
}

// ValidPageSize reports whether n is a power of two in [MinPageSize, MaxPageSize].
func ValidPageSize(n int) bool {
	return n >= MinPageSize && n <= MaxPageSize && n&(n-1) == 0
}

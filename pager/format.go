package pager

// On-disk format of the page file. Changing anything here changes the file format: bump
// FormatVersion and docs/FORMAT.md in the same commit.
//
// Page id N lives at byte offset N*PageSize. Pages 0 and 1 are the two meta pages; every other
// page starts with the 24-byte page header below. A tree node or a value may span several
// consecutive pages (an extent); the header of its first page says how many follow.
//
//	Page header
//	| Offset | Size | Field                                                        |
//	| 0      | 4    | CRC32C of bytes [4, extent length), seed uint32(id)^uint32(id>>32) |
//	| 4      | 1    | page type (PageBranch, PageLeaf, PageOverflow, PageFreelist) |
//	| 5      | 1    | flags: FlagKeyPrefix on tree pages, 0 on others              |
//	| 6      | 2    | element count (tree pages)                                   |
//	| 8      | 4    | extra pages in the extent (extent length - 1)                |
//	| 12     | 4    | reserved, 0                                                  |
//	| 16     | 8    | LSN of the commit that allocated the extent (its birth)      |

import (
	"encoding/binary"
	"hash/crc32"
)

// FormatVersion is the version of the page-file format written in every meta page, and the only
// one this build reads: a meta page of an older version (a development format) makes Open refuse
// the file with an *errs.VersionError (docs/FORMAT.md, "Versions and compatibility").
const FormatVersion = 4

// FlagKeyPrefix, in the header flags byte (offset 5) of a tree page, says that each element
// starts with an 8-byte key prefix (see package btree). It is set on every tree page.
const FlagKeyPrefix = 1

// Page size bounds in bytes; the size is a power of two.
const (
	MinPageSize     = 4096
	MaxPageSize     = 65536
	DefaultPageSize = 4096
)

// HeaderSize is the size in bytes of the header at the start of every non-meta page.
const HeaderSize = 24

// Page types stored at header offset 4.
const (
	PageBranch   = 1
	PageLeaf     = 2
	PageOverflow = 3
	PageFreelist = 4
)

// MetaPages is the number of meta pages at the start of the file (ids 0 and 1).
const MetaPages = 2

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Type returns the page type of the extent b.
func Type(b []byte) byte { return b[4] }

// Flags returns the header flags of extent b.
func Flags(b []byte) byte { return b[5] }

// SetFlags sets the header flags of extent b, after SetHeader.
func SetFlags(b []byte, flags byte) { b[5] = flags }

// Count returns the element count of the tree page b.
func Count(b []byte) int { return int(binary.LittleEndian.Uint16(b[6:8])) }

// SetHeader fills the header of extent b (its length a multiple of the page size) except the
// checksum, which Seal writes. alloc is the LSN of the commit that allocates the extent.
func SetHeader(b []byte, typ byte, count int, pageSize int, alloc uint64) {
	b[4] = typ
	b[5] = 0
	binary.LittleEndian.PutUint16(b[6:8], uint16(count))
	binary.LittleEndian.PutUint32(b[8:12], uint32(len(b)/pageSize-1))
	binary.LittleEndian.PutUint32(b[12:16], 0)
	binary.LittleEndian.PutUint64(b[16:24], alloc)
}

// AllocLSN returns the LSN of the commit that allocated extent b (header offset 16).
func AllocLSN(b []byte) uint64 { return binary.LittleEndian.Uint64(b[16:24]) }

// extentPages returns the extent length in pages recorded in header b.
func extentPages(b []byte) uint64 { return uint64(binary.LittleEndian.Uint32(b[8:12])) + 1 }

// checksum is the CRC32C of extent b seeded with its page id, so a page written at the wrong
// offset fails verification.
func checksum(id uint64, b []byte) uint32 {
	return crc32.Update(uint32(id)^uint32(id>>32), castagnoli, b[4:])
}

// Seal writes the checksum of extent b, page id id. After Seal the extent is immutable.
func Seal(id uint64, b []byte) {
	binary.LittleEndian.PutUint32(b[0:4], checksum(id, b))
}

func verify(id uint64, b []byte) bool {
	return binary.LittleEndian.Uint32(b[0:4]) == checksum(id, b)
}

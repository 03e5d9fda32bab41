package pager

import (
	"crypto/rand"
	"encoding/binary"
	"slices"
)

// Image writing: the pieces of a database file made outside a Pager (DB.Backup writes a copy of a
// version page by page and needs its meta pages and free list).

// NewDBID returns a random database id (never 0).
func NewDBID() (uint64, error) {
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(id[:]) | 1, nil
}

// MetaPagesImage returns pages 0 and 1 of a file whose current checkpoint is m: both slots hold m,
// with sequence numbers 2 (slot 0) and 1 (slot 1), so both are valid and slot 0 is current.
func MetaPagesImage(m Meta) []byte {
	ps := int(m.PageSize)
	buf := make([]byte, MetaPages*ps)
	for slot := range MetaPages {
		m.Seq = uint64(2 - slot)
		m.encode(buf[slot*ps:])
	}
	return buf
}

// FreelistPages returns the length in pages of a free-list extent listing n ids.
func FreelistPages(n, pageSize int) int {
	if n == 0 {
		return 0
	}
	return (freelistIDs + 8*n + pageSize - 1) / pageSize
}

// FreelistImage returns the sealed free-list extent of pages pages (at least FreelistPages of
// len(ids)), stored at page id at, that lists ids (which must not include the extent's own
// pages), allocated at lsn.
func FreelistImage(at uint64, pages int, ids []uint64, pageSize int, lsn uint64) []byte {
	buf := make([]byte, pages*pageSize)
	SetHeader(buf, PageFreelist, 0, pageSize, lsn)
	ids = slices.Sorted(slices.Values(ids))
	binary.LittleEndian.PutUint64(buf[freelistCount:], uint64(len(ids)))
	for i, x := range ids {
		binary.LittleEndian.PutUint64(buf[freelistIDs+8*i:], x)
	}
	Seal(at, buf)
	return buf
}

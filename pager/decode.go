package pager

import (
	"encoding/binary"
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
)

// decodeFreelist decodes the free-list extent buf (its checksum already verified) of meta page m
// and returns the ids it lists. It checks the page type, that the extent is as long as m says,
// that the count fits in the extent, and that the ids are strictly ascending, inside
// [MetaPages, m.PageCount) and outside the extent itself. It never panics and allocates at most
// len(buf) bytes, whatever buf holds. Errors wrap errs.ErrCorrupt.
func decodeFreelist(buf []byte, m Meta) ([]uint64, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("pager: free list at page %d: %s: %w", m.FreelistID, fmt.Sprintf(format, a...), errs.ErrCorrupt)
	}
	ps := uint64(m.PageSize)
	switch {
	case !ValidPageSize(int(m.PageSize)):
		return nil, bad("invalid page size %d", m.PageSize)
	case uint64(len(buf)) < ps || uint64(len(buf))%ps != 0:
		return nil, bad("extent of %d bytes is not a whole number of pages", len(buf))
	case Type(buf) != PageFreelist:
		return nil, bad("page type %d, want %d", Type(buf), PageFreelist)
	case uint64(len(buf))/ps != m.FreelistPages || extentPages(buf) != m.FreelistPages:
		return nil, bad("extent of %d pages, the meta page says %d", extentPages(buf), m.FreelistPages)
	}
	n := binary.LittleEndian.Uint64(buf[freelistCount:freelistIDs])
	if n > uint64(len(buf)-freelistIDs)/8 {
		return nil, bad("count %d overflows the extent", n)
	}
	ids := make([]uint64, n)
	prev := uint64(0)
	for i := range ids {
		id := binary.LittleEndian.Uint64(buf[freelistIDs+8*i:])
		switch {
		case id < MetaPages || id >= m.PageCount:
			return nil, bad("id %d outside [%d, %d)", id, MetaPages, m.PageCount)
		case id <= prev:
			return nil, bad("id %d after %d: not ascending", id, prev)
		case id >= m.FreelistID && id < m.FreelistID+m.FreelistPages:
			return nil, bad("id %d inside the free-list extent", id)
		}
		ids[i], prev = id, id
	}
	return ids, nil
}

package btree

import "github.com/cairndb/cairn/pager"

// OverflowValue returns the value of size bytes stored in p, the overflow extent at page id as
// read from a file (its checksum verified by the caller), for tools that read extents outside a
// Pager (salvage). The result aliases p. It checks what a reader of the tree checks: the page
// type is PageOverflow and the value fits in the extent. Errors wrap errs.ErrCorrupt; it never
// panics.
func OverflowValue(id uint64, p []byte, size uint32) ([]byte, error) {
	if len(p) < pager.HeaderSize {
		return nil, corruptf("page %d: %d bytes, shorter than a page header", id, len(p))
	}
	if typ := pager.Type(p); typ != pager.PageOverflow {
		return nil, corruptf("page %d: type %d (%s) where an overflow value is referenced", id, typ, pager.TypeName(typ))
	}
	if uint64(size) > uint64(len(p)-pager.HeaderSize) {
		return nil, corruptf("page %d: overflow extent of %d bytes cannot hold a value of %d bytes", id, len(p), size)
	}
	end := pager.HeaderSize + int(size)
	return p[pager.HeaderSize:end:end], nil
}

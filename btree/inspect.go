package btree

import (
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
)

// Element is one element of a tree page, decoded for inspection tools. Its slices alias the page
// bytes given to Elements and are valid as long as those are.
type Element struct {
	// Key is the element's key (in a branch, the lower bound of the child's keys; element 0's
	// bounds nothing).
	Key []byte
	// Child is, in a branch page, the page id of the child extent.
	Child uint64
	// ValueSize is, in a leaf page, the size of the value in bytes, inline or in overflow.
	ValueSize uint32
	// Value is, in a leaf page, the inline value (not nil, possibly empty); nil exactly when the
	// value is in an overflow extent.
	Value []byte
	// Overflow is, in a leaf page, the page id of the overflow extent holding the value when
	// Value is nil (0 there is damage), and 0 for an inline value.
	Overflow uint64
}

// Elements checks that p, the extent at page id (as read, checksum verified or not), is a
// well-formed branch or leaf page (Validate) and returns its elements in key order. Any other
// page type, or a malformed page, is an error wrapping errs.ErrCorrupt; it never panics.
func Elements(id uint64, p []byte) ([]Element, error) {
	if len(p) < pager.HeaderSize {
		return nil, fmt.Errorf("btree: page %d: %d bytes, shorter than a page header: %w", id, len(p), errs.ErrCorrupt)
	}
	typ := pager.Type(p)
	if typ != pager.PageBranch && typ != pager.PageLeaf {
		return nil, fmt.Errorf("btree: page %d: type %d is not a tree page: %w", id, typ, errs.ErrCorrupt)
	}
	if err := Validate(id, p); err != nil {
		return nil, err
	}
	out := make([]Element, pager.Count(p))
	for i := range out {
		e := &out[i]
		if typ == pager.PageBranch {
			e.Key, e.Child = branchKey(p, i), branchChild(p, i)
			continue
		}
		e.Key = leafKey(p, i)
		e.Value, e.Overflow, e.ValueSize = leafValue(p, i)
	}
	return out, nil
}

package btree

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
)

// MaxDepth bounds the depth of a tree the checker descends: a B+tree whose branches have two or
// more children cannot be deeper than 64 levels with fewer than 2^64 pages, so a deeper path is
// damage (a chain of pages pointing down forever).
const MaxDepth = 64

// maxProblems caps the problems one walk lists; the rest are counted.
const maxProblems = 1000

// Checker walks trees and collects every violation of their invariants.
type Checker struct {
	// Read returns the extent at id with its checksum and structure verified, as pager.Pager.Page
	// or pager.Pager.CheckExtent do.
	Read func(id uint64) ([]byte, error)
	// Visit, if not nil, is called once for every extent the tree references (tree pages and
	// overflow values) with its length in pages; 0 when the extent could not be read.
	Visit func(id uint64, pages int)
	// PageSize is the page size in bytes.
	PageSize int
}

// checkTree walks the whole tree at root through pg's cache and returns every problem found (see
// Checker.Walk), joined, or nil.
func checkTree(pg *pager.Pager, root uint64, visit func(id uint64, pages int)) error {
	c := Checker{Read: pg.Page, Visit: visit, PageSize: pg.PageSize()}
	return errors.Join(c.Walk(root)...)
}

// Walk checks the tree at root (0: empty) and returns every problem it finds, each wrapping
// errs.ErrCorrupt (or the read error): extents that cannot be read or verified, a tree page
// referenced where an overflow value is expected or the reverse, a page referenced twice, leaves
// at different depths, an empty node below the root, keys not strictly ascending across the tree
// or outside the range their parent gives them, branch keys below their parent's bound, and
// overflow extents of the wrong length for their value. It goes on after a problem wherever it
// can: an unreadable page hides only its own subtree.
func (c Checker) Walk(root uint64) []error {
	if root == 0 {
		return nil
	}
	w := walker{Checker: c, leafDepth: -1, seen: make(map[uint64]struct{})}
	w.walk(root, 0, nil, nil)
	if w.more > 0 {
		w.problems = append(w.problems, fmt.Errorf("btree: %d more problems not listed: %w", w.more, errs.ErrCorrupt))
	}
	return w.problems
}

// walker is the state of one Walk.
type walker struct {
	Checker
	leafDepth int
	prevKey   []byte
	seen      map[uint64]struct{}
	problems  []error
	more      int
}

func (w *walker) add(err error) {
	if len(w.problems) < maxProblems {
		w.problems = append(w.problems, err)
	} else {
		w.more++
	}
}

func (w *walker) bad(id uint64, format string, a ...any) {
	w.add(fmt.Errorf("btree: page %d: %s: %w", id, fmt.Sprintf(format, a...), errs.ErrCorrupt))
}

func (w *walker) visit(id uint64, pages int) {
	if w.Visit != nil {
		w.Visit(id, pages)
	}
}

// first reports whether id is referenced for the first time in this walk, and reports it if not.
func (w *walker) first(id uint64) bool {
	if _, dup := w.seen[id]; dup {
		w.bad(id, "referenced twice")
		return false
	}
	w.seen[id] = struct{}{}
	return true
}

// walk checks the subtree at id, whose keys must lie in [lo, hi) (nil: unbounded).
func (w *walker) walk(id uint64, depth int, lo, hi []byte) {
	if !w.first(id) {
		return
	}
	if depth > MaxDepth {
		w.bad(id, "deeper than %d levels", MaxDepth)
		return
	}
	p, err := w.Read(id)
	if err != nil {
		w.add(err)
		w.visit(id, 0)
		return
	}
	w.visit(id, len(p)/w.PageSize)
	typ, n := pager.Type(p), pager.Count(p)
	switch {
	case typ != pager.PageLeaf && typ != pager.PageBranch:
		w.bad(id, "type %d where a tree page is referenced", typ)
		return
	case n == 0 && depth > 0:
		w.bad(id, "empty node below the root")
	}
	if typ == pager.PageLeaf {
		w.leaf(id, p, depth, lo, hi)
		return
	}
	for i := range n {
		k := branchKey(p, i)
		if i > 0 && lo != nil && bytes.Compare(k, lo) < 0 {
			w.bad(id, "branch key %d below the parent's bound", i)
		}
		childLo, childHi := k, hi
		if i == 0 {
			childLo = lo
		}
		if i+1 < n {
			childHi = branchKey(p, i+1)
		}
		w.walk(branchChild(p, i), depth+1, childLo, childHi)
	}
}

// leaf checks the keys and overflow values of leaf page p at id. It reports at most one key
// outside the parent's range and one key out of order per page.
func (w *walker) leaf(id uint64, p []byte, depth int, lo, hi []byte) {
	if w.leafDepth >= 0 && depth != w.leafDepth {
		w.bad(id, "leaf at depth %d, the first leaf is at %d", depth, w.leafDepth)
	} else {
		w.leafDepth = depth
	}
	outside, unordered := false, false
	for i := range pager.Count(p) {
		k := leafKey(p, i)
		if !outside && ((lo != nil && bytes.Compare(k, lo) < 0) || (hi != nil && bytes.Compare(k, hi) >= 0)) {
			w.bad(id, "key %d outside the range its parent gives the page", i)
			outside = true
		}
		if !unordered && w.prevKey != nil && bytes.Compare(w.prevKey, k) >= 0 {
			w.bad(id, "key %d not above the previous key of the tree", i)
			unordered = true
		}
		w.prevKey = k
		if _, ovf, size := leafValue(p, i); ovf != 0 {
			w.overflow(id, ovf, size)
		}
	}
}

// overflow checks the overflow extent at id that a value of size bytes in leaf page leaf refers to.
func (w *walker) overflow(leaf, id uint64, size uint32) {
	if !w.first(id) {
		return
	}
	p, err := w.Read(id)
	if err != nil {
		w.add(fmt.Errorf("btree: page %d: overflow value: %w", leaf, err))
		w.visit(id, 0)
		return
	}
	w.visit(id, len(p)/w.PageSize)
	want := (pager.HeaderSize + int(size) + w.PageSize - 1) / w.PageSize
	switch {
	case pager.Type(p) != pager.PageOverflow:
		w.bad(id, "type %d where leaf page %d references an overflow value", pager.Type(p), leaf)
	case len(p)/w.PageSize != want:
		w.bad(id, "overflow extent of %d pages for a value of %d bytes (%d pages)", len(p)/w.PageSize, size, want)
	}
}

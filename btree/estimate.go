package btree

import (
	"slices"

	"github.com/cairndb/cairn/pager"
)

// EstimateLen estimates the number of keys of the tree from its shape alone: along three paths
// from the root to a leaf (the leftmost, the middle and the rightmost child at each level) the
// product of the element counts, the median of the three; it reads one page per level and path (decoded nodes
// where the tree has them, without decoding more). It is exact for a tree of one leaf and, for
// a B+tree whose nodes are at least a quarter full, close to the count when the nodes are about
// equally full. A planner's row estimate, as SQLite's sqlite_stat1 gives one, without keeping
// counts on every write. Errors are those of reading a page (corrupt pages wrap
// errs.ErrCorrupt).
func (t *Tree) EstimateLen() (int64, error) {
	var est [3]int64
	for k, pick := range []func(count int) int{
		func(int) int { return 0 },
		func(count int) int { return count / 2 },
		func(count int) int { return count - 1 },
	} {
		n, err := t.estimateAlong(pick)
		if err != nil {
			return 0, err
		}
		est[k] = n
	}
	slices.Sort(est[:])
	return est[1], nil
}

// estimateAlong returns the product of the element counts on the path that takes child
// pick(count) of each branch.
func (t *Tree) estimateAlong(pick func(count int) int) (int64, error) {
	prod := int64(1)
	n, id := t.rootNode, t.root
	for depth := 0; ; depth++ {
		if depth > MaxDepth {
			return 0, corruptf("page %d: tree deeper than %d levels (a cycle?)", id, MaxDepth)
		}
		var count int
		var leaf bool
		var p []byte
		if n != nil {
			count, leaf = n.count(), n.leaf
		} else {
			if id == 0 {
				return 0, nil
			}
			var err error
			if p, err = t.treePage(id); err != nil {
				return 0, err
			}
			count, leaf = pager.Count(p), pager.Type(p) == pager.PageLeaf
		}
		if leaf || count == 0 {
			return prod * int64(count), nil
		}
		prod *= int64(count)
		i := pick(count)
		if n != nil {
			id, n = n.inodes[i].child, n.inodes[i].node
		} else {
			id = branchChild(p, i)
		}
	}
}

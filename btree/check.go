package btree

import (
	"bytes"
	"fmt"

	"github.com/cairndb/cairn/pager"
)

// Check walks the whole tree at root and verifies its invariants: every leaf at the same depth,
// keys strictly ascending across the tree, each branch key equal to or below every key of its
// child and above every key of the previous child, no empty node but an empty root, and every
// overflow extent readable. It calls visit for every extent the tree references (tree pages and
// overflow values) with its id and length in pages. Errors describe the first violation found.
func Check(pg *pager.Pager, root uint64, visit func(id uint64, pages int)) error {
	if root == 0 {
		return nil
	}
	c := checker{t: Tree{pg: pg}, visit: visit, leafDepth: -1}
	return c.walk(root, 0, nil, nil)
}

type checker struct {
	t         Tree
	visit     func(id uint64, pages int)
	leafDepth int
	prevKey   []byte
}

// walk checks the subtree at id, whose keys must lie in [lo, hi) (nil: unbounded).
func (c *checker) walk(id uint64, depth int, lo, hi []byte) error {
	p, err := c.t.treePage(id)
	if err != nil {
		return err
	}
	ps := c.t.pg.PageSize()
	c.visit(id, len(p)/ps)
	n := pager.Count(p)
	if n == 0 && depth > 0 {
		return fmt.Errorf("btree: page %d: empty non-root node", id)
	}
	if pager.Type(p) == pager.PageLeaf {
		return c.leaf(id, p, depth, lo, hi)
	}
	for i := range n {
		k := branchKey(p, i)
		if i > 0 && lo != nil && bytes.Compare(k, lo) < 0 {
			return fmt.Errorf("btree: page %d: branch key %d below the parent's bound", id, i)
		}
		childLo, childHi := k, hi
		if i == 0 {
			childLo = lo
		}
		if i+1 < n {
			childHi = branchKey(p, i+1)
		}
		if err := c.walk(branchChild(p, i), depth+1, childLo, childHi); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) leaf(id uint64, p []byte, depth int, lo, hi []byte) error {
	if c.leafDepth >= 0 && depth != c.leafDepth {
		return fmt.Errorf("btree: page %d: leaf at depth %d, others at %d", id, depth, c.leafDepth)
	}
	c.leafDepth = depth
	ps := c.t.pg.PageSize()
	for i := range pager.Count(p) {
		k := leafKey(p, i)
		if (lo != nil && bytes.Compare(k, lo) < 0) || (hi != nil && bytes.Compare(k, hi) >= 0) {
			return fmt.Errorf("btree: page %d: key %d outside its parent's range", id, i)
		}
		if c.prevKey != nil && bytes.Compare(c.prevKey, k) >= 0 {
			return fmt.Errorf("btree: page %d: key %d not above the previous key", id, i)
		}
		c.prevKey = k
		if _, ovf, size := leafValue(p, i); ovf != 0 {
			if _, err := c.t.overflowValue(ovf, size); err != nil {
				return err
			}
			c.visit(ovf, (pager.HeaderSize+int(size)+ps-1)/ps)
		}
	}
	return nil
}

package btree

import (
	"bytes"

	"github.com/cairndb/cairn/pager"
)

// Relocation (for compaction): an extent is moved by rewriting it, as copy-on-write does for any
// change, so that Commit writes it to a newly allocated extent, which the pager takes from the
// lowest free ids. A tree page is rewritten by decoding it (and the path above it, whose child
// ids change); an overflow value by reading it back into its leaf element, so Commit stores it
// in a new overflow extent.

// Relocate marks for rewriting the extents of the tree at or above page id above, walking the
// leaves in key order from the leaf that covers key from (nil: the first), until it has marked
// budget extents. It returns the key to resume from (nil: the walk reached the last leaf) and the
// number of extents marked. The tree must be writable; Commit then moves them.
func (t *Tree) Relocate(above uint64, from []byte, budget int) (next []byte, marked int, err error) {
	if !t.writable || t.root == 0 {
		return nil, 0, nil
	}
	r := relocation{t: t, above: above, budget: budget}
	if err := r.walk(t.root, 0, from, true); err != nil {
		return nil, r.marked, err
	}
	for _, m := range r.marks {
		if err := t.mark(m); err != nil {
			return nil, r.marked, err
		}
	}
	if r.marked > 0 {
		t.mods++
	}
	return r.next, r.marked, nil
}

// relocMark is an extent to move: the tree page at depth whose first key is key, or (ovf set) the
// overflow value of key.
type relocMark struct {
	key   []byte
	depth int
	ovf   bool
}

type relocation struct {
	t      *Tree
	above  uint64
	budget int
	marked int
	marks  []relocMark
	next   []byte
}

// walk visits the subtree at page id (depth levels below the root), starting from the child that
// covers from when first is set (the leftmost path of the walk).
func (r *relocation) walk(id uint64, depth int, from []byte, first bool) error {
	if depth > MaxDepth {
		return corruptf("page %d: tree deeper than %d levels (a cycle?)", id, MaxDepth)
	}
	p, err := r.t.treePage(id)
	if err != nil {
		return err
	}
	if id >= r.above {
		r.add(relocMark{key: firstKey(p), depth: depth})
	}
	if pager.Type(p) == pager.PageLeaf {
		for i := range pager.Count(p) {
			if _, ovf, _ := leafValue(p, i); ovf >= r.above {
				r.add(relocMark{key: leafKey(p, i), ovf: true})
			}
		}
		return nil
	}
	start := 0
	if first && from != nil {
		start = searchBranch(p, from)
	}
	for i := start; i < pager.Count(p); i++ {
		if r.marked >= r.budget {
			r.next = bytes.Clone(branchKey(p, i))
			return nil
		}
		if err := r.walk(branchChild(p, i), depth+1, from, first && i == start); err != nil {
			return err
		}
		if r.next != nil {
			return nil
		}
	}
	return nil
}

func (r *relocation) add(m relocMark) {
	r.marks = append(r.marks, m)
	r.marked++
}

func firstKey(p []byte) []byte {
	switch {
	case pager.Count(p) == 0:
		return nil // an empty root leaf: the path to it is the root alone
	case pager.Type(p) == pager.PageLeaf:
		return leafKey(p, 0)
	}
	return branchKey(p, 0)
}

// mark decodes the path to the extent of m, so that Commit rewrites it.
func (t *Tree) mark(m relocMark) error {
	if t.rootNode == nil {
		n, err := t.node(t.root, nil)
		if err != nil {
			return err
		}
		t.rootNode = n
	}
	n := t.rootNode
	for d := 0; !n.leaf && (m.ovf || d < m.depth); d++ {
		i, _ := n.search(m.key)
		c, err := t.child(n, i)
		if err != nil {
			return err
		}
		n = c
	}
	if !m.ovf {
		return nil
	}
	t.full(n)
	i, exact := n.search(m.key)
	if !exact || n.inodes[i].ovf == 0 {
		return nil // an empty leaf's first key, or a key decoded differently: nothing to move
	}
	in := &n.inodes[i]
	v, err := t.overflowValue(in.ovf, in.size)
	if err != nil {
		return err
	}
	t.freeOverflow(in)
	in.value, in.ovf, in.size = v, 0, 0
	return nil
}

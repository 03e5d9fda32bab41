package btree

// Commit writes a writable tree's changes. Invariant: every decoded node is reachable from
// rootNode through parent links of decoded nodes, and a decoded node's page is freed exactly once,
// when the node is rewritten or removed; pages of nodes never decoded are shared, not touched.
// A leaf is decoded as a page leaf (node.page, node.edits: its page and the new keys Put
// inserted), which holds no inodes: every use of a leaf's elements but Put's insert of a new key,
// Get and spillPageLeaf materializes it first (Tree.full), and spill writes a page leaf that fits
// one page byte for byte as encode writes its merged elements (TestPageLeaves).

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/pager"
)

// Commit rebalances and writes every changed node to new pages, frees the replaced pages and
// overflow extents at lsn, and returns the new root page id (0: empty tree). On error every page
// it allocated is returned and the tree must be discarded. It is Spill then Finish.
func (t *Tree) Commit(lsn uint64) (uint64, error) {
	root, err := t.Spill(lsn)
	if err != nil {
		return 0, err
	}
	t.Finish(lsn)
	return root, nil
}

// Spill is the first half of Commit, for a transaction that commits several trees atomically: it
// writes the changed nodes to new pages and returns the new root, but frees nothing yet. Once
// every tree spilled, Finish each (frees the replaced pages); if one failed, Abort the others
// (returns the pages they allocated). On error Spill has returned its own pages already and the
// tree must be discarded.
func (t *Tree) Spill(lsn uint64) (uint64, error) {
	if t.mods == 0 || t.rootNode == nil {
		t.spilled = t.root
		return t.root, nil
	}
	if t.freed == nil {
		t.freed = t.ws.extentList()
	}
	if t.allocated == nil {
		t.allocated = t.ws.extentList()
	}
	root, err := t.commit(lsn, &t.allocated)
	if err != nil {
		t.Abort()
		return 0, err
	}
	t.spilled = root
	return root, nil
}

// Finish frees at lsn the pages that Spill replaced and makes the tree the clean writable tree at
// its new root.
func (t *Tree) Finish(lsn uint64) {
	for _, e := range t.freed {
		t.pg.Free(e.id, e.pages, lsn, e.alloc)
	}
	t.Reset(t.pg, t.spilled, true)
}

// Abort returns the pages Spill allocated and empties the tree; it must be discarded or Reset.
func (t *Tree) Abort() {
	for _, e := range t.allocated {
		t.pg.Unallocate(e.id, e.pages)
	}
	t.Reset(t.pg, 0, false)
}

func (t *Tree) commit(lsn uint64, allocated *[]extent) (uint64, error) {
	if err := t.rebalanceAll(); err != nil {
		return 0, err
	}
	n := t.rootNode
	for {
		pieces, err := t.spill(n, lsn, allocated)
		if err != nil {
			return 0, err
		}
		switch len(pieces) {
		case 0:
			return 0, nil
		case 1:
			return pieces[0].child, nil
		}
		n = t.ws.newNode()
		n.inodes = pieces
	}
}

func (t *Tree) rebalanceAll() error {
	var todo []*node
	for _, n := range t.nodes {
		if n.unbalanced {
			todo = append(todo, n)
		}
	}
	for _, n := range t.created {
		if n.unbalanced {
			todo = append(todo, n)
		}
	}
	if t.rootNode.unbalanced && t.rootNode.id == 0 && !slices.Contains(t.created, t.rootNode) {
		todo = append(todo, t.rootNode)
	}
	for _, n := range todo {
		if err := t.rebalance(n); err != nil {
			return err
		}
	}
	return nil
}

// rebalance merges node n into a sibling when it has fallen under a quarter page or under its
// minimum number of elements, and collapses a root branch with one child.
func (t *Tree) rebalance(n *node) error {
	if !n.unbalanced || n.removed {
		return nil
	}
	n.unbalanced = false
	t.full(n)
	if n.size() > t.pg.PageSize()/4 && len(n.inodes) >= n.minKeys() {
		return nil
	}
	if n.parent == nil {
		return t.collapseRoot(n)
	}
	p := n.parent
	idx, err := childIndex(p, n)
	if err != nil {
		return err
	}
	if len(n.inodes) == 0 {
		t.remove(p, idx, n)
	} else if idx == 0 {
		if len(p.inodes) < 2 {
			p.unbalanced = true
			return t.rebalance(p)
		}
		sib, err := t.child(p, 1)
		if err != nil {
			return err
		}
		t.absorb(n, sib)
		t.remove(p, 1, sib)
	} else {
		sib, err := t.child(p, idx-1)
		if err != nil {
			return err
		}
		t.absorb(sib, n)
		t.remove(p, idx, n)
	}
	p.unbalanced = true
	return t.rebalance(p)
}

func (t *Tree) collapseRoot(n *node) error {
	if n.leaf || len(n.inodes) != 1 {
		return nil
	}
	c, err := t.child(n, 0)
	if err != nil {
		return err
	}
	c.parent = nil
	t.rootNode = c
	t.drop(n)
	c.unbalanced = true
	return t.rebalance(c)
}

// absorb appends the elements of src to dst (src follows dst in key order).
func (t *Tree) absorb(dst, src *node) {
	t.full(dst)
	t.full(src)
	for _, in := range src.inodes {
		if src.leaf {
			break
		}
		if in.node != nil {
			in.node.parent = dst
		} else if c, ok := t.nodes[in.child]; ok && in.child != 0 {
			c.parent = dst
		}
	}
	dst.inodes = append(dst.inodes, src.inodes...)
	dst.src = nil
}

// remove deletes element idx (node n) from parent p and frees n's page.
func (t *Tree) remove(p *node, idx int, n *node) {
	p.inodes = append(p.inodes[:idx], p.inodes[idx+1:]...)
	p.src = nil
	t.drop(n)
}

func (t *Tree) drop(n *node) {
	n.removed = true
	if n.id != 0 {
		delete(t.nodes, n.id)
		t.freed = append(t.freed, extent{n.id, n.pages, n.alloc})
	}
}

// childIndex returns the position of child n in branch p: by its node link, or by page id for a
// child decoded without one (split's nodes have no page id yet).
func childIndex(p, n *node) (int, error) {
	for i := range p.inodes {
		if p.inodes[i].node == n || n.id != 0 && p.inodes[i].child == n.id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("btree: node %d not found in its parent (internal error)", n.id)
}

// spill writes node n and, first, its decoded children, and returns the branch elements (first
// key, page id) that replace n in its parent: none for an empty tree, several after a split.
func (t *Tree) spill(n *node, lsn uint64, allocated *[]extent) ([]inode, error) {
	if !n.leaf {
		if err := t.spillChildren(n, lsn, allocated); err != nil {
			return nil, err
		}
	} else {
		t.spillValues(n, lsn, allocated)
		if n.page != nil && n.pageLeafSize() > t.pg.PageSize() {
			t.full(n) // it splits: cut into pieces like any node
		}
	}
	if n.page != nil {
		return t.spillPageLeaf(n, lsn, allocated), nil
	}
	if n.id != 0 {
		t.freed = append(t.freed, extent{n.id, n.pages, n.alloc})
		delete(t.nodes, n.id)
		n.id = 0
	}
	if len(n.inodes) == 0 {
		return nil, nil
	}
	if n.src != nil {
		return t.spillPatched(n, lsn, allocated), nil
	}
	ps := t.pg.PageSize()
	// groups is used only until this function returns, so one buffer serves every node.
	groups := splitGroups(t.groupBuf, n.inodes, n.leaf, ps, n.minKeys())
	t.groupBuf = groups
	pieces := t.ws.inodeSlice(len(groups), len(groups))
	for i, g := range groups {
		size := pager.HeaderSize
		for j := range g {
			size += g[j].encodedSize(n.leaf)
		}
		pages := (size + ps - 1) / ps
		id, buf := t.pg.AllocateForOverwrite(pages, lsn)
		*allocated = append(*allocated, extent{id: id, pages: pages})
		encode(buf, n.leaf, g, ps, lsn)
		pager.Seal(id, buf)
		pieces[i] = inode{key: g[0].key, child: id}
	}
	return pieces, nil
}

// spillChildren spills the decoded children of branch n and puts the pieces they became in
// place of their elements. A child that stays one page (the common case: a put that splits
// nothing) only changes its element's key and child id, so the element slice is rebuilt only
// when a child split or vanished.
func (t *Tree) spillChildren(n *node, lsn uint64, allocated *[]extent) error {
	var out []inode // nil while every child became exactly one piece
	for i := range n.inodes {
		in := n.inodes[i]
		c := in.node
		if c == nil || c.parent != n || c.removed {
			if out != nil {
				out = append(out, in)
			}
			continue
		}
		pieces, err := t.spill(c, lsn, allocated)
		if err != nil {
			return err
		}
		if out == nil && len(pieces) == 1 {
			if n.src != nil && !bytes.Equal(n.inodes[i].key, pieces[0].key) {
				n.src = nil // the child's first key changed: the page's layout does too
			}
			if n.nchanged < len(n.changed) {
				n.changed[n.nchanged] = uint16(i)
			}
			n.nchanged++
			n.inodes[i] = pieces[0]
			continue
		}
		n.src = nil
		if out == nil {
			out = append(t.ws.inodeSlice(0, len(n.inodes)+len(pieces)), n.inodes[:i]...)
		}
		out = append(out, pieces...)
	}
	if out != nil {
		n.inodes = out
	}
	return nil
}

// spillPatched writes branch n, whose elements still have the keys and order of the page n.src it
// was decoded from, as a copy of that page with the header and the changed child ids rewritten:
// byte for byte what encode would write, without encoding each element (most commits change one
// child id per branch on their path). It returns the branch element that replaces n.
func (t *Tree) spillPatched(n *node, lsn uint64, allocated *[]extent) []inode {
	id, buf := t.pg.AllocateForOverwrite(1, lsn)
	*allocated = append(*allocated, extent{id: id, pages: 1})
	copy(buf, n.src) // the whole page
	pager.SetHeader(buf, pager.PageBranch, len(n.inodes), t.pg.PageSize(), lsn)
	pager.SetFlags(buf, pager.FlagKeyPrefix)
	if n.nchanged <= len(n.changed) {
		for _, i := range n.changed[:n.nchanged] {
			setBranchChild(buf, int(i), n.inodes[i].child)
		}
	} else {
		for i := range n.inodes {
			setBranchChild(buf, i, n.inodes[i].child)
		}
	}
	pager.Seal(id, buf)
	pieces := t.ws.inodeSlice(1, 1)
	pieces[0] = inode{key: n.inodes[0].key, child: id}
	return pieces
}

// spillPageLeaf writes page leaf n, whose elements fit one page, as the merge of its page and
// its edits (encodeMerged), frees its page, and returns the branch element that replaces n.
func (t *Tree) spillPageLeaf(n *node, lsn uint64, allocated *[]extent) []inode {
	from := n.id
	if n.id != 0 {
		t.freed = append(t.freed, extent{n.id, n.pages, n.alloc})
		delete(t.nodes, n.id)
		n.id = 0
	}
	if n.count() == 0 {
		return nil
	}
	id, buf := t.pg.AllocateForOverwrite(1, lsn)
	*allocated = append(*allocated, extent{id: id, pages: 1})
	encodeMerged(buf, n.page, n.edits, t.pg.PageSize(), lsn)
	pager.Seal(id, buf)
	if invariants.Enabled {
		if err := Validate(id, buf); err != nil {
			invariants.Fail(invariants.PageLeaves, "leaf %d merged from page %d and %d edits: %v", id, from, len(n.edits), err)
		}
	}
	first := n.page
	var key []byte
	if pager.Count(first) > 0 {
		key = leafKey(first, 0)
	}
	if len(n.edits) > 0 && (key == nil || bytes.Compare(n.edits[0].key, key) < 0) {
		key = n.edits[0].key
	}
	pieces := t.ws.inodeSlice(1, 1)
	pieces[0] = inode{key: key, child: id}
	return pieces
}

// spillValues moves new values larger than maxInline into overflow extents of their own (a page
// leaf's new values are its edits).
func (t *Tree) spillValues(n *node, lsn uint64, allocated *[]extent) {
	ps := t.pg.PageSize()
	inodes := n.inodes
	if n.page != nil {
		inodes = n.edits
	}
	for i := range inodes {
		in := &inodes[i]
		if in.ovf != 0 || len(in.value) <= t.maxInline() {
			continue
		}
		pages := (pager.HeaderSize + len(in.value) + ps - 1) / ps
		id, buf := t.pg.Allocate(pages, lsn)
		*allocated = append(*allocated, extent{id: id, pages: pages})
		pager.SetHeader(buf, pager.PageOverflow, 0, ps, lsn)
		copy(buf[pager.HeaderSize:], in.value)
		pager.Seal(id, buf)
		in.ovf, in.size, in.value = id, uint32(len(in.value)), nil
	}
}

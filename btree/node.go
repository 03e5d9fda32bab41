package btree

import (
	"bytes"
	"encoding/binary"

	"github.com/cairndb/cairn/pager"
)

// inode is one element of a decoded node. Keys and values alias immutable page bytes or bytes
// the tree copied from the caller; they are never modified in place.
type inode struct {
	key []byte
	// Leaf: the inline value, or nil with ovf != 0 when the value is in an overflow extent of
	// size bytes.
	value []byte
	ovf   uint64
	size  uint32
	// Branch: the child page id, and its decoded node once the tree decoded it (Tree.child).
	child uint64
	node  *node
}

// node is a decoded tree page that a writable tree changes. It is written to new pages on spill.
type node struct {
	leaf bool
	// id and pages locate the extent the node was decoded from (id 0: a new node).
	id     uint64
	pages  int
	alloc  uint64 // LSN of the commit that allocated the extent it was decoded from
	parent *node
	inodes []inode
	// src is, for a branch decoded from a one-page extent, that page while the node's elements
	// keep its keys in its order (nil once they change): spill then copies the page and patches
	// the child ids instead of encoding every element (spillPatched).
	src []byte
	// changed lists the elements whose child ids spill changed while src is set, for
	// spillPatched; past len(changed) entries it patches every element.
	changed  [4]uint16
	nchanged int
	// page is, for a leaf decoded lazily (a page leaf), the leaf page it was decoded from, and
	// edits the elements Put inserted since, in key order, none of whose keys is in the page.
	// A page leaf has no inodes: Tree.full merges page and edits into inodes before any use of
	// a leaf's elements but a Put of a new key, a Get and spill (spillPageLeaf), so that a
	// transaction that inserts a few keys into many leaves does not decode their elements.
	page  []byte
	edits []inode
	// unbalanced is set by Delete; rebalance merges small nodes before spill.
	unbalanced bool
	removed    bool
}

// decodeNode decodes page p (id) into a node whose memory comes from ws (nil: allocated). A leaf
// becomes a page leaf (node.page): its elements are decoded only when Tree.full needs them.
func decodeNode(ws *Workspace, id uint64, p []byte, pageSize int, parent *node) *node {
	n := ws.newNode()
	*n = node{leaf: pager.Type(p) == pager.PageLeaf, id: id, pages: len(p) / pageSize,
		alloc: pager.AllocLSN(p), parent: parent}
	if n.leaf {
		n.page = p
		return n
	}
	n.inodes = ws.inodeSlice(pager.Count(p), pager.Count(p))
	if n.pages == 1 {
		n.src = p
	}
	decodeBranchElements(n.inodes, p)
	return n
}

// materialize makes page leaf n an ordinary decoded leaf: its page's elements and its edits
// merged into inodes (memory from ws, with room for one insert). It does nothing to other nodes.
func (n *node) materialize(ws *Workspace) {
	if n.page == nil {
		return
	}
	count := n.count()
	n.inodes = ws.inodeSlice(count, count+1)
	mergeLeafElements(n.inodes, n.page, n.edits)
	n.page, n.edits = nil, nil
}

// count returns the number of elements of n, a page leaf's included.
func (n *node) count() int {
	if n.page != nil {
		return pager.Count(n.page) + len(n.edits)
	}
	return len(n.inodes)
}

// mergeLeafElements fills inodes, of length Count(p)+len(edits), with the elements of leaf page
// p and edits merged in key order (no key of edits is in p).
func mergeLeafElements(inodes []inode, p []byte, edits []inode) {
	j := 0
	for i := range pager.Count(p) {
		in := inode{}
		in.key, in.value, in.ovf, in.size = leafFields(p, p[elemFields+i*prefixedElemSize:][:elemSize])
		for j < len(edits) && bytes.Compare(edits[j].key, in.key) < 0 {
			inodes[i+j] = edits[j]
			j++
		}
		inodes[i+j] = in
	}
	copy(inodes[pager.Count(p)+j:], edits[j:])
}

// leafElemData returns the offset and length of the key and inline bytes (the value, or the
// overflow extent id) of element i of leaf page p.
func leafElemData(p []byte, i int) (off, n int) {
	e := elem(p, i)
	vn := le.Uint32(e[8:])
	if le.Uint32(e[0:])&flagOverflow != 0 {
		vn = 8
	}
	return int(le.Uint32(e[12:])), int(le.Uint32(e[4:]) + vn)
}

// pageLeafSize is the encoded size of page leaf n's elements merged, as node.size counts it.
func (n *node) pageLeafSize() int {
	s := pager.HeaderSize
	for i := range pager.Count(n.page) {
		_, dn := leafElemData(n.page, i)
		s += prefixedElemSize + dn
	}
	for i := range n.edits {
		s += n.edits[i].encodedSize(true)
	}
	return s
}

// encodeMerged writes the elements of leaf page p and edits merged in key order (no key of
// edits is in p) as a leaf page into b, byte for byte what encode writes for the merged
// elements (TestPageLeavesMatchEncoding), copying each element of p from p instead of decoding
// it. b is large enough; it need not be zeroed.
func encodeMerged(b []byte, p []byte, edits []inode, pageSize int, alloc uint64) {
	pc := pager.Count(p)
	count := pc + len(edits)
	pager.SetHeader(b, pager.PageLeaf, count, pageSize, alloc)
	pager.SetFlags(b, pager.FlagKeyPrefix)
	off := pager.HeaderSize + count*prefixedElemSize
	j := 0
	var nextEdit []byte // the key of edits[j], nil past the last
	if len(edits) > 0 {
		nextEdit = edits[0].key
	}
	for k := 0; k < count; k++ {
		at := pager.HeaderSize + k*prefixedElemSize
		i := k - j
		if nextEdit != nil && (i == pc || bytes.Compare(nextEdit, leafKey(p, i)) < 0) {
			off = putLeafElem(b, at, off, &edits[j])
			j++
			nextEdit = nil
			if j < len(edits) {
				nextEdit = edits[j].key
			}
			continue
		}
		src := pager.HeaderSize + i*prefixedElemSize
		copy(b[at:at+prefixedElemSize], p[src:src+prefixedElemSize]) // prefix, flags, sizes
		e := b[at+prefixSize : at+prefixedElemSize]
		le.PutUint32(e[0:], le.Uint32(e[0:])&flagOverflow)
		le.PutUint32(e[12:], uint32(off))
		doff, dn := leafElemData(p, i)
		off += copy(b[off:], p[doff:doff+dn])
	}
	clear(b[off:])
}

// decodeBranchElements fills inodes from the elements of branch page p, as branchKey and
// branchChild read them.
func decodeBranchElements(inodes []inode, p []byte) {
	for i := range inodes {
		e := p[elemFields+i*prefixedElemSize:][:elemSize]
		off, kn := le.Uint32(e[0:]), le.Uint32(e[4:])
		in := &inodes[i]
		in.key, in.child = p[off:off+kn:off+kn], le.Uint64(e[8:])
	}
}

// search returns, in a leaf, the index of the first key >= key and whether it is equal; in a
// branch, the index of the child that covers key.
func (n *node) search(key []byte) (int, bool) {
	lo, exact := searchInodes(n.inodes, key)
	if !n.leaf && !exact && lo > 0 {
		lo--
	}
	return lo, exact
}

// searchChild returns the index of the child of branch n that covers key, as search does. A
// branch that keeps its page (src: the elements have the page's keys in its order) is searched
// in the page, whose key prefixes decide most probes without loading a key.
func (n *node) searchChild(key []byte) int {
	if n.src != nil {
		return searchBranch(n.src, key)
	}
	i, _ := n.search(key)
	return i
}

// inlineSize is the number of bytes an element's value takes in the page.
func (in *inode) inlineSize(leaf bool) int {
	switch {
	case !leaf:
		return 0
	case in.ovf != 0:
		return 8
	}
	return len(in.value)
}

func (in *inode) encodedSize(leaf bool) int {
	return prefixedElemSize + len(in.key) + in.inlineSize(leaf)
}

func (n *node) size() int {
	s := pager.HeaderSize
	for i := range n.inodes {
		s += n.inodes[i].encodedSize(n.leaf)
	}
	return s
}

func (n *node) minKeys() int {
	if n.leaf {
		return 1
	}
	return 2
}

// encode writes inodes as a tree page into extent b, which is large enough, for the commit with
// LSN alloc. It writes every byte of b but the checksum (Seal's): b need not be zeroed.
func encode(b []byte, leaf bool, inodes []inode, pageSize int, alloc uint64) {
	typ := byte(pager.PageBranch)
	if leaf {
		typ = pager.PageLeaf
	}
	pager.SetHeader(b, typ, len(inodes), pageSize, alloc)
	pager.SetFlags(b, pager.FlagKeyPrefix)
	off := pager.HeaderSize + len(inodes)*prefixedElemSize
	for i := range inodes {
		in := &inodes[i]
		at := pager.HeaderSize + i*prefixedElemSize
		if leaf {
			off = putLeafElem(b, at, off, in)
			continue
		}
		binary.BigEndian.PutUint64(b[at:], keyPrefix(in.key))
		e := elem(b, i)
		le.PutUint32(e[0:], uint32(off))
		le.PutUint32(e[4:], uint32(len(in.key)))
		le.PutUint64(e[8:], in.child)
		off += copy(b[off:], in.key)
	}
	clear(b[off:])
}

// putLeafElem writes leaf element in at byte at of page b (its key prefix, then flags, key
// length, value length or overflow size, and body offset) and its body (key, then value or
// overflow page id) at off; it returns the offset after the body. encode and the write-out of
// page leaves both use it, so they write the same bytes.
func putLeafElem(b []byte, at, off int, in *inode) int {
	binary.BigEndian.PutUint64(b[at:], keyPrefix(in.key))
	e := b[at+prefixSize : at+prefixedElemSize]
	flags, vlen := uint32(0), uint32(len(in.value))
	if in.ovf != 0 {
		flags, vlen = flagOverflow, in.size
	}
	le.PutUint32(e[0:], flags)
	le.PutUint32(e[4:], uint32(len(in.key)))
	le.PutUint32(e[8:], vlen)
	le.PutUint32(e[12:], uint32(off))
	off += copy(b[off:], in.key)
	if in.ovf != 0 {
		le.PutUint64(b[off:], in.ovf)
		return off + 8
	}
	return off + copy(b[off:], in.value)
}

// splitGroups cuts inodes into the fewest groups that fit a page each, of about equal size, each
// with at least minKeys elements where possible. One group is returned when no split is needed.
// A cut goes where the running size crosses the next of the k-1 evenly spaced boundaries, or
// earlier when the group would overflow a page.
func splitGroups(groups [][]inode, inodes []inode, leaf bool, pageSize, minKeys int) [][]inode {
	groups = groups[:0]
	body := 0
	for i := range inodes {
		body += inodes[i].encodedSize(leaf)
	}
	k := (pager.HeaderSize + body + pageSize - 1) / pageSize
	if k <= 1 || len(inodes) < 2*minKeys {
		return append(groups, inodes)
	}
	start, cur, acc := 0, pager.HeaderSize, 0
	for i := range inodes {
		sz := inodes[i].encodedSize(leaf)
		boundary := (len(groups) + 1) * body / k
		cut := cur+sz > pageSize || acc+sz/2 > boundary
		if cut && i-start >= minKeys && len(inodes)-i >= minKeys {
			groups = append(groups, inodes[start:i:i])
			start, cur = i, pager.HeaderSize
		}
		cur += sz
		acc += sz
	}
	return append(groups, inodes[start:])
}

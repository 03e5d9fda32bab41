package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
)

// Tree is one version of the B+tree. A read-only Tree is a snapshot: it walks immutable pages and
// never changes. A writable Tree is a transaction's private copy-on-write view of a version: Put
// and Delete decode the nodes on the path into memory, and Commit writes every changed node to
// newly allocated pages, frees the pages they replace, and returns the new root. Untouched pages
// are shared between versions. A Tree is used by one goroutine at a time.
type Tree struct {
	pg       *pager.Pager
	root     uint64
	writable bool
	// Writable trees only.
	rootNode *node
	nodes    map[uint64]*node
	freed    []extent
	// allocated and spilled are set by Spill: the extents it wrote and the new root.
	allocated []extent
	spilled   uint64
	// groupBuf is spill's reused buffer of the groups a node is cut into.
	groupBuf [][]inode
	// mods counts changes so that cursors notice them and re-seek.
	mods uint64
	// warmed keeps the sums of warmElements, so that the compiler keeps its loads.
	warmed uint
	// ws is the memory of decoded nodes (writable trees; nil: allocate them).
	ws *Workspace
	// created lists the nodes split made (no page yet, so not in nodes), for rebalanceAll.
	created []*node
}

type extent struct {
	id    uint64
	pages int
	alloc uint64 // LSN of the commit that allocated it, 0 if unknown
}

// Open returns the tree whose root page is root (0: the empty tree) on pg. pg must check every
// extent it reads from the file with Validate (pager.Options.Validate): the page search and the
// cursor's leaf window read validated pages without bounds checks.
func Open(pg *pager.Pager, root uint64, writable bool) *Tree {
	t := &Tree{}
	t.Reset(pg, root, writable)
	return t
}

// Reset makes t the tree at root, dropping any uncommitted change and its workspace, so a Tree
// value can be reused without allocation (t.nodes is made when the first node is decoded). pg
// must validate extents as Open says.
func (t *Tree) Reset(pg *pager.Pager, root uint64, writable bool) {
	*t = Tree{pg: pg, root: root, writable: writable}
}

// UseWorkspace makes the writable tree t take the memory of its decoded nodes from ws until t is
// reset. The caller resets ws only when t holds no decoded node it will use (see Workspace).
func (t *Tree) UseWorkspace(ws *Workspace) { t.ws = ws }

// Root returns the root page id the tree was opened at (not changed before Commit).
func (t *Tree) Root() uint64 { return t.root }

// maxInline is the largest value in bytes stored inside a leaf page; larger values go to an
// overflow extent of their own.
func (t *Tree) maxInline() int { return t.pg.PageSize() / 4 }

// Get returns the value of key, valid as long as the tree's version is pinned.
func (t *Tree) Get(key []byte) (value []byte, found bool, err error) {
	if t.rootNode != nil {
		return t.getFromNode(t.rootNode, key)
	}
	return t.getFromPage(t.root, key)
}

// getFromPage looks key up in the subtree of page id (0: empty), walking pages only.
func (t *Tree) getFromPage(id uint64, key []byte) ([]byte, bool, error) {
	for depth := 0; id != 0; depth++ {
		if depth > MaxDepth {
			return nil, false, corruptf("page %d: tree deeper than %d levels (a cycle?)", id, MaxDepth)
		}
		p, err := t.treePage(id)
		if err != nil {
			return nil, false, err
		}
		if pager.Type(p) == pager.PageBranch {
			id = branchChild(p, searchBranch(p, key))
			continue
		}
		return t.getFromLeafPage(p, key)
	}
	return nil, false, nil
}

// getFromLeafPage looks key up in leaf page p.
func (t *Tree) getFromLeafPage(p []byte, key []byte) ([]byte, bool, error) {
	i := t.searchLeafPage(p, key)
	if i >= pager.Count(p) {
		return nil, false, nil
	}
	k, v, ovf, size := leafFields(p, elem(p, i)) // the element decoded once: key and value
	if !bytes.Equal(k, key) {
		return nil, false, nil
	}
	var err error
	if ovf != 0 {
		v, err = t.overflowValue(ovf, size)
	}
	return v, err == nil, err
}

// getFromNode looks key up below a decoded node, descending through decoded nodes and then pages.
func (t *Tree) getFromNode(n *node, key []byte) ([]byte, bool, error) {
	for !n.leaf {
		i := n.searchChild(key)
		c := n.inodes[i].node // a node Put split off has no page id: only the link finds it
		if c == nil {
			var ok bool
			if c, ok = t.nodes[n.inodes[i].child]; !ok {
				return t.getFromPage(n.inodes[i].child, key)
			}
		}
		n = c
	}
	if n.page != nil {
		if i, exact := searchInodes(n.edits, key); exact {
			return n.edits[i].value, true, nil // a new value: inline until spill
		}
		return t.getFromLeafPage(n.page, key)
	}
	i, exact := n.search(key)
	if !exact {
		return nil, false, nil
	}
	in := &n.inodes[i]
	if in.ovf != 0 {
		v, err := t.overflowValue(in.ovf, in.size)
		return v, err == nil, err
	}
	return in.value, true, nil
}

// searchLeafPage returns the index of the first key >= key in leaf page p after warming its
// element table (warmElements), for the leaf searches of reads: Get and Cursor.Seek. Whether
// the key there equals key is the caller's question (Get reads that element anyway, Seek does
// not ask). Branch pages are not warmed: on a cached 1,000,000-key tree the branches a search
// passes are mostly in the CPU's caches, and warming them too measured no different
// (docs/EXPERIMENTS.md, read-path-variants-2 and get-cost-by-level).
func (t *Tree) searchLeafPage(p []byte, key []byte) int {
	t.warmed += warmElements(p)
	return searchPage(p, key, false)
}

// searchBranch returns the index of the child of branch page p that covers key.
func searchBranch(p []byte, key []byte) int {
	return max(searchPage(p, key, true)-1, 0)
}

// searchPage returns the first index of tree page p whose key is > key (branch) or >= key
// (leaf). A probe loads the element's key only when its prefix equals key's, and reads the
// prefix without a bounds check: Validate proved the element table
// inside the page (and the encoder writes only such pages).
func searchPage(p []byte, key []byte, branch bool) int {
	lo, hi := 0, pager.Count(p)
	kp := keyPrefix(key)
	table := unsafe.Pointer(&p[pager.HeaderSize])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		ep := binary.BigEndian.Uint64((*[prefixSize]byte)(unsafe.Add(table, m*prefixedElemSize))[:])
		before := ep < kp
		if ep == kp {
			before = keySortsBefore(elemKey(p, m, branch), key, branch)
		}
		if before {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// keySortsBefore reports whether an element with key k lies before the position searchPage
// seeks: k < key, or k <= key in a branch.
func keySortsBefore(k, key []byte, branch bool) bool {
	c := bytes.Compare(k, key)
	return c < 0 || branch && c == 0
}

// elemKey returns the key of element i of tree page p, leaf or branch.
func elemKey(p []byte, i int, branch bool) []byte {
	if branch {
		return branchKey(p, i)
	}
	return leafKey(p, i)
}

// node returns the decoded node of page id, decoding it on first use.
func (t *Tree) node(id uint64, parent *node) (*node, error) {
	if n, ok := t.nodes[id]; ok {
		return n, nil
	}
	p, err := t.treePage(id)
	if err != nil {
		return nil, err
	}
	n := decodeNode(t.ws, id, p, t.pg.PageSize(), parent)
	if t.nodes == nil {
		t.nodes = make(map[uint64]*node)
	}
	t.nodes[id] = n
	return n, nil
}

// full makes n an ordinary decoded node if it is a page leaf (node.page): every use of a leaf's
// elements but Put's insert of a new key, Get and spill calls it first.
func (t *Tree) full(n *node) { n.materialize(t.ws) }

// child returns the decoded node of element i of branch n, decoding it on first use, and links it
// from the element so that spill finds the decoded children without a lookup per element.
func (t *Tree) child(n *node, i int) (*node, error) {
	if c := n.inodes[i].node; c != nil {
		return c, nil
	}
	c, err := t.node(n.inodes[i].child, n)
	if err != nil {
		return nil, err
	}
	n.inodes[i].node = c
	return c, nil
}

// leafFor decodes the path from the root to the leaf that covers key and returns the leaf.
func (t *Tree) leafFor(key []byte) (*node, error) {
	if t.rootNode == nil {
		if t.root == 0 {
			t.rootNode = t.ws.newNode()
			t.rootNode.leaf = true
		} else {
			n, err := t.node(t.root, nil)
			if err != nil {
				return nil, err
			}
			t.rootNode = n
		}
	}
	n := t.rootNode
	for depth := 0; !n.leaf; depth++ {
		if depth > MaxDepth {
			return nil, corruptf("page %d: tree deeper than %d levels (a cycle?)", n.id, MaxDepth)
		}
		i := n.searchChild(key)
		c, err := t.child(n, i)
		if err != nil {
			return nil, err
		}
		n = c
	}
	return n, nil
}

// Put sets key to value. The tree keeps key and value as given: the caller must not modify them
// afterwards (the root package passes copies).
func (t *Tree) Put(key, value []byte) error {
	if !t.writable {
		return fmt.Errorf("btree: put on a read-only tree")
	}
	n, err := t.leafFor(key)
	if err != nil {
		return err
	}
	if n.page != nil {
		if t.putInPageLeaf(n, key, value) {
			t.mods++
			return nil
		}
		t.full(n)
	}
	i, exact := n.search(key)
	if exact {
		t.freeOverflow(&n.inodes[i])
		n.inodes[i] = inode{key: n.inodes[i].key, value: value}
	} else {
		n.inodes = t.grown(n.inodes)
		copy(n.inodes[i+1:], n.inodes[i:])
		n.inodes[i] = inode{key: key, value: value}
		if len(n.inodes) > maxNodeElems {
			if err := t.split(n, i == len(n.inodes)-1); err != nil {
				return err
			}
		}
	}
	t.mods++
	return nil
}

// maxEdits bounds the edits of a page leaf: past it the leaf is materialized (node.page).
// Inserting into edits shifts them, and the merge at spill walks them beside the page.
const maxEdits = 32

// putInPageLeaf puts key into page leaf n's edits and reports true, or reports false when n must
// be materialized first: key is in the page, or the edits are full, or n would pass
// maxNodeElems (Put splits only ordinary nodes).
func (t *Tree) putInPageLeaf(n *node, key, value []byte) bool {
	pi := searchPage(n.page, key, false)
	if pi < pager.Count(n.page) && bytes.Equal(leafKey(n.page, pi), key) {
		return false
	}
	i, exact := searchInodes(n.edits, key)
	if exact {
		t.freeOverflow(&n.edits[i])
		n.edits[i] = inode{key: n.edits[i].key, value: value}
		return true
	}
	if len(n.edits) == maxEdits || n.count() >= maxNodeElems {
		return false
	}
	if n.edits == nil {
		n.edits = t.ws.inodeSlice(0, 4)
	}
	n.edits = t.grown(n.edits)
	copy(n.edits[i+1:], n.edits[i:])
	n.edits[i] = inode{key: key, value: value}
	return true
}

// searchInodes returns the index of the first element of the sorted inodes whose key is >= key,
// and whether it is equal.
func searchInodes(inodes []inode, key []byte) (int, bool) {
	lo, hi := 0, len(inodes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(inodes[m].key, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(inodes) && bytes.Equal(inodes[lo].key, key)
}

// maxNodeElems bounds the elements of a decoded node. Nodes are cut into pages when they are
// spilled, so without a bound one transaction that puts many keys under one leaf (a bulk load,
// CREATE INDEX on a full table) grows that leaf without end, and each insert shifts half of it:
// quadratic. 2,048 elements keep an insert's shift to about 80 KiB and still give spill several
// pages of elements to pack.
const maxNodeElems = 2048

// split cuts node n, which has grown past maxNodeElems, in two and links the new right half
// into the parent (a new root branch if n was the root), then splits the parent if that grew
// past the bound too. After an append (the new element is n's last) only that element moves,
// so that ascending loads leave full nodes behind, as SQLite's balance_quick does.
func (t *Tree) split(n *node, appended bool) error {
	for n != nil && len(n.inodes) > maxNodeElems {
		at := len(n.inodes) / 2
		if appended {
			at = len(n.inodes) - 1
		}
		right := t.ws.newNode()
		right.leaf = n.leaf
		right.inodes = t.ws.inodeSlice(len(n.inodes)-at, len(n.inodes)-at+1)
		copy(right.inodes, n.inodes[at:])
		clear(n.inodes[at:])
		n.inodes = n.inodes[:at]
		n.src = nil
		if !right.leaf {
			for i := range right.inodes {
				if c := right.inodes[i].node; c != nil {
					c.parent = right
				}
			}
		}
		p := n.parent
		if p == nil {
			p = t.ws.newNode()
			p.inodes = t.ws.inodeSlice(1, 2)
			p.inodes[0] = inode{key: n.inodes[0].key, child: n.id, node: n}
			n.parent = p
			t.rootNode = p
			t.created = append(t.created, p)
		}
		right.parent = p
		t.created = append(t.created, right)
		idx, err := childIndex(p, n)
		if err != nil {
			return err
		}
		p.inodes = t.grown(p.inodes)
		copy(p.inodes[idx+2:], p.inodes[idx+1:])
		p.inodes[idx+1] = inode{key: right.inodes[0].key, node: right}
		// The first element's key may be above its child's keys (a key smaller than every
		// key goes to child 0); the search needs the elements sorted, so the left half's
		// element takes its first key, which is below the right half's.
		p.inodes[idx].key = n.inodes[0].key
		p.src = nil
		n, appended = p, idx+1 == len(p.inodes)-1
	}
	return nil
}

// grown returns inodes one element longer. When they are full it moves them to a slice of the
// workspace with room for half as many more, not to the heap as append would: a leaf that carried
// commits insert into again and again fills up its decoded slice (decodeNode leaves room for one
// insert), and each append's new array was an allocation and a copy with write barriers.
func (t *Tree) grown(inodes []inode) []inode {
	if len(inodes) < cap(inodes) {
		return inodes[:len(inodes)+1]
	}
	s := t.ws.inodeSlice(len(inodes)+1, len(inodes)+len(inodes)/2+2)
	copy(s, inodes)
	return s
}

// Delete removes key and reports whether it was present.
func (t *Tree) Delete(key []byte) (bool, error) {
	if !t.writable {
		return false, fmt.Errorf("btree: delete on a read-only tree")
	}
	if t.root == 0 && t.rootNode == nil {
		return false, nil
	}
	n, err := t.leafFor(key)
	if err != nil {
		return false, err
	}
	t.full(n)
	i, exact := n.search(key)
	if !exact {
		return false, nil
	}
	t.freeOverflow(&n.inodes[i])
	n.inodes = append(n.inodes[:i], n.inodes[i+1:]...)
	n.unbalanced = true
	t.mods++
	return true, nil
}

func (t *Tree) freeOverflow(in *inode) {
	if in.ovf != 0 {
		hdr := pager.HeaderSize + int(in.size)
		t.freed = append(t.freed, extent{id: in.ovf, pages: (hdr + t.pg.PageSize() - 1) / t.pg.PageSize()})
	}
}

// Dirty reports whether the tree has uncommitted changes.
func (t *Tree) Dirty() bool { return t.mods != 0 }

func corruptf(format string, a ...any) error {
	return fmt.Errorf("btree: %s: %w", fmt.Sprintf(format, a...), errs.ErrCorrupt)
}

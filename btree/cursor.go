package btree

// Invariant of the fast paths of Next and Prev (the leaf window): while leafN > 0, the top frame
// is the leaf page that current last landed on and leafElems is the address of its element 0's
// fields (elements are prefixedElemSize apart). Every move that changes the top frame ends
// in current (which opens the window again, or closes it on a decoded node) or in end (which
// closes it). The fast paths read an element and slice its key and value without bounds checks:
// a page read from the file passed Validate, which proves that every element's key and value lie
// inside the page, and the encoder writes only such pages.

import (
	"bytes"
	"unsafe"

	"github.com/cairndb/cairn/pager"
)

// frame is one level of a cursor's path: a page, or a decoded node of a writable tree (never a
// page leaf: the cursor materializes one before it makes its frame, Tree.full).
type frame struct {
	page  []byte
	node  *node
	index int
}

func (f *frame) count() int {
	if f.node != nil {
		return len(f.node.inodes)
	}
	return pager.Count(f.page)
}

func (f *frame) leaf() bool {
	if f.node != nil {
		return f.node.leaf
	}
	return pager.Type(f.page) == pager.PageLeaf
}

func (f *frame) child(i int) uint64 {
	if f.node != nil {
		return f.node.inodes[i].child
	}
	return branchChild(f.page, i)
}

// Cursor walks the keys of a Tree in order. Keys and values it returns are valid as long as the
// tree's version is pinned. On a writable tree a cursor sees the tree's uncommitted changes; after
// a Put or Delete it continues from the last key it returned.
type Cursor struct {
	t     *Tree
	stack []frame
	// mods is t.mods when the cursor was positioned; lastKey is the key it is at.
	mods    uint64
	lastKey []byte
	err     error
	// The leaf window, for the fast paths of Next and Prev (see the invariant at the top of the
	// file): the element count of the top frame's leaf page and the address of element 0's
	// fields. leafN is 0 when there is no window.
	leafN     int
	leafElems unsafe.Pointer
	// stackBuf backs stack for trees of up to inlineDepth levels, so that a cursor is one
	// allocation (a Cursor must not be copied: its stack may point into it).
	stackBuf [inlineDepth]frame
}

// inlineDepth is the depth of the trees whose cursor path fits in the Cursor itself: 4 levels of
// 4 KiB pages hold some hundred million keys.
const inlineDepth = 4

// Cursor returns a cursor over t, positioned nowhere.
func (t *Tree) Cursor() *Cursor {
	c := &Cursor{}
	c.Init(t)
	return c
}

// Init makes c, which may be a zero Cursor or one no longer used, a cursor over t positioned
// nowhere: Tree.Cursor for a Cursor embedded in the caller's memory.
func (c *Cursor) Init(t *Tree) {
	*c = Cursor{t: t}
	c.stack = c.stackBuf[:0]
}

// Err returns the first error (an I/O error or corruption) the cursor met; the cursor reports the
// end of the keys after an error.
func (c *Cursor) Err() error { return c.err }

// First moves to the first key and returns it and its value; key is nil if the tree is empty.
func (c *Cursor) First() (key, value []byte) {
	c.stack = c.stack[:0]
	if !c.push(c.rootFrame()) {
		return c.end()
	}
	return c.descend(true)
}

// Last moves to the last key.
func (c *Cursor) Last() (key, value []byte) {
	c.stack = c.stack[:0]
	if !c.push(c.rootFrame()) {
		return c.end()
	}
	return c.descend(false)
}

// Seek moves to the first key >= key.
func (c *Cursor) Seek(key []byte) ([]byte, []byte) {
	c.stack = c.stack[:0]
	f, ok := c.rootFrame()
	for ok {
		if f.leaf() {
			f.index = c.searchLeaf(&f, key)
			c.stack = append(c.stack, f)
			if f.index >= f.count() {
				return c.next()
			}
			return c.current()
		}
		f.index = c.searchBranch(&f, key)
		if c.tooDeep() {
			return c.end()
		}
		c.stack = append(c.stack, f)
		f, ok = c.childOf(&f, f.index)
	}
	return c.end()
}

// Next moves to the next key.
//
// Its fast path is the step of a scan that stays inside one leaf page of an unchanged tree, to an
// element with a non-empty inline value: it reads that one element through the leaf window and
// slices the page without bounds checks (see the invariant at the top of the file), as
// stepInLeaf does for Prev. Leaf changes, overflow and empty values, decoded nodes of a write
// transaction and a tree changed since the last step take nextSlow.
func (c *Cursor) Next() ([]byte, []byte) {
	// stepInLeaf's work, written out: as a call it made full scans 15 % slower (docs/EXPERIMENTS.md, leaf-window).
	if len(c.stack) != 0 && c.t.mods == c.mods {
		top := &c.stack[len(c.stack)-1]
		if i := top.index + 1; i < c.leafN {
			e := (*[elemSize]byte)(unsafe.Add(c.leafElems, uintptr(i)*prefixedElemSize))
			flags, kn, vn, off := le.Uint32(e[0:]), le.Uint32(e[4:]), le.Uint32(e[8:]), le.Uint32(e[12:])
			if flags&flagOverflow == 0 && vn != 0 {
				data := unsafe.Pointer(unsafe.SliceData(top.page))
				k := unsafe.Slice((*byte)(unsafe.Add(data, off)), kn)
				top.index = i
				c.lastKey = k
				return k, unsafe.Slice((*byte)(unsafe.Add(data, off+kn)), vn)
			}
		}
	}
	return c.nextSlow()
}

// stepInLeaf moves to element i of the top frame's leaf page through the leaf window and returns
// its key and value; ok is false, and nothing moves, when i is outside the window or the value is
// empty (its address may lie one past the page's end) or in an overflow extent. The caller checked
// that the stack is not empty and the tree unchanged.
func (c *Cursor) stepInLeaf(i int) (key, value []byte, ok bool) {
	if uint(i) >= uint(c.leafN) {
		return nil, nil, false
	}
	e := (*[elemSize]byte)(unsafe.Add(c.leafElems, uintptr(i)*prefixedElemSize))
	flags, kn, vn, off := le.Uint32(e[0:]), le.Uint32(e[4:]), le.Uint32(e[8:]), le.Uint32(e[12:])
	if flags&flagOverflow != 0 || vn == 0 {
		return nil, nil, false
	}
	top := &c.stack[len(c.stack)-1]
	data := unsafe.Pointer(unsafe.SliceData(top.page))
	key = unsafe.Slice((*byte)(unsafe.Add(data, off)), kn)
	top.index = i
	c.lastKey = key
	return key, unsafe.Slice((*byte)(unsafe.Add(data, off+kn)), vn), true
}

// nextSlow is Next's general case: it re-seeks if the tree changed, then steps.
func (c *Cursor) nextSlow() ([]byte, []byte) {
	if !c.resync() {
		return c.end()
	}
	return c.next()
}

// Prev moves to the previous key.
func (c *Cursor) Prev() ([]byte, []byte) {
	if len(c.stack) != 0 && c.t.mods == c.mods {
		if k, v, ok := c.stepInLeaf(c.stack[len(c.stack)-1].index - 1); ok {
			return k, v
		}
	}
	if c.t.mods != c.mods && c.lastKey != nil {
		if k, _ := c.Seek(c.lastKey); k == nil {
			return c.Last()
		}
	}
	return c.prev()
}

// resync re-seeks after the tree changed under the cursor; it reports false at the end.
func (c *Cursor) resync() bool {
	if c.t.mods == c.mods || c.lastKey == nil {
		return len(c.stack) > 0
	}
	last := c.lastKey
	k, _ := c.Seek(last)
	if k == nil {
		return false
	}
	if !bytes.Equal(k, last) {
		// Seek already stands on the successor; step back so next lands on it.
		c.stack[len(c.stack)-1].index--
	}
	return true
}

// next advances from the current position without checking for changes.
func (c *Cursor) next() ([]byte, []byte) {
	for len(c.stack) > 0 {
		top := &c.stack[len(c.stack)-1]
		if top.index+1 < top.count() {
			top.index++
			if top.leaf() {
				return c.current()
			}
			return c.descendFrom(true)
		}
		c.stack = c.stack[:len(c.stack)-1]
	}
	return c.end()
}

// descendFrom goes down from the top frame's current child to the first (or last) key below it.
func (c *Cursor) descendFrom(first bool) ([]byte, []byte) {
	top := c.stack[len(c.stack)-1]
	if top.leaf() {
		return c.current()
	}
	if !c.push(c.childOf(&top, top.index)) {
		return c.end()
	}
	return c.descend(first)
}

// descend goes from the top frame to its first (or last) leaf key, skipping empty leaves.
func (c *Cursor) descend(first bool) ([]byte, []byte) {
	for {
		top := &c.stack[len(c.stack)-1]
		if top.count() == 0 {
			if first {
				return c.next()
			}
			return c.prev()
		}
		if !first {
			top.index = top.count() - 1
		}
		if top.leaf() {
			c.prefetchSiblingLeaf(first)
			return c.current()
		}
		if !c.push(c.childOf(top, top.index)) {
			return c.end()
		}
	}
}

// prefetchSiblingLeaf starts loading the first lines of the leaf page after the top one (its
// parent's next child; with forward false, the one before it), so that a scan finds that page
// arriving while it walks this one: leaves are separate allocations, scattered in memory, and the
// first touch of each was a quarter of a full scan's time. Only a sibling under the same parent
// page, and cached, is prefetched.
func (c *Cursor) prefetchSiblingLeaf(forward bool) {
	n := len(c.stack)
	if n < 2 {
		return
	}
	parent := &c.stack[n-2]
	i := parent.index - 1
	if forward {
		i = parent.index + 1
	}
	if parent.node != nil || i < 0 || i >= pager.Count(parent.page) {
		return
	}
	if addr := c.t.pg.CachedAddr(branchChild(parent.page, i)); addr != nil {
		prefetch(addr)
	}
}

// prev steps back without checking for changes.
func (c *Cursor) prev() ([]byte, []byte) {
	for len(c.stack) > 0 {
		top := &c.stack[len(c.stack)-1]
		if top.index > 0 {
			top.index--
			return c.descendFrom(false)
		}
		c.stack = c.stack[:len(c.stack)-1]
	}
	return c.end()
}

func (c *Cursor) push(f frame, ok bool) bool {
	if ok && c.tooDeep() {
		return false
	}
	if ok {
		c.stack = append(c.stack, f)
	}
	return ok
}

// tooDeep reports (and records as the cursor's error) a path longer than MaxDepth: only a
// damaged file, a branch that leads back to itself, makes one.
func (c *Cursor) tooDeep() bool {
	if len(c.stack) <= MaxDepth {
		return false
	}
	c.err = corruptf("tree deeper than %d levels (a cycle?)", MaxDepth)
	return true
}

func (c *Cursor) rootFrame() (frame, bool) {
	c.err = nil
	if c.t.rootNode != nil {
		c.t.full(c.t.rootNode)
		return frame{node: c.t.rootNode}, true
	}
	if c.t.root == 0 {
		return frame{}, false
	}
	return c.childFrame(c.t.root)
}

// childOf returns the frame of child i of branch frame f: the child's decoded node when f is a
// decoded node that links one (a node Put split off has no page yet), else childFrame of its id.
func (c *Cursor) childOf(f *frame, i int) (frame, bool) {
	if f.node != nil {
		if n := f.node.inodes[i].node; n != nil {
			c.t.full(n)
			return frame{node: n}, true
		}
	}
	return c.childFrame(f.child(i))
}

func (c *Cursor) childFrame(id uint64) (frame, bool) {
	if n, ok := c.t.nodes[id]; ok {
		c.t.full(n)
		return frame{node: n}, true
	}
	p, err := c.t.treePage(id)
	if err != nil {
		c.err = err
		return frame{}, false
	}
	return frame{page: p}, true
}

func (c *Cursor) searchLeaf(f *frame, key []byte) int {
	if f.node != nil {
		i, _ := f.node.search(key)
		return i
	}
	return c.t.searchLeafPage(f.page, key)
}

func (c *Cursor) searchBranch(f *frame, key []byte) int {
	if f.node != nil {
		i, _ := f.node.search(key)
		return i
	}
	return searchBranch(f.page, key)
}

// current returns the key and value at the top leaf frame.
func (c *Cursor) current() ([]byte, []byte) {
	f := &c.stack[len(c.stack)-1]
	var k, v []byte
	var ovf uint64
	var size uint32
	if f.node != nil {
		in := &f.node.inodes[f.index]
		k, v, ovf, size = in.key, in.value, in.ovf, in.size
	} else {
		k, v, ovf, size = leafFields(f.page, elem(f.page, f.index))
	}
	if ovf != 0 {
		var err error
		if v, err = c.t.overflowValue(ovf, size); err != nil {
			c.err = err
			return c.end()
		}
	}
	if v == nil {
		v = []byte{}
	}
	c.mods, c.lastKey = c.t.mods, k
	c.setLeafWindow(f)
	return k, v
}

// setLeafWindow opens the leaf window on f, the top frame, if it is a leaf page, and closes it
// otherwise.
func (c *Cursor) setLeafWindow(f *frame) {
	if f.node != nil {
		c.leafN = 0
		return
	}
	c.leafN, c.leafElems = pager.Count(f.page), unsafe.Pointer(&f.page[elemFields])
}

func (c *Cursor) end() ([]byte, []byte) {
	c.stack = c.stack[:0]
	c.lastKey = nil
	c.leafN = 0
	return nil, nil
}

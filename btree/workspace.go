package btree

// Invariant: a Workspace hands out memory to the writable trees of one write transaction at a
// time; Reset recycles everything it handed out, so it may run only once no tree holds a decoded
// node from it (the root package resets it as a write transaction begins, under the writer slot,
// after the previous transaction's trees were spilled or discarded).

// Chunk sizes of a Workspace, in elements. A single-put transaction on a three-level tree decodes
// about 150 elements; a chunk is capped so that the memory one large transaction needed is not
// kept for ever.
const (
	minInodeChunk = 1024
	maxInodeChunk = 16384 // 1 MiB of inodes
	nodeChunk     = 64
)

// Workspace is the memory of decoded nodes (the node values and their element slices) that the
// writable trees of successive write transactions reuse, so that the steady state of a commit
// does not allocate them. A tree gets it with UseWorkspace; a tree without one allocates. It is
// not safe for concurrent use: one write transaction at a time.
//
// Design: like a node free list of google/btree, but as an arena reset whole at each transaction,
// since a commit writes every decoded node to new pages and keeps none.
type Workspace struct {
	inodes     []inode
	usedInodes int
	nodes      []node
	usedNodes  int
}

// Reset makes all memory handed out reusable. REQUIRES: no tree that uses w holds decoded nodes.
func (w *Workspace) Reset() {
	// Clearing drops the references to keys and values, which would keep pages alive otherwise.
	clear(w.inodes[:w.usedInodes])
	clear(w.nodes[:w.usedNodes])
	w.usedInodes, w.usedNodes = 0, 0
}

// inodeSlice returns a zeroed slice of length n and capacity c >= n.
func (w *Workspace) inodeSlice(n, c int) []inode {
	if w == nil {
		return make([]inode, n, c)
	}
	if w.usedInodes+c > len(w.inodes) {
		// A new chunk; the old one stays alive as long as the nodes that use it.
		w.inodes = make([]inode, max(min(2*len(w.inodes), maxInodeChunk), minInodeChunk, c))
		w.usedInodes = 0
	}
	s := w.inodes[w.usedInodes : w.usedInodes+n : w.usedInodes+c]
	w.usedInodes += c
	return s
}

// newNode returns a zeroed node.
func (w *Workspace) newNode() *node {
	if w == nil {
		return &node{}
	}
	if w.usedNodes == len(w.nodes) {
		w.nodes = make([]node, nodeChunk)
		w.usedNodes = 0
	}
	n := &w.nodes[w.usedNodes]
	w.usedNodes++
	return n
}

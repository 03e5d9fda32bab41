package btree

// Invariant: a Workspace hands out memory to the writable trees of one write transaction at a
// time (or of a chain of them that hand decoded trees from one to the next); Reset recycles
// everything it handed out, so it may run only once no tree holds a decoded node from it that
// will be used again (the root package resets it when a write transaction ends with nothing
// held, when held commits are materialized as pages, and after recovery).

// Chunk sizes of a Workspace, in elements. A single-put transaction on a three-level tree decodes
// about 300 elements, a transaction of 1,000 random puts on a 100,000-key tree about 35,000.
// Chunks are reused from one transaction to the next up to maxChunks of each kind (5 MiB of
// 80-byte elements, about 6 MiB with nodes and extent lists); a larger transaction allocates the
// rest, and the garbage collector takes it back.
const (
	inodeChunk = 4096
	nodeChunk  = 256
	maxChunks  = 16
)

// Workspace is the memory of decoded nodes (the node values and their element slices) that the
// writable trees of successive write transactions reuse, so that the steady state of a commit
// does not allocate them. A tree gets it with UseWorkspace; a tree without one allocates. It is
// not safe for concurrent use: one write transaction at a time.
//
// Design: like a node free list of google/btree, but as an arena reset whole at each transaction,
// since a commit writes every decoded node to new pages and keeps none.
type Workspace struct {
	inodes  arena[inode]
	nodes   arena[node]
	extents arena[extent]
}

// Reset makes all memory handed out reusable. REQUIRES: no tree that uses w holds decoded nodes.
func (w *Workspace) Reset() {
	w.inodes.reset()
	w.nodes.reset()
	w.extents.reset()
}

// extentList returns an empty list of extents with room for a small commit's (a tree's freed or
// allocated extents).
func (w *Workspace) extentList() []extent {
	if w == nil {
		return nil
	}
	return w.extents.take(0, 16, 1024)
}

// inodeSlice returns a zeroed slice of length n and capacity c >= n.
func (w *Workspace) inodeSlice(n, c int) []inode {
	if w == nil {
		return make([]inode, n, c)
	}
	return w.inodes.take(n, c, inodeChunk)
}

// newNode returns a zeroed node.
func (w *Workspace) newNode() *node {
	if w == nil {
		return &node{}
	}
	return &w.nodes.take(1, 1, nodeChunk)[0]
}

// arena hands out zeroed slices of chunks of chunkLen elements, at most maxChunks of them kept.
type arena[T any] struct {
	// chunks[cur][:used] is handed out, and so is every chunk before cur.
	chunks    [][]T
	cur, used int
}

// take returns a zeroed slice of length n and capacity c >= n.
func (a *arena[T]) take(n, c, chunkLen int) []T {
	if c > chunkLen {
		return make([]T, n, c)
	}
	if a.cur < len(a.chunks) && a.used+c > chunkLen {
		a.cur, a.used = a.cur+1, 0
	}
	if a.cur == len(a.chunks) {
		if len(a.chunks) == maxChunks {
			return make([]T, n, c) // past what the workspace keeps
		}
		a.chunks = append(a.chunks, make([]T, chunkLen))
	}
	s := a.chunks[a.cur][a.used : a.used+n : a.used+c]
	a.used += c
	return s
}

// reset makes every chunk reusable, clearing what was handed out: that drops the references to
// keys, values and nodes, which would keep pages alive otherwise.
func (a *arena[T]) reset() {
	for i := 0; i < a.cur && i < len(a.chunks); i++ {
		clear(a.chunks[i])
	}
	if a.cur < len(a.chunks) {
		clear(a.chunks[a.cur][:a.used])
	}
	a.cur, a.used = 0, 0
}

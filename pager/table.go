package pager

// Invariant: the page table maps a page id to the in-memory extent that the id holds in every
// version that can still reach it. An id is re-bound to new content only after the free-page rules
// (see free.go) proved that no pinned version and no durable meta page reaches its old content, so
// readers resolve ids without locks: one atomic load of the chunk directory, one of the entry.

import (
	"sync"
	"sync/atomic"
)

const chunkShift = 12
const chunkLen = 1 << chunkShift

// frame is one cached extent. data is immutable once the extent is sealed and published.
type frame struct {
	data []byte
	// ref is the CLOCK reference bit, set by readers on every hit.
	ref atomic.Bool
	// dirty is set while the extent is not in the file (allocated since the last checkpoint); a
	// dirty frame is never evicted.
	dirty atomic.Bool
}

type chunk [chunkLen]atomic.Pointer[frame]

// pageTable is a chunked array of atomic pointers indexed by page id.
type pageTable struct {
	dir  atomic.Pointer[[]*chunk]
	grow sync.Mutex
}

func (t *pageTable) load(id uint64) *frame {
	d := t.dir.Load()
	if d == nil || id>>chunkShift >= uint64(len(*d)) {
		return nil
	}
	return (*d)[id>>chunkShift][id&(chunkLen-1)].Load()
}

// slot returns the entry for id, growing the directory if needed.
func (t *pageTable) slot(id uint64) *atomic.Pointer[frame] {
	ci := id >> chunkShift
	if d := t.dir.Load(); d != nil && ci < uint64(len(*d)) {
		return &(*d)[ci][id&(chunkLen-1)]
	}
	t.grow.Lock()
	defer t.grow.Unlock()
	var old []*chunk
	if d := t.dir.Load(); d != nil {
		old = *d
	}
	if ci >= uint64(len(old)) {
		nd := make([]*chunk, ci+1, 2*(ci+1))
		copy(nd, old)
		for i := len(old); i < len(nd); i++ {
			nd[i] = new(chunk)
		}
		t.dir.Store(&nd)
		old = nd
	}
	return &old[ci][id&(chunkLen-1)]
}

// install stores f for id unless another frame is there; it returns the frame now cached.
func (t *pageTable) install(id uint64, f *frame) *frame {
	s := t.slot(id)
	if s.CompareAndSwap(nil, f) {
		return f
	}
	if cur := s.Load(); cur != nil {
		return cur
	}
	return f
}

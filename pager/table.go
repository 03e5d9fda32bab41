package pager

// Invariant: the page table maps a page id to the in-memory extent that the id holds in every
// version that can still reach it. An id is re-bound to new content only after the free-page rules
// (see free.go) proved that no pinned version and no durable meta page reaches its old content, so
// readers resolve ids without locks: one atomic load of the chunk directory, one of the slot's
// data pointer, then the extent itself.
//
// A slot holds the extent twice: fr, the frame that the owner side (allocation, checkpoint,
// eviction) works with, and data, a copy of the frame's data pointer for readers, on the same
// cache line as the CLOCK bit. Readers thus touch one line of the table per page instead of the
// table and a separately allocated frame: a cached 1,000,000-key get walks four levels, and the
// frame load was one more cache miss per level. data is stored after fr is set and cleared (by
// compare-and-swap) after fr is cleared, so a non-nil data is always the content of id in the
// versions that reach it: either the current frame's or, for a moment, that of the frame just
// evicted, whose bytes are the same.

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

const chunkShift = 12
const chunkLen = 1 << chunkShift

// frame is one cached extent. data is immutable once the extent is sealed and published.
type frame struct {
	data []byte
	// dirty is set while the extent is not in the file (allocated since the last checkpoint); a
	// dirty frame is never evicted.
	dirty atomic.Bool
}

// slot is the table entry of one page id, 32 bytes so that two fill a cache line.
type slot struct {
	data atomic.Pointer[byte] // first byte of fr.data, nil when not cached (reader side)
	fr   atomic.Pointer[frame]
	// ref is the CLOCK reference bit, set by readers on a hit and cleared by the evictor.
	ref atomic.Uint32
	_   [12]byte
}

type chunk [chunkLen]slot

// pageTable is a chunked array of slots indexed by page id.
type pageTable struct {
	dir  atomic.Pointer[[]*chunk]
	grow sync.Mutex
}

// get returns the cached extent at id, or nil, for a reader, and marks it referenced. The
// extent's length comes from its header, which is valid once the extent is sealed: readers only
// reach published extents.
func (t *pageTable) get(id uint64, pageSize int) []byte {
	s := t.find(id)
	if s == nil {
		return nil
	}
	b := s.data.Load()
	if b == nil {
		return nil
	}
	if s.ref.Load() == 0 {
		s.ref.Store(1)
	}
	head := unsafe.Slice(b, HeaderSize)
	return unsafe.Slice(b, extentPages(head)*uint64(pageSize))
}

// find returns the slot of id, or nil if the table has none yet (it never grows the table).
func (t *pageTable) find(id uint64) *slot {
	d := t.dir.Load()
	if d == nil || id>>chunkShift >= uint64(len(*d)) {
		return nil
	}
	return &(*d)[id>>chunkShift][id&(chunkLen-1)]
}

// addr returns the address of the extent cached at id, or nil, without touching the extent or
// its reference bit.
func (t *pageTable) addr(id uint64) unsafe.Pointer {
	if s := t.find(id); s != nil {
		return unsafe.Pointer(s.data.Load())
	}
	return nil
}

// load returns the frame cached for id, or nil.
func (t *pageTable) load(id uint64) *frame {
	if s := t.find(id); s != nil {
		return s.fr.Load()
	}
	return nil
}

// slot returns the entry for id, growing the directory if needed.
func (t *pageTable) slot(id uint64) *slot {
	if s := t.find(id); s != nil {
		return s
	}
	ci := id >> chunkShift
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
	if s.fr.CompareAndSwap(nil, f) {
		s.data.Store(&f.data[0])
		return f
	}
	if cur := s.fr.Load(); cur != nil {
		return cur
	}
	return f
}

// replace binds id to f (new content) and returns the frame it replaced, or nil.
func (t *pageTable) replace(id uint64, f *frame) *frame {
	s := t.slot(id)
	old := s.fr.Swap(f)
	s.data.Store(&f.data[0])
	s.ref.Store(0)
	return old
}

// drop removes f from id's slot if it is still there, and reports whether it was.
func (s *slot) drop(f *frame) bool {
	if !s.fr.CompareAndSwap(f, nil) {
		return false
	}
	s.data.CompareAndSwap(&f.data[0], nil)
	return true
}

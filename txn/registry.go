package txn

// Invariant (publish/pin race): a reader that uses version V is counted by every Oldest call that
// could let V's pages be reused. Pin stores V in its slot and then re-reads the published version,
// retrying until the two agree; Oldest is given the published version loaded BEFORE it scans the
// slots. If the scan missed the reader's store, that store (and so the reader's re-read) came after
// the scan, which came after the caller's load of the published version; the published version only
// moves forward, so the reader's V is at least the value Oldest starts from. Go's atomics are
// sequentially consistent, which this argument needs. TestPinnedVersionIsNeverBelowOldest checks it.

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/invariants"
)

// slotsPerP is the number of slots of each P's group: readers that stay open across goroutine
// switches can fill a P's group, after which Pin tries the other groups and then a overflow list.
const slotsPerP = 8

// Slot is one reader registration: the pinned LSN, and a value of type T that its current owner
// may use while it holds the slot (the root package keeps a reusable read transaction there).
type Slot[T any] struct {
	// pinned is LSN+1 of the pinned version, 0 when the slot is free.
	pinned atomic.Uint64
	Value  T
	// pad keeps this slot's Value and the next slot's pinned on different cache lines.
	_ [64]byte
}

// LSN returns the LSN the slot pins; the caller owns the slot.
func (s *Slot[T]) LSN() uint64 { return s.pinned.Load() - 1 }

// Registry records which versions readers have pinned, in per-P groups of slots so that pinning
// and unpinning write only to a cache line of the reader's own processor. The oldest pinned version
// is found by a scan on the reclaimer's side. It is safe for concurrent use; the zero value is not
// usable: call NewRegistry.
type Registry[T any] struct {
	groups     []group[T]
	overflowMu sync.Mutex
	overflow   atomic.Pointer[[]*Slot[T]]
}

type group[T any] struct {
	slots [slotsPerP]Slot[T]
}

// NewRegistry returns a registry with one group of slots per P (runtime.GOMAXPROCS).
func NewRegistry[T any]() *Registry[T] {
	return &Registry[T]{groups: make([]group[T], max(1, runtime.GOMAXPROCS(0)))}
}

// Pin registers a reader of the version whose LSN published returns, and returns the slot and
// that LSN. published must return the currently published version's LSN (an atomic load): Pin
// calls it until it sees the same version before and after registering. Unpin the slot when the
// reader ends, from any goroutine.
func (r *Registry[T]) Pin(published func() uint64) (*Slot[T], uint64) {
	v := published()
	s := r.claim(v + 1)
	for {
		w := published()
		if w == v {
			return s, v
		}
		v = w
		s.pinned.Store(v + 1)
	}
}

// claim takes a free slot, preferring the current P's group, and stores val in it.
func (r *Registry[T]) claim(val uint64) *Slot[T] {
	pid := procPin()
	g := &r.groups[pid%len(r.groups)]
	for i := range g.slots {
		if s := &g.slots[i]; s.pinned.Load() == 0 && s.pinned.CompareAndSwap(0, val) {
			procUnpin()
			return s
		}
	}
	procUnpin()
	return r.claimSlow(val)
}

// claimSlow searches every group and then the overflow list, adding a slot to it if all are taken.
func (r *Registry[T]) claimSlow(val uint64) *Slot[T] {
	for gi := range r.groups {
		for i := range r.groups[gi].slots {
			if s := &r.groups[gi].slots[i]; s.pinned.CompareAndSwap(0, val) {
				return s
			}
		}
	}
	r.overflowMu.Lock()
	defer r.overflowMu.Unlock()
	var list []*Slot[T]
	if p := r.overflow.Load(); p != nil {
		list = *p
	}
	for _, s := range list {
		if s.pinned.CompareAndSwap(0, val) {
			return s
		}
	}
	s := new(Slot[T])
	s.pinned.Store(val)
	grown := append(list[:len(list):len(list)], s)
	r.overflow.Store(&grown)
	return s
}

// Unpin ends the reader registered in s.
func (r *Registry[T]) Unpin(s *Slot[T]) {
	if invariants.Enabled {
		assertPinned(s)
	}
	s.pinned.Store(0)
}

// Oldest returns the smallest pinned LSN, or published if it is smaller or nothing is pinned.
// REQUIRES: published was loaded before the call (see the invariant above).
func (r *Registry[T]) Oldest(published uint64) uint64 {
	oldest := published
	r.each(func(lsn uint64) { oldest = min(oldest, lsn) })
	return oldest
}

// Pinned appends the distinct pinned LSNs, ascending, to buf and returns it.
func (r *Registry[T]) Pinned(buf []uint64) []uint64 {
	r.each(func(lsn uint64) { buf = append(buf, lsn) })
	slices.Sort(buf)
	return slices.Compact(buf)
}

// Active returns the number of pinned readers.
func (r *Registry[T]) Active() int {
	n := 0
	r.each(func(uint64) { n++ })
	return n
}

// each calls fn with the LSN of every pinned slot.
func (r *Registry[T]) each(fn func(lsn uint64)) {
	for gi := range r.groups {
		for i := range r.groups[gi].slots {
			if p := r.groups[gi].slots[i].pinned.Load(); p != 0 {
				fn(p - 1)
			}
		}
	}
	if list := r.overflow.Load(); list != nil {
		for _, s := range *list {
			if p := s.pinned.Load(); p != 0 {
				fn(p - 1)
			}
		}
	}
}

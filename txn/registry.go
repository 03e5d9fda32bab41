package txn

// Invariant (publish/pin race): a reader that pins version V is counted by every Oldest call that
// could let V's pages be reused. Pin loads the published version and records it under one lock;
// Oldest takes the same lock and includes the published version it reads there. A reader that
// pinned before Oldest is counted; one that pins after loads a version no older than the one
// Oldest returned, because the published version only moves forward.

import "sync"

// Registry counts pinned versions by LSN. It is safe for concurrent use.
//
// This first version is a mutex and a map: correct, simple, and a shared cache line per begin/end.
// Issue 4 replaces it with per-P slots; the contract stays the same.
type Registry struct {
	mu     sync.Mutex
	pinned map[uint64]int
	active int
}

// Pin records a reader of the version that load returns (called under the registry's lock) and
// returns that version's LSN together with load's result.
func Pin[V any](r *Registry, load func() (V, uint64)) V {
	r.mu.Lock()
	v, lsn := load()
	if r.pinned == nil {
		r.pinned = make(map[uint64]int)
	}
	r.pinned[lsn]++
	r.active++
	r.mu.Unlock()
	return v
}

// Unpin ends one reader of the version at lsn.
func (r *Registry) Unpin(lsn uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pinned[lsn]--; r.pinned[lsn] <= 0 {
		delete(r.pinned, lsn)
	}
	r.active--
}

// Oldest returns the smallest pinned LSN, or published() if it is smaller or nothing is pinned.
// published is read under the registry's lock (see the invariant above).
func (r *Registry) Oldest(published func() uint64) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	oldest := published()
	for lsn := range r.pinned {
		oldest = min(oldest, lsn)
	}
	return oldest
}

// Active returns the number of pinned readers.
func (r *Registry) Active() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active
}

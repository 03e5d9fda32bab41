package pager

// Free-page rules. A page id freed by the commit with LSN L (its content is not part of version L
// or any later version) may be handed out again only when
//   1. no reader can reach it: the published version is at L or later (every version a new reader
//      can pin is), and no pinned version V has A <= V < L, where A is the LSN of the commit that
//      allocated the page (versions before A never contained it). Tree pages carry A in their
//      header; an overflow extent freed without being read counts as A = 0, so every pinned
//      version below L holds it. So a long reader holds only the pages of its own snapshot that
//      were freed after it began, not everything freed since: the file does not grow with churn
//      while a reader stays open.
//   2. the last durable meta page does not reference it: either L <= the durable checkpoint LSN,
//      or the page was never written to the file (allocated and freed between checkpoints).
// A checkpoint never writes over a page the last durable meta page references, so a crash during
// a checkpoint always leaves that meta page's tree intact.

import (
	"slices"
	"sort"
)

// pendingFree is an extent freed by the commit with LSN lsn, allocated by the commit with LSN
// alloc (0: unknown).
type pendingFree struct {
	lsn   uint64
	alloc uint64
	ids   []uint64
}

// freeList holds the reusable ids (sorted descending, so the lowest id pops from the end) and the
// freed ids waiting for the rules: fresh ones (never written; rule 1 only) and durable ones
// (written to the file; rules 1 and 2, kept in LSN order).
type freeList struct {
	ids     []uint64
	fresh   []pendingFree
	durable []pendingFree
}

// take removes and returns the first id of a run of n consecutive free ids, or 0.
func (l *freeList) take(n uint64) uint64 {
	if n == 1 && len(l.ids) > 0 {
		id := l.ids[len(l.ids)-1]
		l.ids = l.ids[:len(l.ids)-1]
		return id
	}
	// ids descending: a run of n ids starting at ids[i] (the lowest) is ids[i-n+1..i].
	run := uint64(1)
	for i := len(l.ids) - 1; i >= 0; i-- {
		if i < len(l.ids)-1 && l.ids[i] == l.ids[i+1]+1 {
			run++
		} else {
			run = 1
		}
		if run == n {
			start := l.ids[i+int(n)-1]
			l.ids = slices.Delete(l.ids, i, i+int(n))
			return start
		}
	}
	return 0
}

// add makes ids reusable (it sorts ids in place: the caller gives them up). It merges them into
// the list from the back, so a release costs O(new log new + list) and allocates only to grow.
func (l *freeList) add(ids []uint64) {
	if len(ids) == 0 {
		return
	}
	slices.SortFunc(ids, descending)
	n, m := len(l.ids), len(ids)
	l.ids = slices.Grow(l.ids, m)[:n+m]
	i, j := n-1, m-1
	for k := n + m - 1; j >= 0; k-- { // place the smallest remaining id at the end
		if i >= 0 && l.ids[i] < ids[j] {
			l.ids[k], i = l.ids[i], i-1
		} else {
			l.ids[k], j = ids[j], j-1
		}
	}
}

func descending(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// Readers describes who may still read old versions: the published version (every version from it
// on may be pinned by a new reader) and the versions pinned now, ascending.
type Readers struct {
	Published uint64
	Pinned    []uint64
}

// holds reports whether a reader may reach a page allocated at alloc and freed at lsn.
func (r Readers) holds(alloc, lsn uint64) bool {
	if r.Published < lsn {
		return true
	}
	i := sort.Search(len(r.Pinned), func(i int) bool { return r.Pinned[i] >= alloc })
	return i < len(r.Pinned) && r.Pinned[i] < lsn
}

// release moves to ids every pending extent whose rules hold for the readers and the durable
// checkpoint LSN, and returns the ids it moved appended to ready (a buffer the caller reuses).
func (l *freeList) release(ready []uint64, r Readers, durable uint64) []uint64 {
	keep := l.fresh[:0]
	for _, p := range l.fresh {
		if r.holds(p.alloc, p.lsn) {
			keep = append(keep, p)
		} else {
			ready = append(ready, p.ids...)
		}
	}
	clear(l.fresh[len(keep):])
	l.fresh = keep
	// Durable extents are in LSN order: those freed after the checkpoint cannot go yet.
	n := 0
	for n < len(l.durable) && l.durable[n].lsn <= durable {
		n++
	}
	keep = l.durable[:0]
	for _, p := range l.durable[:n] {
		if r.holds(p.alloc, p.lsn) {
			keep = append(keep, p)
		} else {
			ready = append(ready, p.ids...)
		}
	}
	keep = append(keep, l.durable[n:]...)
	clear(l.durable[len(keep):])
	l.durable = keep
	l.add(ready)
	return ready
}

// pendingCount is the number of ids waiting for reuse.
func (l *freeList) pendingCount() int {
	n := 0
	for _, q := range [][]pendingFree{l.fresh, l.durable} {
		for _, p := range q {
			n += len(p.ids)
		}
	}
	return n
}

// onDisk returns every id that is free in the file as of the newest version: reusable or pending.
func (l *freeList) onDisk() []uint64 {
	all := slices.Clone(l.ids)
	for _, q := range [][]pendingFree{l.fresh, l.durable} {
		for _, p := range q {
			all = append(all, p.ids...)
		}
	}
	slices.Sort(all)
	return all
}

// moveToDurable moves the pending extent starting at id from the fresh to the durable queue (it
// was written to the file after it was freed), keeping the durable queue in LSN order.
func (l *freeList) moveToDurable(id uint64) {
	i := slices.IndexFunc(l.fresh, func(p pendingFree) bool { return p.ids[0] == id })
	if i < 0 {
		return
	}
	p := l.fresh[i]
	l.fresh = slices.Delete(l.fresh, i, i+1)
	j, _ := slices.BinarySearchFunc(l.durable, p.lsn, func(q pendingFree, lsn uint64) int {
		switch {
		case q.lsn < lsn:
			return -1
		case q.lsn > lsn:
			return 1
		}
		return 0
	})
	l.durable = slices.Insert(l.durable, j, p)
}

// pushPending records an extent freed at lsn and allocated at alloc (0: unknown).
func pushPending(q []pendingFree, lsn, alloc uint64, ids []uint64) []pendingFree {
	return append(q, pendingFree{lsn: lsn, alloc: alloc, ids: ids})
}

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
	"cmp"
	"slices"
	"sort"
)

// pendingFree is the extent of n pages at id, freed by the commit with LSN lsn and allocated by
// the commit with LSN alloc (0: unknown). It holds no pointer, so queues of them are cheap to move.
type pendingFree struct {
	lsn   uint64
	alloc uint64
	id    uint64
	n     uint64
}

// appendIDs appends the extent's page ids to dst.
func (p pendingFree) appendIDs(dst []uint64) []uint64 {
	for i := range p.n {
		dst = append(dst, p.id+i)
	}
	return dst
}

// freeList holds the reusable ids (sorted descending, so the lowest id pops from the end) and the
// freed extents waiting for the rules, in three queues:
//   - fresh: never written (rule 1 only), in LSN order;
//   - durable: written to the file (rules 1 and 2), in LSN order;
//   - held: taken off the front of fresh or durable once the published version and the durable
//     checkpoint had passed them, but still reachable by a pinned version (rule 1 alone).
//
// Commits free in LSN order, so a reclaim pops the fronts of fresh and durable only while their
// LSN is published (and checkpointed): the extents of versions not yet published, which pile up
// behind a batch of concurrent commits, are never looked at until then. Only held is scanned
// whole, and it is empty unless readers pin old versions.
type freeList struct {
	ids     []uint64
	fresh   []pendingFree
	durable []pendingFree
	held    []pendingFree
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
// the list from the back, so a reclaim costs O(new log new + list) and allocates only to grow.
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

// reclaim moves to ids every pending extent whose rules hold for the readers and the durable
// checkpoint LSN, and returns the ids it moved appended to ready (a buffer the caller reuses).
func (l *freeList) reclaim(ready []uint64, r Readers, durable uint64) []uint64 {
	keep := l.held[:0]
	for _, p := range l.held {
		if r.holds(p.alloc, p.lsn) {
			keep = append(keep, p)
		} else {
			ready = p.appendIDs(ready)
		}
	}
	l.held = keep
	ready, l.fresh = l.popPassed(ready, l.fresh, r, r.Published)
	ready, l.durable = l.popPassed(ready, l.durable, r, min(durable, r.Published))
	l.add(ready)
	return ready
}

// popPassed takes the extents of queue q freed at or before LSN upTo off its front: to ready when
// no reader holds them, else to held. It returns ready and what is left of q.
func (l *freeList) popPassed(ready []uint64, q []pendingFree, r Readers, upTo uint64) ([]uint64, []pendingFree) {
	i := 0
	for ; i < len(q) && q[i].lsn <= upTo; i++ {
		if r.holds(q[i].alloc, q[i].lsn) {
			l.held = append(l.held, q[i])
		} else {
			ready = q[i].appendIDs(ready)
		}
	}
	return ready, q[i:]
}

// pendingCount is the number of ids waiting for reuse.
func (l *freeList) pendingCount() int {
	n := 0
	for _, q := range [][]pendingFree{l.fresh, l.durable, l.held} {
		for _, p := range q {
			n += int(p.n)
		}
	}
	return n
}

// pending appends every id waiting for reuse to dst.
func (l *freeList) pending(dst []uint64) []uint64 {
	for _, q := range [][]pendingFree{l.fresh, l.durable, l.held} {
		for _, p := range q {
			dst = p.appendIDs(dst)
		}
	}
	return dst
}

// onDisk returns every id that is free in the file as of the newest version: reusable or pending.
func (l *freeList) onDisk() []uint64 {
	all := l.pending(slices.Clone(l.ids))
	slices.Sort(all)
	return all
}

// moveToDurable makes the pending extent starting at id wait for rule 2 (it was written to the
// file after it was freed): it moves from fresh, or from held if a reader's pin got it there, to
// the durable queue, keeping that queue in LSN order.
func (l *freeList) moveToDurable(id uint64) {
	p, ok := removeExtent(&l.fresh, id)
	if !ok {
		if p, ok = removeExtent(&l.held, id); !ok {
			return
		}
	}
	j, _ := slices.BinarySearchFunc(l.durable, p.lsn, func(q pendingFree, lsn uint64) int {
		return cmp.Compare(q.lsn, lsn)
	})
	l.durable = slices.Insert(l.durable, j, p)
}

// removeExtent removes the pending extent starting at id from queue q and returns it.
func removeExtent(q *[]pendingFree, id uint64) (pendingFree, bool) {
	i := slices.IndexFunc(*q, func(p pendingFree) bool { return p.id == id })
	if i < 0 {
		return pendingFree{}, false
	}
	p := (*q)[i]
	*q = slices.Delete(*q, i, i+1)
	return p, true
}

// pushPending records an extent freed at lsn and allocated at alloc (0: unknown).
func pushPending(q []pendingFree, lsn, alloc, id, n uint64) []pendingFree {
	return append(q, pendingFree{lsn: lsn, alloc: alloc, id: id, n: n})
}

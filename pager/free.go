package pager

// Free-page rules. A page id freed by the commit with LSN L (its content is not part of version L
// or any later version) may be handed out again only when
//   1. every pinned version is at LSN >= L (the oldest reader is past L), and
//   2. the last durable meta page does not reference it: either L <= the durable checkpoint LSN, or
//      the page was never written to the file (it was allocated and freed between checkpoints).
// A checkpoint never writes over a page the last durable meta page references, so a crash during
// a checkpoint always leaves that meta page's tree intact.

import "slices"

// pendingFree is a set of page ids freed by the commit with LSN lsn.
type pendingFree struct {
	lsn uint64
	ids []uint64
}

// freeList holds the reusable ids (sorted descending, so the lowest id pops from the end) and the
// ids waiting for rule 1 (fresh: never written) or rules 1 and 2 (durable: in a checkpoint).
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

// add makes ids reusable.
func (l *freeList) add(ids []uint64) {
	if len(ids) == 0 {
		return
	}
	l.ids = append(l.ids, ids...)
	slices.SortFunc(l.ids, func(a, b uint64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
}

// release moves to ids every pending set whose rules hold for the oldest pinned LSN and the
// durable checkpoint LSN, and returns the ids it moved.
func (l *freeList) release(oldest, durable uint64) []uint64 {
	var ready []uint64
	i := 0
	for ; i < len(l.fresh) && l.fresh[i].lsn <= oldest; i++ {
		ready = append(ready, l.fresh[i].ids...)
	}
	l.fresh = l.fresh[i:]
	limit := min(oldest, durable)
	for i = 0; i < len(l.durable) && l.durable[i].lsn <= limit; i++ {
		ready = append(ready, l.durable[i].ids...)
	}
	l.durable = l.durable[i:]
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

// pushPending records ids freed at lsn, appending to the last set when it has the same LSN.
func pushPending(q []pendingFree, lsn uint64, ids ...uint64) []pendingFree {
	if n := len(q); n > 0 && q[n-1].lsn == lsn {
		q[n-1].ids = append(q[n-1].ids, ids...)
		return q
	}
	return append(q, pendingFree{lsn: lsn, ids: ids})
}

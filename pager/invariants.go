package pager

// Run-time checks of the free-page rules' bookkeeping (free.go), for the invariants build
// (package internal/invariants): the callers guard each call with "if invariants.Enabled", so a
// normal build has none of it. The checks take no lock; they read what p.mu, held by their
// caller, guards.
//
// Bookkeeping read from a file may be damaged in ways that reads do not notice (a free list that
// lists a page the tree uses, an overflow extent id out of range: Check reports those), and
// damage is an error, never a panic. So the checks that damage could break run only while the
// accounting is trusted (AccountingTrusted): this Pager created its file, so that every id's
// status comes from this process's own allocations and frees, or a full check of the file found
// the accounting sound (TrustAccounting), after which it changes by those alone.

import (
	"fmt"

	"github.com/cairndb/cairn/internal/invariants"
)

// Resident returns the extent at id if it is in memory (allocated since the last checkpoint, or
// cached), and nil otherwise. Unlike Page it never reads the file, fills the cache or marks the
// extent referenced: it is for the invariants build's checks, which must leave I/O and eviction
// as they are. The bytes are those of the newest version that reaches id.
func (p *Pager) Resident(id uint64) []byte {
	if fr := p.table.load(id); fr != nil {
		return fr.data
	}
	return nil
}

// AccountingTrusted reports whether the status of every page id (used, reusable, pending, dirty)
// is known to be sound: this Pager created its file, or TrustAccounting was called since Open.
func (p *Pager) AccountingTrusted() bool { return p.trusted.Load() }

// TrustAccounting records that a check of the whole file (cairn's DB.Check) found the page
// accounting sound: the tree, the free list and the checkpoint agree on every page id.
func (p *Pager) TrustAccounting() { p.trusted.Store(true) }

// assertFreeOrder checks, before an extent freed at lsn joins queue q, that commits free in LSN
// order: the reclaim pops the fronts of fresh and durable only, and relies on it.
func assertFreeOrder(q []pendingFree, name string, lsn, id uint64) {
	if n := len(q); n > 0 && q[n-1].lsn > lsn {
		invariants.Fail(invariants.FreeList, "Free: extent %d freed at LSN %d after one freed at LSN %d in the %s queue: commits free in LSN order",
			id, lsn, q[n-1].lsn, name)
	}
}

// Owners of a page id in assertFreeList's table.
const (
	freeOwnerNone = iota
	freeOwnerReusable
	freeOwnerPending
	freeOwnerDirty
	freeOwnerFreelist
)

var freeOwnerNames = [...]string{"", "reusable", "pending", "allocated since the checkpoint", "in the checkpoint's free-list extent"}

// assertFreeList checks the free list at the start of a checkpoint: the reusable ids sorted
// descending, the fresh and durable queues in LSN order, and, if the accounting is trusted
// (AccountingTrusted), every id inside the page count and in at most one of the reusable ids, the
// pending extents, the extents allocated since the checkpoint and the durable meta page's
// free-list extent. One byte per page. REQUIRES: p.mu.
func (p *Pager) assertFreeList(where string) {
	fail := func(format string, a ...any) {
		invariants.Fail(invariants.FreeList, "%s: %s", where, fmt.Sprintf(format, a...))
	}
	l := &p.free
	for i := 1; i < len(l.ids); i++ {
		if l.ids[i-1] < l.ids[i] {
			fail("reusable ids not descending: %d before %d (index %d)", l.ids[i-1], l.ids[i], i)
		}
	}
	for _, q := range []struct {
		name string
		q    []pendingFree
	}{{"fresh", l.fresh}, {"durable", l.durable}} {
		for i := 1; i < len(q.q); i++ {
			if q.q[i-1].lsn > q.q[i].lsn {
				fail("%s queue not in LSN order: extent %d freed at %d before extent %d freed at %d",
					q.name, q.q[i-1].id, q.q[i-1].lsn, q.q[i].id, q.q[i].lsn)
			}
		}
	}
	if !p.AccountingTrusted() {
		return
	}
	count := p.pageCount.Load()
	owner := make([]uint8, count)
	claim := func(id, n uint64, who uint8) {
		if id < MetaPages || id+n < id || id+n > count {
			fail("pages [%d, %d) %s, outside [%d, %d)", id, id+n, freeOwnerNames[who], MetaPages, count)
		}
		for x := id; x < id+n; x++ {
			switch {
			case owner[x] == who:
				fail("page %d %s twice", x, freeOwnerNames[who])
			case owner[x] != freeOwnerNone:
				fail("page %d both %s and %s", x, freeOwnerNames[owner[x]], freeOwnerNames[who])
			}
			owner[x] = who
		}
	}
	for _, id := range l.ids {
		claim(id, 1, freeOwnerReusable)
	}
	for _, q := range [][]pendingFree{l.fresh, l.durable, l.held} {
		for _, e := range q {
			claim(e.id, e.n, freeOwnerPending)
		}
	}
	for id, d := range p.dirty {
		claim(id, d.pages, freeOwnerDirty)
	}
	if p.durable.FreelistID != 0 {
		claim(p.durable.FreelistID, p.durable.FreelistPages, freeOwnerFreelist)
	}
}

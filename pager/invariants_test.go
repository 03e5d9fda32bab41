//go:build invariants

package pager

// Tests of the invariants build's free-list checks (invariants.go): each breaks the free list on
// purpose and expects the check's panic. Run with: go test -tags invariants -run Invariant ./pager

import (
	"os"
	"testing"

	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/internal/invariants/invtest"
	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// invariantsPager returns a Pager that created its file on an in-memory file system: ids 2-21
// allocated at LSN 1 (dirty), ids 22-31 allocated then and freed at LSN 2 (reusable).
func invariantsPager(t *testing.T) *Pager {
	t.Helper()
	f, err := vfs.NewMem().OpenFile("/db", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	p, created, err := Open(f, Options{PageSize: 4096})
	require.NoError(t, err)
	require.True(t, created)
	require.True(t, p.AccountingTrusted())
	for range 30 {
		p.Allocate(1, 1)
	}
	for id := uint64(22); id < 32; id++ {
		p.Free(id, 1, 2, 1)
	}
	p.Reclaim(Readers{Published: 2})
	require.Len(t, p.free.ids, 10)
	return p
}

// prepare runs PrepareCheckpoint, which checks the free list first.
func prepare(p *Pager) { p.PrepareCheckpoint(0, 0, 9) }

// TestInvariantFreeOrder: commits free in LSN order, in each queue (Free).
func TestInvariantFreeOrder(t *testing.T) {
	p := invariantsPager(t)
	p.Free(2, 1, 5, 1)
	p.Free(3, 1, 5, 1) // the same LSN is in order
	invtest.RequireViolation(t, invariants.FreeList, func() { p.Free(4, 1, 4, 1) })

	require.NoError(t, p.WriteCheckpoint(p.PrepareCheckpoint(0, 0, 5))) // 5-21 are in the file now
	p.Free(5, 1, 7, 1)
	invtest.RequireViolation(t, invariants.FreeList, func() { p.Free(6, 1, 6, 1) })
}

// TestInvariantFreeList: the checkpoint's check of the reusable ids, the queues and, with trusted
// accounting, of every id's single status (PrepareCheckpoint).
func TestInvariantFreeList(t *testing.T) {
	tests := []struct {
		name string
		// trusted: the check fires only with trusted accounting; damage read from a file (a free
		// list that lists a page the tree uses, say) could look the same.
		trusted bool
		damage  func(p *Pager)
	}{
		{"reusable ids not descending", false, func(p *Pager) { p.free.ids = []uint64{25, 30, 22} }},
		{"fresh queue out of LSN order", false, func(p *Pager) {
			p.Free(2, 1, 5, 1)
			p.free.fresh = append(p.free.fresh, pendingFree{lsn: 4, id: 3, n: 1})
		}},
		{"durable queue out of LSN order", false, func(p *Pager) {
			p.free.durable = []pendingFree{{lsn: 5, id: 40, n: 1}, {lsn: 4, id: 41, n: 1}}
		}},
		{"a reusable id twice", true, func(p *Pager) { p.free.ids = append(p.free.ids, 22) }},
		{"a reusable id past the page count", true, func(p *Pager) { p.free.ids = append([]uint64{1000}, p.free.ids...) }},
		{"a meta page reusable", true, func(p *Pager) { p.free.ids = append(p.free.ids, 1) }},
		{"an allocated page reusable", true, func(p *Pager) { p.free.add([]uint64{5}) }},
		{"a pending page reusable", true, func(p *Pager) {
			p.Free(2, 1, 3, 1)
			p.free.add([]uint64{2})
		}},
		{"a page pending twice", true, func(p *Pager) {
			p.Free(2, 1, 3, 1)
			p.free.held = append(p.free.held, pendingFree{lsn: 3, id: 2, n: 1})
		}},
		{"the checkpoint's free-list extent reusable", true, func(p *Pager) {
			p.durable.FreelistID, p.durable.FreelistPages = 22, 1
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prepare(invariantsPager(t)) // the state as made passes
			p := invariantsPager(t)
			tc.damage(p)
			invtest.RequireViolation(t, invariants.FreeList, func() { prepare(p) })
			if tc.trusted {
				p = invariantsPager(t)
				p.trusted.Store(false) // as after opening a file
				tc.damage(p)
				prepare(p)
			}
		})
	}
}

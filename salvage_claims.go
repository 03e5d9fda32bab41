package cairn

// Salvage's choice between versions of a key: claims and their resolution.
//
// Invariant: a claim is a true statement about the past, "at time prio, the keys of tree T in
// [lo, hi) were exactly the keys of leaf page X" (or "there were none", or "they were in page X,
// which cannot be read now"), and a key is taken from the newest claim that covers it and can be
// read. The statements come from the pages themselves:
//
//   - a valid meta page says that at its LSN the whole key space of the default tree (and of the
//     catalog) was the tree at its root; a catalog entry read from a catalog leaf claimed at time
//     t says the same of a bucket's tree at t;
//   - a branch reached from such a root passes the statement down: child i held [key(i),
//     key(i+1)) of its parent's range at the same time;
//   - a page reached from no root (an orphan: under a damaged branch, free, of an older version,
//     or of a checkpoint whose meta page is damaged) states its own content at its allocation
//     LSN, the LSN of the commit that wrote it: a leaf for [first key, last key], a branch for
//     its children as above.
//
// A child is taken to be the page its parent referenced only if its allocation LSN is at most its
// parent's (copy-on-write writes a child with or before its parent; a page id reused later
// carries a newer LSN) and its keys lie in the range the parent gives it. Each page is walked
// once per statement and again only for a newer one, so the work is linear in the pages.
//
// Why this keeps the newest version: a leaf L that is part of the newest version has been part of
// every version since its allocation LSN a, so any claim at a time t >= a about a key of L names L
// itself (ranges of one version are disjoint), and every claim older than a is outranked by L's
// own, made at a or later. A key deleted by a version whose page survives stays deleted (the
// claim covers its position and lacks it); one deleted by a version whose page is lost may come
// back from an older page, which the report says (the range is listed as lost).

import (
	"bytes"
	"container/heap"
	"slices"
	"sort"
)

// salvClaimKind says what a claim states about its range.
type salvClaimKind uint8

const (
	claimLost  salvClaimKind = iota // the page that held the range cannot be read
	claimEmpty                      // the range held no key
	claimLeaf                       // the range held exactly the keys of page
)

// salvClaim is one statement about a range of a tree's key space (see the top of this file).
type salvClaim struct {
	lo    []byte // inclusive lower bound; nil: no lower bound
	hi    []byte // exclusive upper bound, if !inf
	inf   bool   // no upper bound
	prio  uint64 // when the statement was true: an LSN
	kind  salvClaimKind
	page  uint64 // the leaf (claimLeaf) or the unreadable page (claimLost; 0: none known)
	err   error  // claimLost: why the page cannot be read
	order int    // tie-break among claims of equal prio: earlier made wins
	// orphan is set for a claim of a page no root reaches; synthetic for a claimLost made up by
	// salvageTree.settle where only an older version than the tree's newest holds a range;
	// noRoot for the claimLost that stands for a root no valid meta page names.
	orphan, synthetic, noRoot bool
}

// belowHigh reports whether point a (a lower bound) is below the upper bound hi (inf: none).
func belowHigh(a, hi []byte, inf bool) bool { return inf || bytes.Compare(a, hi) < 0 }

// salvPiece is a maximal range of a tree's key space over which the same claims decide: win is the
// newest readable claim (nil: none covers it), lost the newest unreadable claim newer than win
// (nil: none), so keys taken from win may be stale when lost is set.
type salvPiece struct {
	lo  []byte
	hi  []byte
	inf bool
	win *salvClaim
	// lost is the newest claimLost claim above win, or a claim made up by resolveClaims for a tree
	// whose newest version was not found whole (see salvageTree.newer).
	lost *salvClaim
}

// salvClaimHeap is a max-heap of claims by priority: newest first, then readable before empty at
// the same time, then the earlier made.
type salvClaimHeap []*salvClaim

func (h salvClaimHeap) Len() int { return len(h) }
func (h salvClaimHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.kind != b.kind {
		return a.kind > b.kind
	}
	return a.order < b.order
}
func (h salvClaimHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *salvClaimHeap) Push(x any)   { *h = append(*h, x.(*salvClaim)) }
func (h *salvClaimHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// top returns the newest claim of h still active at point x (its hi above x), dropping the
// expired ones, or nil.
func (h *salvClaimHeap) top(x []byte) *salvClaim {
	for h.Len() > 0 {
		c := (*h)[0]
		if belowHigh(x, c.hi, c.inf) {
			return c
		}
		heap.Pop(h)
	}
	return nil
}

// resolveClaims computes the pieces of claims: for every point of the key space, the newest readable
// claim and the newest unreadable one above it. Pieces are sorted, disjoint, and cover only what
// some claim covers; neighbours with the same claims are merged. Empty ranges are skipped.
func resolveClaims(claims []*salvClaim) []salvPiece {
	if len(claims) == 0 {
		return nil
	}
	byLo := slices.Clone(claims)
	slices.SortStableFunc(byLo, func(a, b *salvClaim) int { return bytes.Compare(a.lo, b.lo) })
	// The points where a claim starts or ends, ascending; nil (no lower bound) first.
	points := make([][]byte, 0, 2*len(claims))
	for _, c := range claims {
		points = append(points, c.lo)
		if !c.inf {
			points = append(points, c.hi)
		}
	}
	slices.SortFunc(points, bytes.Compare)
	points = slices.CompactFunc(points, bytes.Equal)
	var readable, lost salvClaimHeap
	var out []salvPiece
	next := 0
	for i, x := range points {
		for next < len(byLo) && bytes.Compare(byLo[next].lo, x) <= 0 {
			c := byLo[next]
			next++
			if c.kind == claimLost {
				heap.Push(&lost, c)
			} else {
				heap.Push(&readable, c)
			}
		}
		win, l := readable.top(x), lost.top(x)
		if l != nil && win != nil && !outranks(l, win) {
			l = nil
		}
		if win == nil && l == nil {
			continue
		}
		p := salvPiece{lo: x, win: win, lost: l}
		if i+1 < len(points) {
			p.hi = points[i+1]
		} else {
			p.inf = true
		}
		if n := len(out); n > 0 && out[n-1].win == win && out[n-1].lost == l && !out[n-1].inf && bytes.Equal(out[n-1].hi, x) {
			out[n-1].hi, out[n-1].inf = p.hi, p.inf
			continue
		}
		out = append(out, p)
	}
	return out
}

// outranks reports whether claim a outranks claim b.
func outranks(a, b *salvClaim) bool {
	h := salvClaimHeap{a, b}
	return h.Less(0, 1)
}

// salvPieceAt returns the index of the first piece of ps whose range ends above lo.
func salvPieceAt(ps []salvPiece, lo []byte) int {
	return sort.Search(len(ps), func(i int) bool { return belowHigh(lo, ps[i].hi, ps[i].inf) })
}

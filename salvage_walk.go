package cairn

// Salvage's trees: the catalog, the default key space and the buckets, walked from their roots,
// and the pages no root reaches attached to the tree they belong to. Invariant: every verified
// tree page is claimed by at most one tree (salvager.seen), the first walk to reach it being the
// newest; a newer walk may claim its range again (salvage_claims.go), never change its tree.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/ondisk"
)

// salvExtent is what the scan keeps of a verified tree page.
type salvExtent struct {
	id, alloc uint64
	leaf      bool
	// first and last are a leaf's first and last key (nil if it has none), a branch's key(0)
	// and key(n-1).
	first, last []byte
	// keys and children are a branch's elements.
	keys     [][]byte
	children []uint64
	// catalog is set for a leaf whose every element looks like a catalog element; entries holds
	// its elements that look like bucket entries (kept for any leaf, used for the catalog's).
	catalog bool
	entries []catEntry
}

// catEntry is a bucket entry of the catalog: the bucket's name and tree root.
type catEntry struct {
	name []byte
	root uint64
}

// catalogEntry reports whether el is shaped like an element of the catalog (FORMAT.md, "Bucket
// catalog"), and returns the name and root of a bucket entry (name nil for the drop stack).
func catalogEntry(el btree.Element) (name []byte, root uint64, ok bool) {
	k := el.Key
	switch {
	case len(k) > 1 && k[0] == ondisk.CatalogBucket && len(el.Value) == ondisk.BucketEntrySize && el.Value[0] == ondisk.BucketKind:
		return k[1:], binary.LittleEndian.Uint64(el.Value[1:]), true
	case len(k) == 1 && k[0] == ondisk.CatalogDropStack && el.ValueSize%8 == 0:
		return nil, 0, true
	}
	return nil, 0, false
}

// treeKind is what a salvageTree is.
type treeKind uint8

const (
	treeDefault treeKind = iota
	treeCatalog
	treeBucket
	treeLostFound
)

// salvageTree is one key space as salvage rebuilds it: the claims made about it and their
// resolution.
type salvageTree struct {
	kind treeKind
	name []byte // a bucket's name
	// emit is set for a key space whose keys are salvaged: the default one, and the buckets the
	// catalog names (a bucket known only from stale catalog pages was deleted).
	emit bool
	// fresh is set when its newest statement is known to be its newest version: then a page that
	// no root reaches can only fill its lost ranges, never outrank the statement.
	fresh  bool
	claims []*salvClaim
	pieces []salvPiece
	// older is the claim settle puts over pieces only an older version holds.
	older *salvClaim
	// top is the time of its newest statement (0: none): the version whose lost pages matter.
	top uint64
	// named is the lost catalog claim above the catalog page that names this bucket (nil: that
	// page is the newest): the bucket's tree is then as an older catalog page has it.
	named *salvClaim
	// until, for a bucket named by a catalog page found without a valid meta page, is that
	// page's time: a newer subtree may be the bucket's if it overlaps the bucket's keys.
	until uint64
	// keyLo and keyHi are the first and last key of the leaves its claims name (set by settle).
	keyLo, keyHi []byte
}

// acceptsNewer reports whether a subtree newer than t's statement, made at time prio and
// spanning [lo, hi), may be a newer version of t: t is not known to be fresh (for a bucket named
// without a valid meta page: the subtree is newer than the catalog page naming it), and the
// subtree overlaps the keys t holds (a newer version of a key space mostly keeps its keys).
func (t *salvageTree) acceptsNewer(prio uint64, lo, hi []byte, inf bool) bool {
	if t.fresh || prio <= t.until || t.keyLo == nil {
		return false
	}
	return bytes.Compare(lo, t.keyHi) <= 0 && belowHigh(t.keyLo, hi, inf)
}

func bucketTreeKey(name []byte) string { return "b" + string(name) }

// tree returns the tree of kind and name, creating it.
func (s *salvager) tree(kind treeKind, name []byte) *salvageTree {
	key := [...]string{"d", "c", "b", "l"}[kind] + string(name)
	t := s.trees[key]
	if t == nil {
		t = &salvageTree{kind: kind, name: bytes.Clone(name)}
		s.trees[key] = t
	}
	return t
}

// add appends claims to t, numbering them in the order made.
func (s *salvager) add(t *salvageTree, cs ...*salvClaim) {
	for _, c := range cs {
		s.order++
		c.order = s.order
		t.claims = append(t.claims, c)
	}
}

// settle resolves the claims of t. In a tree that is not fresh, where a newer version than its
// statement was found (among its claims, or anywhere in the file, at time elsewhere), the pieces
// only older claims hold are marked as lost by a made-up claim: the newer version's page for
// them is missing, or could not be told apart from another tree's.
func (s *salvager) settle(t *salvageTree, elsewhere uint64) {
	t.pieces = resolveClaims(t.claims)
	t.keyLo, t.keyHi = nil, nil
	for _, c := range t.claims {
		if e := s.ext[c.page]; c.kind == claimLeaf && e != nil && e.first != nil {
			if t.keyLo == nil || bytes.Compare(e.first, t.keyLo) < 0 {
				t.keyLo = e.first
			}
			if t.keyHi == nil || bytes.Compare(e.last, t.keyHi) > 0 {
				t.keyHi = e.last
			}
		}
	}
	if t.fresh {
		return
	}
	var newest uint64
	for _, c := range t.claims {
		if c.kind != claimLost {
			newest = max(newest, c.prio)
		}
	}
	err := fmt.Errorf("only versions older than the newest found (LSN %d) hold this range: its newer page is missing: %w", newest, ErrCorrupt)
	if elsewhere > newest {
		newest = elsewhere
		err = fmt.Errorf("pages of a version newer than this key space's newest found (up to LSN %d) exist, "+
			"and the meta page used may not be the newest: this key space's pages of that version are missing, or in lost+found: %w", elsewhere, ErrCorrupt)
	}
	for i := range t.pieces {
		p := &t.pieces[i]
		if p.lost != nil || p.win == nil || p.win.prio >= newest {
			continue
		}
		if t.older == nil {
			t.older = &salvClaim{kind: claimLost, prio: newest, synthetic: true, err: err}
		}
		p.lost = t.older
	}
}

// salvVisit is the walk that claimed a page first.
type salvVisit struct {
	walk int
	prio uint64
	tree *salvageTree // nil until an orphan group's tree is decided; nil after, if it is none
}

// salvBounds is the key range a walk gives a page: lo (nil: none) and hi (inf: none), each known or
// not (an orphan's outer salvBounds are not: its keys stand for them).
type salvBounds struct {
	lo, hi     []byte
	loOK, hiOK bool
	inf        bool
}

// holds reports whether the keys of e lie inside b (the unknown sides pass).
func (b salvBounds) holds(e *salvExtent) bool {
	if e.first == nil {
		return true
	}
	return (!b.loOK || bytes.Compare(e.first, b.lo) >= 0) && (!b.hiOK || belowHigh(e.last, b.hi, b.inf))
}

// salvWalker is one walk: from a root with a statement (tree set), or from an orphan (tree nil).
type salvWalker struct {
	id     int
	prio   uint64
	tree   *salvageTree
	orphan bool
	claims []*salvClaim
	local  map[uint64]bool // pages this walk reached, to catch a page referenced twice
	// owners are the trees of pages this orphan walk reached that another walk had claimed.
	owners []*salvageTree
	// claimed are the pages this walk claimed first.
	claimed []uint64
}

func (s *salvager) newWalker(prio uint64, t *salvageTree) *salvWalker {
	s.walks++
	return &salvWalker{id: s.walks, prio: prio, tree: t, orphan: t == nil, local: make(map[uint64]bool)}
}

// lost records that the range b, held by page id, cannot be read (not when a bound is unknown).
func (w *salvWalker) lost(b salvBounds, id uint64, err error) {
	if b.loOK && b.hiOK {
		w.claims = append(w.claims, &salvClaim{lo: b.lo, hi: b.hi, inf: b.inf, prio: w.prio, kind: claimLost, page: id, err: err, orphan: w.orphan})
	}
}

// walk claims the range b through page id, whose referrer was written at LSN maxAlloc.
func (s *salvager) walk(w *salvWalker, id uint64, b salvBounds, maxAlloc uint64, depth int) {
	e := s.ext[id]
	var why error
	switch {
	case e == nil:
		why = s.reason(id)
	case e.alloc > maxAlloc:
		why = fmt.Errorf("page %d: written at LSN %d, after the page that references it (LSN %d): the id was reused: %w", id, e.alloc, maxAlloc, ErrCorrupt)
	case !b.holds(e):
		why = fmt.Errorf("page %d: keys outside the range the page above gives it: %w", id, ErrCorrupt)
	case w.local[id]:
		why = fmt.Errorf("page %d: referenced twice: %w", id, ErrCorrupt)
	case depth >= btree.MaxDepth:
		why = fmt.Errorf("page %d: tree deeper than %d levels: %w", id, btree.MaxDepth, ErrCorrupt)
	}
	if why != nil {
		w.lost(b, id, why)
		return
	}
	if v, ok := s.seen[id]; ok {
		if w.orphan && v.tree != nil {
			w.owners = append(w.owners, v.tree)
		}
		if v.prio >= w.prio {
			return // claimed by a walk at least as new
		}
		v.prio = w.prio // a newer version reaches it: claim its range again, at this time
		s.seen[id] = v
	} else {
		if w.orphan && e.leaf && e.catalog {
			return // a catalog page the catalog did not take: stale
		}
		s.seen[id] = salvVisit{walk: w.id, prio: w.prio, tree: w.tree}
		w.claimed = append(w.claimed, id)
	}
	w.local[id] = true
	if e.leaf {
		c := &salvClaim{lo: b.lo, hi: b.hi, inf: b.inf, prio: w.prio, kind: claimLeaf, page: id, orphan: w.orphan}
		if !b.loOK {
			c.lo = e.first
		}
		if !b.hiOK {
			c.hi, c.inf = append(bytes.Clone(e.last), 0), false
		}
		if e.first != nil || (b.loOK && b.hiOK) {
			w.claims = append(w.claims, c)
		}
		return
	}
	n := len(e.children)
	for i, child := range e.children {
		cb := salvBounds{lo: e.keys[i], loOK: true, hi: b.hi, hiOK: b.hiOK, inf: b.inf}
		if i == 0 && b.loOK {
			cb.lo = b.lo // key(0) salvBounds nothing below: the parent's bound does
		}
		if i < n-1 {
			cb.hi, cb.hiOK, cb.inf = e.keys[i+1], true, false
		}
		s.walk(w, child, cb, e.alloc, depth+1)
	}
}

// statement walks tree t from root as it was at time prio, the root written at maxAlloc at the
// latest.
func (s *salvager) statement(t *salvageTree, root, prio, maxAlloc uint64) {
	t.top = max(t.top, prio)
	if root == 0 {
		s.add(t, &salvClaim{inf: true, prio: prio, kind: claimEmpty})
		return
	}
	w := s.newWalker(prio, t)
	s.walk(w, root, salvBounds{loOK: true, hiOK: true, inf: true}, maxAlloc, 0)
	s.add(t, w.claims...)
}

// treeStatement is a root of a tree at a time.
type treeStatement struct {
	tree                 *salvageTree
	root, prio, maxAlloc uint64
}

// buildTrees walks the catalog, then every tree, then attaches the orphans.
func (s *salvager) buildTrees() {
	s.seen = make(map[uint64]salvVisit)
	s.trees = make(map[string]*salvageTree)
	s.def, s.cat = s.tree(treeDefault, nil), s.tree(treeCatalog, nil)
	s.def.emit, s.def.fresh, s.cat.fresh = true, s.fresh, s.fresh
	if len(s.metas) == 0 {
		err := fmt.Errorf("no valid meta page names the root: %w", ErrCorrupt)
		for _, t := range []*salvageTree{s.def, s.cat} {
			s.add(t, &salvClaim{inf: true, prio: math.MaxUint64, kind: claimLost, err: err, noRoot: true})
			t.top = math.MaxUint64
		}
	}
	for _, m := range s.metas {
		s.statement(s.cat, m.Catalog, m.LSN, m.LSN)
	}
	s.settle(s.cat, 0)
	s.catalogOrphans()
	s.settle(s.cat, 0)
	// Buckets may exist that no readable page names when a catalog page is lost: those created
	// after the time of the older page that stands in for it (none stands in: any time). Without
	// a valid meta page, the catalog pages found stand for the catalog; when none is found, the
	// database is taken to have no bucket, unless the WAL names one.
	s.namedUntil = math.MaxUint64
	if len(s.metas) == 0 && !slices.ContainsFunc(s.cat.pieces, func(p salvPiece) bool { return p.win != nil }) {
		s.blind, s.rep.KeySpacesUnknown = true, true
		for name := range s.overlay {
			if name != "" { // the WAL names a bucket: the database has some, and no page names them
				s.namedUntil = 0
			}
		}
	}
	for _, p := range s.cat.pieces {
		switch {
		case p.lost == nil || p.lost.synthetic || p.lost.noRoot:
		case p.win == nil:
			s.namedUntil = 0
		default:
			s.namedUntil = min(s.namedUntil, p.win.prio)
		}
	}
	var stmts []treeStatement
	for _, m := range s.metas {
		stmts = append(stmts, treeStatement{s.def, m.Root, m.LSN, m.LSN})
	}
	stmts = append(stmts, s.bucketStatements()...)
	slices.SortStableFunc(stmts, func(a, b treeStatement) int {
		switch {
		case a.prio > b.prio:
			return -1
		case a.prio < b.prio:
			return 1
		}
		return 0
	})
	for _, st := range stmts {
		s.statement(st.tree, st.root, st.prio, st.maxAlloc)
	}
	for _, t := range s.trees {
		s.settle(t, 0)
	}
	s.attachOrphans()
	// The newest version found anywhere: a key space not known to be fresh whose claims are all
	// older may have lost its pages of that version.
	elsewhere := s.lostFoundNewest
	for _, e := range s.ext {
		if !s.redundant(e.alloc) {
			elsewhere = max(elsewhere, e.alloc)
		}
	}
	for _, t := range s.trees {
		t.older = nil
		if t.kind == treeLostFound {
			s.settle(t, 0)
		} else {
			s.settle(t, elsewhere)
		}
	}
}

// redundant reports whether a page written at LSN alloc is newer than the meta page used but no
// newer than what the WAL reproduces: its version is rebuilt by the records applied.
func (s *salvager) redundant(alloc uint64) bool {
	return len(s.metas) > 0 && alloc > s.metas[0].LSN && alloc <= s.cover
}

// salvNewestFirst sorts pages newest first (allocation LSN, then id, descending).
func salvNewestFirst(a, b *salvExtent) int {
	switch {
	case a.alloc != b.alloc:
		return cmpDescending(a.alloc, b.alloc)
	}
	return cmpDescending(a.id, b.id)
}

// cmpDescending orders a before b when a is larger.
func cmpDescending(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// unseen returns the verified tree pages no walk claimed, newest first, that pass keep.
func (s *salvager) unseen(keep func(*salvExtent) bool) []*salvExtent {
	var out []*salvExtent
	for id, e := range s.ext {
		if _, ok := s.seen[id]; !ok && keep(e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, salvNewestFirst)
	return out
}

// catalogOrphans gives the catalog the catalog leaves no root reaches where they would count:
// in its lost ranges, or newer than its statement when that is not known to be the newest.
func (s *salvager) catalogOrphans() {
	for _, e := range s.unseen(func(e *salvExtent) bool { return e.leaf && e.catalog }) {
		if s.redundant(e.alloc) {
			continue
		}
		hi := append(bytes.Clone(e.last), 0)
		if s.usable(s.cat, e.first, hi, false, e.alloc) == useNone {
			continue
		}
		s.walks++
		s.seen[e.id] = salvVisit{walk: s.walks, prio: e.alloc, tree: s.cat}
		s.add(s.cat, &salvClaim{lo: e.first, hi: hi, prio: e.alloc, kind: claimLeaf, page: e.id, orphan: true})
		s.rep.OrphanPages++
	}
}

// bucketStatements returns the roots of the buckets: from the entries the catalog's pieces hold
// (the buckets to salvage), and, to recognise their older pages and those of deleted buckets,
// from the entries of every other catalog page, at the time of that page.
func (s *salvager) bucketStatements() []treeStatement {
	var out []treeStatement
	for _, p := range s.cat.pieces {
		if p.win == nil || p.win.kind != claimLeaf {
			continue
		}
		e := s.ext[p.win.page]
		for _, ce := range e.entries {
			if k := bucketKey(ce.name); bytes.Compare(k, p.lo) < 0 || !belowHigh(k, p.hi, p.inf) {
				continue
			}
			t := s.tree(treeBucket, ce.name)
			t.emit = true
			t.fresh = s.fresh && p.lost == nil
			switch {
			case p.lost != nil && !p.lost.noRoot:
				t.named = p.lost
			case len(s.metas) == 0:
				t.until = p.win.prio
			}
			out = append(out, treeStatement{t, ce.root, p.win.prio, e.alloc})
		}
	}
	byCatalog := make(map[uint64]bool)
	for _, c := range s.cat.claims {
		byCatalog[c.page] = c.kind == claimLeaf
	}
	var stale []*salvExtent
	for _, e := range s.ext {
		if e.leaf && (e.catalog || byCatalog[e.id]) {
			stale = append(stale, e)
		}
	}
	slices.SortFunc(stale, salvNewestFirst)
	for _, e := range stale {
		prio := e.alloc
		if v, ok := s.seen[e.id]; ok {
			prio = v.prio
		}
		for _, ce := range e.entries {
			out = append(out, treeStatement{s.tree(treeBucket, ce.name), ce.root, prio, e.alloc})
		}
	}
	return out
}

// attachOrphans walks the pages no root reaches, the tops of their subtrees first (newest
// first), and attaches each subtree to the tree it belongs to (decide), or drops it.
func (s *salvager) attachOrphans() {
	unseen := func(id uint64) bool { _, ok := s.seen[id]; return !ok }
	below := make(map[uint64]bool) // pages an unclaimed branch may reference
	for id, e := range s.ext {
		if e.leaf || !unseen(id) {
			continue
		}
		for _, c := range e.children {
			if ce := s.ext[c]; ce != nil && c != id && unseen(c) && ce.alloc <= e.alloc {
				below[c] = true
			}
		}
	}
	for _, e := range s.unseen(func(e *salvExtent) bool { return !below[e.id] && !(e.leaf && e.catalog) }) {
		s.orphan(e)
	}
	// Leaves under unclaimed branches that no top reached (a cycle of branches).
	for _, e := range s.unseen(func(e *salvExtent) bool { return e.leaf && !e.catalog }) {
		s.orphan(e)
	}
	for id := range s.ext {
		if unseen(id) {
			s.rep.StalePages++
		}
	}
}

// orphan walks the subtree of page e, which no walk claimed, as of its allocation LSN, and
// attaches it.
func (s *salvager) orphan(e *salvExtent) {
	if _, ok := s.seen[e.id]; ok || s.redundant(e.alloc) || (s.blind && s.freeBefore(e)) {
		return // claimed, rebuilt by the WAL, or (when nothing names the trees) free: stale
	}
	w := s.newWalker(e.alloc, nil)
	s.walk(w, e.id, salvBounds{}, e.alloc, 0)
	t := s.decide(w)
	for _, id := range w.claimed {
		v := s.seen[id]
		v.tree = t
		s.seen[id] = v
	}
	if t == nil {
		s.rep.StalePages += len(w.claimed)
		return
	}
	lo, hi, inf, _ := claimsSpan(w.claims)
	if t == s.def && s.blind && s.blindDefault.take(lo, hi, inf) != nil {
		t = s.lfMarker // it would hide keys of a newer subtree, maybe of another key space
		if t == nil {
			t = s.lostAndFound()
		}
	}
	if t == s.lfMarker {
		s.lostFoundNewest = max(s.lostFoundNewest, w.prio)
		t = s.lostAndFoundLayer(lo, hi, inf)
		for _, id := range w.claimed {
			v := s.seen[id]
			v.tree = t
			s.seen[id] = v
		}
	}
	s.rep.OrphanPages += len(w.claimed)
	s.add(t, w.claims...)
}

// Uses of an orphan subtree in a tree (usable).
const (
	useNone  = iota
	useNewer // newer than what the tree's statement holds, in a tree not known to be fresh
	useLost  // it overlaps a range whose page is lost
)

// usable says how claims over [lo, hi) made at time prio would count in tree t as settled.
func (s *salvager) usable(t *salvageTree, lo, hi []byte, inf bool, prio uint64) int {
	use := useNone
	covered, all := lo, false
	for i := salvPieceAt(t.pieces, lo); i < len(t.pieces); i++ {
		p := t.pieces[i]
		if !inf && bytes.Compare(p.lo, hi) >= 0 {
			break
		}
		if bytes.Compare(p.lo, covered) > 0 || p.win == nil || (p.lost != nil && !p.lost.synthetic) {
			return useLost
		}
		if p.win.prio < prio && t.acceptsNewer(prio, lo, hi, inf) {
			use = useNewer
		}
		if p.inf {
			all = true
			break
		}
		covered = p.hi
	}
	if !all && (inf || bytes.Compare(covered, hi) < 0) {
		return useLost
	}
	return use
}

// decide returns the tree the orphan subtree walked by w belongs to, or nil to drop it:
//   - the tree whose pages it shares;
//   - else, if a tree it cannot count in holds keys among its keys in a leaf written after it
//     (it looks like that tree's older page): none (it is stale), or lost+found if a tree has a
//     range it could fill (it may also be that tree's);
//   - else the one tree where it would count (it fills a lost range, or is newer than a
//     statement not known to be the newest); several: lost+found; none: dropped (stale).
//
// When the catalog lost a range, a subtree that shares no page with a known tree and is newer
// than the catalog page standing in for the lost one goes to lost+found: its key space may be a
// bucket that no readable page names.
func (s *salvager) decide(w *salvWalker) *salvageTree {
	lo, hi, inf, ok := claimsSpan(w.claims)
	if !ok {
		return nil
	}
	var owners []*salvageTree
	for _, t := range w.owners {
		if t.kind != treeCatalog && !slices.Contains(owners, t) {
			owners = append(owners, t)
		}
	}
	if len(owners) == 1 {
		return owners[0]
	}
	cands := owners
	if len(cands) == 0 {
		cands = s.emitted()
	}
	var use []*salvageTree
	shadowed := false
	for _, t := range cands {
		switch s.usable(t, lo, hi, inf, w.prio) {
		case useNone:
			shadowed = shadowed || s.interleaves(t, lo, hi, inf, w.prio)
		default:
			use = append(use, t)
		}
	}
	unnamed := len(owners) == 0 && w.prio > s.namedUntil // it may be a bucket's no page names
	// Newer than the meta page used, which may not be the newest: a version no statement names.
	newer := !s.fresh && (len(s.metas) == 0 || w.prio > s.metas[0].LSN)
	switch {
	case shadowed && len(use) == 0:
		return nil
	case shadowed:
		return s.lostAndFound() // an older page of one tree, or a page of another's lost range
	case len(use) == 1 && !unnamed:
		return use[0]
	case len(use) > 0 || unnamed || (newer && !shadowed):
		return s.lostAndFound()
	}
	return nil
}

// interleaves reports whether the leaves that hold t's keys in [lo, hi) have keys there and were
// written after prio: then a subtree of that range written at prio looks like an older version
// of t's.
func (s *salvager) interleaves(t *salvageTree, lo, hi []byte, inf bool, prio uint64) bool {
	for i := salvPieceAt(t.pieces, lo); i < len(t.pieces); i++ {
		p := t.pieces[i]
		if !inf && bytes.Compare(p.lo, hi) >= 0 {
			return false
		}
		if p.win == nil || p.win.kind != claimLeaf {
			continue
		}
		if e := s.ext[p.win.page]; e != nil && e.alloc > prio && e.first != nil && belowHigh(e.first, hi, inf) && bytes.Compare(e.last, lo) >= 0 {
			return true
		}
	}
	return false
}

// claimsSpan returns the range the leaf claims of cs cover together.
func claimsSpan(cs []*salvClaim) (lo, hi []byte, inf, ok bool) {
	for _, c := range cs {
		if c.kind != claimLeaf {
			continue
		}
		if !ok || bytes.Compare(c.lo, lo) < 0 {
			lo = c.lo
		}
		if !ok || (!inf && (c.inf || bytes.Compare(c.hi, hi) > 0)) {
			hi, inf = c.hi, c.inf
		}
		ok = true
	}
	return lo, hi, inf, ok
}

// emitted returns the trees whose keys are salvaged (not the catalog, nor lost+found), in order.
func (s *salvager) emitted() []*salvageTree {
	out := []*salvageTree{s.def}
	for _, t := range s.trees {
		if t.kind == treeBucket && t.emit {
			out = append(out, t)
		}
	}
	slices.SortFunc(out[1:], func(a, b *salvageTree) int { return bytes.Compare(a.name, b.name) })
	return out
}

// lostAndFound returns the marker decide returns for a subtree whose key space is unknown;
// orphan then puts it in a layer of lost+found (lostAndFoundLayer).
func (s *salvager) lostAndFound() *salvageTree {
	if s.lfMarker == nil {
		s.lfMarker = &salvageTree{kind: treeLostFound}
	}
	return s.lfMarker
}

// maxLostAndFound bounds the layers of lost+found (buckets lost+found, lost+found-2, ...).
const maxLostAndFound = 16

// lfLayer is one bucket of lost+found: subtrees whose key ranges do not overlap, so that no key
// of one hides a key of another (they may be of different key spaces).
type lfLayer struct {
	tree  *salvageTree
	spans []lfSpan // ascending, disjoint
}

type lfSpan struct {
	lo, hi []byte
	inf    bool
}

// lostAndFoundLayer returns the first layer of lost+found whose subtrees do not overlap [lo,
// hi), adding one if needed (up to maxLostAndFound; the last one takes what overlaps there, the
// newest page winning), and records the range in it.
func (s *salvager) lostAndFoundLayer(lo, hi []byte, inf bool) *salvageTree {
	for i := 0; ; i++ {
		if i == len(s.lostFound) {
			t := s.tree(treeLostFound, fmt.Append(nil, i))
			t.fresh = true
			s.lostFound = append(s.lostFound, &lfLayer{tree: t})
		}
		l := s.lostFound[i]
		if l.take(lo, hi, inf) == nil || i == maxLostAndFound-1 {
			return l.tree
		}
	}
}

// take records [lo, hi) in l and returns nil if it overlaps none of l's ranges; else it returns
// the range it overlaps and records nothing.
func (l *lfLayer) take(lo, hi []byte, inf bool) *lfSpan {
	at := sort.Search(len(l.spans), func(j int) bool { return belowHigh(lo, l.spans[j].hi, l.spans[j].inf) })
	if at < len(l.spans) && (inf || bytes.Compare(l.spans[at].lo, hi) < 0) {
		return &l.spans[at]
	}
	l.spans = slices.Insert(l.spans, at, lfSpan{lo, hi, inf})
	return nil
}

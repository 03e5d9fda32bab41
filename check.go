package cairn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/pager"
)

// Check verifies the integrity of the whole database and returns every problem it finds, joined
// with errors.Join (each one on its own line of Error; unwrap with Unwrap() []error), or nil.
// Every problem wraps ErrCorrupt, except read errors of the file, which are returned as they are.
// It checks:
//
//   - the meta pages: the current one, read back from the file, equals the checkpoint the
//     database runs on; the other one, if valid, is an older checkpoint of the same database; the
//     file holds every page the current one counts;
//   - the newest committed version: every extent its tree references (tree pages, overflow
//     values) is read and verified (checksum seeded with its page id, page structure; pages not
//     yet checkpointed are verified in memory, the others are read from the file, not the cache);
//     all leaves at the same depth, no empty node below the root, keys strictly ascending across
//     the whole tree and inside the range their parents give them, no page referenced twice,
//     overflow extents as long as their values;
//   - its page accounting: every page id from 2 to the page count is in exactly one of the tree,
//     the free list (reusable or waiting for readers or the next checkpoint) and the checkpoint's
//     free-list extent: no page both free and used, none lost;
//   - the last checkpoint, as a crash would find it: its tree is walked again from the file with
//     the same checks when it differs from the newest version, its free list is read and decoded,
//     and its tree, free-list extent and free list must account for every page it counts; no page
//     it references may have been reused (written again) before the next checkpoint.
//
// The meta page that is not the current one failing its checks is a problem, except in the state
// Open accepted: Open found it damaged and no checkpoint has run since. A crash during a
// checkpoint's meta write leaves exactly that, Open has judged it safe (FORMAT.md, damaged-meta
// rule), and the next checkpoint rewrites that slot; until then Check does not count it, so that a
// database recovered from such a crash checks clean. The same damage appearing while the database
// is open, or after a checkpoint, is reported.
//
// Check holds the writer slot while it runs, as a write transaction does: commits wait; read
// transactions go on. It first waits for a running checkpoint to end (one would change the page
// accounting under it), then until the newest commit is durable. It reads every reachable extent of the newest
// version once, and those of the last checkpoint's tree again if that tree differs (after commits
// not yet checkpointed): about the size of the database in reads, twice at most, with one byte of
// memory per page and a map entry per extent. Returns ErrClosed after Close, and the failure
// (wrapping ErrFailed) on a failed database. A read error of the file hides what lies below the
// page it could not read, so after one Check reports no page as lost (it cannot tell). At most 1000 problems are listed; the rest are
// counted in a last one.
func (db *DB) Check() error {
	db.checkpointMu.Lock() // a checkpoint's last step runs outside the writer slot
	defer db.checkpointMu.Unlock()
	db.lockWriter()
	defer db.unlockWriter()
	if db.closed.Load() {
		return ErrClosed
	}
	if err := db.settleLatest(); err != nil {
		return fmt.Errorf("cairn: check: %w", err)
	}
	if err := db.failed(); err != nil {
		return fmt.Errorf("cairn: check: %w", err)
	}
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	v := db.latest.Load()
	c := checker{pg: db.pager, seen: make(map[string]bool), ledgerProblems: make(map[string]int)}
	if !c.meta() {
		// The page count is not backed by the file: per-page tables cannot be sized by it.
		c.walkVersion(v.root, v.catalog, false, nil)
		return c.result()
	}
	latest := c.newest(v.root, v.catalog)
	c.checkpoint(v.root, v.catalog, latest)
	if invariants.Enabled && len(c.problems) == 0 && !c.readFailed {
		db.pager.TrustAccounting() // the accounting checks may run from now on (invariants.go)
	}
	return c.result()
}

// check is Check for the tests that predate it.
func (db *DB) check() error { return db.Check() }

// maxProblems caps the problems Check lists; the rest are counted.
const maxProblems = 1000

// checker collects the problems of one Check.
type checker struct {
	pg *pager.Pager
	// read, if set, replaces pager.CheckExtent (Backup reads through the cache, without the
	// writer slot that CheckExtent needs).
	read     func(id uint64, fileOnly bool) ([]byte, error)
	problems []error
	seen     map[string]bool
	more     int
	// ledgerProblems maps an accounting problem's detail to its index in problems, so that the
	// same finding in both versions is listed once, naming both.
	ledgerProblems map[string]int
	// readFailed is set by a read error of the file (not damage): pages below the page that
	// could not be read are not claimed, so lost pages cannot be told.
	readFailed bool
}

// readErr notes err if it is a read error of the file rather than damage.
func (c *checker) readErr(err error) {
	if err != nil && !errors.Is(err, ErrCorrupt) {
		c.readFailed = true
	}
}

// add records err, once per distinct message (the checkpoint's tree shares pages with the newest
// version, so its walk can meet the same damage again).
func (c *checker) add(err error) {
	msg := err.Error()
	switch {
	case c.seen[msg]:
	case len(c.problems) >= maxProblems:
		c.more++
	default:
		c.seen[msg] = true
		c.problems = append(c.problems, fmt.Errorf("cairn: check: %w", err))
	}
}

func (c *checker) corrupt(format string, a ...any) {
	c.add(fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), ErrCorrupt))
}

// ledgerProblem records an accounting problem of version name, merging it with the same finding
// for the other version.
func (c *checker) ledgerProblem(name, format string, a ...any) {
	detail := fmt.Sprintf(format, a...)
	if i, dup := c.ledgerProblems[detail]; dup {
		c.problems[i] = fmt.Errorf("cairn: check: newest version and checkpoint: %s: %w", detail, ErrCorrupt)
		return
	}
	if len(c.problems) < maxProblems {
		c.ledgerProblems[detail] = len(c.problems)
	}
	c.corrupt("%s: %s", name, detail)
}

func (c *checker) result() error {
	if c.more > 0 {
		c.problems = append(c.problems, fmt.Errorf("cairn: check: %d more problems not listed: %w", c.more, ErrCorrupt))
	}
	return errors.Join(c.problems...)
}

// meta checks the meta pages of the file and reports whether the file holds every page the
// current one counts.
func (c *checker) meta() bool {
	m := c.pg.CheckMeta()
	for _, err := range m.Problems {
		c.add(err)
	}
	return m.FileHoldsCount
}

// newest checks the tree and the page accounting of the newest version at root and returns the
// ledger of its pages.
func (c *checker) newest(root, catalog uint64) *ledger {
	l := newLedger(c, "newest version", c.pg.PageCount())
	c.walkVersion(root, catalog, false, l)
	c.account(l)
	return l
}

// account claims in l, which holds the pages of the newest version's trees, the pages the pager
// does not count as used (reusable, pending, the checkpoint's free-list extent), and reports
// pages claimed twice, pages lost, and pages allocated since the checkpoint outside the trees.
func (c *checker) account(l *ledger) {
	reusable, pending, freelist := c.pg.Accounting()
	l.claimAll(reusable, ownerFree)
	l.claimAll(pending, ownerPending)
	l.claimAll(freelist, ownerFreelistExtent)
	l.reportConflicts()
	l.reportLost()
	for _, id := range c.pg.DirtyExtents() {
		if l.owner(id) != ownerTree {
			c.corrupt("page %d: allocated since the checkpoint and live, but not in the tree", id)
		}
	}
}

// checkpoint checks the version of the last checkpoint as the file holds it. latest is the ledger
// of the newest version, whose trees are at root and catalog.
func (c *checker) checkpoint(root, catalog uint64, latest *ledger) {
	d := c.pg.Durable()
	if d.PageCount > c.pg.PageCount() {
		return // CheckMeta reported it, or Compact shrank the file since: the counts would be meaningless
	}
	l := newLedger(c, "checkpoint", d.PageCount)
	if d.Root == root && d.Catalog == catalog {
		l.copyTree(latest) // the same trees: they have no page written since the checkpoint
	} else {
		c.walkVersion(d.Root, d.Catalog, true, l)
	}
	l.claim(d.FreelistID, d.FreelistPages, ownerFreelistExtent)
	ids, err := c.pg.CheckpointFreelist()
	if err != nil {
		c.readErr(err)
		c.add(err)
	}
	l.claimAll(ids, ownerFree)
	l.reportConflicts()
	l.reportLost()
	reusable, _, _ := c.pg.Accounting()
	for _, id := range reusable {
		if o := l.owner(id); o == ownerTree || o == ownerFreelistExtent {
			c.corrupt("page %d: reusable, but the checkpoint still references it (%s)", id, ownerNames[o])
		}
	}
}

// walkVersion checks every tree of a version: its default key space at root, its bucket catalog,
// the bucket trees the catalog lists, and the extents of deleted buckets still on the drop stack.
func (c *checker) walkVersion(root, catalog uint64, fileOnly bool, l *ledger) {
	c.walk(root, fileOnly, l)
	if catalog == 0 {
		return
	}
	c.walk(catalog, fileOnly, l)
	cat := btree.Open(c.pg, catalog, false)
	cur := cat.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		c.catalogEntry(k, v, fileOnly, l)
	}
	if err := cur.Err(); err != nil {
		c.add(err)
	}
}

// catalogEntry checks what catalog entry k, v references: a bucket's tree, or the extents of
// deleted buckets on the drop stack.
func (c *checker) catalogEntry(k, v []byte, fileOnly bool, l *ledger) {
	switch {
	case len(k) > 0 && k[0] == ondisk.CatalogBucket && len(v) == ondisk.BucketEntrySize && v[0] == ondisk.BucketKind:
		c.walk(binary.LittleEndian.Uint64(v[1:]), fileOnly, l)
	case len(k) > 0 && k[0] == ondisk.CatalogDropStack && len(v)%8 == 0:
		for i := 0; i < len(v); i += 8 {
			c.walkDropped(binary.LittleEndian.Uint64(v[i:]), fileOnly, l)
		}
	default:
		c.corrupt("bucket catalog: bad entry %.40q (%d bytes)", k, len(v))
	}
}

// walkDropped checks an extent of a deleted bucket: a subtree, or an overflow value.
func (c *checker) walkDropped(id uint64, fileOnly bool, l *ledger) {
	p, err := c.readExtent(id, fileOnly)
	c.readErr(err)
	switch {
	case err != nil:
		c.add(fmt.Errorf("bucket catalog: drop stack: %w", err))
	case pager.Type(p) == pager.PageOverflow:
		if l != nil {
			l.claim(id, uint64(len(p)/c.pg.PageSize()), ownerTree)
		}
	default:
		c.walk(id, fileOnly, l)
	}
}

func (c *checker) readExtent(id uint64, fileOnly bool) ([]byte, error) {
	if c.read != nil {
		return c.read(id, fileOnly)
	}
	return c.pg.CheckExtent(id, fileOnly)
}

// walk checks the tree at root, claiming its extents in l (if not nil). fileOnly reads every
// extent from the file (the checkpoint's tree).
func (c *checker) walk(root uint64, fileOnly bool, l *ledger) {
	w := btree.Checker{
		Read: func(id uint64) ([]byte, error) {
			b, err := c.readExtent(id, fileOnly)
			c.readErr(err)
			return b, err
		},
		PageSize: c.pg.PageSize(),
	}
	if l != nil {
		w.Visit = func(id uint64, pages int) { l.claim(id, uint64(pages), ownerTree) }
	}
	for _, err := range w.Walk(root) {
		c.add(err) // no version prefix: a damaged page shared by both versions is listed once
	}
}

// Owners of a page in a ledger.
const (
	ownerNone = iota
	ownerTree
	ownerFree
	ownerPending
	ownerFreelistExtent
)

var ownerNames = [...]string{"nothing", "the tree", "the free list", "the pending free list", "the free-list extent"}

// ledger records which structure uses each page id of one version: one byte per page.
type ledger struct {
	c     *checker
	name  string
	pages []uint8
	// conflicts lists the ids claimed twice, by the pair of owners.
	conflicts map[[2]uint8][]uint64
	outside   []string
}

func newLedger(c *checker, name string, count uint64) *ledger {
	return &ledger{c: c, name: name, pages: make([]uint8, count), conflicts: make(map[[2]uint8][]uint64)}
}

func (l *ledger) owner(id uint64) uint8 {
	if id < uint64(len(l.pages)) {
		return l.pages[id]
	}
	return ownerNone
}

// claim records that the extent of n pages at id belongs to who. n == 0 (an extent that could not
// be read) claims its first page only, if it is inside the file. The part of an extent outside
// [MetaPages, count) is reported, not iterated.
func (l *ledger) claim(id, n uint64, who uint8) {
	count := uint64(len(l.pages))
	if n == 0 {
		if id < pager.MetaPages || id >= count {
			return // the read already failed on the range
		}
		n = 1
	}
	end := id + n
	if end < id || id < pager.MetaPages || end > count {
		l.outside = append(l.outside, fmt.Sprintf("%s of %d pages at %d", ownerNames[who], n, id))
		end = min(max(end, id), count) // an overflowing end is clamped too
	}
	for x := max(id, pager.MetaPages); x < end; x++ {
		if l.pages[x] != ownerNone {
			k := [2]uint8{l.pages[x], who}
			l.conflicts[k] = append(l.conflicts[k], x)
		} else {
			l.pages[x] = who
		}
	}
}

func (l *ledger) claimAll(ids []uint64, who uint8) {
	for _, id := range ids {
		l.claim(id, 1, who)
	}
}

// copyTree claims in l every page that src gives to the tree.
func (l *ledger) copyTree(src *ledger) {
	for id, o := range src.pages {
		if o == ownerTree && id < len(l.pages) {
			l.pages[id] = ownerTree
		}
	}
}

func (l *ledger) reportConflicts() {
	keys := make([][2]uint8, 0, len(l.conflicts))
	for k := range l.conflicts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]uint8) int { return int(a[0])<<8 + int(a[1]) - int(b[0])<<8 - int(b[1]) })
	for _, k := range keys {
		ids := l.conflicts[k]
		if k[0] == k[1] {
			l.c.ledgerProblem(l.name, "%s claimed by %s twice", formatIDs(ids), ownerNames[k[0]])
		} else {
			l.c.ledgerProblem(l.name, "%s both in %s and in %s", formatIDs(ids), ownerNames[k[0]], ownerNames[k[1]])
		}
	}
	for i, what := range l.outside {
		if i == 20 {
			l.c.ledgerProblem(l.name, "%d extents in all outside [%d, %d)", len(l.outside), pager.MetaPages, len(l.pages))
			break
		}
		l.c.ledgerProblem(l.name, "%s: outside [%d, %d)", what, pager.MetaPages, len(l.pages))
	}
}

// reportLost reports the pages no structure claims.
func (l *ledger) reportLost() {
	if l.c.readFailed {
		return
	}
	var lost []uint64
	for id := pager.MetaPages; id < len(l.pages); id++ {
		if l.pages[id] == ownerNone {
			lost = append(lost, uint64(id))
		}
	}
	if len(lost) > 0 {
		l.c.ledgerProblem(l.name, "%s neither used nor free (lost)", formatIDs(lost))
	}
}

// formatIDs writes ids as "page 7" or "pages 3-5, 9" (at most 20 runs, then a count).
func formatIDs(ids []uint64) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var b strings.Builder
	runs := 0
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if runs == 20 {
			fmt.Fprintf(&b, ", ... (%d pages in all)", len(ids))
			break
		}
		if runs > 0 {
			b.WriteString(", ")
		}
		if i == j {
			fmt.Fprintf(&b, "%d", ids[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", ids[i], ids[j])
		}
		runs++
		i = j + 1
	}
	if len(ids) == 1 {
		return "page " + b.String()
	}
	return "pages " + b.String()
}

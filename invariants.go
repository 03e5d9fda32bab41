package cairn

// Run-time checks of the write path's invariants (db.go's version markers, commit.go's held
// commits and pending versions) and of a checkpoint's page accounting, for the invariants build
// (package internal/invariants lists them all). Every call site reads
// "if invariants.Enabled { ... }", which a normal build compiles to nothing. A check must not
// change what it checks: it reads atomics and what its caller's locks already guard, takes no
// lock of the DB's, and reads no file (the checkpoint's walk stays in memory).

import (
	"errors"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/pager"
)

// assertMarkers checks published.lsn <= latest.lsn <= headLSN once a marker moved (where names
// the place). It needs no lock: it loads the markers in that order, each of them only moves
// forward, and the stores keep the order at every instant (setLatest stores headLSN before
// latest; a pending version is published only once latest has reached it), so values loaded one
// after the other keep it too.
func (db *DB) assertMarkers(where string) {
	p, l := db.published.Load(), db.latest.Load()
	h := db.headLSN.Load()
	if p.lsn > l.lsn || l.lsn > h {
		invariants.Fail(invariants.VersionMarkers, "%s: published %d, latest %d, headLSN %d: want published <= latest <= headLSN",
			where, p.lsn, l.lsn, h)
	}
}

// assertNewLatest checks, before setLatest makes v latest, that neither latest nor headLSN moves
// back: v is at least the newest commit, so no commit is left after it unmaterialized.
// REQUIRES: stateMu, or at open.
func (db *DB) assertNewLatest(v *version) {
	if l := db.latest.Load(); l != nil && v.lsn < l.lsn {
		invariants.Fail(invariants.VersionMarkers, "setLatest: latest would move back from %d to %d", l.lsn, v.lsn)
	}
	if h := db.headLSN.Load(); v.lsn < h {
		invariants.Fail(invariants.VersionMarkers, "setLatest: version %d is older than headLSN %d: the commits after it would be lost", v.lsn, h)
	}
}

// assertWriteState checks the markers and the held commits after a change of the write state
// (where names it). REQUIRES: stateMu, or at open.
func (db *DB) assertWriteState(where string) {
	db.assertMarkers(where)
	db.assertHeld(where)
}

// assertHeld checks that the commits in (latest.lsn, headLSN] are exactly the held ones, one
// record each in LSN order (a record's LSN is latest.lsn plus its position, so the count is the
// whole check), and that held.bytes is the sum of their lengths. A failed database is skipped:
// a failed materialization or replay drops the held commits without moving latest, and nothing
// commits any more. REQUIRES: stateMu, and markers in order (assertMarkers).
func (db *DB) assertHeld(where string) {
	if db.failure.Load() != nil {
		return
	}
	latest, head := db.latest.Load().lsn, db.headLSN.Load()
	if uint64(len(db.held.records)) != head-latest {
		invariants.Fail(invariants.HeldCommits, "%s: held records: %d, but (latest %d, headLSN %d] holds %d commits",
			where, len(db.held.records), latest, head, head-latest)
	}
	sum := 0
	for _, r := range db.held.records {
		sum += len(r)
	}
	if sum != db.held.bytes {
		invariants.Fail(invariants.HeldCommits, "%s: held.bytes is %d, the %d held records hold %d bytes",
			where, db.held.bytes, len(db.held.records), sum)
	}
}

// assertHold checks, before holdCommit holds tx's commit at lsn, that lsn follows headLSN (the
// held records stay consecutive), that tx's trees are on latest (a transaction whose base a copy
// materialization replaced rebases first), and that the commit leaves the drop stack alone (its
// steps run only in commits that materialize: mayHold). REQUIRES: treeMu, stateMu.
func (db *DB) assertHold(tx *Tx, lsn uint64) {
	latest := db.latest.Load()
	switch h := db.headLSN.Load(); {
	case lsn != h+1:
		invariants.Fail(invariants.HeldCommits, "holdCommit: LSN %d does not follow headLSN %d", lsn, h)
	case tx.base != latest:
		invariants.Fail(invariants.HeldCommits, "holdCommit: the transaction's base is LSN %d, latest is %d: it did not rebase", tx.base.lsn, latest.lsn)
	case tx.dropPending || latest.dropping:
		invariants.Fail(invariants.HeldCommits, "holdCommit: LSN %d would be held while the drop stack has pages to free", lsn)
	}
}

// assertPending checks that the pending versions are in LSN order, after the published one and
// at most headLSN. REQUIRES: pendingMu.
func (db *DB) assertPending(where string) {
	pub := db.published.Load().lsn
	prev := pub
	for i, v := range db.pending {
		if v.lsn <= prev {
			invariants.Fail(invariants.PendingVersions, "%s: pending[%d] at LSN %d does not follow LSN %d (published %d)",
				where, i, v.lsn, prev, pub)
		}
		prev = v.lsn
	}
	if h := db.headLSN.Load(); prev > h {
		invariants.Fail(invariants.PendingVersions, "%s: a version at LSN %d is pending after headLSN %d", where, prev, h)
	}
}

// assertPublish checks, before onDurable publishes v, that published moves forward only (the
// reader registry's pin protocol relies on it: package txn). REQUIRES: pendingMu.
func (db *DB) assertPublish(v *version) {
	if p := db.published.Load(); v.lsn < p.lsn {
		invariants.Fail(invariants.VersionMarkers, "onDurable: published would move back from %d to %d", p.lsn, v.lsn)
	}
}

// assertDurable checks, once onDurable has published what the batch ending at lastLSN made
// durable: the pending versions and the markers, that the published version is durable, and
// that a materialization covers the batch's records (latest.lsn >= lastLSN), without which a
// commit of the batch would be acknowledged that no version holds. A failed database is skipped
// for the last (see assertHeld). REQUIRES: pendingMu.
func (db *DB) assertDurable(lastLSN uint64) {
	db.assertPending("onDurable")
	db.assertMarkers("onDurable")
	if p := db.published.Load().lsn; p > lastLSN {
		invariants.Fail(invariants.VersionMarkers, "onDurable: published %d is past the durable LSN %d", p, lastLSN)
	}
	if l := db.latest.Load().lsn; l < lastLSN && db.failure.Load() == nil {
		invariants.Fail(invariants.DurableMaterialized, "onDurable: the batch up to LSN %d is durable, but latest is %d: no materialization covers its last records",
			lastLSN, l)
	}
}

// errNotResident is the read error of assertCheckpointPages's walk for an extent not in memory.
var errNotResident = errors.New("not in memory")

// assertCheckpointPages checks, before a checkpoint plans version v, that every page v's trees
// reach (default key space, catalog, buckets, the drop stack's extents) is used once and is
// neither reusable, nor pending, nor in the checkpoint's free-list extent, that the free list
// lists no page twice, that every extent allocated since the last checkpoint is in the trees,
// and that the trees are well formed: Check's accounting of the newest version (checker.account),
// on a walk that reads only extents in memory (pager.Resident), so that it neither reads the
// file nor changes the cache. Below an extent not in memory nothing is claimed, so lost pages
// (in no structure) are reported only when the walk reached every extent. It runs only while the
// pager's accounting is trusted (created by this process, or found sound by Check since Open:
// pager.AccountingTrusted): with bookkeeping read from a file, damage that Check reports as
// ErrCorrupt could make it fire. REQUIRES: checkpointMu, the writer slot,
// treeMu, stateMu, and nothing held (v is latest, on pages).
func (db *DB) assertCheckpointPages(v *version) {
	if !db.pager.AccountingTrusted() || db.failure.Load() != nil {
		return
	}
	c := &checker{pg: db.pager, seen: make(map[string]bool), ledgerProblems: make(map[string]int),
		read: func(id uint64, _ bool) ([]byte, error) {
			if b := db.pager.Resident(id); b != nil {
				return b, nil
			}
			return nil, errNotResident
		}}
	l := newLedger(c, "checkpoint of the newest version", db.pager.PageCount())
	c.walk(v.root, false, l)
	if v.catalog != 0 {
		c.walk(v.catalog, false, l)
		c.residentCatalog(v.catalog, 0, l)
	}
	c.account(l)
	var problems []error
	for _, err := range c.problems {
		if !errors.Is(err, errNotResident) {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		invariants.Fail(invariants.CheckpointPages, "checkpoint at LSN %d: %v", v.lsn, errors.Join(problems...))
	}
}

// residentCatalog checks the entries of the catalog tree below page id (checker.catalogEntry),
// reading only extents in memory; an entry it cannot read marks the walk incomplete.
func (c *checker) residentCatalog(id uint64, depth int, l *ledger) {
	p := c.pg.Resident(id)
	if p == nil || depth > btree.MaxDepth {
		c.readFailed = true
		return
	}
	elems, err := btree.Elements(id, p)
	if err != nil {
		c.add(err)
		return
	}
	for _, e := range elems {
		if pager.Type(p) == pager.PageBranch {
			c.residentCatalog(e.Child, depth+1, l)
			continue
		}
		v := e.Value
		if v == nil {
			o := c.pg.Resident(e.Overflow)
			if o == nil || pager.Type(o) != pager.PageOverflow || len(o)-pager.HeaderSize < int(e.ValueSize) {
				c.readFailed = true
				continue
			}
			v = o[pager.HeaderSize : pager.HeaderSize+int(e.ValueSize)]
		}
		c.catalogEntry(e.Key, v, false, l)
	}
}

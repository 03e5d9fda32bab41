package cairn

// Spilling once per batch (DESIGN.md, "Spilling once per batch"). Invariants:
//   - Every commit after latest is carried: its record is in carry.records and its changes are in
//     carry.trees, the decoded trees at headLSN, until one spill writes them all to pages as one
//     version at headLSN (the batch writer's prepareBatch, a commit that cannot be carried, or a
//     caller of spillCarried that needs latest on pages).
//   - The batch writer never waits for a write transaction: if one holds carryMu (it may run for
//     long, its function may even wait for a commit of this very batch), the batch writer spills
//     a copy of the carried commits rebuilt from their records (spillCopy). The transaction's
//     trees are then built on a version older than latest: before it commits, or rolls back to a
//     savepoint, it rebases (replays its own record onto latest). The pages the copy's spill
//     freed stay untouched meanwhile: freed pages become reusable only in Release, which runs
//     under the writer slot.
//   - No batch is reported durable before a spill covers its records (prepareBatch spills, before
//     the batch's write or beside its fdatasync), so every acknowledged record belongs to a
//     pending or published version, and Update returns only once a version holding its commit
//     is published (awaitPublished).
//   - A write transaction that does not commit may have changed carry.trees in place: its end
//     rebuilds them from latest by replaying the carried records, as recovery would.
//   - The catalog holds every bucket's root at latest; a bucket a carried commit changed has its
//     tree in carry.trees, which supersedes that entry until the spill writes its new root.
//   - No carried commit deletes a bucket holding pages or runs while the drop stack frees one
//     (mayCarry): the drop stack's steps run in spilling commits only.

import (
	"bytes"
	"fmt"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/wal"
)

// carry is the state of the commits after latest. Its fields are guarded by DB.stateMu; the
// decoded nodes of trees are used by whoever holds DB.carryMu.
type carry struct {
	// trees are the trees at the newest commit, decoded nodes included; meaningful only while
	// records is not empty.
	trees carriedTrees
	// records are the WAL records (redo payloads) of the carried commits, in LSN order; the trees
	// keep slices of them.
	records [][]byte
	// bytes is the sum of the records' lengths.
	bytes int
}

// carriedTrees are the trees of the carried commits: the default key space, the catalog if a
// carried commit opened it, and every bucket a carried commit changed (the catalog holds those
// buckets' roots at latest: a carried bucket tree supersedes its catalog entry until the spill
// writes the new root).
type carriedTrees struct {
	main        btree.Tree
	catalog     btree.Tree
	catalogOpen bool
	buckets     []carriedBucket
}

// carriedBucket is the tree of bucket name as the carried commits left it.
type carriedBucket struct {
	name []byte
	tree btree.Tree
}

// takeFrom makes tx's trees the carried ones: the default key space, the catalog, and the
// buckets it changed that still exist. Buckets it did not change are on pages at latest.
func (c *carriedTrees) takeFrom(tx *Tx) {
	c.reset()
	c.main, c.catalog, c.catalogOpen = tx.main.tree, tx.catalog, tx.catalogOpen
	for _, b := range tx.buckets { // in any order: giveTo makes handles of them, commitTrees sorts
		if !b.deleted && b.gen == tx.gen && b.tree.Dirty() {
			c.buckets = append(c.buckets, carriedBucket{name: b.name, tree: b.tree})
		}
	}
}

// giveTo makes the carried trees tx's, tx having just begun on latest: each carried bucket gets
// a handle, which Bucket returns instead of loading the catalog's root.
func (c *carriedTrees) giveTo(tx *Tx) {
	tx.main.tree = c.main
	if c.catalogOpen {
		tx.catalog, tx.catalogOpen = c.catalog, true
	}
	for _, cb := range c.buckets {
		tx.addHandle(&Bucket{tx: tx, name: bytes.Clone(cb.name), tree: cb.tree, gen: tx.gen})
	}
}

// reset forgets the carried trees (their decoded nodes stay in the workspace until its reset).
func (c *carriedTrees) reset() {
	c.main.Reset(nil, 0, false)
	c.catalog.Reset(nil, 0, false)
	c.catalogOpen = false
	clear(c.buckets)
	c.buckets = c.buckets[:0]
}

// Bounds of what is carried between spills: they bound the memory of the decoded nodes and the
// work of a rollback's replay (a few milliseconds at most). A commit past them spills.
const (
	maxCarriedCommits = 1024
	maxCarriedBytes   = 4 << 20
)

// carrying reports whether commits are carried (stateMu held).
func (db *DB) carrying() bool { return len(db.carry.records) > 0 }

// clearCarry forgets the carried commits, once a spill covers them (stateMu held). It does not
// touch the decoded nodes: a running transaction may still use them.
func (db *DB) clearCarry() {
	clear(db.carry.records) // drop the references to the records
	db.carry.records = db.carry.records[:0]
	db.carry.bytes = 0
	db.carry.trees.reset()
}

// lockWriter takes the writer slot and the write state, for a caller that neither commits nor
// rolls back a transaction (Checkpoint, Check, Close, compaction's steps).
func (db *DB) lockWriter() {
	db.writer.Lock()
	db.carryMu.Lock()
}

func (db *DB) unlockWriter() {
	db.carryMu.Unlock()
	db.writer.Unlock()
}

// setLatest makes v the newest spilled version with nothing carried after it (stateMu held, or
// at open). headLSN is stored before any record at v.lsn is submitted, so prepareBatch covers it.
func (db *DB) setLatest(v *version) {
	db.headLSN.Store(v.lsn)
	db.latest.Store(v)
}

// mayCarry reports whether tx's commit may be carried instead of spilled: its record holds an
// operation (a compaction step's changes are pages alone), no deleted bucket's pages wait to be
// freed (the drop stack's steps run in a spilling commit only), and the carried commits stay
// within their bounds.
func (tx *Tx) mayCarry() bool {
	db := tx.db
	return len(tx.redo) > 1 && !tx.dropPending && !db.latest.Load().dropping &&
		len(db.carry.records) < maxCarriedCommits && db.carry.bytes+len(tx.redo) <= maxCarriedBytes
}

// carryCommit carries tx's commit at lsn and submits its record (carryMu and stateMu held).
func (db *DB) carryCommit(tx *Tx, lsn uint64) *wal.Ticket {
	db.carry.trees.takeFrom(tx)
	db.carry.records = append(db.carry.records, tx.redo)
	db.carry.bytes += len(tx.redo)
	db.headLSN.Store(lsn) // before Submit: see setLatest
	return db.committer.Submit(lsn, tx.redo)
}

// submitVersion makes v, just spilled by a commit with record redo, the newest version, queues
// it to be published once its batch is durable, and submits the record (carryMu and stateMu
// held).
func (db *DB) submitVersion(v *version, redo []byte) *wal.Ticket {
	db.counters.spills.Add(1)
	db.clearCarry()
	db.setLatest(v)
	db.pendingMu.Lock()
	defer db.pendingMu.Unlock()
	db.pending = append(db.pending, v)
	v.ticket = db.committer.Submit(v.lsn, redo) // under pendingMu: awaitPublished reads it
	return v.ticket
}

// spillCarried writes the carried commits to pages as the version at headLSN, queued to be
// published with the batch that holds its record, and empties the workspace (carryMu held, and
// no write transaction running but one that changed nothing and resets its trees next, see
// Tx.spillCarried; it takes stateMu). A failed spill fails the database.
func (db *DB) spillCarried() error {
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	if !db.carrying() {
		return nil
	}
	tx := db.newReplayTx(&db.workspace)
	db.carry.trees.giveTo(tx)
	err := db.spillTrees(tx)
	tx.dropTrees()
	db.workspace.Reset()
	return err
}

// spillCarried spills the carried commits for tx, which has just begun and changed nothing, and
// moves it onto the version they make: nothing is carried while it runs, so no copy spill can
// change its base.
func (tx *Tx) spillCarried() error {
	db := tx.db
	if err := db.spillCarried(); err != nil {
		return err
	}
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	tx.base = db.latest.Load()
	tx.dropTrees()
	tx.resetTree(&tx.main.tree, tx.base.root)
	return nil
}

// settleLatest spills the carried commits and waits until the newest commit is durable, for a
// caller that holds the writer slot and carryMu and needs latest on pages and durable
// (Checkpoint, Check). It spills first: the batch that makes the newest commit durable must not
// need carryMu, held here.
func (db *DB) settleLatest() error {
	if err := db.spillCarried(); err != nil {
		return err
	}
	if t := db.lastTicket; t != nil {
		return t.Wait()
	}
	return nil
}

// spillCopy is spillCarried for the batch writer while a write transaction holds carryMu: it
// replays the carried records into trees of its own, on a workspace of its own, and spills them.
func (db *DB) spillCopy() error {
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	if !db.carrying() {
		return nil // spilled by the transaction's commit meanwhile
	}
	db.counters.copySpills.Add(1)
	tx, err := db.replayCarriedTrees(&db.copyWorkspace)
	if err == nil {
		err = db.spillTrees(tx)
	}
	tx.dropTrees()
	db.copyWorkspace.Reset()
	return err
}

// newReplayTx returns db.replayTx reset to a write transaction on latest whose trees decode into
// ws (stateMu held): the transaction that replays or spills the carried commits.
func (db *DB) newReplayTx(ws *btree.Workspace) *Tx {
	tx := &db.replayTx
	*tx = Tx{db: db, writable: true, base: db.latest.Load(), replaying: true, ws: ws}
	tx.main.tx = tx
	tx.resetTree(&tx.main.tree, tx.base.root)
	return tx
}

// replayCarriedTrees replays the carried records onto latest in db.replayTx, decoding into ws,
// and returns it (stateMu held). A read error of the database file fails the database and drops
// the carried commits: they could not be written any more.
func (db *DB) replayCarriedTrees(ws *btree.Workspace) (*Tx, error) {
	tx := db.newReplayTx(ws)
	if err := tx.replayCarried(); err != nil {
		db.clearCarry()
		return tx, db.fail(fmt.Errorf("cairn: replay of the carried commits: %w", err))
	}
	return tx, nil
}

// spillTrees writes the trees of tx, which hold every carried commit, as the version at headLSN
// and makes it latest (stateMu held). A failed spill fails the database, and the carried commits
// are dropped: their records are never written (no batch takes them).
func (db *DB) spillTrees(tx *Tx) error {
	if err := db.failed(); err != nil {
		db.clearCarry()
		return err
	}
	v, err := tx.commitTrees(db.headLSN.Load())
	if err != nil {
		db.clearCarry()
		return db.fail(fmt.Errorf("cairn: spill of the carried commits: %w", err))
	}
	v.ticket = db.lastTicket
	db.counters.spills.Add(1)
	db.pendingMu.Lock()
	db.pending = append(db.pending, v)
	db.pendingMu.Unlock()
	db.clearCarry()
	db.setLatest(v)
	return nil
}

// prepareBatch is the committer's prepare hook (wal.NewCommitter): it runs on the goroutine that
// writes a batch, once the batch is taken. The batch's records are all carried or spilled (each
// commit stored headLSN before it submitted its record), so a spill of everything carried now
// covers them. A spill of one or two commits runs here; a larger one is returned, to run while the
// batch is written and synced, so that it does not lengthen the batch. No lock is taken when
// nothing is carried.
func (db *DB) prepareBatch() (func() error, error) {
	head := db.headLSN.Load()
	spilled := db.latest.Load().lsn
	switch {
	case spilled == head:
		return nil, nil
	case head-spilled > inlineSpillCommits:
		return db.spillFn, nil
	}
	return nil, db.spillForBatch()
}

// inlineSpillCommits is the most carried commits prepareBatch spills before the batch's write
// rather than beside its fdatasync, where it costs a hand-over to another goroutine.
const inlineSpillCommits = 2

// spillForBatch spills the carried commits for the batch writer. It never waits for carryMu (see
// the invariants above; Close may hold it while the committer closes): if a write transaction
// holds it, it spills a copy.
func (db *DB) spillForBatch() error {
	if db.carryMu.TryLock() {
		defer db.carryMu.Unlock()
		return db.spillCarried()
	}
	return db.spillCopy()
}

// awaitPublished returns once a version holding the commit at lsn, whose record is durable, is
// published: the version spilled after it may be in a later batch when MaxBatchBytes split the
// queue. It waits on that version's record, and returns its failure.
func (db *DB) awaitPublished(lsn uint64) error {
	if db.published.Load().lsn >= lsn {
		return nil
	}
	var t *wal.Ticket
	db.pendingMu.Lock()
	for _, v := range db.pending {
		if v.lsn >= lsn {
			t = v.ticket
			break
		}
	}
	db.pendingMu.Unlock()
	if t == nil {
		return nil // published meanwhile (onDurable publishes under pendingMu)
	}
	return t.Wait()
}

// replayCarried replays the carried records into tx, whose trees are at latest and which has
// replaying set (a rollback's rebuild, RollbackTo).
func (tx *Tx) replayCarried() error {
	for _, rec := range tx.db.carry.records {
		if err := tx.replay(rec); err != nil {
			return err
		}
	}
	return nil
}

// rebase rebuilds tx's trees on latest and the carried commits, then replays record (a prefix of
// its own record, or all of it) without logging it again (stateMu held). It is how RollbackTo
// undoes, and how a transaction whose base a copy spill replaced catches up before it commits.
// The replayed trees keep slices of record, which must not be modified afterwards.
func (tx *Tx) rebase(record []byte) error {
	db := tx.db
	tx.base = db.latest.Load()
	tx.gen++
	tx.resetTree(&tx.main.tree, tx.base.root)
	tx.catalogOpen, tx.dropPending = false, false
	tx.replaying = true
	err := tx.replayCarried()
	if err == nil {
		err = tx.replay(record)
	}
	tx.replaying = false
	if err != nil {
		tx.setErr(err) // the trees are half replayed: the carried ones must be rebuilt
	}
	return err
}

// rebuildCarried rebuilds the carried trees after a write transaction that changed them ended
// without committing (carryMu and stateMu held).
func (db *DB) rebuildCarried() {
	db.workspace.Reset()
	tx, err := db.replayCarriedTrees(&db.workspace)
	if err == nil {
		db.carry.trees.takeFrom(tx)
	}
	tx.dropTrees()
	if err != nil {
		db.workspace.Reset() // the half-replayed nodes: nothing is carried any more
	}
}

// endWrite ends a write transaction that did not commit (rolled back, failed, or committed
// nothing). If commits are carried, the tree of the default key space stays the carried one when
// the transaction changed nothing (and its base is latest); otherwise the carried tree is rebuilt.
// With nothing carried, the decoded nodes become workspace memory again.
func (tx *Tx) endWrite() {
	db := tx.db
	db.stateMu.Lock()
	switch {
	case !db.carrying():
		db.workspace.Reset()
	case len(tx.redo) == 0 && tx.err == nil && tx.base == db.latest.Load():
		db.carry.trees.takeFrom(tx)
	default:
		db.rebuildCarried()
	}
	db.stateMu.Unlock()
	tx.releaseWriter()
}

// releaseWriter ends a write transaction's hold on its trees, carryMu and the writer slot (no
// tree of an ended transaction is used: every call checks that the transaction is open).
func (tx *Tx) releaseWriter() {
	tx.dropTrees()
	tx.db.unlockWriter()
}

// dropTrees forgets tx's trees: the default key space's, the catalog's and the bucket handles'.
func (tx *Tx) dropTrees() {
	tx.main.tree.Reset(nil, 0, false)
	tx.catalog.Reset(nil, 0, false)
	tx.catalogOpen = false
	tx.buckets = nil
}

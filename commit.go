package cairn

// The write path: from Tx.Commit to the durable acknowledgement. A commit is a logical redo
// record (redo.go) appended to the WAL by group commit (wal.Committer), and a new version of the
// trees that readers see once the record's batch is durable. The version markers and the lock
// order are described on DB (db.go); "REQUIRES:" names the locks a function's caller holds.
//
// Data flow of a commit (DESIGN.md, "Data flow of a commit"):
//
//	goroutine of Update                       the batch writer (wal.Committer): this goroutine
//	                                          if no batch runs (it leads), else the committer's
//	                                          goroutine once the running batch ends
//	------------------------------------      ------------------------------------------------
//	Begin(true): writer.Lock, treeMu.Lock
//	  pager.Reclaim(readers)
//	  trees = the held trees (held.trees),
//	  or copy-on-write views of latest
//	Put/Delete: append to tx.redo, change
//	  the decoded leaf (btree)
//	Commit: lsn = headLSN+1 (commitLocked)
//	  mayHold: holdCommit   (usual case)
//	    held.records += redo; headLSN = lsn
//	  else: commitTrees -> version (pages);
//	    latest = version; pending += version
//	  committer.Submit(lsn, redo)  ------->   queue
//	releaseWriter: treeMu, writer unlocked
//	  (the next writer starts on held.trees)
//	ticket.Wait()                             take the queue as one batch
//	                                          prepareBatch: materialize every held commit as
//	                                          ONE version at headLSN (pending += version);
//	                                          a copy rebuilt from held.records if a writer holds
//	                                          treeMu; beside the fdatasync if more than two
//	                                          one WriteAt + one fdatasync for the batch
//	                                          onDurable(last LSN): published = newest pending
//	                               <-------   wake every ticket of the batch
//	awaitPublished(lsn): only when MaxBatchBytes split the queue after lsn
//	return nil: durable, and visible to new readers
//
// Held commits. Readers only ever see the last version of each durable batch, so writing every
// commit's trees as pages would be wasted for all but one commit of a batch. A commit is held
// instead: its record joins held.records and its trees stay decoded in held.trees, until one
// materialization writes them all as pages, as one version at headLSN. Invariants:
//   - Every commit after latest is held: its record is in held.records and its changes in
//     held.trees, the decoded trees at headLSN, until a materialization covers it (the batch
//     writer's prepareBatch, a commit that may not be held, or a caller of materializeHeld that
//     needs latest on pages). held.records is in LSN order and held.bytes is the sum of their
//     lengths.
//   - The batch writer never waits for a write transaction: if one holds treeMu (it may run for
//     long, its function may even wait for a commit of this very batch), the batch writer
//     materializes a copy of the held commits rebuilt from their records (materializeCopy). The
//     transaction's trees are then built on a version older than latest: before it commits, or
//     rolls back to a savepoint, it rebases (replays its own record onto latest). The pages the
//     copy's materialization freed stay untouched meanwhile: freed pages become reusable only in
//     pager.Reclaim, which runs under the writer slot.
//   - No batch is reported durable before a materialization covers its records (prepareBatch
//     runs before the batch's write or beside its fdatasync), so every acknowledged record
//     belongs to a pending or published version, and Update returns only once a version holding
//     its commit is published (awaitPublished).
//   - A write transaction that does not commit may have changed held.trees in place: its end
//     rebuilds them from latest by replaying the held records, as recovery would (endWrite).
//   - The catalog holds every bucket's root at latest; a bucket a held commit changed has its
//     tree in held.trees, which supersedes that entry until a materialization writes its root.
//   - No held commit deletes a bucket holding pages or runs while the drop stack frees one
//     (mayHold): the drop stack's steps run only in commits that materialize.

import (
	"bytes"
	"fmt"
	"time"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/wal"
)

// Commit ends a read-write transaction, writing its changes. It returns once they are durable
// (SyncFull) and visible to new read transactions. On error nothing of the transaction is
// visible: ErrTxTooLarge (more than MaxTxSize bytes of changes), or an error wrapping ErrFailed
// when the database failed (see ErrFailed), or the error of an earlier Put, Delete or iterator
// of the transaction (Err), which rolls it back. Committing a read-only transaction ends it like
// Rollback.
func (tx *Tx) Commit() error {
	switch {
	case tx.closed:
		return ErrTxClosed
	case tx.managed:
		return ErrTxManaged
	}
	if !tx.writable {
		return tx.Rollback()
	}
	if tx.err != nil {
		tx.end()
		return fmt.Errorf("cairn: commit refused, the transaction failed earlier: %w", tx.err)
	}
	switch {
	case len(tx.redo) == 0:
		tx.closed = true
		tx.endWrite() // nothing changed: the held commits stay as they are
		return nil
	case len(tx.redo) > maxTxSize:
		tx.closed = true
		tx.endWrite()
		return &sizeError{"transaction", len(tx.redo), maxTxSize, ErrTxTooLarge}
	}
	ticket, lsn, err := tx.submit()
	if err != nil {
		return err
	}
	if err := ticket.Wait(); err != nil {
		return fmt.Errorf("cairn: commit: %w", err)
	}
	if err := tx.db.awaitPublished(lsn); err != nil {
		return fmt.Errorf("cairn: commit: %w", err)
	}
	return nil
}

// submit commits tx, whose record is not empty, without waiting for its batch: it returns the
// record's ticket and LSN, the transaction ended and the writer slot released. On error the
// transaction is rolled back.
func (tx *Tx) submit() (*wal.Ticket, uint64, error) {
	db := tx.db
	db.stateMu.Lock()
	ticket, lsn, err := tx.commitLocked() // may replay the record through the open transaction
	db.stateMu.Unlock()
	tx.closed = true
	if err != nil {
		tx.endWrite()
		return nil, 0, fmt.Errorf("cairn: commit: %w", err)
	}
	walBytes := db.walBytes.Add(wal.RecordSpan(len(tx.redo)))
	tx.releaseWriter()
	db.counters.commits.Add(1)
	if db.checkpointDue(walBytes) {
		db.wakeCheckpoint()
	}
	return ticket, lsn, nil
}

// commitLocked commits tx, holding it or materializing it with the held commits, and submits its
// record; it returns the record's ticket and LSN. A transaction whose base a copy materialization
// replaced first rebases. A materializing commit leaves nothing held, so the workspace is emptied
// here; a held one keeps it. REQUIRES: treeMu, stateMu.
func (tx *Tx) commitLocked() (*wal.Ticket, uint64, error) {
	db := tx.db
	if tx.base != db.latest.Load() {
		if err := tx.rebase(tx.redo); err != nil {
			return nil, 0, err
		}
	}
	lsn := db.headLSN.Load() + 1
	var ticket *wal.Ticket
	if tx.mayHold() {
		ticket = db.holdCommit(tx, lsn)
	} else {
		v, err := tx.commitTrees(lsn) // the held commits' changes included
		if err != nil {
			return nil, 0, err
		}
		ticket = db.submitVersion(v, tx.redo, tx.applied)
		db.workspace.Reset()
	}
	db.lastTicket = ticket
	return ticket, lsn, nil
}

// mayHold reports whether tx's commit may be held instead of materialized: its record holds an
// operation (a compaction step's changes are pages alone), no deleted bucket's pages wait to be
// freed (the drop stack's steps run only in a commit that materializes), and the held commits
// stay within their bounds. REQUIRES: stateMu.
func (tx *Tx) mayHold() bool {
	db := tx.db
	return len(tx.redo) > 1 && !tx.dropPending && !db.latest.Load().dropping &&
		len(db.held.records) < maxHeldCommits && db.held.bytes+len(tx.redo) <= maxHeldBytes
}

// setLatest makes v the newest materialized version with nothing held after it (REQUIRES:
// stateMu, or at open). headLSN is stored before any record at v.lsn is submitted, so prepareBatch covers it.
func (db *DB) setLatest(v *version) {
	if invariants.Enabled {
		db.assertNewLatest(v)
	}
	db.headLSN.Store(v.lsn)
	db.latest.Store(v)
	if invariants.Enabled {
		db.assertWriteState("setLatest")
	}
}

// holdCommit holds tx's commit at lsn and submits its record. REQUIRES: treeMu, stateMu.
func (db *DB) holdCommit(tx *Tx, lsn uint64) *wal.Ticket {
	if invariants.Enabled {
		db.assertHold(tx, lsn)
	}
	db.held.trees.takeFrom(tx)
	db.held.records = append(db.held.records, tx.redo)
	db.held.bytes += len(tx.redo)
	db.headLSN.Store(lsn) // before Submit: see setLatest
	if invariants.Enabled {
		db.assertWriteState("holdCommit")
	}
	return db.submitRecord(lsn, tx.redo, tx.applied)
}

// submitRecord submits a commit's record to the WAL: as a record of the replication log if
// applied (ApplyRecords), which the Replicate hook does not see again.
func (db *DB) submitRecord(lsn uint64, redo []byte, applied bool) *wal.Ticket {
	if applied {
		return db.committer.SubmitReplicated(lsn, redo)
	}
	return db.committer.Submit(lsn, redo)
}

// submitVersion makes v, just materialized by a commit with record redo (applied: from
// ApplyRecords), the newest version, queues it to be published once its batch is durable, and
// submits the record. REQUIRES: treeMu, stateMu.
func (db *DB) submitVersion(v *version, redo []byte, applied bool) *wal.Ticket {
	db.counters.materializations.Add(1)
	db.clearHeld()
	db.setLatest(v)
	db.pendingMu.Lock()
	defer db.pendingMu.Unlock()
	db.pending = append(db.pending, v)
	if invariants.Enabled {
		db.assertPending("submitVersion")
	}
	v.ticket = db.submitRecord(v.lsn, redo, applied) // under pendingMu: awaitPublished reads it
	return v.ticket
}

// commitTrees writes the transaction's changed trees (buckets, drop-stack progress, catalog,
// default key space) for the commit at lsn and returns the version they make. Either every tree
// is written and the pages they replace are freed, or nothing is: on error every page allocated
// is returned.
func (tx *Tx) commitTrees(lsn uint64) (*version, error) {
	v := &version{lsn: lsn, root: tx.base.root, catalog: tx.base.catalog}
	var spilledBuf [8]*btree.Tree
	spilled := spilledBuf[:0]
	abort := func(err error) (*version, error) {
		for _, t := range spilled {
			t.Abort()
		}
		return nil, err
	}
	var handleBuf [8]*Bucket
	for _, b := range tx.buckets.sorted(handleBuf[:0]) {
		if b.deleted || b.gen != tx.gen || !b.tree.Dirty() {
			continue
		}
		root, err := b.tree.Spill(lsn)
		if err != nil {
			return abort(err)
		}
		spilled = append(spilled, &b.tree)
		if err := tx.openCatalog().Put(bucketKey(b.name), bucketEntry(root)); err != nil {
			return abort(err)
		}
	}
	var freed []freedExtent
	switch {
	case tx.replaying:
		// Recovery: the version may end at the checkpoint's LSN, which must stay as the meta page
		// has it; the next commit frees.
		v.dropping = tx.base.dropping || tx.dropPending
	case tx.base.dropping || tx.dropPending:
		var err error
		if freed, v.dropping, err = tx.dropStep(nil); err != nil {
			return abort(err)
		}
	}
	if tx.catalogOpen {
		root, err := tx.catalog.Spill(lsn)
		if err != nil {
			return abort(err)
		}
		spilled, v.catalog = append(spilled, &tx.catalog), root
	}
	root, err := tx.main.tree.Spill(lsn)
	if err != nil {
		return abort(err)
	}
	spilled, v.root = append(spilled, &tx.main.tree), root
	for _, t := range spilled {
		t.Finish(lsn)
	}
	for _, e := range freed {
		tx.db.pager.Free(e.id, e.pages, lsn, e.alloc)
	}
	return v, nil
}

// prepareBatch is the committer's prepare hook (wal.NewCommitter): it runs on the goroutine that
// writes a batch, once the batch is taken. The batch's records are all held or materialized (each
// commit stored headLSN before it submitted its record), so materializing everything held now
// covers them. A materialization of one or two commits runs here; a larger one is returned, to
// run while the batch is written and synced, so that it does not lengthen the batch. No lock is
// taken when nothing is held. On a failed database it fails the batch.
func (db *DB) prepareBatch() (func() error, error) {
	if p := db.failure.Load(); p != nil {
		// A failed materialization dropped held commits whose records may be in this batch: no
		// version will hold them, so the batch must not be reported durable.
		return nil, *p
	}
	head := db.headLSN.Load()
	materialized := db.latest.Load().lsn
	switch {
	case materialized == head:
		return nil, nil
	case head-materialized > inlineMaterializeCommits:
		return db.materializeFn, nil
	}
	return nil, db.materializeForBatch()
}

// inlineMaterializeCommits is the most held commits prepareBatch materializes before the batch's
// write rather than beside its fdatasync, where it costs a hand-over to another goroutine.
const inlineMaterializeCommits = 2

// materializeForBatch materializes the held commits for the batch writer. It never waits for
// treeMu (see the invariants above; Close may hold it while the committer closes): if a write
// transaction holds it, it materializes a copy.
func (db *DB) materializeForBatch() error {
	if db.treeMu.TryLock() {
		defer db.treeMu.Unlock()
		return db.materializeHeld()
	}
	return db.materializeCopy()
}

// materializeHeld writes the held commits as pages, the version at headLSN, queued to be
// published with the batch that holds its record, and empties the workspace. A failed
// materialization fails the database. REQUIRES: treeMu, and no write transaction running but
// one that changed nothing and resets its trees next (Tx.materializeHeld); it takes stateMu.
func (db *DB) materializeHeld() error {
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	if !db.hasHeld() {
		return nil
	}
	tx := db.newReplayTx(&db.workspace)
	db.held.trees.giveTo(tx)
	err := db.materializeTrees(tx)
	tx.dropTrees()
	db.workspace.Reset()
	return err
}

// materializeHeld materializes the held commits for tx, which has just begun and changed
// nothing, and moves it onto the version they make: nothing is held while it runs, so no copy
// materialization can change its base.
func (tx *Tx) materializeHeld() error {
	db := tx.db
	if err := db.materializeHeld(); err != nil {
		return err
	}
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	tx.base = db.latest.Load()
	tx.dropTrees()
	tx.resetTree(&tx.main.tree, tx.base.root)
	return nil
}

// settleLatest materializes the held commits and waits until the newest commit is durable, for
// a caller that needs latest on pages and durable (Checkpoint, Check). It materializes first: the
// batch that makes the newest commit durable must not need treeMu, held here. REQUIRES: the
// writer slot, treeMu.
func (db *DB) settleLatest() error {
	if err := db.materializeHeld(); err != nil {
		return err
	}
	if t := db.lastTicket; t != nil {
		return t.Wait()
	}
	return nil
}

// materializeCopy is materializeHeld for the batch writer while a write transaction holds
// treeMu: it replays the held records into trees of its own, on a workspace of its own, and
// materializes them.
func (db *DB) materializeCopy() error {
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	if !db.hasHeld() {
		return nil // materialized by the transaction's commit meanwhile
	}
	db.counters.copyMaterializations.Add(1)
	tx, err := db.replayHeldTrees(&db.copyWorkspace)
	if err == nil {
		err = db.materializeTrees(tx)
	}
	tx.dropTrees()
	db.copyWorkspace.Reset()
	return err
}

// newReplayTx returns db.replayTx reset to a write transaction on latest whose trees decode into
// ws: the transaction that replays or materializes the held commits. REQUIRES: stateMu.
func (db *DB) newReplayTx(ws *btree.Workspace) *Tx {
	tx := &db.replayTx
	*tx = Tx{db: db, writable: true, base: db.latest.Load(), replaying: true, ws: ws}
	tx.main.tx = tx
	tx.resetTree(&tx.main.tree, tx.base.root)
	return tx
}

// replayHeldTrees replays the held records onto latest in db.replayTx, decoding into ws,
// and returns it. REQUIRES: stateMu. A read error of the database file fails the database and drops
// the held commits: they could not be written any more.
func (db *DB) replayHeldTrees(ws *btree.Workspace) (*Tx, error) {
	tx := db.newReplayTx(ws)
	if err := tx.replayHeld(); err != nil {
		db.clearHeld()
		return tx, db.fail(fmt.Errorf("cairn: replay of the held commits: %w", err))
	}
	return tx, nil
}

// materializeTrees writes the trees of tx, which hold every held commit, as the version at
// headLSN and makes it latest. A failed materialization fails the database, and the held commits
// are dropped: their records are never written (no batch takes them). REQUIRES: stateMu.
func (db *DB) materializeTrees(tx *Tx) error {
	if err := db.failed(); err != nil {
		db.clearHeld()
		return err
	}
	v, err := tx.commitTrees(db.headLSN.Load())
	if err != nil {
		db.clearHeld()
		return db.fail(fmt.Errorf("cairn: materialization of the held commits: %w", err))
	}
	v.ticket = db.lastTicket
	db.counters.materializations.Add(1)
	db.pendingMu.Lock()
	db.pending = append(db.pending, v)
	if invariants.Enabled {
		db.assertPending("materializeTrees")
	}
	db.pendingMu.Unlock()
	db.clearHeld()
	db.setLatest(v)
	return nil
}

// onDurable runs on the goroutine that wrote the batch (the committer's, or a writer leading it)
// once the batch ending at lastLSN is durable: it publishes the newest version of the batch to
// readers.
func (db *DB) onDurable(lastLSN uint64) {
	db.pendingMu.Lock()
	i := 0
	for i < len(db.pending) && db.pending[i].lsn <= lastLSN {
		i++
	}
	var newest *version
	if i > 0 {
		newest = db.pending[i-1]
		n := copy(db.pending, db.pending[i:])
		clear(db.pending[n:])
		db.pending = db.pending[:n]
	}
	if newest != nil {
		if invariants.Enabled {
			db.assertPublish(newest)
		}
		db.publishLog.add(newest.lsn, time.Now())
		// Under pendingMu, so that awaitPublished finds a version either pending or published.
		db.published.Store(newest)
	}
	if invariants.Enabled {
		db.assertDurable(lastLSN)
	}
	db.pendingMu.Unlock()
	db.counters.batches.Add(1)
}

// awaitPublished returns once a version holding the commit at lsn, whose record is durable, is
// published: the version materialized after it may be in a later batch when MaxBatchBytes split the
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

// heldCommits is the state of the commits after latest. Its fields are guarded by DB.stateMu;
// the decoded nodes of trees are used by whoever holds DB.treeMu.
type heldCommits struct {
	// trees are the trees at the newest commit, decoded nodes included; meaningful only while
	// records is not empty.
	trees heldTrees
	// records are the WAL records (redo payloads) of the held commits, in LSN order; the trees
	// keep slices of them.
	records [][]byte
	// bytes is the sum of the records' lengths.
	bytes int
}

// heldTrees are the trees of the held commits: the default key space, the catalog if a
// held commit opened it, and every bucket a held commit changed (the catalog holds those
// buckets' roots at latest: a held bucket tree supersedes its catalog entry until a
// materialization writes the new root).
type heldTrees struct {
	main        btree.Tree
	catalog     btree.Tree
	catalogOpen bool
	buckets     []heldBucket
}

// heldBucket is the tree of bucket name as the held commits left it.
type heldBucket struct {
	name []byte
	tree btree.Tree
}

// takeFrom makes tx's trees the held ones: the default key space, the catalog, and the
// buckets it changed that still exist. Buckets it did not change are on pages at latest.
func (c *heldTrees) takeFrom(tx *Tx) {
	c.reset()
	c.main, c.catalog, c.catalogOpen = tx.main.tree, tx.catalog, tx.catalogOpen
	tx.buckets.all(func(b *Bucket) { // in any order: giveTo makes handles of them, commitTrees sorts
		if !b.deleted && b.gen == tx.gen && b.tree.Dirty() {
			name := b.name
			if tx.ownsHandle(b) { // the name is in tx's memory, which the replay Tx reuses
				name = bytes.Clone(name)
			}
			c.buckets = append(c.buckets, heldBucket{name: name, tree: b.tree})
		}
	})
}

// giveTo makes the held trees tx's, tx having just begun on latest: each held bucket gets
// a handle, which Bucket returns instead of loading the catalog's root.
func (c *heldTrees) giveTo(tx *Tx) {
	tx.main.tree = c.main
	if c.catalogOpen {
		tx.catalog, tx.catalogOpen = c.catalog, true
	}
	for _, cb := range c.buckets {
		b := newHandle(tx, cb.name)
		b.tree, b.gen = cb.tree, tx.gen
		tx.buckets.add(b)
	}
}

// reset forgets the held trees (their decoded nodes stay in the workspace until its reset).
func (c *heldTrees) reset() {
	c.main.Reset(nil, 0, false)
	c.catalog.Reset(nil, 0, false)
	c.catalogOpen = false
	clear(c.buckets)
	c.buckets = c.buckets[:0]
}

// Bounds of what is held between materializations: they bound the memory of the decoded nodes
// and the work of a rollback's replay (a few milliseconds at most). A commit past them
// materializes.
const (
	maxHeldCommits = 1024
	maxHeldBytes   = 4 << 20
)

// hasHeld reports whether commits are held. REQUIRES: stateMu.
func (db *DB) hasHeld() bool { return len(db.held.records) > 0 }

// clearHeld forgets the held commits, once a materialization covers them. It does not touch the
// decoded nodes: a running transaction may still use them. REQUIRES: stateMu.
func (db *DB) clearHeld() {
	clear(db.held.records) // drop the references to the records
	db.held.records = db.held.records[:0]
	db.held.bytes = 0
	db.held.trees.reset()
}

// replayHeld replays the held records into tx, whose trees are at latest and which has
// replaying set (a rollback's rebuild, RollbackTo).
func (tx *Tx) replayHeld() error {
	for _, rec := range tx.db.held.records {
		if err := tx.replay(rec); err != nil {
			return err
		}
	}
	return nil
}

// rebase rebuilds tx's trees on latest and the held commits, then replays record (a prefix of
// its own record, or all of it) without logging it again. It is how RollbackTo undoes, and how a
// transaction whose base a copy materialization replaced catches up before it commits. The
// replayed trees keep slices of record, which must not be modified afterwards. REQUIRES: treeMu,
// stateMu.
func (tx *Tx) rebase(record []byte) error {
	db := tx.db
	tx.base = db.latest.Load()
	tx.gen++
	tx.resetTree(&tx.main.tree, tx.base.root)
	tx.catalogOpen, tx.dropPending = false, false
	tx.replaying = true
	err := tx.replayHeld()
	if err == nil {
		err = tx.replay(record)
	}
	tx.replaying = false
	if err != nil {
		tx.setErr(err) // the trees are half replayed: the held ones must be rebuilt
	}
	return err
}

// rebuildHeld rebuilds the held trees after a write transaction that changed them ended
// without committing. REQUIRES: treeMu, stateMu.
func (db *DB) rebuildHeld() {
	db.workspace.Reset()
	tx, err := db.replayHeldTrees(&db.workspace)
	if err == nil {
		db.held.trees.takeFrom(tx)
	}
	tx.dropTrees()
	if err != nil {
		db.workspace.Reset() // the half-replayed nodes: nothing is held any more
	}
}

// endWrite ends a write transaction that did not commit (rolled back, failed, or committed
// nothing). If commits are held, the held trees stay as the transaction leaves them when it
// changed nothing (and its base is latest); otherwise they are rebuilt.
// With nothing held, the decoded nodes become workspace memory again.
func (tx *Tx) endWrite() {
	db := tx.db
	db.stateMu.Lock()
	switch {
	case !db.hasHeld():
		db.workspace.Reset()
	case len(tx.redo) == 0 && tx.err == nil && tx.base == db.latest.Load():
		db.held.trees.takeFrom(tx)
	default:
		db.rebuildHeld()
	}
	db.stateMu.Unlock()
	tx.releaseWriter()
}

// releaseWriter ends a write transaction's hold on its trees, treeMu and the writer slot (no
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
	tx.buckets.reset()
}

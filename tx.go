package cairn

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/txn"
)

// Tx is a transaction: read-only (a snapshot of the newest durable version, which never changes
// while the transaction is open) or read-write (the only writer; it sees its own changes). A Tx
// is used by one goroutine at a time and must end with Commit or Rollback; a read transaction
// left open delays page reuse and Close.
type Tx struct {
	db       *DB
	writable bool
	closed   bool
	// managed is set for the transactions of View and Update, which end them.
	managed bool
	base    *version
	// slot registers a read transaction's pinned version.
	slot *txn.Slot[Tx]
	// main is the default key space (the methods of Tx).
	main Bucket
	// catalog maps bucket names to their roots (see catalog.go); opened by the first bucket call.
	catalog     btree.Tree
	catalogOpen bool
	// buckets holds the handles returned by this transaction, by name.
	buckets handleSet
	// inline is the memory of the transaction's first bucket handles (newHandle), so that a
	// transaction of a table and an index allocates one object; inlineUsed counts those used.
	inline     [2]inlineHandle
	inlineUsed int
	// gen is bumped by RollbackTo: handles then reload their tree from the catalog.
	gen uint64
	// redo is the transaction's WAL record; redoBucket is the bucket its next operation applies
	// to (nil: the default key space).
	redo       []byte
	redoBucket []byte
	savepoints []savepoint
	spSeq      uint64
	// dropPending is set when the transaction changed the drop stack (catalog.go).
	dropPending bool
	// replaying is set while RollbackTo or recovery apply redo operations: they are not logged.
	replaying bool
	// applied marks a transaction of ApplyRecords: its record came from the replication log.
	applied bool
	// headLSN is, for a read-write transaction, the LSN of the newest commit when it began (held
	// commits included; base may be older).
	headLSN uint64
	// ws is the workspace a writable transaction's trees decode into (nil: the DB's; the copy
	// materialization's replay has its own).
	ws  *btree.Workspace
	err error
}

// maxTxSize is MaxTxSize; tests lower it.
var maxTxSize = MaxTxSize

// Begin starts a transaction. Only one read-write transaction runs at a time: Begin(true) waits
// for the current one to commit or roll back, however long that takes. So a goroutine that holds
// a write transaction and calls Begin(true) or Update on the same DB (or Checkpoint, Compact,
// Check or Close, which wait for the writer too) waits for itself forever; this is not detected
// (Go has no cheap way to tell the goroutine holding the writer from another one waiting for it).
// Read-only transactions never wait. Errors: ErrClosed, and for writable transactions ErrReadOnly
// on a database opened read-only, and an error wrapping ErrFailed after a failed write. To bound
// the wait for the writer slot, use BeginContext.
func (db *DB) Begin(writable bool) (*Tx, error) {
	if writable {
		return db.beginWrite(nil)
	}
	slot, v, err := db.pinRead()
	if err != nil {
		return nil, err
	}
	tx := &Tx{}
	tx.startRead(db, slot, v)
	return tx, nil
}

// BeginReadInto begins a read-only transaction in the memory of tx and returns tx: tx is a zero
// Tx or one whose transaction has ended (Commit or Rollback). Begin(false) allocates a Tx each
// time; a goroutine that runs read transactions one after another, each ended before the next,
// reuses one Tx this way and begins them without allocating (the SQL layer does, once per
// query). Nothing of tx's previous transaction (its Buckets, Cursors, keys, values) may be used
// afterwards: it would read through the new one. The transaction of a View or Update must not be
// passed (its memory is the database's). Errors: ErrClosed, ErrTxOpen.
func (db *DB) BeginReadInto(tx *Tx) (*Tx, error) {
	if tx.db != nil && !tx.closed {
		return nil, ErrTxOpen
	}
	slot, v, err := db.pinRead()
	if err != nil {
		return nil, err
	}
	tx.startRead(db, slot, v)
	return tx, nil
}

// BeginContext is Begin with a context that bounds the wait for the writer slot: a read-write
// transaction begun while another one runs waits until that one ends or ctx is done, and in the
// second case returns ctx.Err() (context.Canceled or context.DeadlineExceeded) holding nothing.
// A done ctx is refused before anything else, for read-only transactions too, which never wait
// otherwise; ctx does not bound the transaction once begun. A nil ctx is context.Background().
//
// A ctx that can never be done (Background, TODO, or one of their values) waits exactly as Begin
// does, blocked on the writer slot's mutex. Any other ctx polls the slot with TryLock, sleeping
// between attempts from 20 µs up to 2 ms, doubling: so an uncontended BeginContext costs what
// Begin costs, a contended one sees the slot up to 2 ms after it is freed, and waiters of
// BeginContext are not queued in order (a Begin or Update blocked on the mutex takes the slot
// before them). Errors: those of Begin, and ctx.Err().
func (db *DB) BeginContext(ctx context.Context, writable bool) (*Tx, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if writable {
		return db.beginWrite(ctx)
	}
	return db.Begin(false)
}

// Polling intervals of a BeginContext waiting for the writer slot.
const (
	minWriterPoll = 20 * time.Microsecond
	maxWriterPoll = 2 * time.Millisecond
)

// lockWriterContext is lockWriter for a writer that gives up when ctx is done (nil: never).
func (db *DB) lockWriterContext(ctx context.Context) error {
	if ctx == nil || ctx.Done() == nil {
		db.lockWriter()
		return nil
	}
	if !db.writer.TryLock() {
		if err := db.pollWriter(ctx); err != nil {
			return err
		}
	}
	db.treeMu.Lock()
	return nil
}

// pollWriter takes the writer slot with TryLock, sleeping between attempts, until it has it or
// ctx is done (its error) or the database is closed (ErrClosed).
func (db *DB) pollWriter(ctx context.Context) error {
	wait := minWriterPoll
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		if db.writer.TryLock() {
			return nil
		}
		if db.closed.Load() {
			return ErrClosed
		}
		wait = min(2*wait, maxWriterPoll)
		timer.Reset(wait)
	}
}

// pinRead registers a reader of the published version (see txn.Registry for why the version it
// returns cannot be reclaimed while the slot is held).
func (db *DB) pinRead() (*txn.Slot[Tx], *version, error) {
	var v *version
	slot, _ := db.readers.Pin(func() uint64 {
		v = db.published.Load()
		return v.lsn
	})
	if db.closed.Load() {
		db.readers.Unpin(slot)
		return nil, nil, ErrClosed
	}
	return slot, v, nil
}

func (tx *Tx) startRead(db *DB, slot *txn.Slot[Tx], v *version) {
	*tx = Tx{db: db, base: v, slot: slot}
	tx.main.tx = tx
	tx.main.tree.Reset(db.pager, v.root, false)
}

// readerSet describes the versions readers may reach, for page reclamation. The published version
// is loaded before the slots are scanned (see txn.Registry's invariant).
func (db *DB) readerSet() pager.Readers {
	r := pager.Readers{Published: db.published.Load().lsn}
	r.Pinned = db.readers.Pinned(r.Pinned)
	return r
}

// beginWrite begins a read-write transaction, waiting for the writer slot until ctx is done (nil:
// for ever).
func (db *DB) beginWrite(ctx context.Context) (*Tx, error) {
	if db.closed.Load() {
		return nil, ErrClosed // do not queue behind Close's last checkpoint
	}
	if db.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if err := db.lockWriterContext(ctx); err != nil {
		return nil, err
	}
	if db.closed.Load() {
		db.unlockWriter()
		return nil, ErrClosed
	}
	if err := db.failed(); err != nil {
		db.unlockWriter()
		return nil, fmt.Errorf("cairn: begin: %w", err)
	}
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	db.pager.Reclaim(db.readerSet())
	tx := newWriteTx(db, db.latest.Load())
	tx.headLSN = db.headLSN.Load()
	if db.hasHeld() {
		db.held.trees.giveTo(tx)
	}
	return tx, nil
}

// initialRedoCap is the capacity in bytes a write transaction's WAL record starts with.
const initialRedoCap = 512

// newWriteTx returns a read-write transaction on version v (for Begin and recovery), its default
// key space at v's root.
func newWriteTx(db *DB, v *version) *Tx {
	// Most records are small: one allocation sized for them saves the growth steps of append.
	tx := &Tx{db: db, writable: true, base: v, redo: make([]byte, 0, initialRedoCap)}
	tx.main.tx = tx
	tx.resetTree(&tx.main.tree, v.root)
	return tx
}

// resetTree makes t the transaction's tree at root; a writable one decodes into the workspace.
func (tx *Tx) resetTree(t *btree.Tree, root uint64) {
	t.Reset(tx.db.pager, root, tx.writable)
	if tx.writable {
		ws := tx.ws
		if ws == nil {
			ws = &tx.db.workspace
		}
		t.UseWorkspace(ws)
	}
}

// Update runs fn in a read-write transaction and commits it if fn returns nil; it rolls back if
// fn returns an error (returned as is) or panics (the panic goes on). When Update returns nil the
// commit is durable (with SyncFull).
//
// Update waits for the write transaction running, if any, to end (see Begin). So fn must not call
// Update or Begin(true) on the same DB, nor Checkpoint, Compact, Check or Close: the inner call
// would wait for the outer transaction, which waits for fn, and the goroutine hangs forever (as
// in bbolt; it is not detected). Use the tx passed to fn for every read and write of fn; a View
// inside fn does not hang, but it does not see fn's changes.
func (db *DB) Update(fn func(tx *Tx) error) error {
	tx, err := db.Begin(true)
	if err != nil {
		return err
	}
	return tx.run(fn)
}

// View runs fn in a read-only transaction and returns fn's error, or else the first error an
// iterator of the transaction met. The transaction (and the *Tx) is valid only while fn runs: fn
// must not keep it, nor call its Commit or Rollback (ErrTxManaged). A View allocates nothing: its
// transaction lives in the reader's registration slot. View never waits for a writer, so fn may
// call View and Update (which commits a new version that fn's transaction does not see); it must
// not call Close, which waits for every transaction to end, fn's included.
func (db *DB) View(fn func(tx *Tx) error) error {
	slot, v, err := db.pinRead()
	if err != nil {
		return err
	}
	tx := &slot.Value
	tx.startRead(db, slot, v)
	tx.managed = true
	defer tx.end()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.err
}

func (tx *Tx) run(fn func(tx *Tx) error) (err error) {
	tx.managed = true
	defer func() {
		if !tx.closed {
			tx.end()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if tx.err != nil {
		return tx.err
	}
	tx.managed = false
	return tx.Commit()
}

// LSN returns the LSN of the newest commit the transaction sees, not counting its own changes:
// for a read transaction the version it reads, for a read-write one the newest commit when it
// began. LSNs grow by one per commit, so a later transaction with a larger LSN saw commits this
// one did not (the SQL layer uses it to refuse a write based on a stale snapshot).
func (tx *Tx) LSN() uint64 {
	if tx.writable {
		return tx.headLSN
	}
	return tx.base.lsn
}

// Writable reports whether tx is a read-write transaction.
func (tx *Tx) Writable() bool { return tx.writable }

// Get returns the value of key in the default key space, or ErrNotFound. The value is valid
// until the transaction ends and must not be modified: copy it to keep it (in tests,
// Options.PoisonFreedPages makes a value kept too long read as 0xdb bytes).
func (tx *Tx) Get(key []byte) ([]byte, error) { return tx.main.Get(key) }

// Put sets key to value in the default key space. Both are copied; value may be empty or nil
// (stored as empty). Errors: ErrTxClosed, ErrTxReadOnly, ErrKeyRequired, ErrKeyTooLarge,
// ErrValueTooLarge.
func (tx *Tx) Put(key, value []byte) error { return tx.main.Put(key, value) }

// Delete removes key from the default key space; deleting a missing key is not an error. Errors
// as for Put.
func (tx *Tx) Delete(key []byte) error { return tx.main.Delete(key) }

// Rollback ends the transaction, discarding a writable transaction's changes. It returns
// ErrTxClosed if the transaction already ended, and ErrTxManaged inside View or Update.
func (tx *Tx) Rollback() error {
	switch {
	case tx.closed:
		return ErrTxClosed
	case tx.managed:
		return ErrTxManaged
	}
	tx.end()
	return nil
}

// end closes the transaction: releases the writer slot or the reader's registration.
func (tx *Tx) end() {
	tx.closed = true
	if tx.writable {
		tx.endWrite()
		return
	}
	// Unpin last: a View's Tx lives in the slot, and the next reader may take it at once.
	slot := tx.slot
	tx.slot = nil
	tx.db.readers.Unpin(slot)
}

// Err returns the first error met by an iterator of the transaction (Range and Prefix stop early
// on an error, which they cannot return themselves). View returns it too.
func (tx *Tx) Err() error { return tx.err }

// Range returns an iterator over the keys of the default key space in [start, end), as
// Bucket.Range.
func (tx *Tx) Range(start, end []byte) iter.Seq2[[]byte, []byte] { return tx.main.Range(start, end) }

// Prefix returns an iterator over the keys of the default key space that start with prefix, as
// Bucket.Prefix.
func (tx *Tx) Prefix(prefix []byte) iter.Seq2[[]byte, []byte] { return tx.main.Prefix(prefix) }

// poison records the error of a write that may have left the transaction's trees and its WAL
// record apart (a page read failed halfway): Commit refuses such a transaction.
func (tx *Tx) poison(err error) error {
	tx.setErr(err)
	return err
}

func (tx *Tx) setErr(err error) {
	if tx.err == nil {
		tx.err = err
	}
}

// Cursor returns a cursor over the keys of the default key space, valid until the transaction
// ends.
func (tx *Tx) Cursor() *Cursor { return tx.main.Cursor() }

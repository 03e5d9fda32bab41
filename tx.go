package cairn

import (
	"bytes"
	"fmt"
	"iter"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/txn"
	"github.com/cairndb/cairn/wal"
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
	tree btree.Tree
	redo []byte
	err  error
}

// maxTxSize is MaxTxSize; tests lower it.
var maxTxSize = MaxTxSize

// Begin starts a transaction. Only one read-write transaction runs at a time: Begin(true) waits
// for the current one to commit or roll back (so calling it while holding one on the same
// goroutine deadlocks). Read-only transactions never wait. Errors: ErrClosed, and for writable
// transactions an error wrapping ErrFailed after a failed write.
func (db *DB) Begin(writable bool) (*Tx, error) {
	if writable {
		return db.beginWrite()
	}
	slot, v, err := db.pinRead()
	if err != nil {
		return nil, err
	}
	tx := &Tx{}
	tx.startRead(db, slot, v)
	return tx, nil
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
	tx.db, tx.writable, tx.closed, tx.managed = db, false, false, false
	tx.base, tx.slot, tx.redo, tx.err = v, slot, nil, nil
	tx.tree.Reset(db.pager, v.root, false)
}

// readerSet describes the versions readers may reach, for page reclamation. The published version
// is loaded before the slots are scanned (see txn.Registry's invariant).
func (db *DB) readerSet() pager.Readers {
	r := pager.Readers{Published: db.published.Load().lsn}
	r.Pinned = db.readers.Pinned(r.Pinned)
	return r
}

func (db *DB) beginWrite() (*Tx, error) {
	if db.closed.Load() {
		return nil, ErrClosed // do not queue behind Close's last checkpoint
	}
	db.writer.Lock()
	if db.closed.Load() {
		db.writer.Unlock()
		return nil, ErrClosed
	}
	if err := db.failed(); err != nil {
		db.writer.Unlock()
		return nil, fmt.Errorf("cairn: begin: %w", err)
	}
	db.pager.Release(db.readerSet())
	tx := &Tx{db: db, writable: true, base: db.latest}
	tx.tree.Reset(db.pager, db.latest.root, true)
	return tx, nil
}

// Update runs fn in a read-write transaction and commits it if fn returns nil; it rolls back if
// fn returns an error (returned as is) or panics (the panic goes on). When Update returns nil the
// commit is durable (with SyncFull).
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
// transaction lives in the reader's registration slot.
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

// Writable reports whether tx is a read-write transaction.
func (tx *Tx) Writable() bool { return tx.writable }

// Get returns the value of key, or ErrNotFound. The value is valid until the transaction ends
// and must not be modified.
func (tx *Tx) Get(key []byte) ([]byte, error) {
	if tx.closed {
		return nil, ErrTxClosed
	}
	v, ok, err := tx.tree.Get(key)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cairn: get: %w", err)
	case !ok:
		return nil, ErrNotFound
	}
	return v, nil
}

// Put sets key to value. Both are copied; value may be empty or nil (stored as empty). Errors:
// ErrTxClosed, ErrTxReadOnly, ErrKeyRequired, ErrKeyTooLarge, ErrValueTooLarge.
func (tx *Tx) Put(key, value []byte) error {
	if err := tx.checkWrite(key); err != nil {
		return err
	}
	if len(value) > MaxValueSize {
		return ErrValueTooLarge
	}
	var k, v []byte
	tx.redo, k, v = appendOp(tx.redo, redoPut, key, value)
	return tx.tree.Put(k, v)
}

// Delete removes key; deleting a missing key is not an error. Errors as for Put.
func (tx *Tx) Delete(key []byte) error {
	if err := tx.checkWrite(key); err != nil {
		return err
	}
	// One descent: the tree keeps nothing of key on delete, so the redo op is logged only if the
	// key was there.
	found, err := tx.tree.Delete(key)
	if found && err == nil {
		tx.redo, _, _ = appendOp(tx.redo, redoDelete, key, nil)
	}
	return err
}

func (tx *Tx) checkWrite(key []byte) error {
	switch {
	case tx.closed:
		return ErrTxClosed
	case !tx.writable:
		return ErrTxReadOnly
	case len(key) == 0:
		return ErrKeyRequired
	case len(key) > MaxKeySize:
		return ErrKeyTooLarge
	}
	return nil
}

// Commit ends a read-write transaction, writing its changes. It returns once they are durable
// (SyncFull) and visible to new read transactions. On error nothing of the transaction is
// visible: ErrTxTooLarge (more than MaxTxSize bytes of changes), or an error wrapping ErrFailed
// when the database failed (see ErrFailed). Committing a read-only transaction ends it like
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
	tx.closed = true
	db := tx.db
	if !tx.tree.Dirty() {
		db.writer.Unlock()
		return nil
	}
	if len(tx.redo) > maxTxSize {
		db.writer.Unlock()
		return ErrTxTooLarge
	}
	lsn := tx.base.lsn + 1
	root, err := tx.tree.Commit(lsn)
	if err != nil {
		db.writer.Unlock()
		return fmt.Errorf("cairn: commit: %w", err)
	}
	v := &version{root: root, lsn: lsn}
	db.pendingMu.Lock()
	db.pending = append(db.pending, v)
	db.pendingMu.Unlock()
	ticket := db.committer.Submit(lsn, tx.redo)
	db.latest, db.lastTicket = v, ticket
	walBytes := db.walBytes.Add(wal.RecordSpan(len(tx.redo)))
	db.writer.Unlock()
	db.counters.commits.Add(1)
	if walBytes > db.opts.CheckpointBytes {
		db.wakeCheckpoint()
	}
	if err := ticket.Wait(); err != nil {
		return fmt.Errorf("cairn: commit: %w", err)
	}
	return nil
}

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
		tx.tree.Reset(nil, 0, false)
		tx.db.writer.Unlock()
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

// Range returns an iterator over the keys in [start, end) in ascending order with their values
// (nil start: from the first key; nil end: to the last). Keys and values are valid until the
// transaction ends. In a writable transaction the iterator sees Put and Delete calls made during
// the iteration and continues after the last key it returned. On error it stops and records the
// error for Err.
func (tx *Tx) Range(start, end []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if tx.closed {
			tx.setErr(ErrTxClosed)
			return
		}
		c := tx.tree.Cursor()
		k, v := c.Seek(start)
		for ; k != nil && (end == nil || bytes.Compare(k, end) < 0); k, v = c.Next() {
			if !yield(k, v) {
				return
			}
		}
		if err := c.Err(); err != nil {
			tx.setErr(fmt.Errorf("cairn: range: %w", err))
		}
	}
}

// Prefix returns an iterator over the keys that start with prefix, like Range.
func (tx *Tx) Prefix(prefix []byte) iter.Seq2[[]byte, []byte] {
	return tx.Range(prefix, prefixEnd(prefix))
}

// prefixEnd returns the smallest key greater than every key with the prefix, or nil if none.
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func (tx *Tx) setErr(err error) {
	if tx.err == nil {
		tx.err = err
	}
}

// Cursor returns a cursor over the transaction's keys, valid until the transaction ends.
func (tx *Tx) Cursor() *Cursor { return &Cursor{tx: tx, c: tx.tree.Cursor()} }

// Cursor moves over the keys of a transaction in order. Each method returns the key and value it
// lands on, or a nil key past either end (or after the transaction ended, or on an error: see
// Err). Keys and values are valid until the transaction ends.
type Cursor struct {
	tx *Tx
	c  *btree.Cursor
}

func (c *Cursor) ok() bool { return !c.tx.closed }

// First moves to the first key.
func (c *Cursor) First() ([]byte, []byte) {
	if !c.ok() {
		return nil, nil
	}
	return c.c.First()
}

// Last moves to the last key.
func (c *Cursor) Last() ([]byte, []byte) {
	if !c.ok() {
		return nil, nil
	}
	return c.c.Last()
}

// Seek moves to the first key >= key.
func (c *Cursor) Seek(key []byte) ([]byte, []byte) {
	if !c.ok() {
		return nil, nil
	}
	return c.c.Seek(key)
}

// Next moves to the next key.
func (c *Cursor) Next() ([]byte, []byte) {
	if !c.ok() {
		return nil, nil
	}
	return c.c.Next()
}

// Prev moves to the previous key.
func (c *Cursor) Prev() ([]byte, []byte) {
	if !c.ok() {
		return nil, nil
	}
	return c.c.Prev()
}

// Err returns the error that ended the cursor early: ErrTxClosed, or an I/O or corruption error.
func (c *Cursor) Err() error {
	if c.tx.closed {
		return ErrTxClosed
	}
	return c.c.Err()
}

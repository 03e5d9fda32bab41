package cairn

import (
	"bytes"
	"fmt"
	"iter"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/ondisk"
)

// Bucket is a named key space of a transaction: an ordered tree of its own, created with
// Tx.CreateBucket and found with Tx.Bucket. Its methods behave as the Tx methods of the same name,
// which work on the default key space. A Bucket is valid until its transaction ends; it names its
// bucket, so after DeleteBucket its methods return ErrBucketNotFound until a bucket of that name
// is created again in the same transaction.
type Bucket struct {
	tx *Tx
	// name is nil for the default key space.
	name []byte
	tree btree.Tree
	// gen is the transaction's gen when tree was loaded from the catalog.
	gen     uint64
	deleted bool
}

// Name returns the bucket's name (nil for the default key space of Tx), valid until the
// transaction ends; it must not be modified.
func (b *Bucket) Name() []byte { return b.name }

// usable reports whether b can be used: ErrTxClosed, ErrBucketNotFound, or nil. After a
// RollbackTo a bucket reloads its tree from the catalog.
func (b *Bucket) usable() error {
	tx := b.tx
	if tx.closed {
		return ErrTxClosed
	}
	if b.name != nil && b.gen != tx.gen {
		if err := tx.reloadBucket(b); err != nil {
			return err
		}
	}
	if b.deleted {
		return ErrBucketNotFound
	}
	return nil
}

// Get returns the value of key, or ErrNotFound. The value is valid until the transaction ends and
// must not be modified; its bytes may belong to another page afterwards, so copy it to keep it
// (in tests, Options.PoisonFreedPages makes a value kept too long read as 0xdb bytes).
func (b *Bucket) Get(key []byte) ([]byte, error) {
	if err := b.usable(); err != nil {
		return nil, err
	}
	v, ok, err := b.tree.Get(key)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cairn: get: %w", err)
	case !ok:
		return nil, ErrNotFound
	}
	return v, nil
}

// EstimatedKeys estimates the number of keys in the bucket from the shape of its B+tree, without
// counting them: it reads a few pages per level of the tree (btree.Tree.EstimateLen) and sees the
// transaction's own changes. Exact for a bucket whose keys fit one page; otherwise usually within
// a factor of two of the count (a count needs a scan: Cursor). Query planners use it as a table's
// size, as SQLite's planner uses sqlite_stat1. Errors: ErrTxClosed, ErrBucketNotFound, and a
// page that fails its checks (wrapping ErrCorrupt).
func (b *Bucket) EstimatedKeys() (int64, error) {
	if err := b.usable(); err != nil {
		return 0, err
	}
	n, err := b.tree.EstimateLen()
	if err != nil {
		return 0, fmt.Errorf("cairn: estimate keys: %w", err)
	}
	return n, nil
}

// Put sets key to value. Both are copied; value may be empty or nil (stored as empty). Errors:
// ErrTxClosed, ErrTxReadOnly, ErrBucketNotFound, ErrKeyRequired, ErrKeyTooLarge,
// ErrValueTooLarge.
func (b *Bucket) Put(key, value []byte) error {
	if err := b.checkWrite(key); err != nil {
		return err
	}
	if len(value) > MaxValueSize {
		return &sizeError{"value", len(value), MaxValueSize, ErrValueTooLarge}
	}
	k, v := b.tx.logOp(b.name, ondisk.RedoPut, key, value)
	if err := b.tree.Put(k, v); err != nil {
		return b.tx.poison(fmt.Errorf("cairn: put: %w", err))
	}
	return nil
}

// Delete removes key; deleting a missing key is not an error. Errors as for Put.
func (b *Bucket) Delete(key []byte) error {
	if err := b.checkWrite(key); err != nil {
		return err
	}
	// One descent: the tree keeps nothing of key on delete, so the redo op is logged only if the
	// key was there.
	found, err := b.tree.Delete(key)
	if err != nil {
		return b.tx.poison(fmt.Errorf("cairn: delete: %w", err))
	}
	if found {
		b.tx.logOp(b.name, ondisk.RedoDelete, key, nil)
	}
	return nil
}

func (b *Bucket) checkWrite(key []byte) error {
	if err := b.usable(); err != nil {
		return err
	}
	switch {
	case !b.tx.writable:
		return ErrTxReadOnly
	case len(key) == 0:
		return ErrKeyRequired
	case len(key) > MaxKeySize:
		return &sizeError{"key", len(key), MaxKeySize, ErrKeyTooLarge}
	}
	return nil
}

// Range returns an iterator over the keys in [start, end) in ascending order with their values
// (nil start: from the first key; nil end: to the last). Keys and values are valid until the
// transaction ends. In a writable transaction the iterator sees Put and Delete calls made during
// the iteration and continues after the last key it returned. On error it stops and records the
// error for Tx.Err.
func (b *Bucket) Range(start, end []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if err := b.usable(); err != nil {
			b.tx.setErr(err)
			return
		}
		c := b.Cursor()
		k, v := c.Seek(start)
		for ; k != nil && (end == nil || bytes.Compare(k, end) < 0); k, v = c.Next() {
			if !yield(k, v) {
				return
			}
		}
		if err := c.Err(); err != nil {
			b.tx.setErr(fmt.Errorf("cairn: range: %w", err))
		}
	}
}

// Prefix returns an iterator over the keys that start with prefix, like Range.
func (b *Bucket) Prefix(prefix []byte) iter.Seq2[[]byte, []byte] {
	return b.Range(prefix, prefixEnd(prefix))
}

// Cursor returns a cursor over the bucket's keys, valid until the transaction ends (or, in a
// writable transaction, until RollbackTo or the deletion of the bucket).
func (b *Bucket) Cursor() *Cursor {
	c := &Cursor{b: b, gen: b.tx.gen}
	c.c.Init(&b.tree)
	return c
}

// Cursor moves over the keys of a bucket (or of the default key space) in order. Each method
// returns the key and value it lands on, or a nil key past either end (or after the transaction
// ended, or on an error: see Err). Keys and values are valid until the transaction ends.
type Cursor struct {
	b   *Bucket
	gen uint64
	c   btree.Cursor // in the Cursor's allocation, its path too
}

// state returns why the cursor cannot move, or nil. Its first test is the common case (one
// comparison chain, no call): a scan calls state once per key.
func (c *Cursor) state() error {
	if b := c.b; b.tx.gen == c.gen && !b.tx.closed && (b.name == nil || b.gen == c.gen) && !b.deleted {
		return nil
	}
	return c.slowState()
}

// slowState is state's general case: the transaction ended, RollbackTo ran or the bucket must
// be looked up again.
func (c *Cursor) slowState() error {
	if err := c.b.usable(); err != nil {
		return err
	}
	if c.gen != c.b.tx.gen {
		return ErrCursorInvalid
	}
	return nil
}

// First moves to the first key.
func (c *Cursor) First() ([]byte, []byte) {
	if c.state() != nil {
		return nil, nil
	}
	return c.c.First()
}

// Last moves to the last key.
func (c *Cursor) Last() ([]byte, []byte) {
	if c.state() != nil {
		return nil, nil
	}
	return c.c.Last()
}

// Seek moves to the first key >= key.
func (c *Cursor) Seek(key []byte) ([]byte, []byte) {
	if c.state() != nil {
		return nil, nil
	}
	return c.c.Seek(key)
}

// Next moves to the next key.
func (c *Cursor) Next() ([]byte, []byte) {
	if c.state() != nil {
		return nil, nil
	}
	return c.c.Next()
}

// Prev moves to the previous key.
func (c *Cursor) Prev() ([]byte, []byte) {
	if c.state() != nil {
		return nil, nil
	}
	return c.c.Prev()
}

// Err returns the error that ended the cursor early: ErrTxClosed, ErrBucketNotFound (its bucket
// was deleted), ErrCursorInvalid (RollbackTo ran since it was made), or an I/O or corruption
// error.
func (c *Cursor) Err() error {
	if err := c.state(); err != nil {
		return err
	}
	return c.c.Err()
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

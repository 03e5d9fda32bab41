package cairn

// The bucket catalog is a B+tree of its own whose root the meta page holds (FORMAT.md). Invariant:
// during a write transaction a bucket's catalog entry holds its root at the start of the
// transaction (0 if created in it), or at latest for a bucket whose tree held commits changed
// (its handle then holds the held tree: commit.go); the materialization that writes a bucket's
// tree writes its new root. Every page of a deleted bucket stays reachable from the catalog's drop stack until a commit frees it,
// so a page is never both free and referenced, and Check can account for all of them. The
// catalog's keys and values are specified in package internal/ondisk.

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/pager"
)

var dropStackKey = []byte{ondisk.CatalogDropStack}

// dropBudget is the number of extents of deleted buckets a commit frees at most: deleting a bucket
// costs its transaction nothing per page, and later commits free its pages in bounded steps.
const dropBudget = 256

func bucketKey(name []byte) []byte { return append([]byte{ondisk.CatalogBucket}, name...) }

func bucketEntry(root uint64) []byte {
	v := make([]byte, ondisk.BucketEntrySize)
	v[0] = ondisk.BucketKind
	binary.LittleEndian.PutUint64(v[1:], root)
	return v
}

// openCatalog opens the catalog tree of the transaction's version on first use.
func (tx *Tx) openCatalog() *btree.Tree {
	if !tx.catalogOpen {
		tx.resetTree(&tx.catalog, tx.base.catalog)
		tx.catalogOpen = true
	}
	return &tx.catalog
}

// lookupBucket returns the root of bucket name as the catalog holds it.
func (tx *Tx) lookupBucket(name []byte) (root uint64, found bool, err error) {
	var buf [80]byte // most names: the key without an allocation (Get does not keep it)
	key := append(append(buf[:0], ondisk.CatalogBucket), name...)
	v, ok, err := tx.openCatalog().Get(key)
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("cairn: bucket catalog: %w", err)
	case !ok:
		return 0, false, nil
	case len(v) != ondisk.BucketEntrySize || v[0] != ondisk.BucketKind:
		return 0, false, fmt.Errorf("cairn: bucket catalog: bad entry for %q: %w", name, ErrCorrupt)
	}
	return binary.LittleEndian.Uint64(v[1:]), true, nil
}

// reloadBucket points b's tree at its bucket's root in the catalog (or marks it deleted).
func (tx *Tx) reloadBucket(b *Bucket) error {
	root, ok, err := tx.lookupBucket(b.name)
	if err != nil {
		return err
	}
	tx.resetTree(&b.tree, root)
	b.deleted, b.gen = !ok, tx.gen
	return nil
}

func (tx *Tx) checkBucketName(name []byte, write bool) error {
	switch {
	case tx.closed:
		return ErrTxClosed
	case write && !tx.writable:
		return ErrTxReadOnly
	case len(name) == 0:
		return ErrBucketNameRequired
	case len(name) > MaxKeySize:
		return &sizeError{"bucket name", len(name), MaxKeySize, ErrKeyTooLarge}
	}
	return nil
}

// Bucket returns the bucket called name, valid until the transaction ends. Errors:
// ErrBucketNotFound, ErrBucketNameRequired, ErrKeyTooLarge (a name longer than MaxKeySize),
// ErrTxClosed, or an I/O or corruption error.
func (tx *Tx) Bucket(name []byte) (*Bucket, error) {
	if err := tx.checkBucketName(name, false); err != nil {
		return nil, err
	}
	b := tx.buckets.get(name)
	if b == nil {
		b = newHandle(tx, name)
		if err := tx.reloadBucket(b); err != nil {
			return nil, err
		}
		if b.deleted {
			return nil, ErrBucketNotFound
		}
		tx.buckets.add(b)
	}
	if err := b.usable(); err != nil {
		return nil, err
	}
	return b, nil
}

// CreateBucket creates an empty bucket called name (any bytes, 1 to MaxKeySize of them) and
// returns it. Errors: ErrBucketExists, ErrTxReadOnly, and those of Bucket.
func (tx *Tx) CreateBucket(name []byte) (*Bucket, error) {
	if err := tx.checkBucketName(name, true); err != nil {
		return nil, err
	}
	_, ok, err := tx.lookupBucket(name)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return nil, ErrBucketExists
	}
	tx.logBucketOp(ondisk.RedoCreateBucket, name)
	if err := tx.catalog.Put(bucketKey(name), bucketEntry(0)); err != nil {
		return nil, err
	}
	b := tx.buckets.get(name)
	if b == nil {
		b = newHandle(tx, name)
		tx.buckets.add(b)
	}
	tx.resetTree(&b.tree, 0)
	b.deleted, b.gen = false, tx.gen
	return b, nil
}

// CreateBucketIfNotExists returns the bucket called name, creating it if needed. Errors as for
// CreateBucket, but for ErrBucketExists.
func (tx *Tx) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	b, err := tx.Bucket(name)
	if errors.Is(err, ErrBucketNotFound) {
		return tx.CreateBucket(name)
	}
	return b, err
}

// DeleteBucket deletes the bucket called name and every key in it. It costs the transaction a
// catalog update, whatever the bucket's size: its pages are freed by later commits, at most
// dropBudget (256) extents each, and reused once no reader needs them. Errors:
// ErrBucketNotFound, ErrTxReadOnly, and those of Bucket.
func (tx *Tx) DeleteBucket(name []byte) error {
	if err := tx.checkBucketName(name, true); err != nil {
		return err
	}
	root, ok, err := tx.lookupBucket(name)
	switch {
	case err != nil:
		return err
	case !ok:
		return ErrBucketNotFound
	}
	tx.logBucketOp(ondisk.RedoDeleteBucket, name)
	if _, err := tx.catalog.Delete(bucketKey(name)); err != nil {
		return err
	}
	if root != 0 {
		stack, err := tx.dropStack()
		if err != nil {
			return err
		}
		if err := tx.setDropStack(append(stack, root)); err != nil {
			return err
		}
	}
	if b := tx.buckets.get(name); b != nil {
		tx.resetTree(&b.tree, 0) // its changes die with it; the drop stack frees its pages
		b.deleted = true
	}
	return nil
}

// ForEachBucket calls fn with the name of every bucket in ascending order until fn returns an
// error, which it returns. Names are valid until the transaction ends and must not be modified.
// fn may create and delete buckets; the iteration continues after the last name it saw.
func (tx *Tx) ForEachBucket(fn func(name []byte) error) error {
	if tx.closed {
		return ErrTxClosed
	}
	c := tx.openCatalog().Cursor()
	for k, _ := c.Seek([]byte{ondisk.CatalogBucket}); k != nil && k[0] == ondisk.CatalogBucket; k, _ = c.Next() {
		if err := fn(k[1:]); err != nil {
			return err
		}
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("cairn: bucket catalog: %w", err)
	}
	return nil
}

// dropStack returns the ids of the extents of deleted buckets still to free.
func (tx *Tx) dropStack() ([]uint64, error) {
	v, ok, err := tx.openCatalog().Get(dropStackKey)
	if err != nil || !ok {
		return nil, err
	}
	if len(v)%8 != 0 {
		return nil, fmt.Errorf("cairn: bucket catalog: drop stack of %d bytes: %w", len(v), ErrCorrupt)
	}
	stack := make([]uint64, len(v)/8)
	for i := range stack {
		stack[i] = binary.LittleEndian.Uint64(v[8*i:])
	}
	return stack, nil
}

func (tx *Tx) setDropStack(stack []uint64) error {
	tx.dropPending = true
	if len(stack) == 0 {
		_, err := tx.catalog.Delete(dropStackKey)
		return err
	}
	v := make([]byte, 0, 8*len(stack))
	for _, id := range stack {
		v = binary.LittleEndian.AppendUint64(v, id)
	}
	return tx.catalog.Put(dropStackKey, v)
}

// freedExtent is an extent a commit frees once every tree is written as pages.
type freedExtent struct {
	id, alloc uint64
	pages     int
}

// dropStep frees up to dropBudget extents from the drop stack: it pops an extent, pushes the
// extents it references and returns it to be freed. A damaged extent is skipped (its pages stay
// lost, as Check reports) rather than failing every later commit. It returns whether extents
// remain.
func (tx *Tx) dropStep(freed []freedExtent) ([]freedExtent, bool, error) {
	stack, err := tx.dropStack()
	if err != nil || len(stack) == 0 {
		return freed, false, err
	}
	pg := tx.db.pager
	for n := 0; n < dropBudget && len(stack) > 0; n++ {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p, err := pg.Page(id)
		if err == nil {
			stack, err = btree.Refs(id, p, stack)
		}
		if errors.Is(err, ErrCorrupt) {
			continue
		} else if err != nil {
			return freed, false, err
		}
		freed = append(freed, freedExtent{id: id, alloc: pager.AllocLSN(p), pages: len(p) / pg.PageSize()})
	}
	return freed, len(stack) > 0, tx.setDropStack(stack)
}

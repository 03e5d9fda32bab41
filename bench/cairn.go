package bench

import (
	"errors"
	"path/filepath"

	"github.com/cairndb/cairn"
)

// cairnEngine is cairn with SyncFull: every commit is fdatasynced (in a group) before it returns
// (SyncNone with Config.NoSync).
type cairnEngine struct {
	db  *cairn.DB
	dir string
}

func openCairn(dir string, cfg Config) (Engine, error) {
	opts := &cairn.Options{Sync: cairn.SyncFull, CacheBytes: cfg.CacheBytes}
	if cfg.NoSync {
		opts.Sync = cairn.SyncNone
	}
	db, err := cairn.Open(filepath.Join(dir, "cairn.db"), opts)
	if err != nil {
		return nil, err
	}
	return &cairnEngine{db: db, dir: dir}, nil
}

func (e *cairnEngine) Write(kvs []KV) error {
	tx, err := e.db.Begin(true)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if err := tx.Put(kv.Key, kv.Value); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// Get uses View, the allocation-free way to run one read transaction (Begin allocates its Tx).
func (e *cairnEngine) Get(dst, key []byte) ([]byte, error) {
	err := e.db.View(func(tx *cairn.Tx) error {
		var err error
		dst, err = cairnGet(tx, dst, key)
		return err
	})
	return dst, err
}

func (e *cairnEngine) Begin() (ReadTx, error) {
	tx, err := e.db.Begin(false)
	if err != nil {
		return nil, err
	}
	return cairnTx{tx}, nil
}

func (e *cairnEngine) Size() (int64, error) { return dirSize(e.dir) }
func (e *cairnEngine) Close() error         { return e.db.Close() }

// syncs returns the WAL batches written since Open (each one write and one fdatasync).
func (e *cairnEngine) syncs() uint64 { return e.db.Stats().Batches }

func cairnGet(tx *cairn.Tx, dst, key []byte) ([]byte, error) {
	v, err := tx.Get(key)
	if errors.Is(err, cairn.ErrNotFound) {
		return dst, ErrNotFound
	}
	return append(dst, v...), err
}

// cairnTx is a read transaction of cairn.
type cairnTx struct{ tx *cairn.Tx }

func (t cairnTx) Get(dst, key []byte) ([]byte, error) { return cairnGet(t.tx, dst, key) }
func (t cairnTx) End() error                          { return t.tx.Rollback() }

func (t cairnTx) Scan(start []byte, limit int, fn func(k, v []byte)) (int, error) {
	c := t.tx.Cursor()
	var k, v []byte
	if start == nil {
		k, v = c.First()
	} else {
		k, v = c.Seek(start)
	}
	n := 0
	for ; k != nil && (limit <= 0 || n < limit); k, v = c.Next() {
		fn(k, v)
		n++
	}
	return n, c.Err()
}

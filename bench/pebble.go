package bench

import (
	"errors"
	"io"

	"github.com/cockroachdb/pebble/v2"
)

// pebbleEngine is Pebble with every batch committed with pebble.Sync (WAL fdatasync), or
// pebble.NoSync with Config.NoSync.
type pebbleEngine struct {
	db    *pebble.DB
	dir   string
	write *pebble.WriteOptions // pebble.Sync, or pebble.NoSync with Config.NoSync
}

// quietLogger drops Pebble's informational logs, which would interleave with benchmark output.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)         {}
func (quietLogger) Errorf(f string, args ...any) { pebble.DefaultLogger.Errorf(f, args...) }
func (quietLogger) Fatalf(f string, args ...any) { pebble.DefaultLogger.Fatalf(f, args...) }

func openPebble(dir string, cfg Config) (Engine, error) {
	db, err := pebble.Open(dir, &pebble.Options{CacheSize: cfg.CacheBytes, Logger: quietLogger{}})
	if err != nil {
		return nil, err
	}
	e := &pebbleEngine{db: db, dir: dir, write: pebble.Sync}
	if cfg.NoSync {
		e.write = pebble.NoSync
	}
	return e, nil
}

func (e *pebbleEngine) Write(kvs []KV) error {
	b := e.db.NewBatch()
	defer b.Close()
	for _, kv := range kvs {
		if err := b.Set(kv.Key, kv.Value, nil); err != nil {
			return err
		}
	}
	return b.Commit(e.write)
}

// pebbleReader is what a DB and a Snapshot share.
type pebbleReader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func (e *pebbleEngine) Get(dst, key []byte) ([]byte, error) { return pebbleGet(e.db, dst, key) }

func (e *pebbleEngine) Begin() (ReadTx, error) { return pebbleTx{e.db.NewSnapshot()}, nil }

func (e *pebbleEngine) Size() (int64, error) { return dirSize(e.dir) }
func (e *pebbleEngine) Close() error         { return e.db.Close() }

func pebbleGet(r pebbleReader, dst, key []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, ErrNotFound
	}
	if err != nil {
		return dst, err
	}
	dst = append(dst, v...)
	return dst, closer.Close()
}

// pebbleTx is a read transaction of Pebble: a snapshot.
type pebbleTx struct{ s *pebble.Snapshot }

func (t pebbleTx) Get(dst, key []byte) ([]byte, error) { return pebbleGet(t.s, dst, key) }
func (t pebbleTx) End() error                          { return t.s.Close() }

func (t pebbleTx) Scan(start []byte, limit int, fn func(k, v []byte)) (int, error) {
	it, err := t.s.NewIter(&pebble.IterOptions{LowerBound: start})
	if err != nil {
		return 0, err
	}
	n := 0
	for ok := it.First(); ok && (limit <= 0 || n < limit); ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return n, err
		}
		fn(it.Key(), v)
		n++
	}
	return n, it.Close()
}

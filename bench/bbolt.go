package bench

import (
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boltBucket is the one bucket the bbolt engine keeps its keys in.
var boltBucket = []byte("kv")

// boltEngine is bbolt with its defaults: every commit writes its pages and fdatasyncs.
type boltEngine struct {
	db  *bolt.DB
	dir string
}

func openBolt(dir string) (Engine, error) {
	db, err := bolt.Open(filepath.Join(dir, "bolt.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(boltBucket)
		return err
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &boltEngine{db: db, dir: dir}, nil
}

func (e *boltEngine) Write(kvs []KV) error {
	tx, err := e.db.Begin(true)
	if err != nil {
		return err
	}
	b := tx.Bucket(boltBucket)
	for _, kv := range kvs {
		if err := b.Put(kv.Key, kv.Value); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func (e *boltEngine) Get(dst, key []byte) ([]byte, error) {
	tx, err := e.db.Begin(false)
	if err != nil {
		return dst, err
	}
	dst, err = newBoltTx(tx).Get(dst, key)
	tx.Rollback()
	return dst, err
}

func (e *boltEngine) Begin() (ReadTx, error) {
	tx, err := e.db.Begin(false)
	if err != nil {
		return nil, err
	}
	return newBoltTx(tx), nil
}

func (e *boltEngine) Size() (int64, error) { return dirSize(e.dir) }
func (e *boltEngine) Close() error         { return e.db.Close() }

// boltTx is a read transaction of bbolt and its bucket.
type boltTx struct {
	tx *bolt.Tx
	b  *bolt.Bucket
}

func newBoltTx(tx *bolt.Tx) boltTx { return boltTx{tx, tx.Bucket(boltBucket)} }

func (t boltTx) End() error { return t.tx.Rollback() }

func (t boltTx) Get(dst, key []byte) ([]byte, error) {
	v := t.b.Get(key)
	if v == nil {
		return dst, ErrNotFound
	}
	return append(dst, v...), nil
}

func (t boltTx) Scan(start []byte, limit int, fn func(k, v []byte)) (int, error) {
	c := t.b.Cursor()
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
	return n, nil
}

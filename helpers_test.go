package cairn

// Test helpers shared by the root package's test files. A helper that one file uses stays in
// that file.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// openTemp opens a new database test.db in a temporary directory of t, on the OS file system.
// The database is closed when the test ends. It returns the database and its path.
func openTemp(t *testing.T, opts *Options) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := Open(path, opts)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, path
}

// abandon ends db as a killed process would: no checkpoint, no final sync, files and lock
// released. Every acknowledged commit is already in the WAL.
func (db *DB) abandon() {
	db.closed.Store(true)
	close(db.stop)
	db.loopDone.Wait()
	db.writer.Lock()
	db.committer.Close()
	db.closeFiles()
	db.writer.Unlock()
}

// putN commits the keys k<from> to k<to - 1> (four digits), value "v", one Update each.
func putN(t *testing.T, db *DB, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put(fmt.Appendf(nil, "k%04d", i), []byte("v")) }))
	}
}

// countKeys returns the number of keys in the default key space of db, counted in one read
// transaction.
func countKeys(t *testing.T, db *DB) int {
	t.Helper()
	n := 0
	require.NoError(t, db.View(func(tx *Tx) error {
		for range tx.Range(nil, nil) {
			n++
		}
		return nil
	}))
	return n
}

// requireKeyCount checks that the default key space of db holds n keys.
func requireKeyCount(t *testing.T, db *DB, n int) {
	t.Helper()
	require.Equal(t, n, countKeys(t, db))
}

// fillBucket puts n keys with values of size bytes (every 50th of them an overflow value) into
// bucket name, creating it, in transactions of 1000 keys.
func fillBucket(t *testing.T, db *DB, name string, n, size int) {
	t.Helper()
	for start := 0; start < n; start += 1000 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte(name))
			if err != nil {
				return err
			}
			for i := start; i < min(n, start+1000); i++ {
				v := make([]byte, size)
				if i%50 == 0 {
					v = make([]byte, 6000)
				}
				if err := b.Put(fmt.Appendf(nil, "key%08d", i), v); err != nil {
					return err
				}
			}
			return nil
		}))
	}
}

// bucketState is the contents of a database by bucket name ("" is the default key space).
type bucketState map[string]map[string]string

func (s bucketState) clone() bucketState {
	c := make(bucketState, len(s))
	for name, kv := range s {
		c[name] = maps.Clone(kv)
	}
	return c
}

// requireBuckets checks, in a read transaction of db, what checkBuckets checks.
func requireBuckets(t *testing.T, db *DB, want map[string]map[string]string) {
	t.Helper()
	require.NoError(t, db.View(func(tx *Tx) error {
		checkBuckets(t, tx, want)
		return tx.Err()
	}))
}

// checkBuckets checks that tx holds exactly the buckets of want, other than "", each with exactly
// its keys and values; if want has "", the default key space is checked the same way.
func checkBuckets(t *testing.T, tx *Tx, want map[string]map[string]string) {
	t.Helper()
	got := map[string]map[string]string{}
	require.NoError(t, tx.ForEachBucket(func(name []byte) error {
		b, err := tx.Bucket(name)
		require.NoError(t, err, "bucket %q", name)
		got[string(name)] = map[string]string{}
		for k, v := range b.Range(nil, nil) {
			got[string(name)][string(k)] = string(v)
		}
		return nil
	}))
	if _, ok := want[""]; ok {
		got[""] = map[string]string{}
		for k, v := range tx.Range(nil, nil) {
			got[""][string(k)] = string(v)
		}
	}
	require.Equal(t, want, got)
}

// keySpace is what the durability tests write keys into: a Tx (its default key space) or a
// Bucket.
type keySpace interface {
	Put(key, value []byte) error
	Delete(key []byte) error
}

// spaceOf returns tx's default key space for a nil name, else bucket name, created on first use.
func spaceOf(tx *Tx, name []byte) (keySpace, error) {
	if name == nil {
		return tx, nil
	}
	return tx.CreateBucketIfNotExists(name)
}

// garble XORs the n bytes at off of the file at path (on the OS file system) with 0x5a.
func garble(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, n)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	for i := range b {
		b[i] ^= 0x5a
	}
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// slowSyncFS makes every fdatasync of the WAL take delay, so that concurrent commits queue up
// and share batches as they do on a disk. MemFS's own Sync copies the whole file (the state a
// crash would keep), which the tests using slowSyncFS never use and which would cost most of
// their time under -race: it is passed on only every 16th time, which bounds the unsynced writes
// MemFS keeps.
type slowSyncFS struct {
	vfs.FS
	delay time.Duration
}

func (f slowSyncFS) OpenFile(name string, flag int, perm os.FileMode) (vfs.File, error) {
	file, err := f.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	sf := &slowSyncFile{File: file}
	if strings.Contains(name, "-wal") {
		sf.delay = f.delay
	}
	return sf, nil
}

type slowSyncFile struct {
	vfs.File
	delay time.Duration
	syncs atomic.Int64
}

func (f *slowSyncFile) Sync() error {
	time.Sleep(f.delay)
	if f.syncs.Add(1)%16 != 0 {
		return nil
	}
	return f.File.Sync()
}

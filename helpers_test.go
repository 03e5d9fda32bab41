package cairn

// Test helpers shared by the root package's test files. A helper that one file uses stays in
// that file.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// openTemp opens a new database test.db in a temporary directory of t, on the OS file system,
// and registers its end-of-test check (checkAtEnd). It returns the database and its path. Use it
// for a test of what reaches the disk; openMem for the others.
func openTemp(t *testing.T, opts *Options, end ...endOption) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := Open(path, opts)
	require.NoError(t, err)
	checkAtEnd(t, db, end...)
	return db, path
}

// openMem is openTemp on a new in-memory file system (vfs.MemFS), or on opts.fs if the test
// sets one (a wrapper of a MemFS). The path is /d/db; db.opts.fs is the file system.
func openMem(t *testing.T, opts *Options, end ...endOption) (*DB, string) {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.fs == nil {
		o.fs = vfs.NewMem()
	}
	const path = "/d/db"
	db, err := Open(path, &o)
	require.NoError(t, err)
	checkAtEnd(t, db, end...)
	return db, path
}

// endOption is an exception to the end-of-test check, with its reason; skipCheck makes one.
type endOption struct {
	skip string // why the database cannot be checked at the end
}

// skipCheck opts the test out of the end-of-test check: it leaves the database in a state that
// Check cannot pass or Open cannot reopen (damaged on purpose, files removed). reason says
// which, for the reader; the database is only closed.
func skipCheck(reason string) endOption { return endOption{skip: reason} }

// checkAtEnd registers the end-of-test check of db, as bbolt's test harness does: when the test
// ends (and has not failed already), a database still open must pass Check and Close (so a
// database left failed fails the check: close it in the test, and its files are checked); one
// the test closed (Close, or abandon as a crash) is opened again from its files with the default
// options, must pass Check, and is closed. Any problem fails the test, naming where the database
// was opened. A test opts out with skipCheck and its reason. It is called by openTemp and
// openMem, whose caller it names.
func checkAtEnd(t *testing.T, db *DB, end ...endOption) {
	t.Helper()
	skip := ""
	for _, o := range end {
		if o.skip == "" {
			t.Fatal("checkAtEnd: an exception to the end-of-test check needs a reason")
		}
		skip = o.skip
	}
	opened := "?"
	if _, file, line, ok := runtime.Caller(2); ok {
		opened = fmt.Sprintf("%s:%d", filepath.Base(file), line)
	}
	fail := func(format string, args ...any) {
		t.Errorf("end-of-test check of the database opened at %s: %s", opened, fmt.Sprintf(format, args...))
	}
	t.Cleanup(func() {
		switch {
		case t.Failed() || skip != "":
			db.Close()
			return
		case db.closed.Load():
		default:
			if err := db.Check(); err != nil {
				fail("Check: %v", err)
			}
			if err := db.Close(); err != nil {
				fail("Close: %v", err)
			}
			return
		}
		again, err := Open(db.path, &Options{fs: db.opts.fs})
		if err != nil {
			fail("reopening its files: %v", err)
			return
		}
		if err := again.Check(); err != nil {
			fail("Check after reopening its files: %v", err)
		}
		if err := again.Close(); err != nil {
			fail("Close after reopening its files: %v", err)
		}
	})
}

// reopen closes db and opens its files again, on the same file system, with the default options;
// the new database is closed when the test ends (after which the end-of-test check of the first
// one, if any, checks the files).
func reopen(t *testing.T, db *DB) *DB {
	t.Helper()
	require.NoError(t, db.Close())
	again, err := Open(db.path, &Options{fs: db.opts.fs})
	require.NoError(t, err)
	t.Cleanup(func() { again.Close() })
	return again
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
// and share batches as they do on a disk.
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
}

func (f *slowSyncFile) Sync() error {
	time.Sleep(f.delay)
	return f.File.Sync()
}

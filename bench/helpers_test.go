package bench

import (
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

// Data set sizes: full runs use the sizes of the issue, -short runs smaller ones.
func keyCount() int {
	if testing.Short() {
		return 20_000
	}
	return 100_000
}

// getKeyCount is the data set of BenchmarkGet: 1,000,000 keys in a full run (the size issue 4
// sets for point reads), as -short runs use keyCount's.
func getKeyCount() int {
	if testing.Short() {
		return keyCount()
	}
	return 1_000_000
}

// loadTxnSize is the number of keys per transaction when loading a data set.
const loadTxnSize = 1000

var (
	baseDirOnce sync.Once
	baseDir     string // "" means b.TempDir()
	baseDirErr  error
)

// benchBase picks where databases go: $CAIRN_BENCH_DIR, else the temporary directory if it is on
// a disk, else a directory beside the bench package (on the repository's disk).
func benchBase() (string, error) {
	baseDirOnce.Do(func() {
		if dir := os.Getenv(DirEnv); dir != "" {
			baseDir, baseDirErr = dir, CheckDiskDir(dir)
			return
		}
		if CheckDiskDir(os.TempDir()) == nil {
			return
		}
		baseDir = "."
		baseDirErr = CheckDiskDir(".")
	})
	return baseDir, baseDirErr
}

// tempDir returns a new empty directory on a disk, removed when tb ends.
func tempDir(tb testing.TB) string {
	tb.Helper()
	base, err := benchBase()
	if err != nil {
		tb.Fatal(err)
	}
	if base == "" {
		return tb.TempDir()
	}
	dir, err := os.MkdirTemp(base, "cairn-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// openEngine opens engine name in a new directory and closes it when tb ends.
func openEngine(tb testing.TB, name string) Engine {
	tb.Helper()
	return openEngineConfig(tb, name, Config{})
}

// openEngineConfig is openEngine with cfg.
func openEngineConfig(tb testing.TB, name string, cfg Config) Engine {
	tb.Helper()
	e, err := Open(name, tempDir(tb), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Error(err)
		}
	})
	return e
}

// openWriter opens a write target for the write workloads: an engine, or for FloorName the
// single-writer floor (group false) or the group-commit floor (group true).
func openWriter(tb testing.TB, name string, group bool) Writer {
	tb.Helper()
	if name != FloorName {
		return openEngine(tb, name)
	}
	var w Writer
	var err error
	if group {
		w, err = OpenGroupFloor(tempDir(tb))
	} else {
		w, err = OpenFloor(tempDir(tb))
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}

// keyFunc appends key number i of a key space to dst.
type keyFunc func(dst []byte, i uint64) []byte

// load writes keys 0..n-1 of keys with values of valueSize bytes, in transactions of loadTxnSize.
func load(tb testing.TB, w Writer, keys keyFunc, n, valueSize int) {
	tb.Helper()
	if err := loadKeys(w, keys, n, valueSize); err != nil {
		tb.Fatal(err)
	}
}

func loadKeys(w Writer, keys keyFunc, n, valueSize int) error {
	kvs := make([]KV, 0, loadTxnSize)
	buf := make([]byte, 0, loadTxnSize*KeySize)
	for start := 0; start < n; start += loadTxnSize {
		kvs, buf = kvs[:0], buf[:0]
		for i := start; i < min(start+loadTxnSize, n); i++ {
			buf = keys(buf, uint64(i))
			kvs = append(kvs, KV{buf[len(buf)-KeySize:], Value(uint64(i), valueSize)})
		}
		if err := w.Write(kvs); err != nil {
			return err
		}
	}
	return nil
}

// warm reads every key of the data set once, so that every engine's cache holds it.
func warm(tb testing.TB, e Engine, n int) {
	tb.Helper()
	tx, err := e.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.End()
	got, err := tx.Scan(nil, 0, func(k, v []byte) {})
	if err != nil || got != n {
		tb.Fatalf("warm-up scan: %d keys, %v; want %d", got, err, n)
	}
	var key, dst []byte
	for i := range n {
		key = RandomKey(key[:0], uint64(i))
		if dst, err = e.Get(dst[:0], key); err != nil {
			tb.Fatal(err)
		}
	}
}

// newRand returns the deterministic generator of a workload: every engine gets the same sequence.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// isNotFound reports whether err is the engines' not-found error.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

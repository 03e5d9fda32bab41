package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// KV is one key and value to write.
type KV struct {
	Key, Value []byte
}

// ErrNotFound is returned by Get for a missing key, whatever the engine.
var ErrNotFound = errors.New("bench: key not found")

// Writer commits write transactions durably. Engines and the floor references implement it.
type Writer interface {
	// Write puts every pair of kvs in one transaction and returns once it is durable.
	Write(kvs []KV) error
	// Size returns the bytes of all files in the engine's directory (valid after Close too).
	Size() (int64, error)
	// Close closes the engine; its files stay in place.
	Close() error
}

// Engine is a key-value store under test.
type Engine interface {
	Writer
	// Get appends the value of key to dst, reading in a read transaction of its own.
	Get(dst, key []byte) ([]byte, error)
	// Begin starts a read transaction that sees one snapshot.
	Begin() (ReadTx, error)
}

// ReadTx is a read transaction of an Engine, used by one goroutine.
type ReadTx interface {
	// Get appends the value of key to dst.
	Get(dst, key []byte) ([]byte, error)
	// Scan calls fn for up to limit keys from the first key >= start in ascending order (nil start:
	// from the first key; limit <= 0: to the end) and returns how many it visited. Key and value
	// are valid only during the call.
	Scan(start []byte, limit int, fn func(k, v []byte)) (int, error)
	// End ends the transaction.
	End() error
}

// Config holds the settings shared by every engine.
type Config struct {
	// CacheBytes is the page or block cache each engine gets; the suite sizes it to hold the data.
	CacheBytes int64
	// NoSync selects the relaxed durability of the engines that have one, where a commit survives
	// a crash of the process but not of the machine: cairn SyncNone, SQLite synchronous=NORMAL
	// (in WAL mode), Pebble NoSync. bbolt has no such mode (its NoSync may corrupt the file).
	NoSync bool
}

// NoSyncEngines lists the engines that have a relaxed durability mode (Config.NoSync).
var NoSyncEngines = []string{"cairn", "sqlite", "sqlite-cgo", "pebble"}

// DefaultCacheBytes is the cache every engine gets: 1 GiB, larger than every data set (the
// 1,000,000-key Get data set fills about 250 MiB of cairn pages, more than its 256 MiB default
// once free pages and branches are counted).
const DefaultCacheBytes = 1 << 30

// Engines lists the engines of the comparison, in table order.
var Engines = []string{"cairn", "sqlite", "sqlite-cgo", "bbolt", "pebble"}

// FloorName is the engine name of the reference rows: the cost of the bare writes and fdatasyncs,
// and of dependent memory loads (BenchmarkMemoryLatency).
const FloorName = "floor"

// Open opens engine name in the empty directory dir with durable settings.
func Open(name, dir string, cfg Config) (Engine, error) {
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = DefaultCacheBytes
	}
	switch name {
	case "cairn":
		return openCairn(dir, cfg)
	case "sqlite":
		return openSQLite(modernc, dir, cfg)
	case "sqlite-cgo":
		return openSQLite(mattn, dir, cfg)
	case "bbolt":
		if cfg.NoSync {
			return nil, fmt.Errorf("bench: bbolt has no crash-safe NoSync mode")
		}
		return openBolt(dir)
	case "pebble":
		return openPebble(dir, cfg)
	}
	return nil, fmt.Errorf("bench: unknown engine %q", name)
}

// dirSize returns the total apparent size of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	return total, err
}

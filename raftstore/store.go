package raftstore

// Invariant of the cached bounds: s.bounds holds the first and last index of the log bucket as of
// the newest write transaction of this Store that has returned from Update (so is durable), with
// the sequence number that transaction drew while it held cairn's writer slot. Write
// transactions draw their numbers in commit order, each computes the bounds of the tree it
// commits (with a cursor, inside the transaction), and publish keeps the state of the highest
// number: so the bounds never step back to an older state, however the goroutines of concurrent
// StoreLogs and DeleteRange calls are scheduled after their commits. A transaction that fails
// publishes nothing, and the next one reads the truth from its tree again.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/cairndb/cairn"
	"github.com/hashicorp/raft"
)

// ErrKeyNotFound is returned by Get and GetUint64 for a key the stable store does not hold. Its
// text is exactly "not found" and it is returned unwrapped, because hashicorp/raft recognizes a
// missing key by comparing the error's text with "not found" (NewRaft and HasExistingState
// reading the current term, and the last vote), as raft-boltdb's error of the same name does.
var ErrKeyNotFound = errors.New("not found")

// Default bucket names of Options.
const (
	DefaultLogBucket    = "raft/log"
	DefaultStableBucket = "raft/stable"
)

// Options configure Open and New. The zero value (or a nil *Options) gives the defaults.
type Options struct {
	// DB configures the cairn database that Open opens or creates (nil: cairn's defaults, among
	// them cairn.SyncFull, so every StoreLogs, DeleteRange and Set is durable when it returns).
	// New ignores it.
	DB *cairn.Options
	// LogBucket and StableBucket name the two buckets of the store (defaults DefaultLogBucket
	// and DefaultStableBucket); they must differ. Only this Store may write them: it caches the
	// log's first and last index. Other buckets of the database are free for other uses, and
	// two Stores with different names may share one database.
	LogBucket, StableBucket string
}

// Store is a hashicorp/raft LogStore and StableStore kept in a cairn database: the log in one
// bucket, keyed by index, the stable keys in another. Its methods are safe for concurrent use;
// concurrent StoreLogs calls share cairn's group commit (one fdatasync per batch of commits).
// After Close every method returns an error wrapping cairn.ErrClosed.
type Store struct {
	db           *cairn.DB
	owned        bool // Close closes db
	logBucket    []byte
	stableBucket []byte
	closed       atomic.Bool

	// seq numbers the log's write transactions in commit order (drawn under the writer slot).
	seq atomic.Uint64
	// mu serializes publish.
	mu     sync.Mutex
	bounds atomic.Pointer[bounds]
}

// bounds is the first and last index of the log after the write transaction numbered seq; 0 and
// 0 for an empty log.
type bounds struct {
	seq, first, last uint64
}

var (
	_ raft.LogStore    = (*Store)(nil)
	_ raft.StableStore = (*Store)(nil)
)

// errClosed is returned by the methods of a closed Store.
var errClosed = fmt.Errorf("raftstore: store is closed: %w", cairn.ErrClosed)

// Limits of a log entry and of one commit, vars so that tests can lower them.
var (
	// maxRecordSize bounds one entry's record: cairn's value limit.
	maxRecordSize = cairn.MaxValueSize
	// maxCommitBytes bounds the records of one commit of StoreLogs: cairn's transaction limit,
	// less room for the redo framing of the bucket selection (opOverhead covers each put's).
	maxCommitBytes = cairn.MaxTxSize - 64<<10
)

// opOverhead bounds the redo framing of one put of a log record: op code, key length, the 8-byte
// key and the value's length.
const opOverhead = 1 + 1 + 8 + binary.MaxVarintLen64

// Open opens or creates the cairn database at path (cairn.Open with opts.DB) and returns a
// Store on it that owns it: Close closes the database. Errors are cairn.Open's (such as
// cairn.ErrLocked while another Store or process has the database open) or New's.
func Open(path string, opts *Options) (*Store, error) {
	var dbOpts *cairn.Options
	if opts != nil {
		dbOpts = opts.DB
	}
	db, err := cairn.Open(path, dbOpts)
	if err != nil {
		return nil, fmt.Errorf("raftstore: %w", err)
	}
	s, err := New(db, opts)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New returns a Store on the caller's open database, creating its two buckets if they are
// missing (one durable commit). The database stays the caller's: Close of the Store does not
// close it, and the caller closes it after the Store. On a read-only database (and so Open with
// opts.DB.ReadOnly) the buckets must exist already, else the error wraps
// cairn.ErrBucketNotFound; the write methods then fail with cairn.ErrReadOnly. New reads the
// log's first and last index, so that FirstIndex and LastIndex read memory only.
func New(db *cairn.DB, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LogBucket == "" {
		o.LogBucket = DefaultLogBucket
	}
	if o.StableBucket == "" {
		o.StableBucket = DefaultStableBucket
	}
	if o.LogBucket == o.StableBucket {
		return nil, fmt.Errorf("raftstore: log and stable buckets have the same name %q", o.LogBucket)
	}
	s := &Store{db: db, logBucket: []byte(o.LogBucket), stableBucket: []byte(o.StableBucket)}
	var b bounds
	missing := false
	err := db.View(func(tx *cairn.Tx) error {
		for _, name := range [][]byte{s.logBucket, s.stableBucket} {
			if _, err := tx.Bucket(name); errors.Is(err, cairn.ErrBucketNotFound) {
				missing = true
			} else if err != nil {
				return err
			}
		}
		if missing {
			return nil
		}
		lb, _ := tx.Bucket(s.logBucket)
		var err error
		b.first, b.last, err = logBounds(lb)
		return err
	})
	if err == nil && missing {
		err = db.Update(func(tx *cairn.Tx) error {
			for _, name := range [][]byte{s.logBucket, s.stableBucket} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			lb, _ := tx.Bucket(s.logBucket)
			var err error
			b.first, b.last, err = logBounds(lb)
			return err
		})
		if errors.Is(err, cairn.ErrReadOnly) {
			err = fmt.Errorf("buckets %q and %q: %w (the database is read-only)", s.logBucket, s.stableBucket, cairn.ErrBucketNotFound)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("raftstore: open: %w", err)
	}
	s.bounds.Store(&b)
	return s, nil
}

// DB returns the database the Store keeps its buckets in, for its statistics, checkpoints and
// backups. Writing the Store's buckets through it breaks the Store's cached first and last index.
func (s *Store) DB() *cairn.DB { return s.db }

// Close closes the Store, and the database if Open opened it (returning cairn's Close error).
// A second Close returns nil. Calls that run while Close runs either complete or fail with
// cairn.ErrClosed; none may start after it.
func (s *Store) Close() error {
	if s.closed.Swap(true) || !s.owned {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("raftstore: close: %w", err)
	}
	return nil
}

// FirstIndex returns the lowest index in the log, 0 for an empty log. It reads a cached value:
// no I/O, no allocation.
func (s *Store) FirstIndex() (uint64, error) {
	if s.closed.Load() {
		return 0, errClosed
	}
	return s.bounds.Load().first, nil
}

// LastIndex returns the highest index in the log, 0 for an empty log. It reads a cached value:
// no I/O, no allocation.
func (s *Store) LastIndex() (uint64, error) {
	if s.closed.Load() {
		return 0, errClosed
	}
	return s.bounds.Load().last, nil
}

// GetLog reads the entry at index into log, overwriting all its fields; log's Data and
// Extensions are new slices that the caller owns (nil when empty). It returns raft.ErrLogNotFound
// (unwrapped, as raft compares it with ==) when the log has no entry at index, and an error
// wrapping cairn.ErrCorrupt when the stored record does not decode.
func (s *Store) GetLog(index uint64, log *raft.Log) error {
	if s.closed.Load() {
		return errClosed
	}
	err := s.db.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket(s.logBucket)
		if err != nil {
			return fmt.Errorf("raftstore: get log %d: %w", index, err)
		}
		k := logKey(index)
		v, err := b.Get(k[:])
		switch {
		case errors.Is(err, cairn.ErrNotFound):
			return raft.ErrLogNotFound
		case err != nil:
			return fmt.Errorf("raftstore: get log %d: %w", index, err)
		}
		return decodeRecord(index, v, log)
	})
	return err
}

// StoreLog stores one entry, as StoreLogs does.
func (s *Store) StoreLog(log *raft.Log) error {
	return s.StoreLogs([]*raft.Log{log})
}

// StoreLogs stores the entries, each under its Index, replacing an entry already there. The
// entries need not be contiguous nor in order: gaps are allowed (the Store is not a
// raft.MonotonicLogStore). They are one cairn commit, durable when StoreLogs returns, unless
// their records add up to more than about cairn.MaxTxSize (1 GiB): then they are split, in
// order, into commits of at most that size, and a crash may keep a prefix of them, which raft
// tolerates (an entry is acknowledged only after StoreLogs returns). An entry whose record (its
// Data and Extensions plus at most 30 bytes) exceeds cairn.MaxValueSize (256 MiB) is refused
// before anything is written, with an error wrapping cairn.ErrValueTooLarge.
func (s *Store) StoreLogs(logs []*raft.Log) error {
	if s.closed.Load() {
		return errClosed
	}
	for len(logs) > 0 {
		n, size, err := commitLen(logs)
		if err != nil {
			return err
		}
		if err := s.storeCommit(logs[:n], size); err != nil {
			return err
		}
		logs = logs[n:]
	}
	return nil
}

// commitLen returns how many of the first entries of logs go into one commit, and the size of
// their largest record; an entry too large for cairn is an error.
func commitLen(logs []*raft.Log) (n, largest int, err error) {
	total := 0
	for i, l := range logs {
		size := recordSize(l)
		if size > maxRecordSize {
			return 0, 0, fmt.Errorf("raftstore: log %d: record of %d bytes is larger than the %d-byte limit: %w",
				l.Index, size, maxRecordSize, cairn.ErrValueTooLarge)
		}
		if i > 0 && total+size+opOverhead > maxCommitBytes {
			return i, largest, nil
		}
		total += size + opOverhead
		largest = max(largest, size)
	}
	return len(logs), largest, nil
}

// storeCommit stores logs in one commit; their largest record is largest bytes.
func (s *Store) storeCommit(logs []*raft.Log, largest int) error {
	var b bounds
	buf := make([]byte, 0, largest)
	err := s.db.Update(func(tx *cairn.Tx) error {
		lb, err := tx.Bucket(s.logBucket)
		if err != nil {
			return err
		}
		for _, l := range logs {
			// Put copies key and value into the transaction's redo record: buf is free again.
			buf = appendRecord(buf[:0], l)
			k := logKey(l.Index)
			if err := lb.Put(k[:], buf); err != nil {
				return err
			}
		}
		b.first, b.last, err = logBounds(lb)
		b.seq = s.seq.Add(1)
		return err
	})
	if err != nil {
		return fmt.Errorf("raftstore: store logs %d to %d: %w", logs[0].Index, logs[len(logs)-1].Index, err)
	}
	s.publish(&b)
	return nil
}

// DeleteRange deletes the entries with indexes from min to max, both included, in one durable
// commit; indexes without an entry are skipped, and min > max deletes nothing. Raft deletes a
// prefix after a snapshot (compaction) and a suffix when a follower's log conflicts with the
// leader's; a range in the middle leaves a gap, which the Store keeps as it is (FirstIndex and
// LastIndex are the lowest and highest entries left).
func (s *Store) DeleteRange(min, max uint64) error {
	if s.closed.Load() {
		return errClosed
	}
	if min > max {
		return nil
	}
	var b bounds
	err := s.db.Update(func(tx *cairn.Tx) error {
		lb, err := tx.Bucket(s.logBucket)
		if err != nil {
			return err
		}
		start := logKey(min)
		var end []byte
		if max < math.MaxUint64 {
			e := logKey(max + 1)
			end = e[:]
		}
		// The iterator sees the deletes and goes on after the last key it returned; k may point
		// into the page Delete changes, so the key is copied first.
		for k := range lb.Range(start[:], end) {
			index, err := keyIndex(k)
			if err != nil {
				return err
			}
			key := logKey(index)
			if err := lb.Delete(key[:]); err != nil {
				return err
			}
		}
		if err := tx.Err(); err != nil {
			return err
		}
		b.first, b.last, err = logBounds(lb)
		b.seq = s.seq.Add(1)
		return err
	})
	if err != nil {
		return fmt.Errorf("raftstore: delete logs %d to %d: %w", min, max, err)
	}
	s.publish(&b)
	return nil
}

// publish makes b the cached bounds unless a later write transaction's are there already.
func (s *Store) publish(b *bounds) {
	s.mu.Lock()
	if b.seq > s.bounds.Load().seq {
		s.bounds.Store(b)
	}
	s.mu.Unlock()
}

// logBounds returns the first and last index in the log bucket b (0, 0 if empty).
func logBounds(b *cairn.Bucket) (first, last uint64, err error) {
	c := b.Cursor()
	k, _ := c.First()
	if k == nil {
		return 0, 0, c.Err()
	}
	if first, err = keyIndex(k); err != nil {
		return 0, 0, err
	}
	k, _ = c.Last()
	if k == nil {
		return 0, 0, c.Err()
	}
	last, err = keyIndex(k)
	return first, last, err
}

// Set stores val under key in the stable store, in one durable commit. key must be 1 to
// cairn.MaxKeySize bytes (else cairn.ErrKeyRequired or cairn.ErrKeyTooLarge); val may be empty.
func (s *Store) Set(key, val []byte) error {
	if s.closed.Load() {
		return errClosed
	}
	err := s.db.Update(func(tx *cairn.Tx) error {
		b, err := tx.Bucket(s.stableBucket)
		if err != nil {
			return err
		}
		return b.Put(key, val)
	})
	if err != nil {
		return fmt.Errorf("raftstore: set %q: %w", key, err)
	}
	return nil
}

// Get returns a copy of the value of key in the stable store (non-nil, empty for an empty
// value), or ErrKeyNotFound (unwrapped) when the key is missing.
func (s *Store) Get(key []byte) ([]byte, error) {
	if s.closed.Load() {
		return nil, errClosed
	}
	var val []byte
	err := s.db.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket(s.stableBucket)
		if err != nil {
			return fmt.Errorf("raftstore: get %q: %w", key, err)
		}
		v, err := b.Get(key)
		switch {
		case errors.Is(err, cairn.ErrNotFound):
			return ErrKeyNotFound
		case err != nil:
			return fmt.Errorf("raftstore: get %q: %w", key, err)
		}
		val = bytes.Clone(v)
		return nil
	})
	return val, err
}

// SetUint64 stores val under key in the stable store as 8 big-endian bytes, as Set does.
func (s *Store) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 returns the value that SetUint64 stored under key, or ErrKeyNotFound (unwrapped)
// when the key is missing. A value that is not 8 bytes long (one Set wrote, or a damaged one) is
// an error wrapping cairn.ErrCorrupt.
func (s *Store) GetUint64(key []byte) (uint64, error) {
	v, err := s.Get(key)
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("raftstore: value of %q is %d bytes, not a uint64's 8: %w", key, len(v), cairn.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), nil
}

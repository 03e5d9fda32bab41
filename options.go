package cairn

import (
	"fmt"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/pager"
)

// SyncMode says when a commit is durable.
type SyncMode int

const (
	// SyncFull makes every commit durable before Update or Commit returns: one fdatasync of the
	// WAL per batch of concurrent commits (group commit). The default.
	SyncFull SyncMode = iota
	// SyncNone writes the WAL without fdatasync: a crash of the process loses nothing that was
	// committed, a crash of the machine (power loss) may lose recent commits. For caches and tests.
	SyncNone
)

// Options configure Open. The zero value (or a nil *Options) gives the defaults.
type Options struct {
	// PageSize in bytes of a new database: a power of two from 4096 to 65536 (default 4096). An
	// existing database keeps the page size it was created with.
	PageSize int
	// CacheBytes caps the memory of the page cache (default 256 MiB; negative: no cap). Clean
	// pages past it are evicted (CLOCK) and read back on use. Pages changed since the last
	// checkpoint stay in memory until it writes them, so a background checkpoint also starts when
	// they pass half of CacheBytes (at least 4 MiB): memory stays bounded under a sustained write
	// load.
	CacheBytes int64
	// CheckpointBytes starts a background checkpoint when the WAL holds this many bytes (default
	// 64 MiB).
	CheckpointBytes int64
	// Sync is the durability mode (default SyncFull).
	Sync SyncMode
	// MaxBatchBytes bounds one group commit: a batch takes the queued commits, oldest first,
	// while their WAL records add up to at most this many bytes, and always at least one (default
	// 8 MiB, wal.DefaultMaxBatchBytes; negative is an error). Commits past the bound wait for the
	// next write and fdatasync. A bound keeps one batch's write and its buffer in proportion when
	// many writers commit large transactions at once.
	MaxBatchBytes int64
	// ReadOnly opens an existing database without write access: both files are opened read-only
	// under a shared lock (any number of read-only opens; Open with write access gets ErrLocked,
	// and the reverse), nothing is written to them, and the WAL's records are replayed into
	// memory only. Write transactions, Checkpoint and Compact return ErrReadOnly. A missing or
	// empty database file is an error wrapping fs.ErrNotExist.
	ReadOnly bool

	// Replicate, if set, makes this database a primary that copies its commits elsewhere before
	// they count (for a replicated cluster; see replicate.go). It is called with each batch of
	// commits, after the batch's concurrent commits have been grouped and before anything of
	// them is written to the WAL: lsn is the LSN of records[0], the others follow one by one, and
	// each record is one commit's redo record, which a replica applies with ApplyRecords. Calls
	// come one at a time, in LSN order, on the goroutine that writes the batch; the records are
	// valid only during the call. A commit is acknowledged and becomes visible only after
	// Replicate returned nil for it; an error fails the batch's commits and the database (see
	// ErrFailed), and nothing of the refused batch reaches the WAL, so it never survives a
	// restart. Replicate must not write to this database or wait for one of its commits.
	Replicate func(lsn uint64, records [][]byte) error

	// PoisonFreedPages is a debug mode for tests. Keys and values returned by Get, cursors and
	// iterators point into cached pages and are valid only until their transaction ends: once no
	// transaction can reach a page any more, a later write transaction reclaims it and its buffer
	// is reused for another page, so a key or value kept too long silently changes. With
	// PoisonFreedPages the buffer of every reclaimed page is first filled with 0xdb bytes, so that
	// such a key or value reads 0xdb 0xdb ... from then on (until the buffer is reused), and the
	// misuse fails loudly in tests. It costs a memset of each reclaimed page; the default is off.
	// Nothing of it reaches the files: a reused buffer is zeroed or overwritten whole.
	PoisonFreedPages bool

	// InMemory keeps the database in memory, in files of a file system private to this DB: no
	// file is created on disk, path only names the database, and everything is gone at Close (or
	// when the process ends). Durability modes and checkpoints behave as on disk. For tests,
	// caches, and the SQL driver's ":memory:" databases.
	InMemory bool

	// fs replaces the file system in tests (crash simulation, error injection).
	fs vfs.FS
}

const (
	defaultCacheBytes      = 256 << 20
	defaultCheckpointBytes = 64 << 20
)

func (o *Options) withDefaults() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.PageSize == 0 {
		r.PageSize = pager.DefaultPageSize
	}
	if !pager.ValidPageSize(r.PageSize) {
		return r, fmt.Errorf("cairn: page size %d is not a power of two from %d to %d", r.PageSize, pager.MinPageSize, pager.MaxPageSize)
	}
	if r.CacheBytes == 0 {
		r.CacheBytes = defaultCacheBytes
	}
	if r.CheckpointBytes <= 0 {
		r.CheckpointBytes = defaultCheckpointBytes
	}
	if r.MaxBatchBytes < 0 {
		return r, fmt.Errorf("cairn: MaxBatchBytes %d is negative", r.MaxBatchBytes)
	}
	if r.Sync != SyncFull && r.Sync != SyncNone {
		return r, fmt.Errorf("cairn: unknown sync mode %d", r.Sync)
	}
	switch {
	case r.fs != nil:
	case r.InMemory:
		r.fs = vfs.NewMem()
	default:
		r.fs = vfs.OS
	}
	return r, nil
}

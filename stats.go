package cairn

import (
	"sync/atomic"
	"time"
)

type counters struct {
	commits          atomic.Uint64
	batches          atomic.Uint64
	checkpointErrors atomic.Uint64
	preflushedPages  atomic.Uint64
	lastStall        atomic.Int64 // time.Duration
}

// Stats is a snapshot of a database's counters and sizes, cheap enough to take every second.
type Stats struct {
	PageSize      int    // bytes per page
	PageCount     uint64 // pages allocated in the file (its high-water mark)
	FreePages     int    // pages ready for reuse
	PendingPages  int    // freed pages waiting for old readers or a checkpoint before reuse
	DirtyPages    int    // page extents changed since the last checkpoint (held in memory)
	CachedBytes   int64  // bytes of pages held in memory (clean and dirty)
	CacheMisses   uint64 // page reads from the file
	Evictions     uint64 // clean pages dropped from the cache
	WALBytes      int64  // bytes in the WAL since the last checkpoint
	LSN           uint64 // LSN of the newest durable commit
	CheckpointLSN uint64 // LSN of the last checkpoint
	Commits       uint64 // write transactions committed since Open
	Batches       uint64 // WAL batches written (each one write and one fdatasync)
	Checkpoints   uint64 // checkpoints since Open
	CheckpointErr uint64 // background checkpoints that failed
	// PreflushedPages counts pages checkpoints wrote while writers went on (since Open).
	PreflushedPages uint64
	// LastCheckpointStall is how long the last checkpoint held the writer slot (writers waited).
	LastCheckpointStall time.Duration
	ActiveReaders       int // open read transactions
	// OldestReaderLSN is the LSN of the oldest version a read transaction pins (LSN if none).
	OldestReaderLSN uint64
	// OldestReaderAge is how long ago the version OldestReaderLSN was superseded by a newer one:
	// how long the oldest reader has kept pages from reuse (0 if it reads the newest version; at
	// least this long if that happened more than publishLogLen batches ago).
	OldestReaderAge time.Duration
}

// publishLogLen is the number of recent publications whose time is remembered.
const publishLogLen = 256

// publishLog is a ring of (LSN, time) of recent publications, for OldestReaderAge.
type publishLog struct {
	lsn  [publishLogLen]uint64
	at   [publishLogLen]time.Time
	next int
}

func (l *publishLog) add(lsn uint64, at time.Time) {
	l.lsn[l.next%publishLogLen], l.at[l.next%publishLogLen] = lsn, at
	l.next++
}

// supersededAt returns when the first version after lsn was published, or the oldest time the
// log knows if that is older, and false if nothing newer than lsn is logged.
func (l *publishLog) supersededAt(lsn uint64) (time.Time, bool) {
	var at time.Time
	found := false
	for i := range min(l.next, publishLogLen) {
		if l.lsn[i] > lsn && (!found || l.at[i].Before(at)) {
			at, found = l.at[i], true
		}
	}
	return at, found
}

// Stats returns the current counters.
func (db *DB) Stats() Stats {
	ps := db.pager.Stats()
	s := Stats{
		PageSize: db.pager.PageSize(), PageCount: ps.PageCount, FreePages: ps.FreePages,
		PendingPages: ps.PendingPages, DirtyPages: ps.DirtyPages, CachedBytes: ps.CachedBytes,
		CacheMisses: ps.CacheMisses, Evictions: ps.Evictions, WALBytes: db.walBytes.Load(),
		LSN: db.published.Load().lsn, CheckpointLSN: db.pager.Durable().LSN,
		Commits: db.counters.commits.Load(), Batches: db.counters.batches.Load(),
		Checkpoints: ps.Checkpoints, CheckpointErr: db.counters.checkpointErrors.Load(),
		ActiveReaders: db.readers.Active(), PreflushedPages: db.counters.preflushedPages.Load(),
		LastCheckpointStall: time.Duration(db.counters.lastStall.Load()),
	}
	published := db.published.Load().lsn
	s.OldestReaderLSN = db.readers.Oldest(published)
	if s.OldestReaderLSN < published {
		db.pendingMu.Lock()
		at, ok := db.publishLog.supersededAt(s.OldestReaderLSN)
		db.pendingMu.Unlock()
		if ok {
			s.OldestReaderAge = time.Since(at)
		}
	}
	return s
}

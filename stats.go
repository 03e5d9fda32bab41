package cairn

import (
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/wal"
)

type counters struct {
	commits              atomic.Uint64
	batches              atomic.Uint64
	materializations     atomic.Uint64
	copyMaterializations atomic.Uint64
	checkpointErrors     atomic.Uint64
	preflushedPages      atomic.Uint64
	lastStall            atomic.Int64 // time.Duration
}

// Stats is a snapshot of a database's counters and sizes, cheap enough to take every second (it
// takes no lock that a commit or read waits for long; it allocates nothing). Counters count since
// Open.
//
// Cache hits are not counted: a counter on the lock-free read path would add a shared write to
// every page access (measured at about 5% of a cached Get); CacheMisses and Evictions are
// counted on the slow paths.
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
	// MeanBatch is Commits / Batches: how many commits shared an fdatasync on average.
	MeanBatch float64
	// Materializations counts the versions whose held commits were written as pages: about once
	// per batch (DESIGN.md, "Held commits"), and once per commit that deletes a bucket holding
	// pages or that runs while such pages are being freed. CopyMaterializations counts those of
	// them rebuilt from WAL records because a write transaction was running at the time.
	Materializations, CopyMaterializations uint64
	// Syncs counts the fdatasync calls of WAL batches (0 with SyncNone) and SyncTime their
	// summed latency.
	Syncs    uint64
	SyncTime time.Duration
	// SyncHistogram counts those fdatasync calls by latency: bucket 0 holds the calls under
	// 1 µs, bucket i > 0 those in [2^(i-1), 2^i) µs (bucket 7: 64-128 µs; bucket 10: 0.5-1 ms),
	// the last one everything from about 4 s.
	SyncHistogram [wal.SyncBuckets]uint64
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
		Materializations: db.counters.materializations.Load(), CopyMaterializations: db.counters.copyMaterializations.Load(),
		Checkpoints: ps.Checkpoints, CheckpointErr: db.counters.checkpointErrors.Load(),
		ActiveReaders: db.readers.Active(), PreflushedPages: db.counters.preflushedPages.Load(),
		LastCheckpointStall: time.Duration(db.counters.lastStall.Load()),
	}
	if s.Batches > 0 {
		s.MeanBatch = float64(s.Commits) / float64(s.Batches)
	}
	if db.committer != nil {
		sync := db.committer.SyncStats()
		s.Syncs, s.SyncTime, s.SyncHistogram = sync.Syncs, sync.Total, sync.Histogram
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

package cairn

import "sync/atomic"

type counters struct {
	commits          atomic.Uint64
	batches          atomic.Uint64
	checkpointErrors atomic.Uint64
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
	ActiveReaders int    // open read transactions
}

// Stats returns the current counters.
func (db *DB) Stats() Stats {
	ps := db.pager.Stats()
	return Stats{
		PageSize: db.pager.PageSize(), PageCount: ps.PageCount, FreePages: ps.FreePages,
		PendingPages: ps.PendingPages, DirtyPages: ps.DirtyPages, CachedBytes: ps.CachedBytes,
		CacheMisses: ps.CacheMisses, Evictions: ps.Evictions, WALBytes: db.walBytes.Load(),
		LSN: db.published.Load().lsn, CheckpointLSN: db.pager.Durable().LSN,
		Commits: db.counters.commits.Load(), Batches: db.counters.batches.Load(),
		Checkpoints: ps.Checkpoints, CheckpointErr: db.counters.checkpointErrors.Load(),
		ActiveReaders: db.readers.Active(),
	}
}

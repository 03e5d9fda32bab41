package cairn

import (
	"context"
	"fmt"
	"time"

	"github.com/cairndb/cairn/wal"
)

// Checkpoint writes the newest version to the database file and empties the WAL, so that the
// next Open replays nothing. Checkpoints also run in the background when the WAL passes
// Options.CheckpointBytes, and at Close. A checkpoint first writes the pages changed so far while
// readers and writers go on, then holds the writer slot only to write the pages changed meanwhile,
// the meta page and the WAL reset (Stats.LastCheckpointStall is that time). ctx is checked between
// the steps. A failed write or fdatasync puts the database in the failed state (ErrFailed).
func (db *DB) Checkpoint(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if db.opts.ReadOnly {
		return ErrReadOnly
	}
	db.checkpointMu.Lock()
	defer db.checkpointMu.Unlock()
	// Pre-flush until little is left, so the part writers wait for stays short.
	for round := 0; round < maxPreflushRounds; round++ {
		pages, err := db.preflush()
		if err != nil {
			return err
		}
		if pages < preflushEnough {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	db.lockWriter()
	defer db.unlockWriter()
	if db.closed.Load() {
		return ErrClosed
	}
	start := time.Now()
	err := db.checkpointLocked(ctx)
	db.counters.lastStall.Store(int64(time.Since(start)))
	return err
}

// A checkpoint pre-flushes at most maxPreflushRounds times, and stops once a round wrote fewer than
// preflushEnough pages (what writers dirtied during the previous round).
const (
	maxPreflushRounds = 3
	preflushEnough    = 256
)

// preflush writes the pages of the published version that are not in the file yet, pinning that
// version like a reader, while writers go on (pager.Flush). It returns the pages written.
func (db *DB) preflush() (int, error) {
	slot, v, err := db.pinRead()
	if err != nil {
		return 0, err
	}
	defer db.readers.Unpin(slot)
	if err := db.failed(); err != nil {
		return 0, fmt.Errorf("cairn: checkpoint: %w", err)
	}
	pages, err := db.pager.Flush(v.lsn)
	if err != nil {
		return 0, fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
	}
	db.counters.preflushedPages.Add(uint64(pages))
	return pages, nil
}

// checkpointLocked is Checkpoint for a caller that holds the writer slot and carryMu.
func (db *DB) checkpointLocked(ctx context.Context) error {
	if err := db.failed(); err != nil {
		return fmt.Errorf("cairn: checkpoint: %w", err)
	}
	if err := db.settleLatest(); err != nil {
		return fmt.Errorf("cairn: checkpoint: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	v := db.latest.Load()
	rotated := db.walBytes.Load() > wal.HeaderSize
	if rotated {
		// Later records go to the spare segment; the current one holds nothing newer than v.
		if err := db.committer.Do(func(l *wal.Log) error { return l.Rotate() }); err != nil {
			return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
		}
		db.walBytes.Store(wal.HeaderSize)
	}
	// A meta page is written only for a version newer than the durable one: recovery relies on it
	// (see recover).
	if db.pager.Durable().LSN != v.lsn {
		if err := db.pager.Checkpoint(v.root, v.catalog, v.lsn); err != nil {
			return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
		}
	}
	if !rotated {
		return nil
	}
	// Every record of the old segment is in the page file now: recycle it as the spare.
	if err := db.walLog.PrepareSpare(); err != nil {
		return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
	}
	return nil
}

// checkpointDue reports whether a background checkpoint should run: the WAL passed
// CheckpointBytes, or the pages changed since the last checkpoint (held in memory) passed half of
// CacheBytes (and minDirtyCheckpoint, so that a tiny cache does not checkpoint every commit). Two
// atomic loads: it runs after every commit.
func (db *DB) checkpointDue(walBytes int64) bool {
	return walBytes > db.opts.CheckpointBytes ||
		db.opts.CacheBytes > 0 && db.pager.DirtyBytes() > max(db.opts.CacheBytes/2, minDirtyCheckpoint)
}

// minDirtyCheckpoint is the least dirty-page memory that starts a checkpoint.
const minDirtyCheckpoint = 4 << 20

func (db *DB) wakeCheckpoint() {
	select {
	case db.checkpointWake <- struct{}{}:
	default:
	}
}

// checkpointLoop runs the background checkpoints until Close.
func (db *DB) checkpointLoop() {
	defer db.loopDone.Done()
	for {
		select {
		case <-db.stop:
			return
		case <-db.checkpointWake:
			if db.checkpointDue(db.walBytes.Load()) {
				if err := db.Checkpoint(context.Background()); err != nil {
					db.counters.checkpointErrors.Add(1)
				}
			}
		}
	}
}

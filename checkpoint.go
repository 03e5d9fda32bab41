package cairn

import (
	"context"
	"fmt"
	"time"

	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/txn"
	"github.com/cairndb/cairn/wal"
)

// Checkpoint writes the newest version to the database file and recycles the WAL segment that
// held its commits, so that the next Open replays only what was committed since. Checkpoints also
// run in the background when the WAL passes Options.CheckpointBytes, and at Close. A checkpoint
// first writes the pages changed so far while readers and writers go on, then holds the writer
// slot only to pick the version and switch the WAL to its other segment (Stats.LastCheckpointStall
// is that time), and writes the rest, the free list and the meta page while writers go on again.
// ctx is checked between the steps (a nil ctx is context.Background()). A failed write or
// fdatasync puts the database in the failed state (ErrFailed).
func (db *DB) Checkpoint(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if db.opts.ReadOnly {
		return ErrReadOnly
	}
	db.checkpointMu.Lock()
	defer db.checkpointMu.Unlock()
	return db.checkpointLocked(ctx)
}

// checkpointLocked is Checkpoint for a caller that holds checkpointMu.
func (db *DB) checkpointLocked(ctx context.Context) error {
	// Pre-flush until little is left, so that the part after the switch writes little.
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
	if db.closed.Load() {
		db.unlockWriter()
		return ErrClosed
	}
	start := time.Now()
	cp, err := db.beginCheckpoint(ctx)
	db.counters.lastStall.Store(int64(time.Since(start)))
	db.unlockWriter()
	if err != nil {
		return err
	}
	return db.endCheckpoint(cp)
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

// checkpointNoPreflush is Checkpoint without the pre-flush for a caller that holds checkpointMu, the
// writer slot and treeMu (Close).
func (db *DB) checkpointNoPreflush(ctx context.Context) error {
	cp, err := db.beginCheckpoint(ctx)
	if err != nil {
		return err
	}
	return db.endCheckpoint(cp)
}

// pendingCheckpoint is a checkpoint between its two steps: the version it makes durable (pinned
// like a reader's, so that no page of it is reused meanwhile), its pager plan (nil when the
// durable meta page has that version already) and whether the WAL was switched to its spare
// segment.
type pendingCheckpoint struct {
	slot    *txn.Slot[Tx]
	plan    *pager.CheckpointPlan
	rotated bool
}

// beginCheckpoint is the step of a checkpoint that holds the writer slot (REQUIRES: checkpointMu,
// the writer slot and treeMu): it makes the newest version durable in the WAL, switches the WAL
// to its spare segment, so that the current one holds nothing newer than that version, and plans
// the pager's checkpoint of it (no I/O but the wait for the newest batch).
func (db *DB) beginCheckpoint(ctx context.Context) (*pendingCheckpoint, error) {
	if err := db.failed(); err != nil {
		return nil, fmt.Errorf("cairn: checkpoint: %w", err)
	}
	if err := db.settleLatest(); err != nil {
		return nil, fmt.Errorf("cairn: checkpoint: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	db.stateMu.Lock()
	defer db.stateMu.Unlock()
	v := db.latest.Load()
	if invariants.Enabled {
		db.assertCheckpointPages(v)
	}
	cp := &pendingCheckpoint{rotated: db.walBytes.Load() > wal.HeaderSize}
	if cp.rotated {
		if err := db.committer.Do(func(l *wal.Log) error { return l.Rotate() }); err != nil {
			return nil, fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
		}
		db.walBytes.Store(wal.HeaderSize)
	}
	// A meta page is written only for a version newer than the durable one: recovery relies on it
	// (see recover).
	if db.pager.Durable().LSN != v.lsn {
		cp.plan = db.pager.PrepareCheckpoint(v.root, v.catalog, v.lsn)
	}
	cp.slot, _ = db.readers.Pin(func() uint64 { return v.lsn }) // v is published: settleLatest
	return cp, nil
}

// endCheckpoint is the step of a checkpoint that writers do not wait for (REQUIRES:
// checkpointMu): it writes the planned pages, free list and meta page, and then recycles the WAL
// segment the switch left behind, every record of which is in the page file now.
func (db *DB) endCheckpoint(cp *pendingCheckpoint) error {
	defer db.readers.Unpin(cp.slot)
	if cp.plan != nil {
		if err := db.pager.WriteCheckpoint(cp.plan); err != nil {
			return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
		}
	}
	if cp.rotated {
		if err := db.walLog.PrepareSpare(); err != nil {
			return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
		}
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

package cairn

import (
	"context"
	"fmt"

	"github.com/cairndb/cairn/wal"
)

// Checkpoint writes the newest version to the database file and empties the WAL, so that the
// next Open replays nothing. Checkpoints also run in the background when the WAL passes
// Options.CheckpointBytes, and at Close. Read transactions go on during a checkpoint; write
// transactions wait for it (a later release makes checkpoints concurrent with writers). ctx is
// checked before the checkpoint starts. A failed write or fdatasync puts the database in the
// failed state (ErrFailed).
func (db *DB) Checkpoint(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	db.writer.Lock()
	defer db.writer.Unlock()
	if db.closed.Load() {
		return ErrClosed
	}
	return db.checkpointLocked(ctx)
}

// checkpointLocked is Checkpoint for a caller that holds the writer slot.
func (db *DB) checkpointLocked(ctx context.Context) error {
	if err := db.failed(); err != nil {
		return fmt.Errorf("cairn: checkpoint: %w", err)
	}
	if t := db.lastTicket; t != nil {
		if err := t.Wait(); err != nil {
			return fmt.Errorf("cairn: checkpoint: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	v := db.latest
	// A meta page is written only for a version newer than the durable one: recovery relies on it
	// (see recover).
	if db.pager.Durable().LSN != v.lsn {
		if err := db.pager.Checkpoint(v.root, v.lsn); err != nil {
			return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
		}
	}
	if db.walBytes.Load() <= wal.HeaderSize {
		return nil
	}
	if err := db.committer.Do(func(w *wal.Writer) error { return w.Reset() }); err != nil {
		return fmt.Errorf("cairn: checkpoint: %w", db.fail(err))
	}
	db.walBytes.Store(wal.HeaderSize)
	return nil
}

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
			if db.walBytes.Load() > db.opts.CheckpointBytes {
				if err := db.Checkpoint(context.Background()); err != nil {
					db.counters.checkpointErrors.Add(1)
				}
			}
		}
	}
}

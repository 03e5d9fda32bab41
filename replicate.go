package cairn

// Replication of commits: a primary's commits leave through Options.Replicate, batch by batch,
// and a replica applies them with ApplyRecords at the same LSNs (docs/CLUSTER.md builds a Raft
// cluster on it). Invariants:
//   - A record reaches the primary's WAL, and so survives its restart, only after Replicate
//     accepted the record's batch (wal.Committer calls it before the batch's write). A refused
//     batch fails the database (ErrFailed): none of its commits is acknowledged, visible or
//     durable, and reopening the database recovers the commits before it.
//   - ApplyRecords commits the record for LSN n as the commit at LSN n: on every copy that
//     applied a primary's records in order, an LSN names the same commit, and a Backup at LSN n
//     (its meta page carries n) holds exactly the commits up to n.
//   - Records at LSNs the database already has are skipped, without waiting for anything: a
//     replication log may deliver an entry again (after a restart), and a primary sees its own
//     commits come back from the log while their batch is still being replicated.
//   - Applied records go to the WAL as ordinary records but are never passed to Replicate again.

import (
	"fmt"

	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/wal"
)

// ApplyRecords commits records, the redo records of the commits at LSNs first, first+1, ... of
// another database (as its Options.Replicate received them), each as its own commit at the same
// LSN, and returns once they are durable (with SyncFull) and visible. Records at LSNs up to the
// newest commit of this database are skipped; if any are left, first (after skipping) must be
// the newest commit's LSN plus one, else the error wraps ErrLSNGap and nothing is applied. A
// record that does not decode fails with an error wrapping ErrCorrupt and naming its LSN; the
// records before it stay committed. On a failed database it returns the failure, skipping
// nothing: the database must be reopened first. The records must not be modified until ApplyRecords
// returns. A replica must take its writes from the log alone: a commit of its own takes the
// next LSN, so the primary's record of that LSN would then be skipped as present (or, racing
// with ApplyRecords, refused with ErrLSNGap). Errors also: ErrClosed, ErrReadOnly, and errors
// wrapping ErrFailed.
func (db *DB) ApplyRecords(first uint64, records [][]byte) error {
	if len(records) == 0 {
		return nil
	}
	if db.closed.Load() {
		return ErrClosed
	}
	if err := db.failed(); err != nil {
		// A failed primary may have refused a batch whose records come back from the log: they
		// are not skipped as present, the database must be reopened first.
		return fmt.Errorf("cairn: apply records: %w", err)
	}
	if head := db.headLSN.Load(); head >= first {
		skip := head - first + 1
		if skip >= uint64(len(records)) {
			return nil
		}
		records, first = records[skip:], head+1
	}
	var ticket *wal.Ticket
	var last uint64
	for i, rec := range records {
		t, lsn, err := db.applyRecord(first+uint64(i), rec)
		if err != nil {
			return err
		}
		ticket, last = t, lsn
	}
	if err := ticket.Wait(); err != nil {
		return fmt.Errorf("cairn: apply records: %w", err)
	}
	if err := db.awaitPublished(last); err != nil {
		return fmt.Errorf("cairn: apply records: %w", err)
	}
	return nil
}

// applyRecord replays rec in a write transaction and submits it as the commit at lsn, without
// waiting for its batch.
func (db *DB) applyRecord(lsn uint64, rec []byte) (*wal.Ticket, uint64, error) {
	tx, err := db.beginWrite(nil)
	if err != nil {
		return nil, 0, err
	}
	if tx.headLSN+1 != lsn {
		head := tx.headLSN
		tx.endWrite()
		return nil, 0, fmt.Errorf("cairn: apply record at LSN %d: the newest commit is %d: %w", lsn, head, ErrLSNGap)
	}
	if len(rec) == 0 || rec[0] != ondisk.RedoTxn || len(rec) > maxTxSize {
		tx.endWrite()
		return nil, 0, fmt.Errorf("cairn: apply record at LSN %d: not a redo record: %w", lsn, ErrCorrupt)
	}
	// The record is the transaction's before the replay: a rollback of a half-replayed record
	// then rebuilds the held trees rather than keeping them (endWrite).
	tx.redo, tx.applied, tx.replaying = rec, true, true
	err = tx.replay(rec)
	tx.replaying = false
	if err != nil {
		tx.closed = true
		tx.endWrite()
		return nil, 0, fmt.Errorf("cairn: apply record at LSN %d: %w", lsn, err)
	}
	return tx.submit()
}

package cluster

// The state machine: every node's cairn database applies the committed log entries in log order
// with cairn.DB.ApplyRecords, so an LSN names the same commit on every node. Invariants:
//   - Entries whose LSNs the database has are skipped (ApplyRecords): after a restart Raft
//     applies again every entry after the last snapshot, and a leader sees its own batches come
//     back while their commits wait in Options.Replicate.
//   - An entry applied or skipped stays in inflight until the database has published its last
//     LSN: a leader whose batch then fails reopens its database without it, and the entries
//     in inflight are applied again (reopen), so a committed entry is never lost to a skip.
//   - A snapshot holds at least the commits of the entries applied before it was taken: Persist
//     waits until the database has published the last LSN applied (lastLSN at Snapshot), then
//     writes a Backup, which may hold more (harmless: later entries at those LSNs are skipped).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/cairndb/cairn"
)

// snapshotMagic starts a snapshot stream: then the LSN of the last commit it is known to hold
// (8 bytes, big-endian), then a cairn Backup image.
const snapshotMagic = "cairnSN1"

// fsm is the node's raft.FSM (and raft.BatchingFSM).
type fsm struct {
	n *Node

	// applyMu serializes the writers of the database's log-applied state: the FSM goroutine's
	// applies and restores, and the reopen after a refused replication (which applies inflight
	// again). Lock order: applyMu, then Node.dbMu.
	applyMu sync.Mutex

	mu       sync.Mutex // guards inflight and lastLSN (Persist reads lastLSN concurrently)
	inflight []batch    // entries applied or skipped whose last LSN may be unpublished
	// lastLSN is a lower bound of the LSN the database reaches once the entries applied so far
	// are published: the newest entry's last LSN, or the database's LSN at open or restore.
	lastLSN uint64
}

// batch is the records of the commits at LSNs first, first+1, ....
type batch struct {
	first   uint64
	records [][]byte
}

func (b batch) last() uint64 { return b.first + uint64(len(b.records)) - 1 }

// Apply applies one committed log entry.
func (f *fsm) Apply(l *raft.Log) any {
	return f.ApplyBatch([]*raft.Log{l})[0]
}

// ApplyBatch applies committed log entries, the record batches of consecutive LSNs as one
// ApplyRecords (one fdatasync on a follower with SyncFull). The responses are nil, or the error
// that stopped the node.
func (f *fsm) ApplyBatch(logs []*raft.Log) []any {
	resp := make([]any, len(logs))
	var merged batch
	for _, l := range logs {
		if l.Type != raft.LogCommand {
			continue
		}
		first, records, err := decodeEntry(l.Data)
		if err != nil {
			return fill(resp, f.n.fatal(fmt.Errorf("entry at index %d: %w", l.Index, err)))
		}
		if len(merged.records) > 0 && first != merged.last()+1 {
			if err := f.apply(merged); err != nil {
				return fill(resp, err)
			}
			merged = batch{}
		}
		if len(merged.records) == 0 {
			merged.first = first
		}
		merged.records = append(merged.records, records...)
	}
	if len(merged.records) > 0 {
		if err := f.apply(merged); err != nil {
			return fill(resp, err)
		}
	}
	return resp
}

func fill(resp []any, err error) []any {
	for i := range resp {
		resp[i] = err
	}
	return resp
}

// apply applies b to the current database, reopening it when it failed or was swapped while
// applying; another error stops the node.
func (f *fsm) apply(b batch) error {
	f.applyMu.Lock()
	defer f.applyMu.Unlock()
	for {
		db, gen := f.n.currentDB()
		err := db.ApplyRecords(b.first, b.records)
		if err == nil {
			f.applied(db, b)
			return nil
		}
		if f.n.closing.Load() {
			return err
		}
		if !errors.Is(err, cairn.ErrFailed) && !errors.Is(err, cairn.ErrClosed) {
			return f.n.fatal(fmt.Errorf("apply LSNs %d-%d: %w", b.first, b.last(), err))
		}
		if err := f.recoverDB(gen); err != nil {
			return f.n.fatal(err)
		}
	}
}

// applied records b as applied or skipped, and forgets the entries db has published.
func (f *fsm) applied(db *cairn.DB, b batch) {
	published := publishedLSN(db)
	f.mu.Lock()
	keep := f.inflight[:0]
	for _, e := range f.inflight {
		if e.last() > published {
			keep = append(keep, e)
		}
	}
	clear(f.inflight[len(keep):])
	f.inflight = keep
	if b.last() > published {
		f.inflight = append(f.inflight, b)
	}
	f.lastLSN = max(f.lastLSN, b.last())
	f.mu.Unlock()
	f.n.notifyApplied()
}

// recoverDB reopens the database of generation gen if it is still the current one, and applies
// again the entries it may have lost. REQUIRES: applyMu.
func (f *fsm) recoverDB(gen uint64) error {
	db, reopened, err := f.n.reopenDB(gen)
	if err != nil || !reopened {
		return err
	}
	return f.reapply(db)
}

// reapply applies again, to a database just reopened, the entries it may have lost. REQUIRES:
// applyMu.
func (f *fsm) reapply(db *cairn.DB) error {
	f.mu.Lock()
	pending := append([]batch(nil), f.inflight...)
	f.mu.Unlock()
	for _, b := range pending {
		if err := db.ApplyRecords(b.first, b.records); err != nil {
			return fmt.Errorf("apply again LSNs %d-%d: %w", b.first, b.last(), err)
		}
	}
	return nil
}

// publishedLSN returns the LSN of the newest commit readers of db see (0 if db is closed).
func publishedLSN(db *cairn.DB) uint64 {
	var lsn uint64
	_ = db.View(func(tx *cairn.Tx) error { lsn = tx.LSN(); return nil })
	return lsn
}

// Snapshot captures the LSN the snapshot must hold; Persist writes it.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &snapshot{n: f.n, lsn: f.lastLSN}, nil
}

// Restore installs a snapshot, unless the database already holds every commit it holds (at
// start, Raft restores the newest snapshot, which the database usually passed long ago).
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	f.applyMu.Lock()
	defer f.applyMu.Unlock()
	var hdr [len(snapshotMagic) + 8]byte
	if _, err := io.ReadFull(rc, hdr[:]); err != nil || string(hdr[:len(snapshotMagic)]) != snapshotMagic {
		return f.n.fatal(fmt.Errorf("snapshot: bad header: %w", cairn.ErrCorrupt))
	}
	lsn := binary.BigEndian.Uint64(hdr[len(snapshotMagic):])
	db, _ := f.n.currentDB()
	if have := publishedLSN(db); have >= lsn {
		f.mu.Lock()
		f.lastLSN = max(f.lastLSN, have)
		f.mu.Unlock()
		return nil
	}
	db, err := f.n.installSnapshot(rc)
	if err != nil {
		return f.n.fatal(fmt.Errorf("snapshot at LSN %d: %w", lsn, err))
	}
	f.mu.Lock()
	f.inflight, f.lastLSN = nil, publishedLSN(db)
	f.mu.Unlock()
	f.n.notifyApplied()
	return nil
}

// snapshot is a snapshot in the making: the database's state from LSN lsn on.
type snapshot struct {
	n   *Node
	lsn uint64
}

// snapshotWait bounds how long Persist waits for the database to publish the snapshot's LSN.
const snapshotWait = time.Minute

// Persist waits until the database has published the snapshot's LSN, then writes the header and
// a Backup of the database to sink.
func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	err := s.persist(sink)
	if err != nil {
		sink.Cancel()
		return fmt.Errorf("cluster: snapshot: %w", err)
	}
	return sink.Close()
}

func (s *snapshot) persist(w io.Writer) error {
	db, err := s.n.waitPublished(s.lsn, snapshotWait)
	if err != nil {
		return err
	}
	var hdr [len(snapshotMagic) + 8]byte
	copy(hdr[:], snapshotMagic)
	binary.BigEndian.PutUint64(hdr[len(snapshotMagic):], s.lsn)
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err = db.Backup(w)
	return err
}

// Release does nothing: the snapshot pins nothing until Persist.
func (s *snapshot) Release() {}

package wal

import (
	"fmt"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
)

// maxKeptBuffer is the largest encode buffer, in bytes, that a Writer keeps between batches; a
// larger one (grown by a batch of big records) is dropped after its batch.
const maxKeptBuffer = 8 << 20

// Writer appends batches of records to a WAL file. It is not safe for concurrent use; the
// Committer serializes it. After any failed call it is dead: every later call returns the same
// error, so a failed fdatasync is never retried.
type Writer struct {
	f     vfs.File
	seed  uint32
	size  int64  // logical end of the log: HeaderSize + bytes of records written
	next  uint64 // LSN the next record must carry, if known
	known bool   // next is known (false after Create until the first batch)
	buf   []byte // encode buffer, reused across batches
	err   error  // sticky failure
	// noSync skips the fdatasync of WriteBatch (cairn.SyncNone).
	noSync bool
	syncs  syncCounters
}

// SetSync chooses whether WriteBatch ends with an fdatasync (true, the default) or leaves the
// written records to the operating system (false: they survive a crash of the process, not a
// power loss). Reset always syncs.
func (w *Writer) SetSync(sync bool) { w.noSync = !sync }

// Create makes f an empty WAL of database dbID: it truncates f to HeaderSize bytes, writes the
// header and Syncs f. The first batch written may start at any LSN; later batches must continue
// it. Creating the directory entry durably (FS.SyncDir) is the caller's job. Errors are the vfs
// errors, wrapped as "wal: create: ...".
func Create(f vfs.File, dbID uint64) (*Writer, error) {
	if err := f.Truncate(HeaderSize); err != nil {
		return nil, fmt.Errorf("wal: create: truncate: %w", err)
	}
	if _, err := f.WriteAt(encodeHeader(dbID), 0); err != nil {
		return nil, fmt.Errorf("wal: create: write header: %w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("wal: create: sync: %w", err)
	}
	return &Writer{f: f, seed: crcSeed(dbID), size: HeaderSize}, nil
}

// WriteBatch appends recs as one batch: it encodes them into the Writer's reused buffer, writes
// them with ONE f.WriteAt at the end of the log and makes them durable with ONE f.Sync. recs must
// carry consecutive LSNs, the first continuing the previous batch (recs[0].LSN is the batch LSN
// stored in every record), and payloads of at most MaxRecordSize bytes; an empty recs is a no-op.
// Errors are "wal: write: ...", "wal: sync: ..." wrapping the vfs error, or "wal: batch: ..." for
// invalid recs; after any error the Writer is dead and returns that error forever.
func (w *Writer) WriteBatch(recs []Record) error {
	if w.err != nil {
		return w.err
	}
	if len(recs) == 0 {
		return nil
	}
	if err := w.checkBatch(recs); err != nil {
		return w.fail(err)
	}
	b := w.encode(recs)
	if _, err := w.f.WriteAt(b, w.size); err != nil {
		return w.fail(fmt.Errorf("wal: write: %w", err))
	}
	if !w.noSync {
		start := time.Now()
		err := w.f.Sync()
		w.syncs.record(time.Since(start))
		if err != nil {
			return w.fail(fmt.Errorf("wal: sync: %w", err))
		}
	}
	w.size += int64(len(b))
	w.next, w.known = recs[len(recs)-1].LSN+1, true
	if cap(w.buf) > maxKeptBuffer {
		w.buf = nil
	}
	return nil
}

// Size returns the logical end offset of the log in bytes: HeaderSize plus the records written.
func (w *Writer) Size() int64 { return w.size }

// Reset drops every record: it truncates the file to HeaderSize and Syncs it. Call it only when
// every record written so far is durable elsewhere (after a checkpoint covering the last LSN
// written). LSNs are not reset: the next batch continues after the last record dropped. Errors are
// "wal: reset: ..." wrapping the vfs error; after an error the Writer is dead.
func (w *Writer) Reset() error {
	if w.err != nil {
		return w.err
	}
	if err := w.f.Truncate(HeaderSize); err != nil {
		return w.fail(fmt.Errorf("wal: reset: truncate: %w", err))
	}
	if err := w.f.Sync(); err != nil {
		return w.fail(fmt.Errorf("wal: reset: sync: %w", err))
	}
	w.size = HeaderSize
	return nil
}

// fail makes err the Writer's sticky error and returns it.
func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// checkBatch validates the LSNs and payload sizes of recs.
func (w *Writer) checkBatch(recs []Record) error {
	first := recs[0].LSN
	if w.known && first != w.next {
		return fmt.Errorf("wal: batch: starts at LSN %d, want %d", first, w.next)
	}
	for i, r := range recs {
		if r.LSN != first+uint64(i) {
			return fmt.Errorf("wal: batch: record %d has LSN %d, want %d", i, r.LSN, first+uint64(i))
		}
		if len(r.Payload) > MaxRecordSize {
			return fmt.Errorf("wal: batch: record LSN %d: payload of %d bytes exceeds %d",
				r.LSN, len(r.Payload), MaxRecordSize)
		}
	}
	return nil
}

// encode encodes recs into w.buf and returns the encoded bytes.
func (w *Writer) encode(recs []Record) []byte {
	var n int64
	for _, r := range recs {
		n += recordSpan(int64(len(r.Payload)))
	}
	if int64(cap(w.buf)) < n {
		w.buf = make([]byte, max(n, 2*int64(cap(w.buf)), 4096))
	}
	b := w.buf[:n]
	off := 0
	for _, r := range recs {
		off += putRecord(b[off:], w.seed, r, recs[0].LSN)
	}
	return b
}

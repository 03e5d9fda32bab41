package wal

import (
	"fmt"
	"sync"
	"sync/atomic"
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
	f    vfs.File
	dbID uint64
	gen  uint32 // generation: +1 at each Reset; seeds the record CRCs
	seed uint32
	size int64 // logical end of the log: HeaderSize + bytes of records written
	// allocated is the file size: bytes from size to allocated are zeros or records of an earlier
	// generation, written over by later batches.
	allocated int64
	// copyAValid is set when the header copy at offset 0 is valid (restart writes an invalid
	// copy first, see headerWriteOrder).
	copyAValid bool
	next       uint64 // LSN the next record must carry, if known
	known      bool   // next is known (false after Create until the first batch)
	buf        []byte // encode buffer, reused across batches
	err        error  // sticky failure
	// noSync skips the fdatasync of WriteBatch (cairn.SyncNone).
	noSync bool
	syncs  syncCounters

	// Growth ahead of the writer (growAhead), for the segments of a Log (ahead), whose owner
	// waits for it before closing the file (Log.WaitGrowth). growMu is held while zeros are
	// written past allocated, by the growAhead goroutine (which the committer starts holding it)
	// or by grow. grown is the file size a finished growAhead made durable, taken into allocated
	// by the goroutine writing batches. growErr is a failed fdatasync of growAhead. syncMu is
	// held by growAhead around each fdatasync and the recording of its failure: see WriteBatch.
	ahead   bool
	growMu  sync.Mutex
	syncMu  sync.Mutex
	growing atomic.Bool
	grown   atomic.Int64
	growErr atomic.Pointer[error]
}

// SetSync chooses whether WriteBatch ends with an fdatasync (true, the default) or leaves the
// written records to the operating system (false: they survive a crash of the process, not a
// power loss). Reset always syncs.
func (w *Writer) SetSync(sync bool) { w.noSync = !sync }

// InitialSize is the size in bytes of a new WAL file: the header region and zeros. The file grows
// by doubling (at most maxGrow at once) when a batch does not fit, and keeps its size when Reset
// recycles it, so that in steady state a batch's fdatasync never has to persist a new file size.
const InitialSize = 256 << 10

// maxGrow bounds one growth of the file, in bytes.
const maxGrow = 64 << 20

// Create makes f an empty WAL of database dbID: it truncates f, writes the header region (two
// copies of the header, generation 1) and zeros up to InitialSize, and Syncs f. The first batch
// written may start at any LSN; later batches must continue it. Creating the directory entry
// durably (FS.SyncDir) is the caller's job. Errors are the vfs errors, wrapped as
// "wal: create: ...".
func Create(f vfs.File, dbID uint64) (*Writer, error) {
	return createGen(f, dbID, 1)
}

// createGen is Create with the header's generation gen.
func createGen(f vfs.File, dbID uint64, gen uint32) (*Writer, error) {
	w := &Writer{f: f, dbID: dbID}
	if err := w.initialize(gen); err != nil {
		return nil, fmt.Errorf("wal: create: %w", err)
	}
	return w, nil
}

// initialize writes a new, empty file of the current version and generation gen over w's file.
func (w *Writer) initialize(gen uint32) error {
	w.waitGrowth() // a growAhead still running on this file ends first (none starts meanwhile)
	w.grown.Store(0)
	if err := w.f.Truncate(0); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	// The truncate durable first: a torn header written over an old file still at its length
	// would read as damage. Then the header region, synced: a crash leaves either a short file of
	// zeros or garbage (fresh) or a valid header. Then the zeros ahead of the writer.
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	b := make([]byte, HeaderSize)
	copy(b, encodeHeaderCopy(w.dbID, gen))
	copy(b[headerCopyB:], encodeHeaderCopy(w.dbID, gen))
	if _, err := w.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	w.gen, w.seed, w.size, w.allocated = gen, recordSeed(w.dbID, gen), HeaderSize, HeaderSize
	w.copyAValid = true
	if err := w.grow(InitialSize); err != nil {
		return err
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
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
	if p := w.growErr.Load(); p != nil {
		return w.fail(fmt.Errorf("wal: grow: %w", *p))
	}
	b := w.encode(recs)
	if err := w.grow(w.size + int64(len(b))); err != nil {
		return w.fail(err)
	}
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
		if err := w.growSyncErr(); err != nil {
			return w.fail(err)
		}
	}
	w.size += int64(len(b))
	w.next, w.known = recs[len(recs)-1].LSN+1, true
	if cap(w.buf) > maxKeptBuffer {
		w.buf = nil
	}
	w.maybeGrowAhead()
	return nil
}

// Size returns the logical end offset of the log in bytes: HeaderSize plus the records written.
func (w *Writer) Size() int64 { return w.size }

// Reset drops every record by starting a new generation: it writes the header with generation
// +1 into its second copy, Syncs, then into its first copy, and Syncs, so that a torn header write
// leaves one valid copy; records of the older generation no longer pass their CRC check. The file
// keeps its size (it is recycled, not truncated). Call it only when every record written so far is
// durable elsewhere (after a checkpoint covering the last LSN written). LSNs are not reset: the
// next batch continues after the last record dropped. Errors are "wal: reset: ..." wrapping the
// vfs error; after an error the Writer is dead.
func (w *Writer) Reset() error { return w.restart(w.gen + 1) }

// restart is Reset with the new generation gen, which must be above every generation this file
// had. A file too short to hold the header region is written as a new file (initialize).
func (w *Writer) restart(gen uint32) error {
	if w.err != nil {
		return w.err
	}
	if p := w.growErr.Load(); p != nil {
		return w.fail(fmt.Errorf("wal: reset: grow: %w", *p))
	}
	if w.allocated <= HeaderSize {
		if err := w.initialize(gen); err != nil {
			return w.fail(fmt.Errorf("wal: reset: %w", err))
		}
		return nil
	}
	h := encodeHeaderCopy(w.dbID, gen)
	for _, off := range w.headerWriteOrder() {
		if _, err := w.f.WriteAt(h, off); err != nil {
			return w.fail(fmt.Errorf("wal: reset: write header: %w", err))
		}
		if err := w.f.Sync(); err != nil {
			return w.fail(fmt.Errorf("wal: reset: sync: %w", err))
		}
	}
	w.gen, w.seed, w.size, w.copyAValid = gen, recordSeed(w.dbID, gen), HeaderSize, true
	return nil
}

// headerWriteOrder returns the offsets of the two header copies in the order restart writes
// them: an invalid copy first. Each write is synced before the next, so a crash tears at most
// one copy, and the other must then be valid: copy A may be torn garbage since an earlier crash
// (nothing rewrites it until a restart), and overwriting copy B first, the only valid one, would
// let one more crash leave none (the crash simulation found it, seed 1795492294333111714 with
// -crash.points=25). Copy B is valid whenever copy A is not: the Writer knows A's state from the
// recovery's read (copyAValid) or its own writes, so finding the order takes no I/O.
func (w *Writer) headerWriteOrder() []int64 {
	if !w.copyAValid {
		return []int64{0, headerCopyB}
	}
	return []int64{headerCopyB, 0}
}

// Shrink cuts an empty log (nothing written since Create or Reset) back to InitialSize bytes and
// Syncs, so that a closed database does not keep the space its busiest period grew the log to.
// It does nothing when the log holds records or is not larger than InitialSize. What it cuts off is records of earlier generations and zeros. Errors are "wal:
// shrink: ..." wrapping the vfs error; after an error the Writer is dead.
func (w *Writer) Shrink() error {
	if w.err != nil {
		return w.err
	}
	w.growMu.Lock() // a growAhead still running ends first
	defer w.growMu.Unlock()
	if p := w.growErr.Load(); p != nil {
		return w.fail(fmt.Errorf("wal: shrink: grow: %w", *p))
	}
	w.adoptGrown()
	if w.size != HeaderSize || w.allocated <= InitialSize {
		return nil
	}
	if err := w.f.Truncate(InitialSize); err != nil {
		return w.fail(fmt.Errorf("wal: shrink: %w", err))
	}
	if err := w.f.Sync(); err != nil {
		return w.fail(fmt.Errorf("wal: shrink: sync: %w", err))
	}
	w.allocated = InitialSize
	return nil
}

// grow zero-fills the file up to at least end bytes, doubling its size (by at most maxGrow), so
// that the batch written next lies in allocated, zeroed space. It first waits for a running
// growAhead and takes what it grew. In steady state growAhead has grown the file already and
// grow costs a compare.
func (w *Writer) grow(end int64) error {
	if end <= w.allocated {
		return nil
	}
	w.growMu.Lock()
	defer w.growMu.Unlock()
	if w.adoptGrown(); end <= w.allocated {
		return nil
	}
	target := max(end, w.allocated+min(w.allocated, maxGrow))
	if err := writeZeros(w.f, w.allocated, target); err != nil {
		return fmt.Errorf("wal: grow: %w", err)
	}
	w.allocated = target
	return nil
}

// growAheadAt is the fill ratio of the file past which a batch starts growAhead: at three
// quarters full, a quarter of the file is left for the batches written while it runs.
const growAheadAt = 0.75

// growSyncErr returns the failure of a growAhead fdatasync that may have run since this batch's
// write. Linux reports a writeback error to one fdatasync of the file description only: if the
// growth's fdatasync flushed the batch's pages and failed, the batch's own returns nil although
// its records are lost. So after its fdatasync a batch waits for a growth fdatasync in progress
// (syncMu) and fails if one failed. No growAhead starts during a batch (maybeGrowAhead runs after
// it), and one that ended recorded its failure before clearing growing.
func (w *Writer) growSyncErr() error {
	if w.growing.Load() {
		w.syncMu.Lock()
		w.syncMu.Unlock() // waiting for the growth's fdatasync is the point
	}
	if p := w.growErr.Load(); p != nil {
		return fmt.Errorf("wal: grow: %w", *p)
	}
	return nil
}

// maybeGrowAhead starts growAhead, on a goroutine of its own, when the log passed growAheadAt of
// the file and no growAhead runs: it doubles the file (by at most maxGrow) off the commit path,
// so that a batch rarely has to (the decision of issue 3: zeros written ahead of the writer).
// The goroutine writing batches takes growMu here and hands it to growAhead, so that no batch
// can be written into the range being zeroed.
func (w *Writer) maybeGrowAhead() {
	if !w.ahead || !w.pastGrowAhead() || w.growing.Load() {
		return
	}
	w.growMu.Lock()
	if w.adoptGrown(); !w.pastGrowAhead() { // a growAhead that ended grew the file already
		w.growMu.Unlock()
		return
	}
	w.growing.Store(true)
	go w.growAhead(w.allocated, w.allocated+min(w.allocated, maxGrow))
}

// pastGrowAhead reports whether the log fills growAheadAt of the file.
func (w *Writer) pastGrowAhead() bool {
	return float64(w.size) >= growAheadAt*float64(w.allocated)
}

// growAhead zero-fills [from, to) of the file, one zeroChunk at a time, each fdatasynced, then
// publishes to as grown, and releases growMu (held by maybeGrowAhead). Chunks keep a batch's
// fdatasync (of the same file, which flushes whatever of it is dirty) from flushing more than one
// chunk of zeros besides its records. A failed write only stops the growth (the space is not
// needed yet; grow writes it again if a batch needs it, and reports a failure then). A failed
// fdatasync is kept in growErr and fails the batches from the one it may have hidden a writeback
// error of (see growSyncErr): a failed fdatasync is never retried.
func (w *Writer) growAhead(from, to int64) {
	defer w.growing.Store(false)
	defer w.growMu.Unlock()
	for off := from; off < to; off += int64(len(zeroChunk)) {
		if writeZeros(w.f, off, min(to, off+int64(len(zeroChunk)))) != nil {
			return
		}
		w.syncMu.Lock()
		err := w.f.Sync()
		if err != nil {
			w.growErr.Store(&err)
		}
		w.syncMu.Unlock()
		if err != nil {
			return
		}
	}
	w.grown.Store(to)
}

// adoptGrown takes the size a finished growAhead made durable into allocated. REQUIRES: growMu,
// and the caller is the goroutine writing batches (or has exclusive use of the Writer).
func (w *Writer) adoptGrown() {
	if g := w.grown.Swap(0); g > w.allocated {
		w.allocated = g
	}
}

// waitGrowth waits until no growAhead runs on the file.
func (w *Writer) waitGrowth() {
	w.growMu.Lock()
	w.growMu.Unlock()
}

// zeroChunk is a read-only source of zeros for writeZeros (never written, so it costs no memory
// until read, and then only the kernel's zero page).
var zeroChunk [1 << 20]byte

// writeZeros writes zeros over [from, to) of f.
func writeZeros(f vfs.File, from, to int64) error {
	for off := from; off < to; off += int64(len(zeroChunk)) {
		if _, err := f.WriteAt(zeroChunk[:min(int64(len(zeroChunk)), to-off)], off); err != nil {
			return err
		}
	}
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

package wal

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/vfs"
)

const testDB = 0x0123_4567_89ab_cdef

// openFile opens (creating) name under a fresh temporary directory of t.
func openFile(t testing.TB) (vfs.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db-wal")
	f, err := vfs.OS.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f, path
}

// payloadFor returns n deterministic bytes derived from lsn; its first 8 bytes (if n >= 8) are lsn.
func payloadFor(lsn uint64, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(lsn*31 + uint64(i)*7 + uint64(i>>8))
	}
	if n >= 8 {
		binary.LittleEndian.PutUint64(p, lsn)
	}
	return p
}

// makeBatches turns payload sizes per batch into records with consecutive LSNs from first.
func makeBatches(first uint64, sizes [][]int) [][]Record {
	var out [][]Record
	lsn := first
	for _, b := range sizes {
		var recs []Record
		for _, n := range b {
			recs = append(recs, Record{LSN: lsn, Payload: payloadFor(lsn, n)})
			lsn++
		}
		out = append(out, recs)
	}
	return out
}

func flatten(batches [][]Record) []Record {
	var out []Record
	for _, b := range batches {
		out = append(out, b...)
	}
	return out
}

// offsets returns the file offset of every record of batches written after the header.
func offsets(batches [][]Record) []int64 {
	var out []int64
	off := int64(HeaderSize)
	for _, r := range flatten(batches) {
		out = append(out, off)
		off += recordSpan(int64(len(r.Payload)))
	}
	return out
}

// writeWAL creates a WAL in f and writes batches to it.
func writeWAL(t testing.TB, f vfs.File, batches [][]Record) *Writer {
	t.Helper()
	w, err := Create(f, testDB)
	require.NoError(t, err)
	for _, b := range batches {
		require.NoError(t, w.WriteBatch(b))
	}
	return w
}

// recoverAll runs recoverSegment and collects the records it applies.
func recoverAll(f vfs.File, after uint64) ([]Record, *Writer, uint64, error) {
	var got []Record
	w, last, err := recoverSegment(f, testDB, after, func(lsn uint64, p []byte) error {
		got = append(got, Record{LSN: lsn, Payload: p})
		return nil
	})
	return got, w, last, err
}

// requireRecords checks that got equals want (compared by LSN and payload).
func requireRecords(t testing.TB, want, got []Record) {
	t.Helper()
	require.Equal(t, len(want), len(got), "record count")
	for i := range want {
		require.Equal(t, want[i].LSN, got[i].LSN, "record %d LSN", i)
		require.True(t, string(want[i].Payload) == string(got[i].Payload), "record %d (LSN %d) payload", i, want[i].LSN)
	}
}

func fileBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func fileSize(t testing.TB, f vfs.File) int64 {
	t.Helper()
	n, err := f.Size()
	require.NoError(t, err)
	return n
}

// testFile wraps a vfs.File to count writes and syncs, slow syncs down, and inject sync errors.
type testFile struct {
	vfs.File
	writes    atomic.Int64
	syncs     atomic.Int64
	syncDelay time.Duration
	noSync    bool // skip the real fdatasync (fuzzing, benchmarks)
	// failWritesFrom, if set, fails every write reaching past that offset with ENOSPC.
	failWritesFrom atomic.Int64

	mu      sync.Mutex
	syncErr error         // returned by Sync when set
	entered chan struct{} // if set, closed when the next Sync starts
	gate    chan struct{} // if set, the next Sync waits for it before returning
}

func (f *testFile) WriteAt(p []byte, off int64) (int, error) {
	f.writes.Add(1)
	if from := f.failWritesFrom.Load(); from > 0 && off+int64(len(p)) > from {
		return 0, syscall.ENOSPC
	}
	return f.File.WriteAt(p, off)
}

func (f *testFile) Sync() error {
	f.syncs.Add(1)
	f.mu.Lock()
	err, entered, gate := f.syncErr, f.entered, f.gate
	f.entered, f.gate = nil, nil // only the next Sync signals and waits
	f.mu.Unlock()
	if entered != nil {
		close(entered)
	}
	if gate != nil {
		<-gate
	}
	if err != nil {
		return err
	}
	if f.syncDelay > 0 {
		time.Sleep(f.syncDelay)
	}
	if f.noSync {
		return nil
	}
	return f.File.Sync()
}

// failSyncs makes every later Sync return err; the first one signals entered and waits for gate.
func (f *testFile) failSyncs(err error, entered, gate chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncErr, f.entered, f.gate = err, entered, gate
}

// holdSync makes the next Sync close entered, wait for gate, and then succeed.
func (f *testFile) holdSync(entered, gate chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entered, f.gate = entered, gate
}

// requireClean checks what truncating the file after recovery used to guarantee: beyond the
// Writer's end, no record passes its check in the Writer's generation with an LSN the Writer may
// still write (records with older LSNs can never continue the log nor look like a later batch:
// LSNs only grow).
func requireClean(t testing.TB, f vfs.File, w *Writer) {
	t.Helper()
	r := newReader(f, fileSize(t, f), w.seed)
	end, err := r.dirtyEnd(w.Size(), w.next-1)
	require.NoError(t, err)
	require.Equal(t, w.Size(), end, "a record of this generation lies beyond the end")
}

// newTestWriter creates a WAL in a testFile wrapping a new temporary file.
func newTestWriter(t *testing.T) (*Writer, *testFile) {
	t.Helper()
	f, _ := openFile(t)
	tf := &testFile{File: f}
	w, err := Create(tf, testDB)
	require.NoError(t, err)
	return w, tf
}

// logOf returns a Log whose current segment is w and whose spare is a new temporary file.
func logOf(t testing.TB, w *Writer) *Log {
	t.Helper()
	f, _ := openFile(t)
	sp, err := createGen(f, w.dbID, w.gen+1)
	require.NoError(t, err)
	return &Log{segs: [2]*Writer{w, sp}, maxGen: sp.gen, spareReady: true}
}

// bigBatches returns a function that writes the next record, of 4,000 bytes, as one batch to w,
// and the LSN of the last record it wrote.
func bigBatches(w *Writer) (write func() error, last *uint64) {
	var lsn uint64
	return func() error {
		lsn++
		return w.WriteBatch([]Record{{LSN: lsn, Payload: payloadFor(lsn, 4000)}})
	}, &lsn
}

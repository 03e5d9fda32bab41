package wal

import (
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/vfs"
)

// pcFile models the page cache of one open file description on Linux: writes stay in memory
// until a Sync writes them back. A writeback failure is reported (errseq) to the one Sync that
// observes it; the pages are then clean and lost, and a later Sync of the same description
// returns nil. (Written by a review, 2026-11-24.)
type pcFile struct {
	vfs.File
	mu      sync.Mutex
	pending []pcWrite

	armed        bool // the next Sync fails the writeback of everything pending
	batchArmed   bool // the next write below growFrom is the batch the test watches
	growFrom     int64
	batchWritten chan struct{}
	consumed     chan struct{}
	entered      chan struct{}
	waitConsumed bool
}

type pcWrite struct {
	off  int64
	data []byte
}

func (f *pcFile) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = append(f.pending, pcWrite{off, append([]byte(nil), p...)})
	if f.batchArmed && off < f.growFrom {
		f.batchArmed = false
		f.waitConsumed = true
		close(f.batchWritten)
	}
	return len(p), nil
}

func (f *pcFile) flushLocked() error {
	for _, w := range f.pending {
		if _, err := f.File.WriteAt(w.data, w.off); err != nil {
			return err
		}
	}
	f.pending = nil
	return f.File.Sync()
}

func (f *pcFile) Sync() error {
	f.mu.Lock()
	if f.armed {
		f.armed = false
		f.mu.Unlock()
		close(f.entered)
		<-f.batchWritten // the batch's records are in the page cache now
		f.mu.Lock()
		f.pending = nil // writeback failed: the pages are lost (marked clean)
		f.mu.Unlock()
		close(f.consumed)
		return syscall.EIO
	}
	if f.waitConsumed {
		f.waitConsumed = false
		f.mu.Unlock()
		<-f.consumed
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	return f.flushLocked() // nothing reports the error again: errseq was advanced
}

func (f *pcFile) Truncate(n int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.flushLocked(); err != nil {
		return err
	}
	return f.File.Truncate(n)
}

// TestGrowAheadSyncErrorFailsTheBatchItHid: growAhead's fdatasync runs between a batch's write
// and its fdatasync, on the same file description, and is the call that observes the writeback
// error of the batch's pages; the batch's own fdatasync then returns nil. The batch must fail
// all the same (it waits for the growth's fdatasync and checks it), so that no acknowledged
// record is lost after a power loss.
func TestGrowAheadSyncErrorFailsTheBatchItHid(t *testing.T) {
	mem := vfs.NewMem()
	inner, err := mem.OpenFile("/w/db-wal", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	require.NoError(t, mem.SyncDir("/w"))
	pf := &pcFile{File: inner}
	w, err := Create(pf, testDB)
	require.NoError(t, err)
	w.ahead = true
	write, lsn := bigBatches(w)
	for float64(w.Size())+float64(recordSpan(4000)) < growAheadAt*InitialSize {
		require.NoError(t, write())
	}
	acked := *lsn
	// The next batch starts the growth; its fdatasync is skipped so that the growth's is next.
	pf.mu.Lock()
	pf.armed, pf.growFrom = true, w.allocated
	pf.batchWritten, pf.consumed, pf.entered = make(chan struct{}), make(chan struct{}), make(chan struct{})
	pf.mu.Unlock()
	w.SetSync(false)
	require.NoError(t, write())
	require.True(t, w.growing.Load(), "growAhead started")
	<-pf.entered // growAhead's first fdatasync has begun
	w.SetSync(true)
	pf.mu.Lock()
	pf.batchArmed = true
	pf.mu.Unlock()
	require.ErrorIs(t, write(), syscall.EIO, "a batch whose writeback error the growth observed was reported durable")
	w.waitGrowth()
	require.Error(t, write())

	crashed := mem.CrashClone(vfs.CrashOptions{})
	cf, err := crashed.OpenFile("/w/db-wal", os.O_RDWR, 0)
	require.NoError(t, err)
	_, _, last, err := recoverAll(cf, 0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, last, acked, "acknowledged batch %d lost after a power loss", acked)
}

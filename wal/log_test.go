package wal

import (
	"bytes"
	"errors"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// newTestLog creates a Log over two new temporary files and returns it with the files.
func newTestLog(t *testing.T) (*Log, [2]vfs.File) {
	t.Helper()
	f0, _ := openFile(t)
	f1, _ := openFile(t)
	l, err := CreateLog(f0, f1, testDB)
	require.NoError(t, err)
	t.Cleanup(l.WaitGrowth) // before the files close (cleanups run last first)
	return l, [2]vfs.File{f0, f1}
}

// recoverLogAll runs RecoverLog over fs and collects the records it applies.
func recoverLogAll(fs [2]vfs.File, after uint64) ([]Record, *Log, uint64, error) {
	var got []Record
	l, last, err := RecoverLog(fs[0], fs[1], testDB, after, func(lsn uint64, p []byte) error {
		got = append(got, Record{LSN: lsn, Payload: p})
		return nil
	})
	if l != nil {
		l.WaitGrowth() // tests use the Log's files only afterwards
	}
	return got, l, last, err
}

func writeBatches(t *testing.T, l *Log, batches [][]Record) {
	t.Helper()
	for _, b := range batches {
		require.NoError(t, l.WriteBatch(b))
	}
}

// TestLogRotation writes records into both segments and recovers them in LSN order, for a page
// file checkpointed before, inside and after the older segment.
func TestLogRotation(t *testing.T) {
	l, fs := newTestLog(t)
	first := makeBatches(1, [][]int{{10, 20}, {30}, {40, 50}}) // LSN 1..5 in segment 0
	second := makeBatches(6, [][]int{{60}, {70, 80}})          // LSN 6..8 in segment 1
	writeBatches(t, l, first)
	require.True(t, l.spareReady)
	require.NoError(t, l.Rotate())
	require.False(t, l.spareReady)
	require.Error(t, l.Rotate(), "a second rotation before PrepareSpare")
	writeBatches(t, l, second)
	all := append(flatten(first), flatten(second)...)

	for _, after := range []uint64{0, 3, 5, 7} { // ascending: a recovery recycles what is covered
		got, rl, last, err := recoverLogAll(fs, after)
		require.NoError(t, err, "after %d", after)
		require.Equal(t, uint64(8), last)
		requireRecords(t, all[after:], got)
		require.Equal(t, after < 5, rl.NeedsReset(), "after %d: the older segment holds records the page file lacks", after)
		require.Equal(t, 1, rl.cur, "the segment with the newest records is current")
	}

	// A checkpoint covering segment 0 lets it become the spare: its records never return.
	_, rl, _, err := recoverLogAll(fs, 5)
	require.NoError(t, err)
	require.NoError(t, rl.WriteBatch(makeBatches(9, [][]int{{90}})[0]))
	require.NoError(t, rl.Rotate())
	require.NoError(t, rl.WriteBatch(makeBatches(10, [][]int{{100}})[0]))
	got, _, last, err := recoverLogAll(fs, 5)
	require.NoError(t, err)
	require.Equal(t, uint64(10), last)
	requireRecords(t, flatten(makeBatches(6, [][]int{{60}, {70, 80}, {90}, {100}})), got)

	// Everything checkpointed: both segments start new generations, and nothing is replayed.
	got, rl, last, err = recoverLogAll(fs, 10)
	require.NoError(t, err)
	require.Equal(t, uint64(10), last)
	require.Empty(t, got)
	require.False(t, rl.NeedsReset())
	require.NoError(t, rl.WriteBatch(makeBatches(11, [][]int{{110}})[0]))
	got, _, _, err = recoverLogAll(fs, 10)
	require.NoError(t, err)
	requireRecords(t, flatten(makeBatches(11, [][]int{{110}})), got)
}

// TestLogPrepareSpareWhileWriting prepares the spare while a Committer writes batches into the
// current segment (run with -race), then rotates, and checks that recovery finds every record.
func TestLogPrepareSpareWhileWriting(t *testing.T) {
	l, fs := newTestLog(t)
	c := NewCommitter(l, 0, nil, nil)
	var lsn uint64
	submit := func(n int) {
		for range n {
			lsn++
			require.NoError(t, c.Submit(lsn, payloadFor(lsn, 40)).Wait())
		}
	}
	submit(10)
	for round := 0; round < 4; round++ {
		require.NoError(t, c.Do(func(l *Log) error { return l.Rotate() }))
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The old segment's records count as checkpointed here: the test recovers with after = 0
			// only what the current segment holds.
			require.NoError(t, l.PrepareSpare())
		}()
		submit(25)
		wg.Wait()
	}
	require.NoError(t, c.Close())
	// The last rotation's old segment counts as checkpointed (the test prepared it as the spare).
	got, _, last, err := recoverLogAll(fs, lsn-25)
	require.NoError(t, err)
	require.Equal(t, lsn, last)
	require.Len(t, got, 25)
	require.Equal(t, lsn-24, got[0].LSN)
}

// TestLogRotatedThenCrashed recovers a log rotated just before a crash, with nothing in the new
// segment: the old one stays current and the new one becomes a spare again.
func TestLogRotatedThenCrashed(t *testing.T) {
	l, fs := newTestLog(t)
	writeBatches(t, l, makeBatches(1, [][]int{{10}, {20}}))
	require.NoError(t, l.Rotate())
	got, rl, last, err := recoverLogAll(fs, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(2), last)
	require.Len(t, got, 2)
	require.Equal(t, 0, rl.cur)
	require.False(t, rl.NeedsReset())
	require.NoError(t, rl.WriteBatch(makeBatches(3, [][]int{{30}})[0]))
	require.NoError(t, rl.Rotate())
	require.NoError(t, rl.WriteBatch(makeBatches(4, [][]int{{40}})[0]))
	got, _, last, err = recoverLogAll(fs, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(4), last)
	requireRecords(t, flatten(makeBatches(1, [][]int{{10}, {20}, {30}, {40}})), got)
}

// TestLogSegmentsMustContinue damages the last batch of the older segment: the newer segment's
// records prove that batch was durable, so recovery reports corruption instead of replaying a log
// with a hole.
func TestLogSegmentsMustContinue(t *testing.T) {
	l, fs := newTestLog(t)
	batches := makeBatches(1, [][]int{{10}, {20}})
	writeBatches(t, l, batches)
	require.NoError(t, l.Rotate())
	writeBatches(t, l, makeBatches(3, [][]int{{30}}))
	off := offsets(batches)[1]
	_, err := fs[0].WriteAt([]byte{0xff}, off+recHeaderSize+2) // the payload of LSN 2
	require.NoError(t, err)
	_, _, _, err = recoverLogAll(fs, 0)
	require.ErrorIs(t, err, errs.ErrCorrupt)
	require.ErrorContains(t, err, "records 2..2 are missing")
}

// TestLogSameGeneration refuses two segments with one generation: their order is unknown.
func TestLogSameGeneration(t *testing.T) {
	f0, _ := openFile(t)
	f1, _ := openFile(t)
	_, err := createGen(f0, testDB, 3)
	require.NoError(t, err)
	_, err = createGen(f1, testDB, 3)
	require.NoError(t, err)
	_, _, _, err = recoverLogAll([2]vfs.File{f0, f1}, 0)
	require.ErrorIs(t, err, errs.ErrCorrupt)
}

// TestLogFromOneFile opens a log whose second segment does not exist yet (a database of the
// single-file layout, or a crash while creating the file): the first file is recovered as it is
// and the second becomes the spare.
func TestLogFromOneFile(t *testing.T) {
	f0, _ := openFile(t)
	f1, _ := openFile(t)
	w := writeWAL(t, f0, makeBatches(1, [][]int{{10}, {20}}))
	require.NoError(t, w.Reset()) // generation 2, as a checkpoint left it
	require.NoError(t, w.WriteBatch(makeBatches(3, [][]int{{30}})[0]))
	got, l, last, err := recoverLogAll([2]vfs.File{f0, f1}, 2)
	require.NoError(t, err)
	require.Equal(t, uint64(3), last)
	require.Len(t, got, 1)
	require.False(t, l.NeedsReset())
	require.Equal(t, uint32(3), l.segs[1].gen, "the spare's generation is above the current one's")
	require.NoError(t, l.Rotate())
	require.NoError(t, l.WriteBatch(makeBatches(4, [][]int{{40}})[0]))
	got, _, _, err = recoverLogAll([2]vfs.File{f0, f1}, 2)
	require.NoError(t, err)
	requireRecords(t, flatten(makeBatches(3, [][]int{{30}, {40}})), got)
}

// TestLogReset drops the records of both segments after a checkpoint of everything.
func TestLogReset(t *testing.T) {
	l, fs := newTestLog(t)
	writeBatches(t, l, makeBatches(1, [][]int{{10}}))
	require.NoError(t, l.Rotate())
	writeBatches(t, l, makeBatches(2, [][]int{{20}}))
	_, rl, _, err := recoverLogAll(fs, 0)
	require.NoError(t, err)
	require.True(t, rl.NeedsReset())
	require.NoError(t, rl.Reset())
	require.False(t, rl.NeedsReset())
	got, _, last, err := recoverLogAll(fs, 2)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, uint64(2), last)
}

// TestGrowAhead fills a segment past three quarters and requires that the file is doubled off
// the commit path: the batch that crosses the old end then makes one write (its records), not
// the zeros before it, and every record is recovered.
func TestGrowAhead(t *testing.T) {
	w, tf := newAheadWriter(t)
	write, lsn := bigBatches(w)
	for float64(w.Size()) < growAheadAt*InitialSize {
		require.NoError(t, write())
	}
	w.waitGrowth()
	require.Equal(t, int64(2*InitialSize), fileSize(t, tf))
	for w.Size()+recordSpan(4000) <= InitialSize {
		require.NoError(t, write())
	}
	before := tf.writes.Load()
	require.NoError(t, write()) // crosses the old end of the file
	require.Equal(t, before+1, tf.writes.Load(), "the crossing batch wrote zeros")
	require.Equal(t, int64(2*InitialSize), w.allocated)
	got, _, last, err := recoverAll(tf.File, 0)
	require.NoError(t, err)
	require.Equal(t, *lsn, last)
	require.Len(t, got, int(*lsn))
}

// newAheadWriter is newTestWriter for a Writer that grows ahead, as a Log's segments do.
func newAheadWriter(t *testing.T) (*Writer, *testFile) {
	w, tf := newTestWriter(t)
	w.ahead = true
	t.Cleanup(w.waitGrowth) // before the file closes (cleanups run last first)
	return w, tf
}

// TestGrowAheadFailureFailsNextBatch injects an fdatasync error into the growth ahead: the next
// batch fails with it, and so does every later one.
func TestGrowAheadFailureFailsNextBatch(t *testing.T) {
	w, tf := newAheadWriter(t)
	write, _ := bigBatches(w)
	for float64(w.Size())+float64(recordSpan(4000)) < growAheadAt*InitialSize {
		require.NoError(t, write())
	}
	w.SetSync(false) // only the growth syncs from here on
	injected := errors.New("injected")
	tf.failSyncs(injected, nil, nil)
	require.NoError(t, write()) // starts the growth, whose fdatasync fails
	w.waitGrowth()
	require.ErrorIs(t, write(), injected)
	require.ErrorIs(t, write(), injected)
}

// TestLogTornSpareHeader recovers a log whose spare preparation was cut short after a rotation:
// the old segment's second header copy is garbage (a torn write), so its first copy, of the old
// generation, is current and its records validate again. They are all in the page file (after),
// they continue into the new segment, and recovery replays only the new segment's.
func TestLogTornSpareHeader(t *testing.T) {
	l, fs := newTestLog(t)
	writeBatches(t, l, makeBatches(1, [][]int{{10}, {20, 30}})) // LSN 1..3 in segment 0
	require.NoError(t, l.Rotate())
	writeBatches(t, l, makeBatches(4, [][]int{{40}, {50}})) // LSN 4..5 in segment 1
	garbage := make([]byte, headerCopySize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 1)
	}
	_, err := fs[0].WriteAt(garbage, headerCopyB)
	require.NoError(t, err)
	got, rl, last, err := recoverLogAll(fs, 3)
	require.NoError(t, err)
	require.Equal(t, uint64(5), last)
	requireRecords(t, flatten(makeBatches(4, [][]int{{40}, {50}})), got)
	require.False(t, rl.NeedsReset())
	require.Equal(t, 1, rl.cur)
	require.NoError(t, rl.WriteBatch(makeBatches(6, [][]int{{60}})[0]))
	got, _, _, err = recoverLogAll(fs, 3)
	require.NoError(t, err)
	requireRecords(t, flatten(makeBatches(4, [][]int{{40}, {50}, {60}})), got)
}

// TestGrowAheadWriteFailureOnlyStopsTheGrowth fails the zero writes of the growth ahead (a full
// disk): the batches that fit go on, and only a batch that needs the space fails, with the error
// of the growth it then makes itself.
func TestGrowAheadWriteFailureOnlyStopsTheGrowth(t *testing.T) {
	w, tf := newAheadWriter(t)
	tf.failWritesFrom.Store(InitialSize)
	write, _ := bigBatches(w)
	for float64(w.Size()) < growAheadAt*InitialSize {
		require.NoError(t, write())
	}
	w.waitGrowth()
	require.Nil(t, w.growErr.Load())
	for w.Size()+recordSpan(4000) <= InitialSize {
		require.NoError(t, write(), "a batch that fits failed")
	}
	require.ErrorIs(t, write(), syscall.ENOSPC)
}

// TestLogTornCreation recovers a log whose second segment's creation was cut short in its header
// write (HeaderSize bytes, both copies garbage): nothing was ever written after them, so it is an
// empty segment, started afresh, and the records of the other are replayed.
func TestLogTornCreation(t *testing.T) {
	l, fs := newTestLog(t)
	writeBatches(t, l, makeBatches(1, [][]int{{10}, {20}}))
	require.NoError(t, fs[1].Truncate(0))
	garbage := make([]byte, HeaderSize)
	for i := range garbage {
		garbage[i] = byte(i*13 + 5)
	}
	_, err := fs[1].WriteAt(garbage, 0)
	require.NoError(t, err)
	got, rl, last, err := recoverLogAll(fs, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(2), last)
	require.Len(t, got, 2)
	require.False(t, rl.NeedsReset())
	// The same garbage in a file longer than the header region is damage, not a torn creation.
	require.NoError(t, fs[1].Truncate(HeaderSize+8))
	_, err = fs[1].WriteAt(garbage, 0)
	require.NoError(t, err)
	_, _, _, err = recoverLogAll(fs, 0)
	require.ErrorIs(t, err, errs.ErrCorrupt)
}

// tearingFile writes garbage instead of the bytes of its next write, then fails it (a crash
// during that write).
type tearingFile struct {
	vfs.File
	armed bool
}

func (f *tearingFile) WriteAt(p []byte, off int64) (int, error) {
	if !f.armed {
		return f.File.WriteAt(p, off)
	}
	f.armed = false
	garbage := make([]byte, len(p))
	for i := range garbage {
		garbage[i] = byte(i*13 + 5)
	}
	if _, err := f.File.WriteAt(garbage, off); err != nil {
		return 0, err
	}
	return 0, errors.New("crash")
}

// TestResetKeepsAValidHeaderCopy recovers a segment whose copy A is garbage (torn by an earlier
// crash) and tears, during the Reset that follows, the first header copy written: a valid copy
// must remain, so the first write must go to copy A, not to B, the only valid one.
func TestResetKeepsAValidHeaderCopy(t *testing.T) {
	f, _ := openFile(t)
	w, err := Create(f, testDB)
	require.NoError(t, err)
	for _, b := range makeBatches(1, [][]int{{10}, {20, 30}}) {
		require.NoError(t, w.WriteBatch(b))
	}
	_, err = f.WriteAt(bytes.Repeat([]byte{0xa5}, headerCopySize), 0) // copy A torn long ago
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	tf := &tearingFile{File: f}
	w, last, err := recoverSegment(tf, testDB, 0, func(uint64, []byte) error { return nil })
	require.NoError(t, err)
	require.Equal(t, uint64(3), last)
	tf.armed = true
	require.Error(t, w.Reset())
	region := make([]byte, HeaderSize)
	_, err = f.ReadAt(region, 0)
	require.NoError(t, err)
	require.True(t, anyValidHeaderCopy(region), "a torn Reset left no valid header copy")
}

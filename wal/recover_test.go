package wal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

var roundTripSizes = [][]int{
	{0},
	{1, 7, 8, 9},
	{100 << 10},
	{0, 1, 3 << 20, 7},
	{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8},
	{9},
}

func TestRoundTrip(t *testing.T) {
	f, _ := openFile(t)
	batches := makeBatches(1, roundTripSizes)
	all := flatten(batches)
	w := writeWAL(t, f, batches)
	size := w.Size()
	require.GreaterOrEqual(t, fileSize(t, f), size)

	for _, after := range []uint64{0, 1, 4, 7, uint64(len(all)) - 1} {
		got, w2, last, err := recoverAll(f, after)
		require.NoError(t, err, "after %d", after)
		requireRecords(t, all[after:], got)
		require.Equal(t, uint64(len(all)), last)
		require.Equal(t, size, w2.Size())
		requireClean(t, f, w2)
	}

	// A Writer from Recover continues the log.
	_, w2, last, err := recoverAll(f, 0)
	require.NoError(t, err)
	more := makeBatches(last+1, [][]int{{5, 16}})
	require.NoError(t, w2.WriteBatch(more[0]))
	got, _, last, err := recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, append(all, more[0]...), got)
	require.Equal(t, uint64(len(all)+2), last)
}

func TestRecoverAllCheckpointed(t *testing.T) {
	f, _ := openFile(t)
	batches := makeBatches(1, [][]int{{10, 20}, {30}})
	writeWAL(t, f, batches)

	// Every record is durable in the page file: nothing applied, the stale records are dropped.
	got, w, last, err := recoverAll(f, 3)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, uint64(3), last)
	require.Equal(t, int64(HeaderSize), w.Size())
	requireClean(t, f, w)

	// The page file may even be ahead of the log: the log continues after it without a gap.
	more := makeBatches(9, [][]int{{4}})
	_, w, last, err = recoverAll(f, 8)
	require.NoError(t, err)
	require.Equal(t, uint64(8), last)
	require.Error(t, w.WriteBatch(makeBatches(4, [][]int{{1}})[0]), "LSN must continue at last+1")
	_, w, _, err = recoverAll(f, 8)
	require.NoError(t, err)
	require.NoError(t, w.WriteBatch(more[0]))
	got, _, _, err = recoverAll(f, 8)
	require.NoError(t, err)
	requireRecords(t, more[0], got)
}

func TestRecoverEmptyFile(t *testing.T) {
	f, _ := openFile(t)
	got, w, last, err := recoverAll(f, 41)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, uint64(41), last)
	require.Equal(t, int64(InitialSize), fileSize(t, f), "a new log is preallocated")
	recs := makeBatches(42, [][]int{{3, 4}})[0]
	require.NoError(t, w.WriteBatch(recs))

	got, _, last, err = recoverAll(f, 41)
	require.NoError(t, err)
	requireRecords(t, recs, got)
	require.Equal(t, uint64(43), last)
}

func TestRecoverZeroedHeader(t *testing.T) {
	// A Create torn by a crash after its truncate: a header-sized file of zeros is a new WAL.
	f, _ := openFile(t)
	require.NoError(t, f.Truncate(HeaderSize))
	_, w, last, err := recoverAll(f, 7)
	require.NoError(t, err)
	require.Equal(t, uint64(7), last)
	require.Equal(t, int64(HeaderSize), w.Size())
	_, _, _, err = recoverAll(f, 7)
	require.NoError(t, err)
}

func TestRecoverBadHeader(t *testing.T) {
	// Both copies damaged (or the file too short for one): corrupt, and the file is left alone.
	cases := map[string]func(b []byte){
		"magic":   func(b []byte) { b[0] = 'C' },
		"crc":     func(b []byte) { b[25] ^= 1 },
		"version": func(b []byte) { putHeaderField32(b, 8, formatVersion+1) },
		"short":   nil,
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			f, path := openFile(t)
			writeWAL(t, f, makeBatches(1, [][]int{{1}}))
			if damage == nil {
				require.NoError(t, f.Truncate(headerCopySize-1))
			} else {
				b := fileBytes(t, path)
				damage(b[:headerCopySize])
				damage(b[headerCopyB : headerCopyB+headerCopySize])
				_, err := f.WriteAt(b[:HeaderSize], 0)
				require.NoError(t, err)
			}
			before := fileBytes(t, path)
			_, _, _, err := recoverAll(f, 0)
			require.ErrorIs(t, err, errs.ErrCorrupt)
			require.ErrorContains(t, err, "wal: header")
			require.Equal(t, before, fileBytes(t, path))
		})
	}
}

// TestRecoverOneHeaderCopyDamaged: a torn header write (Reset writes one copy at a time) leaves
// the other copy, and the log is read.
func TestRecoverOneHeaderCopyDamaged(t *testing.T) {
	for _, off := range []int{0, headerCopyB} {
		f, path := openFile(t)
		recs := makeBatches(1, [][]int{{7, 9}})
		writeWAL(t, f, recs)
		b := fileBytes(t, path)
		b[off+3] ^= 0xff
		require.NoError(t, os.WriteFile(path, b, 0o600))
		got, _, last, err := recoverAll(f, 0)
		require.NoError(t, err, "copy at %d damaged", off)
		requireRecords(t, recs[0], got)
		require.Equal(t, uint64(2), last)
	}
}

// putHeaderField32 sets a 32-bit header field and recomputes the header CRC.
func putHeaderField32(b []byte, off int, v uint32) {
	binary.LittleEndian.PutUint32(b[off:], v)
	binary.LittleEndian.PutUint32(b[24:], crc32.Checksum(b[:24], castagnoli))
}

func TestRecoverOtherDatabase(t *testing.T) {
	f, path := openFile(t)
	writeWAL(t, f, makeBatches(1, [][]int{{1}}))
	before := fileBytes(t, path)
	_, _, err := Recover(f, testDB+1, 0, func(uint64, []byte) error { return nil })
	require.ErrorIs(t, err, errs.ErrCorrupt)
	require.ErrorContains(t, err, "belongs to another database")
	require.Equal(t, before, fileBytes(t, path))
}

func TestRecoverGap(t *testing.T) {
	f, path := openFile(t)
	writeWAL(t, f, makeBatches(10, [][]int{{1, 2}}))
	before := fileBytes(t, path)
	_, _, _, err := recoverAll(f, 5) // records 6..9 are missing
	require.ErrorIs(t, err, errs.ErrCorrupt)
	require.ErrorContains(t, err, "missing")
	require.Equal(t, before, fileBytes(t, path))

	got, _, _, err := recoverAll(f, 9)
	require.NoError(t, err)
	require.Len(t, got, 2)
}

func TestRecoverApplyError(t *testing.T) {
	f, path := openFile(t)
	writeWAL(t, f, makeBatches(1, [][]int{{1, 2}, {3}}))
	require.NoError(t, f.Truncate(fileSize(t, f)+5)) // a torn tail that must survive
	before := fileBytes(t, path)
	boom := errors.New("boom")
	_, _, err := Recover(f, testDB, 0, func(lsn uint64, _ []byte) error {
		if lsn == 2 {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "LSN 2")
	require.Equal(t, before, fileBytes(t, path))
}

// tornCase writes prefix batches plus a last batch of one record, damages the file with fn (given
// the bytes and the offset of the last record), then checks that Recover drops exactly the last
// record, truncates there, and that the log continues cleanly.
func tornCase(t *testing.T, fn func(b []byte, last int64) []byte) {
	t.Helper()
	f, path := openFile(t)
	batches := makeBatches(1, [][]int{{3, 8}, {100}})
	all := flatten(batches)
	writeWAL(t, f, batches)
	last := offsets(batches)[2]
	b := fn(fileBytes(t, path), last)
	require.NoError(t, os.WriteFile(path, b, 0o600))

	got, w, lastLSN, err := recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, all[:2], got)
	require.Equal(t, uint64(2), lastLSN)
	require.Equal(t, last, w.Size())
	requireClean(t, f, w)

	fresh := []Record{{LSN: 3, Payload: []byte("new record 3")}}
	require.NoError(t, w.WriteBatch(fresh))
	got, _, lastLSN, err = recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, append(all[:2:2], fresh...), got)
	require.Equal(t, uint64(3), lastLSN)
}

func TestTornTailTruncated(t *testing.T) {
	end := int64(recHeaderSize + 100) // the last record's payload end; padding follows
	for cut := range end {
		tornCase(t, func(b []byte, last int64) []byte { return b[:last+cut] })
	}
}

func TestTornTailPaddingMissing(t *testing.T) {
	// The record is complete but its padding is cut off: it is valid, and the file is re-extended.
	f, _ := openFile(t)
	batches := makeBatches(1, [][]int{{3}, {100}})
	writeWAL(t, f, batches)
	last := offsets(batches)[1]
	require.NoError(t, f.Truncate(last+recHeaderSize+100+2))
	got, w, lastLSN, err := recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, flatten(batches), got)
	require.Equal(t, uint64(2), lastLSN)
	require.Equal(t, last+recordSpan(100), w.Size())
	require.Equal(t, int64(0), w.Size()%alignment)
}

func TestTornTailGarbled(t *testing.T) {
	end := int64(recHeaderSize + 100)
	for i := range end {
		tornCase(t, func(b []byte, last int64) []byte {
			b[last+i] ^= 0x5a
			return b
		})
	}
	// A torn write followed by zeros (file extended, data never written).
	tornCase(t, func(b []byte, last int64) []byte {
		clear(b[last:])
		return append(b, make([]byte, 4096)...)
	})
}

// damage flips a payload byte of the record at off.
func damage(t *testing.T, path string, off int64) {
	t.Helper()
	b := fileBytes(t, path)
	b[off+recHeaderSize] ^= 0xff
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

func TestDamageBeforeLaterBatchIsCorruption(t *testing.T) {
	three := [][]int{{10, 20, 30}, {40, 50, 60}, {70, 80, 90}}
	two := [][]int{{10, 20, 30}, {40, 50, 60}}
	for _, tc := range []struct {
		name   string
		sizes  [][]int
		after  uint64
		damage int // index of the damaged record
	}{
		{"middle of middle batch", three, 0, 4},
		{"first of middle batch", three, 0, 3},
		{"last of middle batch", three, 0, 5},
		{"first record", three, 0, 0},
		{"last record of first batch", two, 0, 2},
		{"first record, checkpointed batch before a later one", three, 3, 0},
		// Only the record after+1 found beyond the damage, first of its batch, tells the
		// damaged batch was synced: the later batch's other records carry batch LSN after+1.
		{"first record, checkpointed batch before the last one", two, 3, 0},
		{"checkpointed record before the last batch", two, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, path := openFile(t)
			batches := makeBatches(1, tc.sizes)
			writeWAL(t, f, batches)
			damage(t, path, offsets(batches)[tc.damage])
			before := fileBytes(t, path)
			called := false
			_, _, err := Recover(f, testDB, tc.after, func(uint64, []byte) error { called = true; return nil })
			require.ErrorIs(t, err, errs.ErrCorrupt)
			require.ErrorContains(t, err, "damaged but later batches are intact")
			require.False(t, called, "apply called on a corrupt log")
			require.Equal(t, before, fileBytes(t, path), "file changed")
		})
	}
}

func TestDamageInLastBatchIsTornTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  uint64 // LSN of the first record in the log
		sizes  [][]int
		after  uint64
		damage int // index of the damaged record; the records before it are recovered
	}{
		{"first of last batch", 1, [][]int{{10, 20}, {30, 40, 50, 60}}, 0, 2},
		{"middle of last batch", 1, [][]int{{10, 20}, {30, 40, 50, 60}}, 0, 3},
		{"second last of last batch", 1, [][]int{{10, 20}, {30, 40, 50, 60}}, 0, 4},
		{"first of only batch after a reset", 3, [][]int{{30, 40, 50, 60}}, 2, 0},
		{"middle of only batch after a reset", 3, [][]int{{30, 40, 50, 60}}, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, path := openFile(t)
			batches := makeBatches(tc.first, tc.sizes)
			all := flatten(batches)
			writeWAL(t, f, batches)
			offs := offsets(batches)
			damage(t, path, offs[tc.damage])
			got, w, last, err := recoverAll(f, tc.after)
			require.NoError(t, err)
			requireRecords(t, all[:tc.damage], got)
			end, wantLast := offs[tc.damage], tc.first+uint64(tc.damage)-1
			if tc.damage == 0 {
				end, wantLast = HeaderSize, tc.after
			}
			require.Equal(t, wantLast, last)
			require.Equal(t, end, w.Size())
			requireClean(t, f, w)
		})
	}
}

func TestDamageFirstRecordOnlyBatch(t *testing.T) {
	// The first batch after a fresh log, torn at its first record: nothing to replay, no error.
	f, path := openFile(t)
	batches := makeBatches(1, [][]int{{10, 20, 30}})
	writeWAL(t, f, batches)
	damage(t, path, HeaderSize)
	got, w, last, err := recoverAll(f, 0)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, uint64(0), last)
	require.Equal(t, int64(HeaderSize), w.Size())
}

func TestWriterRejectsBadBatches(t *testing.T) {
	f, _ := openFile(t)
	w := writeWAL(t, f, makeBatches(5, [][]int{{1}}))
	require.NoError(t, w.WriteBatch(nil))
	err := w.WriteBatch([]Record{{LSN: 6}, {LSN: 8}})
	require.ErrorContains(t, err, "record 1 has LSN 8, want 7")
	require.Equal(t, err, w.WriteBatch([]Record{{LSN: 6}}), "writer must stay failed")
	require.Equal(t, err, w.Reset())

	w = writeWAL(t, f, makeBatches(5, [][]int{{1}}))
	require.ErrorContains(t, w.WriteBatch([]Record{{LSN: 7}}), "starts at LSN 7, want 6")
}

func TestWriterReset(t *testing.T) {
	f, _ := openFile(t)
	w := writeWAL(t, f, makeBatches(1, [][]int{{1, 2}, {3}}))
	size := fileSize(t, f)
	require.NoError(t, w.Reset())
	require.Equal(t, int64(HeaderSize), w.Size())
	require.Equal(t, size, fileSize(t, f), "the file is recycled, not truncated")
	requireClean(t, f, w)
	recs := makeBatches(4, [][]int{{4, 5}})[0]
	require.NoError(t, w.WriteBatch(recs))
	got, _, last, err := recoverAll(f, 3)
	require.NoError(t, err)
	requireRecords(t, recs, got)
	require.Equal(t, uint64(5), last)
}

func TestWriterSyncFailureIsSticky(t *testing.T) {
	w, tf := newTestWriter(t)
	injected := errors.New("injected EIO")
	tf.failSyncs(injected, nil, nil)
	err := w.WriteBatch([]Record{{LSN: 1, Payload: []byte("x")}})
	require.ErrorIs(t, err, injected)
	require.ErrorContains(t, err, "wal: sync")
	syncs := tf.syncs.Load()
	require.Equal(t, err, w.WriteBatch([]Record{{LSN: 1}}))
	require.Equal(t, err, w.Reset())
	require.Equal(t, syncs, tf.syncs.Load(), "a failed fsync must never be retried")
}

func TestRecordInsideTornPayloadIgnored(t *testing.T) {
	// A torn record whose payload happens to hold a valid record of this database with a batch
	// LSN far ahead: there is no room for the records in between, so it is no proof of a later
	// batch and the damage stays a torn tail.
	f, path := openFile(t)
	fake := make([]byte, recordSpan(5))
	putRecord(fake, recordSeed(testDB, 1), Record{LSN: 1000, Payload: []byte("fake!")}, 1000)
	batches := [][]Record{{{LSN: 1, Payload: []byte("a")}}, {{LSN: 2, Payload: fake}}}
	writeWAL(t, f, batches)
	last := offsets(batches)[1]
	b := fileBytes(t, path)
	b[last+8] ^= 1 // the LSN of record 2
	require.NoError(t, os.WriteFile(path, b, 0o600))

	got, w, lastLSN, err := recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, batches[0], got)
	require.Equal(t, uint64(1), lastLSN)
	require.Equal(t, last, w.Size())
}

// v1File returns a version 1 log (one header copy, records from offset 32, generation-0 seed)
// holding recs.
func v1File(recs []Record) []byte {
	b := make([]byte, headerSizeV1)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], formatVersion1)
	binary.LittleEndian.PutUint64(b[16:], testDB)
	binary.LittleEndian.PutUint32(b[24:], crc32.Checksum(b[:24], castagnoli))
	for _, r := range recs {
		rec := make([]byte, recordSpan(int64(len(r.Payload))))
		putRecord(rec, crcSeed(testDB), r, recs[0].LSN)
		b = append(b, rec...)
	}
	return b
}

// TestRecoverVersion1 reads a version 1 log: with records newer than the checkpoint it replays
// them and asks for a checkpoint and Reset before any write (which turns it into version 2);
// with none, it becomes a version 2 log at once.
func TestRecoverVersion1(t *testing.T) {
	f, path := openFile(t)
	recs := makeBatches(1, [][]int{{5, 9, 30}})[0]
	require.NoError(t, os.WriteFile(path, v1File(recs), 0o600))
	got, w, last, err := recoverAll(f, 1)
	require.NoError(t, err)
	requireRecords(t, recs[1:], got)
	require.Equal(t, uint64(3), last)
	require.True(t, w.NeedsReset())
	require.ErrorContains(t, w.WriteBatch(makeBatches(4, [][]int{{1}})[0]), "version 1")

	_, w, _, err = recoverAll(f, 1)
	require.NoError(t, err)
	require.NoError(t, w.Reset()) // after the caller's checkpoint
	require.False(t, w.NeedsReset())
	more := makeBatches(4, [][]int{{2}})[0]
	require.NoError(t, w.WriteBatch(more))
	got, _, _, err = recoverAll(f, 3)
	require.NoError(t, err)
	requireRecords(t, more, got)
	_, info, err := scanAll(t, f, 3)
	require.NoError(t, err)
	require.Equal(t, uint32(formatVersion), info.Version)

	require.NoError(t, os.WriteFile(path, v1File(recs), 0o600))
	_, w, last, err = recoverAll(f, 3) // everything checkpointed
	require.NoError(t, err)
	require.Equal(t, uint64(3), last)
	require.False(t, w.NeedsReset())
	require.Equal(t, int64(InitialSize), fileSize(t, f), "rewritten as version 2")
}

// TestTornBatchRecordsErased is the hazard of a log that is not truncated: a torn batch whose
// first record was lost but whose second reached the disk intact. After recovery the next batch
// is written at the same offset; if it has the same size, the old second record sits right after
// it with the next LSN and a valid CRC. Recovery must erase it, or a later recovery would replay
// a transaction that was never acknowledged.
func TestTornBatchRecordsErased(t *testing.T) {
	f, path := openFile(t)
	batches := makeBatches(1, [][]int{{40, 40}, {40, 40}})
	writeWAL(t, f, batches)
	offs := offsets(batches)
	damage(t, path, offs[2]) // record 3 torn, record 4 intact
	got, w, last, err := recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, batches[0], got)
	require.Equal(t, uint64(2), last)
	requireClean(t, f, w)

	next := []Record{{LSN: 3, Payload: payloadFor(1003, 40)}} // same size as the torn record 3
	require.NoError(t, w.WriteBatch(next))
	got, _, last, err = recoverAll(f, 0)
	require.NoError(t, err)
	requireRecords(t, append(batches[0][:2:2], next...), got)
	require.Equal(t, uint64(3), last, "the old record 4 must not follow the new record 3")
}

// TestResetLeavesOldGenerationInert: after Reset the old records stay in the file but never
// validate again, whatever is written over the start of the log.
func TestResetLeavesOldGenerationInert(t *testing.T) {
	f, _ := openFile(t)
	w := writeWAL(t, f, makeBatches(1, [][]int{{100, 100}, {100, 100, 100}}))
	require.NoError(t, w.Reset())
	recs := makeBatches(6, [][]int{{3}})[0]
	require.NoError(t, w.WriteBatch(recs))
	got, _, last, err := recoverAll(f, 5)
	require.NoError(t, err)
	requireRecords(t, recs, got)
	require.Equal(t, uint64(6), last)
	r := newReader(f, fileSize(t, f), recordSeed(testDB, 1)) // the old generation's seed
	end, err := r.dirtyEnd(HeaderSize, 0)
	require.NoError(t, err)
	require.Greater(t, end, int64(HeaderSize+recordSpan(3)), "old records are still in the file")
}

// syncCrashFile takes a crash clone of its MemFS before its first Sync (then runs it).
type syncCrashFile struct {
	vfs.File
	mem   *vfs.MemFS
	opt   vfs.CrashOptions
	clone *vfs.MemFS
}

func (f *syncCrashFile) Sync() error {
	if f.clone == nil {
		f.clone = f.mem.CrashClone(f.opt)
	}
	return f.File.Sync()
}

// TestVersion1ResetSurvivesACrash crashes the conversion of a version 1 log (its Reset after the
// checkpoint) before the first fdatasync, with every unsynced write or truncate kept, dropped or
// torn at random: the log must reopen, whatever survived. The truncate that starts the
// conversion must be durable before the header is written over the old file: otherwise a torn
// header over the long old file reads as damage.
func TestVersion1ResetSurvivesACrash(t *testing.T) {
	recs := makeBatches(1, [][]int{{500, 600, 700}})[0] // the old file is longer than the header region
	for seed := range uint64(64) {
		mem := vfs.NewMem()
		f, err := mem.OpenFile("/wal", os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(t, err)
		_, err = f.WriteAt(v1File(recs), 0)
		require.NoError(t, err)
		require.NoError(t, f.Sync())
		require.NoError(t, mem.SyncDir("/"))
		cf := &syncCrashFile{File: f, mem: mem,
			opt: vfs.CrashOptions{Rand: rand.New(rand.NewPCG(seed, 1)), KeepProb: 0.3, Garble: true}}
		_, w, _, err := recoverAll(cf, 1) // records newer than the checkpoint: a Reset comes later
		require.NoError(t, err)
		require.NoError(t, w.Reset()) // after the caller's checkpoint
		require.NotNil(t, cf.clone)
		g, err := cf.clone.OpenFile("/wal", os.O_RDWR, 0o600)
		require.NoError(t, err)
		_, _, _, err = recoverAll(g, 3)
		require.NoError(t, err, "seed %d: the log does not reopen after a crash in its conversion", seed)
	}
}

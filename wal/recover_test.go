package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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

	// A Writer from recoverSegment continues the log.
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
	_, _, err := recoverSegment(f, testDB+1, 0, func(uint64, []byte) error { return nil })
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
	_, _, err := recoverSegment(f, testDB, 0, func(lsn uint64, _ []byte) error {
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
// the bytes and the offset of the last record), then checks that recoverSegment drops exactly the last
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
			_, _, err := recoverSegment(f, testDB, tc.after, func(uint64, []byte) error { called = true; return nil })
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

// droppedVersionFiles returns, for each WAL format version older than this build's, files with
// an intact header of that version crafted by hand: version 1 (one 32-byte header, generation 0,
// a record from offset 32) and version 2 (the current layout with 2 in both header copies), each
// with a record and as a header region of exactly HeaderSize bytes (not a torn creation).
func droppedVersionFiles(t *testing.T) map[string]struct {
	version uint32
	b       []byte
} {
	v1 := make([]byte, headerCopySize)
	copy(v1, magic)
	binary.LittleEndian.PutUint32(v1[8:], 1)
	binary.LittleEndian.PutUint64(v1[16:], testDB)
	binary.LittleEndian.PutUint32(v1[24:], crc32.Checksum(v1[:24], castagnoli))
	rec := make([]byte, recordSpan(3))
	putRecord(rec, recordSeed(testDB, 0), Record{LSN: 1, Payload: []byte("abc")}, 1)
	v1 = append(v1, rec...)

	f, path := openFile(t)
	writeWAL(t, f, makeBatches(1, [][]int{{10}}))
	v2 := fileBytes(t, path)
	putHeaderField32(v2[:headerCopySize], 8, 2)
	putHeaderField32(v2[headerCopyB:headerCopyB+headerCopySize], 8, 2)

	return map[string]struct {
		version uint32
		b       []byte
	}{
		"version 1":             {1, v1},
		"version 1, 1024 bytes": {1, append(v1, make([]byte, HeaderSize-len(v1))...)},
		"version 2":             {2, v2},
		"version 2, 1024 bytes": {2, v2[:HeaderSize]},
	}
}

// TestRecoverRefusesDroppedVersions: a WAL file of a dropped format version is refused by
// recoverSegment, RecoverLog, Scan and ScanLog with an *errs.VersionError naming the version found and
// the version this build reads, wrapping ErrCorrupt, and the files are left as they were.
func TestRecoverRefusesDroppedVersions(t *testing.T) {
	for name, c := range droppedVersionFiles(t) {
		t.Run(name, func(t *testing.T) {
			requireVersionError := func(err error) {
				t.Helper()
				require.ErrorIs(t, err, errs.ErrCorrupt)
				var ve *errs.VersionError
				require.ErrorAs(t, err, &ve)
				require.Equal(t, errs.VersionError{File: "WAL", Found: c.version, Reads: formatVersion}, *ve)
				require.ErrorContains(t, err, fmt.Sprintf(
					"wal: WAL format version %d is not supported (this build reads version 3); it was written by a development build", c.version))
			}
			f, path := openFile(t)
			_, err := f.WriteAt(c.b, 0)
			require.NoError(t, err)
			f1, path1 := openFile(t)

			_, _, _, err = recoverAll(f, 0)
			requireVersionError(err)
			_, _, _, err = recoverLogAll([2]vfs.File{f, f1}, 0)
			requireVersionError(err)
			require.ErrorContains(t, err, "segment 0: ")
			_, _, err = scanAll(t, f, 0)
			requireVersionError(err)
			_, err = ScanLog([2]Segment{{R: f, Size: int64(len(c.b))}, {R: f1, Size: 0}}, 0,
				func(RecordInfo) error { return nil })
			requireVersionError(err)
			require.Equal(t, c.b, fileBytes(t, path), "a refused file must not change")
			require.Empty(t, fileBytes(t, path1))
		})
	}
}

package wal

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// scanAll runs Scan on f and collects the records it passes on.
func scanAll(t *testing.T, f vfs.File, after uint64) ([]RecordInfo, ScanInfo, error) {
	t.Helper()
	var got []RecordInfo
	info, err := Scan(f, fileSize(t, f), after, func(r RecordInfo) error {
		got = append(got, r)
		return nil
	})
	return got, info, err
}

func TestScan(t *testing.T) {
	f, _ := openFile(t)
	batches := makeBatches(1, [][]int{{10, 20}, {0}, {30, 5, 6}})
	all := flatten(batches)
	end := writeWAL(t, f, batches).Size()
	size := fileSize(t, f)
	for _, after := range []uint64{0, 2, 6} {
		got, info, err := scanAll(t, f, after)
		require.NoError(t, err)
		require.Equal(t, ScanInfo{Version: formatVersion, DBID: testDB, Generation: 1, Size: size, End: end,
			Records: len(all), Skipped: int(after), First: 1, Last: uint64(len(all))}, info)
		require.Len(t, got, len(all)-int(after))
		offs := offsets(batches)
		for i, r := range got {
			want := all[int(after)+i]
			require.Equal(t, want.LSN, r.LSN)
			require.Equal(t, want.Payload, r.Payload)
			require.Equal(t, offs[int(after)+i], r.Offset)
		}
	}
	got, _, _ := scanAll(t, f, 0)
	require.Equal(t, []uint64{1, 1, 3, 4, 4, 4}, []uint64{got[0].Batch, got[1].Batch, got[2].Batch,
		got[3].Batch, got[4].Batch, got[5].Batch})
	require.Equal(t, size, fileSize(t, f), "Scan never writes")

	// An error of fn stops the scan and comes back as it is.
	stop := errors.New("stop")
	n := 0
	_, err := Scan(f, size, 0, func(RecordInfo) error { n++; return stop })
	require.Equal(t, stop, err)
	require.Equal(t, 1, n)
}

func TestScanTornTailAndDamage(t *testing.T) {
	f, _ := openFile(t)
	batches := makeBatches(1, [][]int{{10}, {20}, {30}})
	end := writeWAL(t, f, batches).Size()
	offs := offsets(batches)
	size := fileSize(t, f)

	// Garbage after the last record is a torn tail: no error, End marks the valid prefix.
	_, err := f.WriteAt([]byte("torn write"), end)
	require.NoError(t, err)
	got, info, err := scanAll(t, f, 0)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, end, info.End)
	require.Equal(t, size, info.Size)

	// Damage to record 2 while batch 3 is intact: corruption, after passing record 1 on.
	flipByte(t, f, offs[1]+recHeaderSize+3)
	got, info, err = scanAll(t, f, 0)
	require.True(t, errors.Is(err, errs.ErrCorrupt), "%v", err)
	require.Len(t, got, 1)
	require.Equal(t, offs[1], info.End)
	require.Equal(t, uint64(1), info.Last)

	// A page file checkpointed at LSN 0 cannot follow a log starting at 2: records are missing.
	g, _ := openFile(t)
	writeWAL(t, g, makeBatches(2, [][]int{{1}}))
	_, _, err = scanAll(t, g, 0)
	require.True(t, errors.Is(err, errs.ErrCorrupt), "%v", err)
}

func TestScanHeader(t *testing.T) {
	f, _ := openFile(t)
	_, info, err := scanAll(t, f, 0)
	require.NoError(t, err)
	require.True(t, info.Fresh)

	writeWAL(t, f, nil)
	_, info, err = scanAll(t, f, 5)
	require.NoError(t, err)
	require.Equal(t, ScanInfo{Version: formatVersion, DBID: testDB, Generation: 1, Size: InitialSize, End: HeaderSize}, info)

	for _, off := range []int64{0, 8, 20} { // both copies of the header
		flipByte(t, f, off)
		flipByte(t, f, headerCopyB+off)
		_, _, err := scanAll(t, f, 0)
		require.True(t, errors.Is(err, errs.ErrCorrupt), "offset %d: %v", off, err)
		flipByte(t, f, off)
		flipByte(t, f, headerCopyB+off)
	}
	require.NoError(t, f.Truncate(headerCopySize-1))
	_, _, err = scanAll(t, f, 0)
	require.True(t, errors.Is(err, errs.ErrCorrupt), "%v", err)
}

// flipByte inverts the byte at off in f.
func flipByte(t *testing.T, f vfs.File, off int64) {
	t.Helper()
	b := make([]byte, 1)
	_, err := f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= 0xff
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// FuzzScan feeds arbitrary bytes as a WAL file: Scan must not panic, and its errors wrap
// ErrCorrupt (an in-memory file has no read errors).
func FuzzScan(f *testing.F) {
	g, err := vfs.NewMem().OpenFile("/seed", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(f, err)
	writeWAL(f, g, makeBatches(1, [][]int{{3, 9}, {17}}))
	seed := make([]byte, fileSize(f, g))
	_, err = g.ReadAt(seed, 0)
	require.NoError(f, err)
	f.Add(seed, uint64(0))
	f.Add(seed[:50], uint64(1))
	f.Add([]byte{}, uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, after uint64) {
		m, err := vfs.NewMem().OpenFile("/wal", os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(t, err)
		_, err = m.WriteAt(b, 0)
		require.NoError(t, err)
		_, err = Scan(m, int64(len(b)), after, func(RecordInfo) error { return nil })
		require.True(t, err == nil || errors.Is(err, errs.ErrCorrupt), "%v", err)
	})
}

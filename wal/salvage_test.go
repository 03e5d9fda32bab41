package wal

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
)

// TestScanPrefix: unlike Scan, ScanPrefix accepts a log whose first record is newer than
// after+1 (records missing before it) and passes on the records newer than after; like Scan it
// stops at a torn tail silently and reports damage that later batches follow, after passing on
// the records before it.
func TestScanPrefix(t *testing.T) {
	f, _ := openFile(t)
	batches := makeBatches(11, [][]int{{10}, {20, 5}, {30}})
	writeWAL(t, f, batches)
	size := fileSize(t, f)
	_, err := Scan(f, size, 3, func(RecordInfo) error { return nil })
	require.ErrorIs(t, err, errs.ErrCorrupt, "Scan refuses records 4..10 missing")
	var lsns []uint64
	collect := func(r RecordInfo) error { lsns = append(lsns, r.LSN); return nil }
	info, err := ScanPrefix(f, size, 3, collect)
	require.NoError(t, err)
	require.Equal(t, []uint64{11, 12, 13, 14}, lsns)
	require.Equal(t, uint64(11), info.First)
	require.Equal(t, uint64(14), info.Last)
	lsns = nil
	_, err = ScanPrefix(f, size, 12, collect)
	require.NoError(t, err)
	require.Equal(t, []uint64{13, 14}, lsns)

	offs := offsets(batches)
	flipByte(t, f, offs[3]+30) // the last batch: a torn tail
	lsns = nil
	info, err = ScanPrefix(f, size, 0, collect)
	require.NoError(t, err)
	require.Equal(t, []uint64{11, 12, 13}, lsns)
	require.Equal(t, offs[3], info.End)
	flipByte(t, f, offs[3]+30)
	flipByte(t, f, offs[1]+30) // a record that a later batch follows: damage
	lsns = nil
	info, err = ScanPrefix(f, size, 0, collect)
	require.ErrorIs(t, err, errs.ErrCorrupt)
	require.Equal(t, []uint64{11}, lsns)
	require.Equal(t, 1, info.Records)
	require.Equal(t, size, fileSize(t, f), "ScanPrefix never writes")
}

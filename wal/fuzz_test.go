package wal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// seedWAL returns the bytes of a small valid WAL of testDB with three batches (LSNs 1..6).
func seedWAL(f *testing.F) []byte {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed-wal")
	file, err := vfs.OS.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(f, err)
	defer file.Close()
	writeWAL(f, file, makeBatches(1, [][]int{{0, 1}, {7, 8, 9}, {17}}))
	return fileBytes(f, path)
}

func FuzzRecover(f *testing.F) {
	valid := seedWAL(f)
	offs := offsets(makeBatches(1, [][]int{{0, 1}, {7, 8, 9}, {17}}))
	flip := func(i int64) []byte {
		b := bytes.Clone(valid)
		b[i] ^= 0x40
		return b
	}
	f.Add(valid, uint64(0))
	f.Add(valid, uint64(3))
	f.Add(valid, uint64(6))
	f.Add(valid, uint64(9))
	f.Add(valid[:HeaderSize], uint64(0))
	f.Add(valid[:len(valid)-5], uint64(0))
	f.Add(flip(offs[3]+recHeaderSize), uint64(0)) // middle batch damaged: corrupt
	f.Add(flip(offs[5]+4), uint64(0))             // last batch damaged: torn tail
	f.Add(flip(offs[0]+8), uint64(0))             // first record damaged
	f.Add(flip(17), uint64(0))                    // another database
	f.Add(append(bytes.Clone(valid), make([]byte, 64)...), uint64(0))
	f.Add([]byte{}, uint64(0))
	f.Add(make([]byte, 40), uint64(0))

	f.Fuzz(func(t *testing.T, data []byte, after uint64) {
		path := filepath.Join(t.TempDir(), "fuzz-wal")
		require.NoError(t, os.WriteFile(path, data, 0o600))
		file, err := vfs.OS.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		defer file.Close()
		tf := &testFile{File: file, noSync: true}

		got, w, last, err := recoverAll(tf, after)
		if err != nil {
			require.True(t, errors.Is(err, errs.ErrCorrupt), "error does not wrap ErrCorrupt: %v", err)
			require.Equal(t, data, fileBytes(t, path), "file changed by a failed recoverSegment")
			return
		}
		checkRecovered(t, got, after, last)
		requireClean(t, tf, w)

		// Recovery is idempotent: the truncated file replays the same records, without damage.
		again, _, last2, err := recoverAll(tf, after)
		require.NoError(t, err)
		require.Equal(t, last, last2)
		requireRecords(t, got, again)
	})
}

// checkRecovered checks that the recovered records have consecutive LSNs > after ending at last.
func checkRecovered(t *testing.T, got []Record, after, last uint64) {
	if len(got) == 0 {
		require.Equal(t, after, last)
		return
	}
	for i, r := range got {
		require.Greater(t, r.LSN, after)
		require.Equal(t, got[0].LSN+uint64(i), r.LSN)
	}
	require.Equal(t, got[len(got)-1].LSN, last)
}

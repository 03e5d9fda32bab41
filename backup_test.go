package cairn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBackupDuringWrites takes backups while writers commit: each backup opens, passes Check, and
// holds exactly the commits up to some n (the version it pinned): a prefix, nothing torn.
func TestBackupDuringWrites(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, &Options{CheckpointBytes: 1 << 20})
	fillBucket(t, db, "big", 5000, 200) // something to copy, with overflow values
	var stop atomic.Bool
	var wg sync.WaitGroup
	var commits atomic.Int64
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				require.NoError(t, db.Update(func(tx *Tx) error {
					n := uint64(0)
					if v, err := tx.Get([]byte("n")); err == nil {
						n = binary.BigEndian.Uint64(v)
					}
					n++
					b, err := tx.CreateBucketIfNotExists([]byte("log"))
					if err != nil {
						return err
					}
					if err := b.Put(binary.BigEndian.AppendUint64(nil, n), bytes.Repeat([]byte{byte(w)}, 300)); err != nil {
						return err
					}
					return tx.Put([]byte("n"), binary.BigEndian.AppendUint64(nil, n))
				}))
				commits.Add(1)
			}
		}()
	}
	dir := t.TempDir()
	for i := range 4 {
		for commits.Load() < int64(50*(i+1)) {
			time.Sleep(time.Millisecond)
		}
		path := filepath.Join(dir, fmt.Sprintf("backup%d.db", i))
		require.NoError(t, db.BackupFile(path))
		checkBackup(t, path)
	}
	stop.Store(true)
	wg.Wait()
	require.Positive(t, commits.Load())
	require.ErrorIs(t, db.BackupFile(filepath.Join(dir, "backup0.db")), os.ErrExist)
}

func checkBackup(t *testing.T, path string) {
	t.Helper()
	b, err := Open(path, nil)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Check())
	require.NoError(t, b.View(func(tx *Tx) error {
		n := uint64(0)
		if v, err := tx.Get([]byte("n")); err == nil {
			n = binary.BigEndian.Uint64(v)
		}
		big, err := tx.Bucket([]byte("big"))
		require.NoError(t, err)
		count := 0
		for range big.Range(nil, nil) {
			count++
		}
		require.Equal(t, 5000, count)
		if n == 0 {
			return nil
		}
		log, err := tx.Bucket([]byte("log"))
		require.NoError(t, err)
		want := uint64(1)
		for k := range log.Range(nil, nil) {
			require.Equal(t, want, binary.BigEndian.Uint64(k))
			want++
		}
		require.Equal(t, n+1, want, "the log holds exactly commits 1..n")
		return nil
	}))
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after -= len(p); w.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestBackupWriteErrorAndClosed(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	fillBucket(t, db, "b", 3000, 100)
	_, err := db.Backup(&failingWriter{after: 100 << 10})
	require.ErrorContains(t, err, "disk full")
	var buf bytes.Buffer
	n, err := db.Backup(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	require.Zero(t, n%int64(db.Stats().PageSize))
	require.NoError(t, db.Close())
	_, err = db.Backup(&buf)
	require.ErrorIs(t, err, ErrClosed)
}

// TestRestoreFile replaces a database that has commits in its WAL by a backup of another one:
// the WAL segments go, and the database opens with the backup's contents.
func TestRestoreFile(t *testing.T) {
	dir := t.TempDir()
	src, err := Open(filepath.Join(dir, "src.db"), nil)
	require.NoError(t, err)
	putN(t, src, 0, 30)
	image := filepath.Join(dir, "image")
	require.NoError(t, src.BackupFile(image))
	require.NoError(t, src.Close())

	path := filepath.Join(dir, "dst.db")
	dst, err := Open(path, nil)
	require.NoError(t, err)
	putN(t, dst, 100, 105) // in its WAL only: no checkpoint before abandon
	dst.abandon()

	require.NoError(t, RestoreFile(path, image))
	require.NoFileExists(t, image)
	again, err := Open(path, nil)
	require.NoError(t, err)
	defer again.Close()
	requireKeyCount(t, again, 30)
	require.NoError(t, again.View(func(tx *Tx) error {
		_, err := tx.Get([]byte("k0100"))
		require.ErrorIs(t, err, ErrNotFound)
		return nil
	}))
	require.Error(t, RestoreFile(path, filepath.Join(dir, "missing")))
}

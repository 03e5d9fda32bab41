package cairn

import (
	"fmt"
	"os"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

// fillDB creates a database with n keys committed in several transactions, checkpointed once
// halfway, and abandons it (WAL not empty). end goes to openTemp: a test that damages the files
// for good opts out of the end-of-test check.
func fillDB(t *testing.T, n int, end ...endOption) string {
	t.Helper()
	db, path := openTemp(t, &Options{Sync: SyncNone}, end...)
	for i := range n {
		require.NoError(t, db.Update(func(tx *Tx) error {
			return tx.Put(fmt.Appendf(nil, "key%05d", i), fmt.Appendf(nil, "value %d", i))
		}))
		if i == n/2 {
			require.NoError(t, db.Checkpoint(t.Context()))
		}
	}
	db.abandon()
	return path
}

func requireKeys(t *testing.T, path string, n int) {
	t.Helper()
	db, err := Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *Tx) error {
		i := 0
		for k, v := range tx.Range(nil, nil) {
			require.Equal(t, fmt.Sprintf("key%05d", i), string(k))
			require.Equal(t, fmt.Sprintf("value %d", i), string(v))
			i++
		}
		require.Equal(t, n, i)
		return nil
	}))
	require.NoError(t, db.check())
}

func TestReopenAfterAbandonRecoversFromWAL(t *testing.T) {
	t.Parallel()
	path := fillDB(t, 3000)
	requireKeys(t, path, 3000)
	// And again after the clean Close of that reopen (checkpointed, WAL empty).
	requireKeys(t, path, 3000)
}

func TestDamagedFilesReturnErrCorrupt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"both meta pages garbled", func(t *testing.T, path string) {
			garble(t, path, 0, 100)
			garble(t, path, 4096, 100)
		}},
		{"page file truncated", func(t *testing.T, path string) {
			require.NoError(t, os.Truncate(path, 3*4096))
		}},
		{"page file replaced by text", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("hello, this is not a database\n"), 0o600))
		}},
		{"WAL header garbled", func(t *testing.T, path string) { // both copies
			garble(t, currentWAL(t, path), 0, 8)
			garble(t, currentWAL(t, path), 512, 8)
		}},
		{"WAL record in the middle garbled", func(t *testing.T, path string) {
			garble(t, currentWAL(t, path), 2000, 16)
		}},
		{"WAL of another database", func(t *testing.T, path string) {
			other := fillDB(t, 10)
			for i := range 2 {
				b, err := os.ReadFile(walPath(other, i))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(walPath(path, i), b, 0o600))
			}
		}},
	}
	// No meta page has the magic any more: nothing says it is a cairn file.
	notDB := map[string]bool{"both meta pages garbled": true, "page file replaced by text": true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := fillDB(t, 3000, skipCheck("damaged on purpose: Open must refuse it"))
			tc.damage(t, path)
			_, err := Open(path, nil)
			if notDB[tc.name] {
				require.ErrorIs(t, err, ErrNotDatabase)
				require.NotErrorIs(t, err, ErrCorrupt)
				return
			}
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
}

func TestTornMetaWriteFallsBackToTheOtherMetaPage(t *testing.T) {
	t.Parallel()
	// No checkpoint yet: both meta pages describe the empty tree and the WAL holds every commit,
	// as after a crash in the middle of the first checkpoint's meta page write.
	db, path := openTemp(t, &Options{Sync: SyncNone})
	for i := range 500 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			return tx.Put(fmt.Appendf(nil, "key%05d", i), fmt.Appendf(nil, "value %d", i))
		}))
	}
	db.abandon()
	garble(t, path, 20, 8) // meta page 0: the slot the first checkpoint writes
	requireKeys(t, path, 500)
}

func TestDamagedNewestMetaPageIsNotSilentlyRolledBack(t *testing.T) {
	t.Parallel()
	path := fillDB(t, 3000, skipCheck("the newest meta page is garbled on purpose: Open must refuse it"))
	db, err := Open(path, nil)
	require.NoError(t, err)
	seq := db.pager.Durable().Seq
	require.NoError(t, db.Close()) // checkpoints: the newest meta page is seq+1, WAL emptied
	garble(t, path, int64((seq+1)%2)*4096+20, 8)
	_, err = Open(path, nil)
	require.ErrorIs(t, err, ErrCorrupt)
}

// currentWAL returns the path of the WAL segment of the database at path that receives batches:
// the one with the higher generation that holds records.
func currentWAL(t *testing.T, path string) string {
	t.Helper()
	var segs [2]wal.Segment
	for i := range segs {
		f, err := os.Open(walPath(path, i))
		require.NoError(t, err)
		defer f.Close()
		st, err := f.Stat()
		require.NoError(t, err)
		segs[i] = wal.Segment{R: f, Size: st.Size()}
	}
	info, err := wal.ScanLog(segs, ^uint64(0), func(wal.RecordInfo) error { return nil })
	require.NoError(t, err)
	cur := 0
	if info[1].Records > 0 && (info[0].Records == 0 || info[1].Generation > info[0].Generation) {
		cur = 1
	}
	return walPath(path, cur)
}

func TestTornWALTailIsACrashNotCorruption(t *testing.T) {
	t.Parallel()
	path := fillDB(t, 3000)
	seg := currentWAL(t, path)
	f, err := os.Open(seg)
	require.NoError(t, err)
	st, err := f.Stat()
	require.NoError(t, err)
	info, err := wal.Scan(f, st.Size(), ^uint64(0), func(wal.RecordInfo) error { return nil })
	require.NoError(t, err)
	f.Close()
	require.NoError(t, os.Truncate(seg, info.End-5)) // the log is preallocated: cut its last record
	requireKeys(t, path, 2999)                       // the last record was torn: that commit was not acknowledged
}

func TestGarbledTreePageFailsReadsWithoutPanic(t *testing.T) {
	t.Parallel()
	path := fillDB(t, 3000, skipCheck("every tree page is garbled on purpose"))
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	st, err := os.Stat(path)
	require.NoError(t, err)
	for id := int64(2); id*4096 < st.Size(); id++ {
		garble(t, path, id*4096+100, 4)
	}
	db, err = Open(path, nil)
	if err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		return
	}
	defer db.Close()
	err = db.View(func(tx *Tx) error {
		for range tx.Range(nil, nil) {
		}
		return nil
	})
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestMissingSegmentIsRefused removes one WAL segment file of a database whose log has been
// through a checkpoint (as a copy that missed one file would): Open must refuse it
// (ErrCorrupt) rather than replay the other segment alone and lose the commits of the missing
// one.
func TestMissingSegmentIsRefused(t *testing.T) {
	for i := range 2 {
		mem := vfs.NewMem()
		path := "/d/db"
		db, err := Open(path, &Options{PageSize: 4096, fs: mem})
		require.NoError(t, err)
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("a"), []byte("1")) }))
		require.NoError(t, db.Checkpoint(t.Context()))
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("b"), []byte("2")) }))
		db.abandon()
		require.NoError(t, mem.Remove(walPath(path, i)))
		require.NoError(t, mem.SyncDir("/d"))
		_, err = Open(path, &Options{PageSize: 4096, fs: mem})
		require.ErrorIs(t, err, ErrCorrupt, "segment %d removed", i)
		require.ErrorContains(t, err, "is missing")
		_, err = Open(path, &Options{ReadOnly: true, fs: mem})
		require.ErrorIs(t, err, ErrCorrupt, "segment %d removed, read-only", i)
	}
}

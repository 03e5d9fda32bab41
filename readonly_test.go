package cairn

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadOnlyOpen opens a database with records still in its WAL read-only, twice at once:
// both see every commit, nothing is written to either file, writes return ErrReadOnly, and a
// writer cannot open it meanwhile (nor the reverse).
func TestReadOnlyOpen(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t, nil)
	fillBucket(t, db, "b", 3000, 100)
	require.NoError(t, db.Checkpoint(context.Background()))
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("in the wal"), []byte("1")) }))
	_, err := Open(path, &Options{ReadOnly: true})
	require.ErrorIs(t, err, ErrLocked, "a writer has it open")
	db.abandon() // the last commit is only in the WAL

	before := snapshotFiles(t, path)
	ro1, err := Open(path, &Options{ReadOnly: true})
	require.NoError(t, err)
	ro2, err := Open(path, &Options{ReadOnly: true})
	require.NoError(t, err, "read-only opens share the lock")
	_, err = Open(path, nil)
	require.ErrorIs(t, err, ErrLocked, "no writer while readers have it open")
	for _, ro := range []*DB{ro1, ro2} {
		require.NoError(t, ro.View(func(tx *Tx) error {
			v, err := tx.Get([]byte("in the wal"))
			require.NoError(t, err)
			require.Equal(t, "1", string(v))
			b, err := tx.Bucket([]byte("b"))
			require.NoError(t, err)
			n := 0
			for range b.Range(nil, nil) {
				n++
			}
			require.Equal(t, 3000, n)
			return nil
		}))
		require.ErrorIs(t, ro.Update(func(tx *Tx) error { return nil }), ErrReadOnly)
		require.ErrorIs(t, ro.Checkpoint(context.Background()), ErrReadOnly)
		_, err = ro.Compact(context.Background(), nil)
		require.ErrorIs(t, err, ErrReadOnly)
		require.NoError(t, ro.Check())
		_ = ro.Stats()
		require.NoError(t, ro.Close())
	}
	require.Equal(t, before, snapshotFiles(t, path), "read-only opens wrote nothing")

	_, err = Open(filepath.Join(t.TempDir(), "missing.db"), &Options{ReadOnly: true})
	require.ErrorIs(t, err, fs.ErrNotExist)
}

func snapshotFiles(t *testing.T, path string) map[string]string {
	out := map[string]string{}
	for _, p := range []string{path, path + "-wal", path + "-wal2"} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out[p] = string(b)
	}
	return out
}

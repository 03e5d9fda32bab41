package cairn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

func TestMisuseReturnsNamedErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	tests := []struct {
		name string
		fn   func() error
		want error
	}{
		{"put in read tx", func() error {
			return db.View(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) })
		}, ErrTxReadOnly},
		{"delete in read tx", func() error {
			return db.View(func(tx *Tx) error { return tx.Delete([]byte("k")) })
		}, ErrTxReadOnly},
		{"empty key", func() error {
			return db.Update(func(tx *Tx) error { return tx.Put(nil, []byte("v")) })
		}, ErrKeyRequired},
		{"key too large", func() error {
			return db.Update(func(tx *Tx) error { return tx.Put(make([]byte, MaxKeySize+1), nil) })
		}, ErrKeyTooLarge},
		{"value too large", func() error {
			return db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), make([]byte, MaxValueSize+1)) })
		}, ErrValueTooLarge},
		{"get missing", func() error {
			return db.View(func(tx *Tx) error { _, err := tx.Get([]byte("missing")); return err })
		}, ErrNotFound},
		{"use after commit", func() error {
			tx, err := db.Begin(true)
			require.NoError(t, err)
			require.NoError(t, tx.Commit())
			return tx.Put([]byte("k"), nil)
		}, ErrTxClosed},
		{"get after rollback", func() error {
			tx, err := db.Begin(false)
			require.NoError(t, err)
			require.NoError(t, tx.Rollback())
			_, err = tx.Get([]byte("k"))
			return err
		}, ErrTxClosed},
		{"double rollback", func() error {
			tx, err := db.Begin(false)
			require.NoError(t, err)
			require.NoError(t, tx.Rollback())
			return tx.Rollback()
		}, ErrTxClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.fn(), tc.want)
		})
	}
}

func TestUseAfterClose(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	require.NoError(t, db.Close())
	require.ErrorIs(t, db.Close(), ErrClosed)
	require.ErrorIs(t, db.Update(func(*Tx) error { return nil }), ErrClosed)
	require.ErrorIs(t, db.View(func(*Tx) error { return nil }), ErrClosed)
	require.ErrorIs(t, db.Checkpoint(context.Background()), ErrClosed)
}

func TestSecondOpenIsLocked(t *testing.T) {
	t.Parallel()
	_, path := openTemp(t, nil)
	_, err := Open(path, nil)
	require.ErrorIs(t, err, ErrLocked)
}

func TestManagedTxRollsBackOnErrorAndPanic(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	boom := errors.New("boom")
	err := db.Update(func(tx *Tx) error {
		require.NoError(t, tx.Put([]byte("a"), []byte("1")))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Panics(t, func() {
		db.Update(func(tx *Tx) error {
			require.NoError(t, tx.Put([]byte("b"), []byte("2")))
			panic("boom")
		})
	})
	require.NoError(t, db.View(func(tx *Tx) error {
		for _, k := range []string{"a", "b"} {
			_, err := tx.Get([]byte(k))
			require.ErrorIs(t, err, ErrNotFound)
		}
		return nil
	}))
	// The writer slot was released both times.
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("c"), nil) }))
}

func TestLargeKeysAndValues(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes and reads 64 MiB values (about 1.3 s)")
	}
	for _, ps := range []int{4096, 65536} {
		t.Run(fmt.Sprintf("page=%d", ps), func(t *testing.T) {
			t.Parallel()
			db, path := openTemp(t, &Options{PageSize: ps, Sync: SyncNone})
			big := bytes.Repeat([]byte("0123456789abcdef"), 64<<20/16)
			keys := [][]byte{bytes.Repeat([]byte{'k'}, 4096), bytes.Repeat([]byte{'K'}, MaxKeySize), []byte("v")}
			require.NoError(t, db.Update(func(tx *Tx) error {
				for _, k := range keys {
					if err := tx.Put(k, k); err != nil {
						return err
					}
				}
				require.NoError(t, tx.Put([]byte("empty"), nil))
				return tx.Put([]byte("big"), big)
			}))
			require.NoError(t, db.Close())
			db, err := Open(path, nil)
			require.NoError(t, err)
			defer db.Close()
			require.NoError(t, db.View(func(tx *Tx) error {
				v, err := tx.Get([]byte("big"))
				require.NoError(t, err)
				require.True(t, bytes.Equal(big, v))
				v, err = tx.Get([]byte("empty"))
				require.NoError(t, err)
				require.Empty(t, v)
				for _, k := range keys {
					v, err := tx.Get(k)
					require.NoError(t, err)
					require.Equal(t, k, v)
				}
				return nil
			}))
			require.Equal(t, ps, db.Stats().PageSize)
		})
	}
}

func TestCursorAndIterators(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	var keys []string
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range 2000 {
			k := fmt.Sprintf("%c/%04d", 'a'+i%3, i)
			keys = append(keys, k)
			if err := tx.Put([]byte(k), []byte(k)); err != nil {
				return err
			}
		}
		return nil
	}))
	slices.Sort(keys)
	require.NoError(t, db.View(func(tx *Tx) error {
		var got []string
		for k := range tx.Prefix([]byte("b/")) {
			got = append(got, string(k))
		}
		require.Len(t, got, 667)
		for _, k := range got {
			require.Equal(t, "b/", k[:2])
		}
		c := tx.Cursor()
		var back []string
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			back = append(back, string(k))
		}
		slices.Reverse(back)
		require.Equal(t, keys, back)
		k, _ := c.Seek([]byte("b"))
		require.Equal(t, "b/0001", string(k))
		k, _ = c.Seek([]byte("z"))
		require.Nil(t, k)
		return nil
	}))
	// Deleting while iterating in a write transaction visits every key once.
	require.NoError(t, db.Update(func(tx *Tx) error {
		n := 0
		for k := range tx.Range(nil, nil) {
			require.NoError(t, tx.Delete(k))
			n++
		}
		require.Equal(t, len(keys), n)
		return nil
	}))
	require.NoError(t, db.View(func(tx *Tx) error {
		k, _ := tx.Cursor().First()
		require.Nil(t, k)
		return nil
	}))
}

func TestSyncNoneSkipsFdatasyncAndSurvivesAProcessCrash(t *testing.T) {
	t.Parallel()
	mem := vfs.NewMem()
	counting := vfs.NewErrFS(mem)
	db, _ := openMem(t, &Options{Sync: SyncNone, fs: counting})
	before := counting.Calls(vfs.OpSync)
	for i := range 100 {
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put(fmt.Appendf(nil, "k%03d", i), nil) }))
	}
	require.Equal(t, before, counting.Calls(vfs.OpSync), "SyncNone commits must not fdatasync")
	// A crash of the process keeps what was written to the OS: KeepProb 1.
	clone := mem.CrashClone(vfs.CrashOptions{KeepProb: 1})
	db.Close()
	db, err := Open("/d/db", &Options{fs: clone})
	require.NoError(t, err)
	defer db.Close()
	requireKeyCount(t, db, 100)
}

func TestTooLargeTransactionFailsAloneAndTheDatabaseGoesOn(t *testing.T) {
	// Not parallel: it lowers the package-wide maxTxSize.
	db, _ := openMem(t, nil)
	defer func(old int) { maxTxSize = old }(maxTxSize)
	maxTxSize = 1 << 20
	err := db.Update(func(tx *Tx) error {
		for i := range 3 {
			if err := tx.Put(fmt.Appendf(nil, "k%d", i), make([]byte, 400<<10)); err != nil {
				return err
			}
		}
		return nil
	})
	require.ErrorIs(t, err, ErrTxTooLarge)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("small"), []byte("ok")) }))
	require.Equal(t, 1, countKeys(t, db))
}

// TestCursorStepsSeeChangesAndOverflow covers the scan fast path (a step inside one leaf page):
// in a write transaction over committed pages, a key deleted or inserted just ahead of the
// cursor must be skipped or visited, and values in overflow extents, mixed with inline ones in
// the same leaves, must come back whole.
func TestCursorStepsSeeChangesAndOverflow(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t, nil)
	value := func(i int) []byte {
		if i%7 == 3 {
			return bytes.Repeat([]byte{byte(i)}, 3000) // overflow on 4 KiB pages
		}
		return []byte(fmt.Sprintf("v%04d", i))
	}
	key := func(i int) []byte { return []byte(fmt.Sprintf("k%04d", i)) }
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := 0; i < 1000; i += 2 {
			require.NoError(t, tx.Put(key(i), value(i)))
		}
		return nil
	}))
	require.NoError(t, db.View(func(tx *Tx) error {
		c, i := tx.Cursor(), 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			require.Equal(t, key(i), k)
			require.Equal(t, value(i), v)
			i += 2
		}
		require.Equal(t, 1000, i)
		return c.Err()
	}))
	require.NoError(t, db.Update(func(tx *Tx) error {
		c := tx.Cursor()
		var got []string
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			got = append(got, string(k))
			n, err := strconv.Atoi(string(k[1:]))
			require.NoError(t, err)
			switch n % 8 {
			case 0: // delete the next key: the cursor must not return it
				require.NoError(t, tx.Delete(key(n+2)))
			case 4: // insert a key between this one and the next: the cursor must return it
				if n%2 == 0 {
					require.NoError(t, tx.Put(key(n+1), value(n+1)))
				}
			}
		}
		var want []string
		for n := 0; n < 1000; n += 2 {
			if n%8 == 2 {
				continue
			}
			want = append(want, string(key(n)))
			if n%8 == 4 {
				want = append(want, string(key(n+1)))
			}
		}
		require.Equal(t, want, got)
		return c.Err()
	}))
}

// TestCloseShrinksTheWAL checks that Close gives back the space the WAL grew to under load (the
// file is recycled while the database is open): after Close it is back to its initial size, and
// the database reopens with everything and grows the WAL again.
func TestCloseShrinksTheWAL(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t, &Options{Sync: SyncNone})
	value := bytes.Repeat([]byte("v"), 1000)
	for i := range 2000 { // about 2 MB of records: the WAL grows past its initial 256 KiB
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte(fmt.Sprintf("k%05d", i)), value) }))
	}
	st, err := os.Stat(path + "-wal")
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(wal.InitialSize), "the WAL did not grow: the test shows nothing")
	require.NoError(t, db.Close())
	st, err = os.Stat(path + "-wal")
	require.NoError(t, err)
	require.Equal(t, int64(wal.InitialSize), st.Size())

	db, err = Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	requireKeyCount(t, db, 2000)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("after"), value) }))
	require.NoError(t, db.Check())
}

func TestTxLSN(t *testing.T) {
	db, _ := openTemp(t, nil)
	var before uint64
	require.NoError(t, db.View(func(tx *Tx) error { before = tx.LSN(); return nil }))
	require.NoError(t, db.Update(func(tx *Tx) error {
		require.Equal(t, before, tx.LSN(), "a writer starts at the newest commit")
		return tx.Put([]byte("k"), []byte("v"))
	}))
	old, err := db.Begin(false)
	require.NoError(t, err)
	defer old.Rollback()
	require.Equal(t, before+1, old.LSN(), "a reader sees the commit")
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("w")) }))
	w, err := db.Begin(true)
	require.NoError(t, err)
	require.Greater(t, w.LSN(), old.LSN(), "a writer after another commit sees past the old snapshot")
	require.NoError(t, w.Rollback())
}

func TestInMemoryCreatesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mem.db")
	db, err := Open(path, &Options{InMemory: true})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
	require.NoError(t, db.View(func(tx *Tx) error {
		v, err := tx.Get([]byte("k"))
		require.Equal(t, "v", string(v))
		return err
	}))
	other, err := Open(path, &Options{InMemory: true}) // another private file system: not locked
	require.NoError(t, err)
	require.NoError(t, other.View(func(tx *Tx) error {
		_, err := tx.Get([]byte("k"))
		require.ErrorIs(t, err, ErrNotFound)
		return nil
	}))
	require.NoError(t, other.Close())
	require.NoError(t, db.Close())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "an in-memory database writes no file")
}

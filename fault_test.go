package cairn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// TestFailedSyncFailsTheDatabase: an fdatasync error fails the commit and every later write with
// ErrFailed (never retried), reads go on, and reopening recovers every acknowledged commit.
func TestFailedSyncFailsTheDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rule   vfs.Rule
		action func(db *DB) error
	}{
		{"WAL fdatasync", vfs.Rule{Op: vfs.OpSync, Path: "-wal", Sticky: true}, func(db *DB) error {
			return db.Update(func(tx *Tx) error { return tx.Put([]byte("lost"), nil) })
		}},
		{"WAL write", vfs.Rule{Op: vfs.OpWrite, Path: "-wal", ShortWrite: true}, func(db *DB) error {
			return db.Update(func(tx *Tx) error { return tx.Put([]byte("lost"), nil) })
		}},
		{"checkpoint fdatasync", vfs.Rule{Op: vfs.OpSync}, func(db *DB) error {
			return db.Checkpoint(context.Background())
		}},
		{"checkpoint write", vfs.Rule{Op: vfs.OpWrite}, func(db *DB) error {
			return db.Checkpoint(context.Background())
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewMem()
			efs := vfs.NewErrFS(mem)
			db, _ := openMem(t, &Options{fs: efs})
			putN(t, db, 0, 50)
			efs.Inject(tc.rule)
			err := tc.action(db)
			require.ErrorIs(t, err, ErrFailed)
			require.ErrorIs(t, err, vfs.ErrInjected)
			efs.Clear()
			err = db.Update(func(tx *Tx) error { return tx.Put([]byte("after"), nil) })
			require.ErrorIs(t, err, ErrFailed, "writes after a failure must fail")
			require.Equal(t, 50, countKeys(t, db), "reads of published versions go on")
			clone := mem.CrashClone(vfs.CrashOptions{KeepProb: 0})
			err = db.Close()
			require.ErrorIs(t, err, ErrFailed, "Close returns the failure")
			require.ErrorIs(t, err, vfs.ErrInjected)
			db, err = Open("/d/db", &Options{fs: clone})
			require.NoError(t, err)
			defer db.Close()
			require.Equal(t, 50, countKeys(t, db))
			require.NoError(t, db.check())
		})
	}
}

// TestCrashAfterPreflushLosesNothing: pages written early by a checkpoint's pre-flush sit at ids
// the durable meta page does not reference, so a crash before the meta page is written (with the
// pre-flushed writes kept, dropped or torn) loses no commit.
func TestCrashAfterPreflushLosesNothing(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		mem := vfs.NewMem()
		efs := vfs.NewErrFS(mem)
		db, _ := openMem(t, &Options{fs: efs, CheckpointBytes: 1 << 30})
		putN(t, db, 0, 300)
		require.NoError(t, db.Checkpoint(context.Background()))
		putN(t, db, 300, 600) // dirty again, only in the WAL
		if seed%2 == 0 {
			_, err := db.preflush()
			require.NoError(t, err)
		} else { // crash before the pre-flush's fdatasync: its writes are kept, dropped or torn
			efs.Inject(vfs.Rule{Op: vfs.OpSync})
			_, err := db.preflush()
			require.ErrorIs(t, err, ErrFailed)
		}
		clone := mem.CrashClone(vfs.CrashOptions{Rand: rand.New(rand.NewPCG(seed, 1)), KeepProb: 0.5, Garble: true})
		db.Close()
		db, err := Open("/d/db", &Options{fs: clone})
		require.NoError(t, err)
		require.Equal(t, 600, countKeys(t, db))
		require.NoError(t, db.check())
		require.NoError(t, db.Close())
	}
}

// TestFailedWriteRefusesCommit: a Put whose page read fails leaves the WAL record and the tree
// apart, so the transaction must not commit; the database goes on.
func TestFailedWriteRefusesCommit(t *testing.T) {
	t.Parallel()
	fs := vfs.NewErrFS(vfs.NewMem())
	db, _ := openMem(t, &Options{fs: fs})
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range 2000 {
			if err := tx.Put(fmt.Appendf(nil, "k%05d", i), make([]byte, 100)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())
	db, err := Open("/d/db", &Options{fs: fs}) // an empty cache: the Put below reads pages
	require.NoError(t, err)
	defer db.Close()
	fs.Inject(vfs.Rule{Op: vfs.OpRead, Path: "/d/db", Err: errors.New("injected read error")})
	tx, err := db.Begin(true)
	require.NoError(t, err)
	err = tx.Put([]byte("k01000"), []byte("x"))
	require.ErrorContains(t, err, "injected read error")
	require.ErrorContains(t, tx.Commit(), "commit refused")
	fs.Clear()
	require.NoError(t, db.View(func(tx *Tx) error {
		v, err := tx.Get([]byte("k01000"))
		require.NoError(t, err)
		require.Len(t, v, 100)
		return nil
	}))
}

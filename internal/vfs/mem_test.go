package vfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// step is one operation applied identically to an os file and a MemFS file.
type step struct {
	write []byte // WriteAt(write, off) when non-nil
	off   int64
	trunc int64 // Truncate(trunc) when >= 0 and write and read are unset
	read  int   // ReadAt(make([]byte, read), off) when > 0
}

func w(off int64, s string) step { return step{write: []byte(s), off: off, trunc: -1} }
func tr(size int64) step         { return step{trunc: size} }
func rd(off int64, n int) step   { return step{off: off, read: n, trunc: -1} }

// outcome is what a step returned, reduced to what must match between implementations.
type outcome struct {
	n    int
	err  string // "", "EOF" or "error"
	data []byte
}

func classify(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, io.EOF):
		return "EOF"
	}
	return "error"
}

func apply(t *testing.T, f File, s step) outcome {
	t.Helper()
	switch {
	case s.write != nil:
		n, err := f.WriteAt(s.write, s.off)
		return outcome{n: n, err: classify(err)}
	case s.read > 0:
		b := make([]byte, s.read)
		n, err := f.ReadAt(b, s.off)
		return outcome{n: n, err: classify(err), data: b[:n]}
	}
	return outcome{err: classify(f.Truncate(s.trunc))}
}

func contents(t *testing.T, f File) []byte {
	t.Helper()
	size, err := f.Size()
	require.NoError(t, err)
	b := make([]byte, size)
	n, err := f.ReadAt(b, 0)
	if size > 0 {
		require.NoError(t, err)
	}
	require.EqualValues(t, size, n)
	return b
}

func TestMemMatchesOS(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"write at zero", []step{w(0, "hello"), rd(0, 5)}},
		{"write past EOF zero-fills", []step{w(0, "ab"), w(10, "cd"), rd(0, 12)}},
		{"overwrite middle", []step{w(0, "0123456789"), w(3, "xyz"), rd(2, 5)}},
		{"truncate shrink then grow", []step{w(0, "0123456789"), tr(4), tr(8), rd(0, 8)}},
		{"truncate grow then write", []step{tr(700), w(600, "tail"), w(1000, "x")}},
		{"read across EOF", []step{w(0, "abc"), rd(1, 10)}},
		{"read at EOF", []step{w(0, "abc"), rd(3, 1)}},
		{"read beyond EOF", []step{w(0, "abc"), rd(50, 4)}},
		{"read empty file", []step{rd(0, 1)}},
		{"negative offsets", []step{w(-1, "x"), rd(-1, 1), tr(-1)}},
		{"empty write", []step{w(5, ""), tr(3), w(3, "")}},
		{"large sectors", []step{w(0, string(bytes.Repeat([]byte("a"), 1500))), w(511, "bb"), tr(1024), rd(1000, 100)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			of, err := OS.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
			require.NoError(t, err)
			defer of.Close()
			mf, err := NewMem().OpenFile("/d/f", os.O_RDWR|os.O_CREATE, 0o644)
			require.NoError(t, err)
			defer mf.Close()
			for i, s := range tc.steps {
				require.Equal(t, apply(t, of, s), apply(t, mf, s), "step %d", i)
				require.Equal(t, contents(t, of), contents(t, mf), "after step %d", i)
			}
		})
	}
}

// flagResult is what a flag scenario produced on one FS.
type flagResult struct {
	openErr, notExist, exist    bool
	writeErr, readErr, truncErr bool
	content                     []byte
}

func runFlags(t *testing.T, fsys FS, dir string, existing bool, flag int) flagResult {
	t.Helper()
	name := filepath.Join(dir, "f")
	if existing {
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		require.NoError(t, err)
		_, err = f.WriteAt([]byte("old content"), 0)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	f, err := fsys.OpenFile(name, flag, 0o644)
	if err != nil {
		return flagResult{openErr: true, notExist: errors.Is(err, fs.ErrNotExist), exist: errors.Is(err, fs.ErrExist)}
	}
	defer f.Close()
	var r flagResult
	_, err = f.WriteAt([]byte("N"), 0)
	r.writeErr = err != nil
	_, err = f.ReadAt(make([]byte, 1), 0)
	r.readErr = err != nil && !errors.Is(err, io.EOF)
	r.truncErr = f.Truncate(20) != nil
	rf, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer rf.Close()
	r.content = contents(t, rf)
	return r
}

func TestMemFlagsMatchOS(t *testing.T) {
	cases := []struct {
		name     string
		existing bool
		flag     int
	}{
		{"missing without create", false, os.O_RDWR},
		{"missing with create", false, os.O_RDWR | os.O_CREATE},
		{"existing with create excl", true, os.O_RDWR | os.O_CREATE | os.O_EXCL},
		{"missing with create excl", false, os.O_RDWR | os.O_CREATE | os.O_EXCL},
		{"existing trunc", true, os.O_RDWR | os.O_TRUNC},
		{"existing rdwr", true, os.O_RDWR},
		{"existing rdonly", true, os.O_RDONLY},
		{"existing wronly", true, os.O_WRONLY},
		{"create wronly", false, os.O_WRONLY | os.O_CREATE},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := runFlags(t, OS, t.TempDir(), tc.existing, tc.flag)
			got := runFlags(t, NewMem(), "/db", tc.existing, tc.flag)
			require.Equal(t, want, got)
		})
	}
}

func TestMemClosedFile(t *testing.T) {
	m := NewMem()
	f, err := m.OpenFile("/f", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = f.WriteAt([]byte("x"), 0)
	require.ErrorIs(t, err, os.ErrClosed)
	_, err = f.ReadAt(make([]byte, 1), 0)
	require.ErrorIs(t, err, os.ErrClosed)
	require.ErrorIs(t, f.Sync(), os.ErrClosed)
	require.ErrorIs(t, f.Truncate(0), os.ErrClosed)
	_, err = f.Size()
	require.ErrorIs(t, err, os.ErrClosed)
	require.ErrorIs(t, f.Close(), os.ErrClosed)
}

func TestMemRemove(t *testing.T) {
	m := NewMem()
	require.ErrorIs(t, m.Remove("/d/f"), fs.ErrNotExist)
	f, err := m.OpenFile("/d/f", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	require.NoError(t, m.Remove("/d/f"))
	_, err = m.OpenFile("/d/f", os.O_RDWR, 0)
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = f.WriteAt([]byte("still open"), 0) // unlinked but open, as on POSIX
	require.NoError(t, err)
	require.Equal(t, "still open", string(contents(t, f)))
	require.NoError(t, f.Close())
}

// durable writes content to name through a handle, syncs it and its directory.
func durable(t *testing.T, m *MemFS, name, content string) {
	t.Helper()
	f, err := m.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(content), 0)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	require.NoError(t, m.SyncDir(filepath.Dir(name)))
}

// unsynced opens name and applies fn without syncing.
func unsynced(t *testing.T, m *MemFS, name string, fn func(File) error) {
	t.Helper()
	f, err := m.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	require.NoError(t, fn(f))
	require.NoError(t, f.Close())
}

func writeAt(off int64, s string) func(File) error {
	return func(f File) error { _, err := f.WriteAt([]byte(s), off); return err }
}

func TestCrashClone(t *testing.T) {
	const absent = "<absent>"
	cases := []struct {
		name  string
		setup func(t *testing.T, m *MemFS)
		keep  float64
		want  map[string]string
	}{
		{"synced data survives drop-all", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "synced")
		}, 0, map[string]string{"/db/a": "synced"}},
		{"unsynced write dropped", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "synced")
			unsynced(t, m, "/db/a", writeAt(3, "XXXXXXX"))
		}, 0, map[string]string{"/db/a": "synced"}},
		{"unsynced write kept", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "synced")
			unsynced(t, m, "/db/a", writeAt(3, "XXXXXXX"))
		}, 1, map[string]string{"/db/a": "synXXXXXXX"}},
		{"unsynced truncate dropped", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "synced")
			unsynced(t, m, "/db/a", func(f File) error { return f.Truncate(2) })
		}, 0, map[string]string{"/db/a": "synced"}},
		{"unsynced truncate then write kept in order", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "synced")
			unsynced(t, m, "/db/a", func(f File) error {
				if err := f.Truncate(2); err != nil {
					return err
				}
				return writeAt(4, "Z")(f)
			})
		}, 1, map[string]string{"/db/a": "sy\x00\x00Z"}},
		{"O_TRUNC is an unsynced truncate", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "synced")
			f, err := m.OpenFile("/db/a", os.O_RDWR|os.O_TRUNC, 0)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, 0, map[string]string{"/db/a": "synced"}},
		{"synced file without SyncDir vanishes", func(t *testing.T, m *MemFS) {
			f, err := m.OpenFile("/db/new", os.O_RDWR|os.O_CREATE, 0o644)
			require.NoError(t, err)
			_, err = f.WriteAt([]byte("data"), 0)
			require.NoError(t, err)
			require.NoError(t, f.Sync())
		}, 1, map[string]string{"/db/new": absent}},
		{"SyncDir of another dir does not help", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "x")
			unsynced(t, m, "/db/sub/b", writeAt(0, "y"))
			require.NoError(t, m.SyncDir("/other"))
		}, 1, map[string]string{"/db/a": "x", "/db/sub/b": absent}},
		{"created and SyncDir but never synced is empty", func(t *testing.T, m *MemFS) {
			unsynced(t, m, "/db/a", writeAt(0, "data"))
			require.NoError(t, m.SyncDir("/db/"))
		}, 0, map[string]string{"/db/a": ""}},
		{"removed without SyncDir survives", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "keep me")
			require.NoError(t, m.Remove("/db/a"))
		}, 1, map[string]string{"/db/a": "keep me"}},
		{"removed with SyncDir is gone", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "bye")
			require.NoError(t, m.Remove("/db/a"))
			require.NoError(t, m.SyncDir("/db"))
		}, 1, map[string]string{"/db/a": absent}},
		{"recreated without SyncDir shows the old file", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "old")
			require.NoError(t, m.Remove("/db/a"))
			f, err := m.OpenFile("/db/a", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
			require.NoError(t, err)
			require.NoError(t, writeAt(0, "new")(f))
			require.NoError(t, f.Sync()) // content of the new file is durable, its name is not
		}, 1, map[string]string{"/db/a": "old"}},
		{"remove then SyncDir then recreate without SyncDir", func(t *testing.T, m *MemFS) {
			durable(t, m, "/db/a", "old")
			require.NoError(t, m.Remove("/db/a"))
			durable(t, m, "/db/b", "b") // syncs /db: the removal of /db/a is durable
			unsynced(t, m, "/db/a", writeAt(0, "new"))
		}, 1, map[string]string{"/db/a": absent, "/db/b": "b"}},
		{"fixture from WriteFile is durable", func(t *testing.T, m *MemFS) {
			require.NoError(t, m.WriteFile("/db/fixture", []byte("corrupt")))
		}, 0, map[string]string{"/db/fixture": "corrupt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMem()
			tc.setup(t, m)
			c := m.CrashClone(CrashOptions{Rand: rand.New(rand.NewPCG(1, 2)), KeepProb: tc.keep})
			for name, want := range tc.want {
				got, err := c.ReadFile(name)
				if want == absent {
					require.ErrorIs(t, err, fs.ErrNotExist, name)
					continue
				}
				require.NoError(t, err, name)
				require.Equal(t, want, string(got), name)
			}
		})
	}
}

func TestCrashCloneSubset(t *testing.T) {
	// Sector-aligned, non-overlapping writes: every sector ends either old or new.
	m := NewMem()
	old := bytes.Repeat([]byte{'o'}, 64*sectorSize)
	require.NoError(t, m.WriteFile("/db/f", old))
	f, err := m.OpenFile("/db/f", os.O_RDWR, 0)
	require.NoError(t, err)
	for s := range 64 {
		_, err := f.WriteAt(bytes.Repeat([]byte{'n'}, sectorSize), int64(s*sectorSize))
		require.NoError(t, err)
	}
	c := m.CrashClone(CrashOptions{Rand: rand.New(rand.NewPCG(7, 7)), KeepProb: 0.5})
	got, err := c.ReadFile("/db/f")
	require.NoError(t, err)
	require.Len(t, got, len(old))
	kept := 0
	for s := range 64 {
		sec := got[s*sectorSize : (s+1)*sectorSize]
		switch {
		case bytes.Equal(sec, old[:sectorSize]):
		case bytes.Equal(sec, bytes.Repeat([]byte{'n'}, sectorSize)):
			kept++
		default:
			t.Fatalf("sector %d is neither old nor new", s)
		}
	}
	require.Greater(t, kept, 0)
	require.Less(t, kept, 64)
}

func TestCrashCloneGarble(t *testing.T) {
	cases := []struct {
		name string
		off  int64
		size int
	}{
		{"one sector", 0, sectorSize},
		{"unaligned span", 300, 3 * sectorSize},
		{"tiny write", 5, 1},
		{"extends file", 2 * sectorSize, 4 * sectorSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synced := bytes.Repeat([]byte{'o'}, 2*sectorSize)
			m := NewMem()
			require.NoError(t, m.WriteFile("/db/f", synced))
			f, err := m.OpenFile("/db/f", os.O_RDWR, 0)
			require.NoError(t, err)
			_, err = f.WriteAt(bytes.Repeat([]byte{'n'}, tc.size), tc.off)
			require.NoError(t, err)
			current, err := m.ReadFile("/db/f")
			require.NoError(t, err)
			torn := 0
			for seed := range uint64(20) {
				c := m.CrashClone(CrashOptions{Rand: rand.New(rand.NewPCG(seed, 1)), Garble: true})
				got, err := c.ReadFile("/db/f")
				require.NoError(t, err)
				require.False(t, bytes.Equal(current, got), "seed %d: a write not kept came out intact", seed)
				require.True(t, bytes.Equal(synced[:tc.off], got[:tc.off]), "seed %d: bytes before the write changed", seed)
				if !bytes.Equal(synced, got) { // not dropped, so torn: differs from both
					torn++
					require.Len(t, got, len(current))
				}
			}
			require.Greater(t, torn, 0, "no write was torn")
			require.Less(t, torn, 20, "no write was dropped")
		})
	}
}

func TestCrashCloneIndependent(t *testing.T) {
	m := NewMem()
	durable(t, m, "/db/a", "orig")
	l, err := m.Lock("/db/LOCK")
	require.NoError(t, err)
	defer l.Close()
	c := m.CrashClone(CrashOptions{})
	unsynced(t, c, "/db/a", writeAt(0, "CLONE"))
	unsynced(t, m, "/db/a", writeAt(0, "M"))
	got, err := m.ReadFile("/db/a")
	require.NoError(t, err)
	require.Equal(t, "Mrig", string(got))
	got, err = c.ReadFile("/db/a")
	require.NoError(t, err)
	require.Equal(t, "CLONE", string(got))
	cl, err := c.Lock("/db/LOCK") // locks are not carried over
	require.NoError(t, err)
	require.NoError(t, cl.Close())
}

// TestSyncKeepsWhatWasSynced runs random writes, truncates (shrinking and growing) and Syncs on
// one file, and after each Sync (which applies the changes since the previous one) checks that a
// crash clone dropping every unsynced change holds exactly the content at that Sync.
func TestSyncKeepsWhatWasSynced(t *testing.T) {
	m := NewMem()
	f, err := m.OpenFile("/db/a", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	require.NoError(t, m.SyncDir("/db"))
	rng := rand.New(rand.NewPCG(1, 2))
	var synced []byte
	for i := range 2000 {
		switch r := rng.IntN(10); {
		case r < 6:
			b := make([]byte, 1+rng.IntN(3000))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			_, err = f.WriteAt(b, rng.Int64N(10000))
		case r < 8:
			err = f.Truncate(rng.Int64N(12000))
		default:
			err = f.Sync()
			synced, _ = m.ReadFile("/db/a")
		}
		require.NoError(t, err)
		got, err := m.CrashClone(CrashOptions{KeepProb: 0}).ReadFile("/db/a")
		require.NoError(t, err)
		require.True(t, bytes.Equal(synced, got), "step %d: the crash clone differs from the content at the last Sync", i)
	}
}

func TestLock(t *testing.T) {
	cases := []struct {
		name string
		fs   func(t *testing.T) (FS, string)
	}{
		{"os", func(t *testing.T) (FS, string) { return OS, t.TempDir() }},
		{"mem", func(t *testing.T) (FS, string) { return NewMem(), "/db" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, dir := tc.fs(t)
			name := filepath.Join(dir, "LOCK")
			l, err := fsys.Lock(name)
			require.NoError(t, err)
			_, err = fsys.Lock(name)
			require.ErrorIs(t, err, ErrLocked)
			other, err := fsys.Lock(filepath.Join(dir, "OTHER"))
			require.NoError(t, err)
			require.NoError(t, other.Close())
			require.NoError(t, l.Close())
			l, err = fsys.Lock(name)
			require.NoError(t, err)
			require.NoError(t, l.Close())
			f, err := fsys.OpenFile(name, os.O_RDONLY, 0) // Lock created the file
			require.NoError(t, err)
			require.NoError(t, f.Close())
		})
	}
}

func TestMemLockDoubleClose(t *testing.T) {
	m := NewMem()
	l, err := m.Lock("/LOCK")
	require.NoError(t, err)
	require.NoError(t, l.Close())
	require.ErrorIs(t, l.Close(), os.ErrClosed)
}

func TestMemHelpers(t *testing.T) {
	m := NewMem()
	_, err := m.ReadFile("/nope")
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = m.Size("/nope")
	require.ErrorIs(t, err, fs.ErrNotExist)
	buf := []byte("abc")
	require.NoError(t, m.WriteFile("/x/f", buf))
	buf[0] = 'Z' // WriteFile copies
	got, err := m.ReadFile("/x/f")
	require.NoError(t, err)
	require.Equal(t, "abc", string(got))
	got[0] = 'Y' // ReadFile copies
	size, err := m.Size("/x/f")
	require.NoError(t, err)
	require.EqualValues(t, 3, size)
	again, err := m.ReadFile("/x/f")
	require.NoError(t, err)
	require.Equal(t, "abc", string(again))
}

func TestMemConcurrent(t *testing.T) {
	m := NewMem()
	f, err := m.OpenFile("/db/f", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	const workers, per = 8, 50
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range per {
				off := int64((g*per + i) * 4)
				if _, err := f.WriteAt([]byte{byte(g), byte(i), 1, 2}, off); err != nil {
					t.Error(err)
				}
				if _, err := f.ReadAt(make([]byte, 4), off); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for range per {
			_ = f.Sync()
			_ = m.CrashClone(CrashOptions{KeepProb: 0.5})
			_, _ = m.Lock("/db/LOCK")
		}
	})
	wg.Wait()
	got := contents(t, f)
	require.Len(t, got, workers*per*4)
	for g := range workers {
		for i := range per {
			off := (g*per + i) * 4
			require.Equal(t, []byte{byte(g), byte(i), 1, 2}, got[off:off+4])
		}
	}
}

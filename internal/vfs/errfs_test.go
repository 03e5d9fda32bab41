package vfs

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// call performs one operation of kind op on path through e, creating path first if needed.
func call(t *testing.T, e *ErrFS, op Op, path string) error {
	t.Helper()
	switch op {
	case OpOpen:
		f, err := e.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err == nil {
			require.NoError(t, f.Close())
		}
		return err
	case OpRemove:
		return e.Remove(path)
	case OpSyncDir:
		return e.SyncDir(path)
	}
	// Open through the inner FS so that file ops are not mixed with OpOpen calls.
	f, err := e.inner.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	ef := &errFile{fs: e, f: f, name: path}
	defer ef.Close()
	switch op {
	case OpWrite:
		_, err = ef.WriteAt([]byte("data"), 0)
	case OpRead:
		if _, err = ef.ReadAt(make([]byte, 1), 0); errors.Is(err, io.EOF) {
			err = nil
		}
	case OpSync:
		err = ef.Sync()
	case OpTruncate:
		err = ef.Truncate(1)
	}
	return err
}

func TestErrFSRules(t *testing.T) {
	custom := errors.New("disk on fire")
	type c struct {
		op   Op
		path string
		fail bool
	}
	cases := []struct {
		name  string
		rules []Rule
		calls []c
	}{
		{"fires once", []Rule{{Op: OpWrite}},
			[]c{{OpWrite, "/a", true}, {OpWrite, "/a", false}, {OpWrite, "/a", false}}},
		{"after", []Rule{{Op: OpSync, After: 2}},
			[]c{{OpSync, "/a", false}, {OpSync, "/a", false}, {OpSync, "/a", true}, {OpSync, "/a", false}}},
		{"sticky after", []Rule{{Op: OpRead, After: 1, Sticky: true}},
			[]c{{OpRead, "/a", false}, {OpRead, "/a", true}, {OpRead, "/a", true}, {OpRead, "/a", true}}},
		{"path substring", []Rule{{Op: OpWrite, Path: "wal", Sticky: true}},
			[]c{{OpWrite, "/db/data", false}, {OpWrite, "/db/wal-1", true}, {OpWrite, "/db/wal-2", true}}},
		{"other ops unaffected", []Rule{{Op: OpTruncate}},
			[]c{{OpWrite, "/a", false}, {OpSync, "/a", false}, {OpRead, "/a", false}, {OpTruncate, "/a", true}}},
		{"after counts only matching calls", []Rule{{Op: OpWrite, Path: "x", After: 1}},
			[]c{{OpWrite, "/y", false}, {OpWrite, "/x", false}, {OpWrite, "/y", false}, {OpWrite, "/x", true}}},
		{"custom error", []Rule{{Op: OpOpen, Err: custom}},
			[]c{{OpOpen, "/a", true}, {OpOpen, "/a", false}}},
		{"remove and syncdir", []Rule{{Op: OpRemove}, {Op: OpSyncDir, Path: "/db"}},
			[]c{{OpSyncDir, "/other", false}, {OpOpen, "/db/a", false}, {OpRemove, "/db/a", true},
				{OpRemove, "/db/a", false}, {OpSyncDir, "/db", true}, {OpSyncDir, "/db", false}}},
		{"two due rules fire one per call", []Rule{{Op: OpSync}, {Op: OpSync}},
			[]c{{OpSync, "/a", true}, {OpSync, "/a", true}, {OpSync, "/a", false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := NewErrFS(NewMem())
			for _, r := range tc.rules {
				e.Inject(r)
			}
			for i, cl := range tc.calls {
				err := call(t, e, cl.op, cl.path)
				if !cl.fail {
					require.NoError(t, err, "call %d", i)
					continue
				}
				require.ErrorIs(t, err, ErrInjected, "call %d", i)
				if want := tc.rules[0].Err; want != nil {
					require.ErrorIs(t, err, want, "call %d", i)
				}
			}
		})
	}
}

func TestErrFSShortWrite(t *testing.T) {
	m := NewMem()
	e := NewErrFS(m)
	e.Inject(Rule{Op: OpWrite, ShortWrite: true, After: 1})
	f, err := e.OpenFile("/db/f", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()
	n, err := f.WriteAt([]byte("first"), 0)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	n, err = f.WriteAt([]byte("0123456789"), 5)
	require.ErrorIs(t, err, ErrInjected)
	require.Equal(t, 5, n)
	got, err := m.ReadFile("/db/f")
	require.NoError(t, err)
	require.Equal(t, "first01234", string(got))
}

func TestErrFSCallsAndClear(t *testing.T) {
	e := NewErrFS(NewMem())
	e.Inject(Rule{Op: OpSync, Sticky: true})
	f, err := e.OpenFile("/f", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()
	require.Error(t, f.Sync())
	require.Error(t, f.Sync())
	e.Clear()
	require.NoError(t, f.Sync())
	_, err = f.WriteAt([]byte("x"), 0)
	require.NoError(t, err)
	require.Equal(t, 3, e.Calls(OpSync))
	require.Equal(t, 1, e.Calls(OpWrite))
	require.Equal(t, 1, e.Calls(OpOpen))
	require.Equal(t, 0, e.Calls(OpRead))
	require.Equal(t, 0, e.Calls(Op(0)))
	size, err := f.Size() // never failed, not counted
	require.NoError(t, err)
	require.EqualValues(t, 1, size)
}

func TestErrFSPassThrough(t *testing.T) {
	e := NewErrFS(NewMem())
	l, err := e.Lock("/LOCK")
	require.NoError(t, err)
	_, err = e.Lock("/LOCK")
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, l.Close())
	_, err = e.OpenFile("/missing", os.O_RDONLY, 0)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotErrorIs(t, err, ErrInjected)
}

func TestErrFSInjectInvalidOp(t *testing.T) {
	require.Panics(t, func() { NewErrFS(NewMem()).Inject(Rule{}) })
	require.Equal(t, "write", OpWrite.String())
	require.Equal(t, "syncdir", OpSyncDir.String())
	require.Equal(t, "Op(99)", Op(99).String())
}

package vfs

import (
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrFSPlainRule: a Plain rule returns its error exactly as the OS would, without the
// injection's prefix and marker.
func TestErrFSPlainRule(t *testing.T) {
	e := NewErrFS(NewMem())
	perm := &fs.PathError{Op: "open", Path: "/d/f", Err: syscall.EACCES}
	e.Inject(Rule{Op: OpOpen, Path: "/d/f", Err: perm, Plain: true})
	_, err := e.OpenFile("/d/f", os.O_RDWR|os.O_CREATE, 0o600)
	require.Same(t, perm, err)
	require.NotErrorIs(t, err, ErrInjected)
	require.EqualError(t, err, "open /d/f: permission denied")
	f, err := e.OpenFile("/d/f", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err, "the rule fired once")
	require.NoError(t, f.Close())
}

package pager

// Test helpers shared by the pager package's test files.

import (
	"os"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// memPager opens a pager with pages of pageSize bytes on a new file of an in-memory file system
// and returns it with the file.
func memPager(t *testing.T, pageSize int) (*Pager, vfs.File) {
	t.Helper()
	f, err := vfs.NewMem().OpenFile("/db", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	p, _, err := Open(f, Options{PageSize: pageSize})
	require.NoError(t, err)
	return p, f
}

// seedMeta is a valid meta page of a small database with a free list.
var seedMeta = Meta{PageSize: 4096, DBID: 0x1234_5678_9abc_def1, Seq: 7, LSN: 42, Root: 9,
	PageCount: 20, FreelistID: 12, FreelistPages: 1}

func encodeMeta(m Meta) []byte {
	b := make([]byte, metaSize)
	m.encode(b)
	return b
}

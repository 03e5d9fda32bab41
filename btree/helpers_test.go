package btree

// Test helpers shared by the btree package's test files.

import (
	"os"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/pager"
	"github.com/stretchr/testify/require"
)

// newPager opens a pager with pages of pageSize bytes on a new file of an in-memory file system,
// validating tree pages on read.
func newPager(t testing.TB, pageSize int) *pager.Pager {
	t.Helper()
	f, err := vfs.NewMem().OpenFile("/db", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	pg, _, err := pager.Open(f, pager.Options{PageSize: pageSize, Validate: Validate})
	require.NoError(t, err)
	return pg
}

// seedPages returns a 4 KiB leaf (an inline value and an overflow reference) and a 4 KiB branch
// of two children, the fuzzers' seed pages.
func seedPages() (leaf, branch []byte) {
	leaf = make([]byte, 4096)
	encode(leaf, true, []inode{{key: []byte("a"), value: []byte("1")}, {key: []byte("b"), ovf: 7, size: 5000}}, 4096, 1)
	branch = make([]byte, 4096)
	encode(branch, false, []inode{{key: []byte("a"), child: 3}, {key: []byte("m"), child: 4}}, 4096, 1)
	return leaf, branch
}

// leafFill checks the tree at root (4 KiB pages) and returns the share of its leaf pages' bytes
// that their elements use.
func leafFill(t *testing.T, pg *pager.Pager, root uint64) float64 {
	t.Helper()
	leaves, used := 0, 0
	require.NoError(t, checkTree(pg, root, func(id uint64, pages int) {
		p, err := pg.Page(id)
		require.NoError(t, err)
		if pager.Type(p) == pager.PageLeaf {
			leaves++
			n := decodeNode(nil, id, p, 4096, nil)
			n.materialize(nil)
			used += n.size()
		}
	}))
	fill := float64(used) / float64(leaves*4096)
	t.Logf("%d leaves, fill %.2f", leaves, fill)
	return fill
}

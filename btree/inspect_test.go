package btree

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
)

func TestElements(t *testing.T) {
	pg := newPager(t, 4096)
	tr := Open(pg, 0, true)
	big := make([]byte, 5000)
	require.NoError(t, tr.Put([]byte("big"), big))
	require.NoError(t, tr.Put([]byte("empty"), nil))
	for i := range 300 {
		require.NoError(t, tr.Put(fmt.Appendf(nil, "k%03d", i), []byte("value")))
	}
	root, err := tr.Commit(1)
	require.NoError(t, err)
	p, err := pg.Page(root)
	require.NoError(t, err)
	require.Equal(t, byte(pager.PageBranch), pager.Type(p), "300 keys need more than one leaf")

	branch, err := Elements(root, p)
	require.NoError(t, err)
	require.Greater(t, len(branch), 1)
	require.Equal(t, "big", string(branch[0].Key))
	leaf, err := pg.Page(branch[0].Child)
	require.NoError(t, err)
	elems, err := Elements(branch[0].Child, leaf)
	require.NoError(t, err)
	require.Equal(t, "big", string(elems[0].Key))
	require.Nil(t, elems[0].Value)
	require.NotZero(t, elems[0].Overflow)
	require.Equal(t, uint32(len(big)), elems[0].ValueSize)
	require.Equal(t, "empty", string(elems[1].Key))
	require.NotNil(t, elems[1].Value, "an empty inline value is not nil")
	require.Zero(t, elems[1].ValueSize)
	require.Equal(t, Element{Key: []byte("k000"), Value: []byte("value"), ValueSize: 5}, elems[2])

	ovf, err := pg.Page(elems[0].Overflow)
	require.NoError(t, err)
	_, err = Elements(elems[0].Overflow, ovf)
	require.ErrorIs(t, err, errs.ErrCorrupt, "an overflow extent is not a tree page")
	_, err = Elements(root, p[:pager.HeaderSize-1])
	require.ErrorIs(t, err, errs.ErrCorrupt)
	bad := append([]byte(nil), p...)
	copy(branchKey(bad, 0), "zzz")
	_, err = Elements(root, bad)
	require.ErrorIs(t, err, errs.ErrCorrupt)
}

// FuzzElements feeds arbitrary bytes of any length as a tree page: Elements must never panic,
// its errors wrap ErrCorrupt, and the elements it returns lie inside the page.
func FuzzElements(f *testing.F) {
	leaf, branch := seedPages()
	f.Add(leaf[:128])
	f.Add(branch[:128])
	f.Add([]byte{1, 2, 3, 4, 2, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		elems, err := Elements(2, data)
		if err != nil {
			require.ErrorIs(t, err, errs.ErrCorrupt)
			return
		}
		total := 0
		for _, e := range elems {
			total += len(e.Key) + len(e.Value)
		}
		require.LessOrEqual(t, total, len(data))
	})
}

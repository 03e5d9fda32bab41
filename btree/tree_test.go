package btree

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
	"github.com/stretchr/testify/require"
)

func TestSplitGroups(t *testing.T) {
	elems := func(n, key, value int) []inode {
		in := make([]inode, n)
		for i := range in {
			in[i] = inode{key: make([]byte, key), value: make([]byte, value)}
		}
		return in
	}
	tests := []struct {
		name   string
		inodes []inode
		want   []int
	}{
		{"fits one page", elems(70, 9, 22), []int{70}}, // 24 + 9 + 22 = 55 bytes each
		{"just over one page: two halves", elems(76, 9, 22), []int{38, 38}},
		{"three pages worth: three thirds", elems(210, 9, 22), []int{70, 70, 70}},
		{"huge elements: one per group", elems(3, 3000, 0), []int{1, 1, 1}},
		{"one huge element alone", elems(1, 9000, 0), []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, g := range splitGroups(nil, tc.inodes, true, 4096, 1) {
				got = append(got, len(g))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestRandomInsertsFillPages checks the textbook fill factor of random inserts (about 69%) so a
// regression in splitting (pages left mostly empty) is caught.
func TestRandomInsertsFillPages(t *testing.T) {
	pg := newPager(t, 4096)
	root, lsn := uint64(0), uint64(0)
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(50_000) {
		tr := Open(pg, root, true)
		require.NoError(t, tr.Put(fmt.Appendf(nil, "%08d", i), fmt.Appendf(nil, "%020d", i)))
		lsn++
		var err error
		root, err = tr.Commit(lsn)
		require.NoError(t, err)
		pg.Reclaim(pager.Readers{Published: lsn})
	}
	require.Greater(t, leafFill(t, pg, root), 0.6)
}

func TestValidateRejectsMalformedPages(t *testing.T) {
	pg := newPager(t, 4096)
	tr := Open(pg, 0, true)
	for i := range 10 {
		require.NoError(t, tr.Put(fmt.Appendf(nil, "key%02d", i), []byte("value")))
	}
	root, err := tr.Commit(1)
	require.NoError(t, err)
	good, err := pg.Page(root)
	require.NoError(t, err)
	require.NoError(t, Validate(root, good))
	mutate := map[string]func(b []byte){
		"unknown type":         func(b []byte) { b[4] = 9 },
		"count past the page":  func(b []byte) { le.PutUint16(b[6:], 300) },
		"key offset past page": func(b []byte) { le.PutUint32(elem(b, 3)[12:], 5000) },
		"key size past page":   func(b []byte) { le.PutUint32(elem(b, 3)[4:], 1<<30) },
		"keys out of order":    func(b []byte) { copy(leafKey(b, 2), "zzzzz") },
		"value past the page":  func(b []byte) { le.PutUint32(elem(b, 9)[8:], 1<<31) },
	}
	for name, m := range mutate {
		t.Run(name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			m(b)
			require.ErrorIs(t, Validate(root, b), errs.ErrCorrupt)
		})
	}
}

// TestPatchedBranchesMatchEncoding checks that a branch written by spillPatched (a copy of its old
// page with child ids patched), and every other page, is byte for byte the page encode writes
// into a zeroed buffer for the same elements,
// through random puts and deletes of present keys, some of them below every key in the tree (a
// leftmost leaf's first key moves) and some the first key of their leaf (a branch key moves).
func TestPatchedBranchesMatchEncoding(t *testing.T) {
	pg := newPager(t, 4096)
	var ws Workspace
	rng := rand.New(rand.NewPCG(3, 4))
	var keys [][]byte
	present := map[string]bool{}
	root, lsn := uint64(0), uint64(0)
	for round := range 600 {
		ws.Reset()
		tr := Open(pg, root, true)
		tr.UseWorkspace(&ws)
		for range 1 + rng.IntN(20) {
			var k []byte
			switch r := rng.IntN(10); {
			case round > 100 && r < 4:
				i := rng.IntN(len(keys))
				k, keys[i] = keys[i], keys[len(keys)-1]
				keys = keys[:len(keys)-1]
				delete(present, string(k))
				found, err := tr.Delete(k)
				require.NoError(t, err)
				require.True(t, found)
				continue
			case r == 4:
				k = fmt.Appendf(nil, "!%08d", 1e8-lsn) // below every key so far
			default:
				k = fmt.Appendf(nil, "%0*d", 4+rng.IntN(12), rng.IntN(1e9))
			}
			if !present[string(k)] {
				present[string(k)] = true
				keys = append(keys, k)
			}
			require.NoError(t, tr.Put(k, make([]byte, rng.IntN(60))))
		}
		lsn++
		var err error
		root, err = tr.Commit(lsn)
		require.NoError(t, err)
		pg.Reclaim(pager.Readers{Published: lsn})
		require.NoError(t, checkTree(pg, root, func(id uint64, pages int) {
			p, err := pg.Page(id)
			require.NoError(t, err)
			n := decodeNode(nil, id, p, 4096, nil)
			n.materialize(nil)
			want := make([]byte, len(p))
			encode(want, n.leaf, n.inodes, 4096, pager.AllocLSN(p))
			pager.Seal(id, want)
			// Also: pages written into reused buffers (the test releases every commit) hold no
			// stale bytes.
			require.Equal(t, want, p, "page %d after commit %d", id, lsn)
			if n.leaf {
				return
			}
			for i := range pager.Count(p) { // and its keys are its children's first keys
				c, err := pg.Page(branchChild(p, i))
				require.NoError(t, err)
				require.Equal(t, string(firstKey(c)), string(branchKey(p, i)), "page %d element %d", id, i)
			}
		}))
	}
}

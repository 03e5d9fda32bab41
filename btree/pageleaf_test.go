package btree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cairndb/cairn/pager"
	"github.com/stretchr/testify/require"
)

// TestPageLeaves checks leaves decoded lazily (node.page: a page plus the keys Put inserted)
// against a map through random rounds of puts (new keys, keys of the page, keys put earlier in
// the round, values past maxInline), deletes, gets and cursor walks on the uncommitted tree, many
// puts under one leaf (past maxEdits), and commits whose pages TestPatchedBranchesMatchEncoding's
// rule holds for: each page is what encode writes for its elements.
func TestPageLeaves(t *testing.T) {
	pg := newPager(t, 4096)
	var ws Workspace
	rng := rand.New(rand.NewPCG(5, 6))
	model := map[string]string{}
	root, lsn := uint64(0), uint64(0)
	key := func() string { return fmt.Sprintf("k%06d", rng.IntN(20_000)) }
	for round := range 150 {
		ws.Reset()
		tr := Open(pg, root, true)
		tr.UseWorkspace(&ws)
		ops := 1 + rng.IntN(40)
		if round%10 == 9 {
			ops = 300 // many keys under few leaves: edits fill up
		}
		base := rng.IntN(20_000)
		for op := range ops {
			k := key()
			if round%10 == 9 {
				k = fmt.Sprintf("k%06d.%d", base, op)
			}
			switch r := rng.IntN(20); {
			case r < 2 && len(model) > 0: // delete a present key
				k = anyKey(rng, model)
				found, err := tr.Delete([]byte(k))
				require.NoError(t, err)
				require.True(t, found)
				delete(model, k)
			case r < 4: // get
				v, found, err := tr.Get([]byte(k))
				require.NoError(t, err)
				want, ok := model[k]
				require.Equal(t, ok, found, "get %s", k)
				require.Equal(t, want, string(v), "get %s", k)
			default:
				if r < 7 && len(model) > 0 {
					k = anyKey(rng, model) // overwrite: in the page or among the edits
				}
				v := fmt.Sprintf("%d.%d", round, op)
				if r == 19 {
					v = string(make([]byte, 1500)) + v // past maxInline: an overflow extent
				}
				require.NoError(t, tr.Put([]byte(k), []byte(v)))
				model[k] = v
			}
		}
		if round%5 == 0 { // a walk of the uncommitted tree sees every key once, in order
			require.Equal(t, sortedKeys(model), walkKeys(t, tr))
		}
		lsn++
		var err error
		root, err = tr.Commit(lsn)
		require.NoError(t, err)
		pg.Reclaim(pager.Readers{Published: lsn})
		require.NoError(t, checkTree(pg, root, func(id uint64, pages int) {
			p, err := pg.Page(id)
			require.NoError(t, err)
			if pager.Type(p) != pager.PageLeaf {
				return
			}
			n := decodeNode(nil, id, p, 4096, nil)
			n.materialize(nil)
			want := make([]byte, len(p))
			encode(want, true, n.inodes, 4096, pager.AllocLSN(p))
			pager.Seal(id, want)
			require.Equal(t, want, p, "leaf %d after commit %d", id, lsn)
		}))
	}
	tr := Open(pg, root, false)
	require.Equal(t, sortedKeys(model), walkKeys(t, tr))
	for k, v := range model {
		got, found, err := tr.Get([]byte(k))
		require.NoError(t, err)
		require.True(t, found, k)
		require.Equal(t, v, string(got), k)
	}
}

func anyKey(rng *rand.Rand, m map[string]string) string {
	i := rng.IntN(len(m))
	for k := range m {
		if i == 0 {
			return k
		}
		i--
	}
	panic("unreachable")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func walkKeys(t *testing.T, tr *Tree) []string {
	t.Helper()
	keys := []string{}
	c := tr.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		keys = append(keys, string(k))
	}
	require.NoError(t, c.Err())
	return keys
}

// TestSearchChildAgreesWithSearch checks that a decoded branch searched in its page (src) picks
// the child its elements' search picks, for keys present, absent, below and above every key.
func TestSearchChildAgreesWithSearch(t *testing.T) {
	pg := newPager(t, 4096)
	tr := Open(pg, 0, true)
	for i := range 20_000 {
		require.NoError(t, tr.Put(fmt.Appendf(nil, "k%06d", i*3), []byte("v")))
	}
	root, err := tr.Commit(1)
	require.NoError(t, err)
	tr = Open(pg, root, true)
	require.NoError(t, tr.Put([]byte("k000001"), []byte("v"))) // decodes the leftmost path
	n := tr.rootNode
	require.False(t, n.leaf)
	require.NotNil(t, n.src)
	for i := -1; i < 60_002; i++ {
		key := fmt.Appendf(nil, "k%06d", i)
		if i < 0 {
			key = []byte("a")
		}
		want, _ := n.search(key)
		require.Equal(t, want, n.searchChild(key), "key %s", key)
	}
}

package btree

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLargeTransaction puts many keys, in random and in ascending order, into one writable tree
// (one transaction), deletes some, and checks the committed tree: every key with its value, in
// order, pages valid and reasonably full, decoded nodes bounded by maxNodeElems before commit.
func TestLargeTransaction(t *testing.T) {
	for _, order := range []string{"random", "ascending", "descending", "random-most-deleted"} {
		t.Run(order, func(t *testing.T) {
			pg := newPager(t, 4096)
			tr := Open(pg, 0, true)
			tr.UseWorkspace(&Workspace{})
			const n = 30_000
			ids := make([]int, n)
			for i := range ids {
				ids[i] = i
			}
			switch order {
			case "random", "random-most-deleted":
				rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			case "descending":
				slices.Reverse(ids)
			}
			key := func(i int) []byte { return fmt.Appendf(nil, "k%08d", i) }
			for _, i := range ids {
				require.NoError(t, tr.Put(key(i), fmt.Appendf(nil, "value %d", i)))
			}
			deleted := map[string]bool{}
			gone := func(i int) bool { return i%3 == 0 }
			if order == "random-most-deleted" {
				gone = func(i int) bool { return i%50 != 0 } // rebalance merges split nodes
			}
			for _, i := range ids {
				if !gone(i) {
					continue
				}
				ok, err := tr.Delete(key(i))
				require.NoError(t, err)
				require.True(t, ok)
				deleted[string(key(i))] = true
			}
			requireNodesBounded(t, tr.rootNode)
			want := map[string]string{}
			for i := range n {
				if !deleted[string(key(i))] {
					want[string(key(i))] = fmt.Sprintf("value %d", i)
				}
			}
			// The transaction's own tree, split nodes and all, before it is written: a cursor
			// walks it in order (nodes split off have no page id), Last and Get find keys.
			requireTreeHolds(t, tr, want)
			last, _ := tr.Cursor().Last()
			require.Equal(t, slices.Max(slices.Collect(maps.Keys(want))), string(last))
			root, err := tr.Commit(1)
			require.NoError(t, err)

			requireTreeHolds(t, Open(pg, root, false), want)
			fill := leafFill(t, pg, root)
			minFill := 0.5
			if order == "random-most-deleted" {
				minFill = 0.25 // rebalance merges nodes under a quarter page, no fuller
			}
			require.Greater(t, fill, minFill)
		})
	}
}

// requireTreeHolds checks that a cursor walks exactly want's keys in order, with their values,
// and that Get finds each.
func requireTreeHolds(t *testing.T, tr *Tree, want map[string]string) {
	t.Helper()
	c := tr.Cursor()
	var prev []byte
	got := 0
	for k, v := c.First(); k != nil; k, v = c.Next() {
		require.Equal(t, want[string(k)], string(v), "%s", k)
		require.Negative(t, bytes.Compare(prev, k))
		prev = append(prev[:0], k...)
		got++
	}
	require.NoError(t, c.Err())
	require.Equal(t, len(want), got)
	for k, v := range want {
		got, ok, err := tr.Get([]byte(k))
		require.NoError(t, err)
		require.True(t, ok, k)
		require.Equal(t, v, string(got))
	}
}

// requireNodesBounded checks that no decoded node holds more than maxNodeElems elements and that
// every decoded child points back to its parent.
func requireNodesBounded(t *testing.T, n *node) {
	t.Helper()
	require.LessOrEqual(t, len(n.inodes), maxNodeElems)
	if n.leaf {
		return
	}
	for _, in := range n.inodes {
		if in.node != nil {
			require.Same(t, n, in.node.parent)
			requireNodesBounded(t, in.node)
		}
	}
}

// BenchmarkLargeTransaction puts keys in random order into an empty tree in one transaction and
// commits: the cost per key of a bulk load in one transaction.
//
//	go test -run '^$' -bench LargeTransaction -benchmem -count 6 ./btree
func BenchmarkLargeTransaction(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			keys := make([][]byte, n)
			for i, j := range rand.New(rand.NewPCG(5, 6)).Perm(n) {
				keys[i] = fmt.Appendf(nil, "k%08d", j)
			}
			val := []byte("a value of some twenty bytes")
			b.ResetTimer()
			for range max(b.N/n, 1) {
				pg := newPager(b, 4096)
				tr := Open(pg, 0, true)
				for _, k := range keys {
					if err := tr.Put(k, val); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := tr.Commit(1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEstimateLen checks the tree's size estimate against the true count: exact for one leaf,
// within a factor of two for trees built by random and by ascending commits, on pages and on
// decoded nodes (a writable tree with changes).
func TestEstimateLen(t *testing.T) {
	pg := newPager(t, 4096)
	empty := Open(pg, 0, false)
	n, err := empty.EstimateLen()
	require.NoError(t, err)
	require.Zero(t, n)
	for _, order := range []string{"random", "ascending"} {
		pg := newPager(t, 4096) // each order from LSN 1 on a pager of its own
		root, lsn := uint64(0), uint64(0)
		ids := rand.New(rand.NewPCG(7, 8)).Perm(40_000)
		if order == "ascending" {
			slices.Sort(ids)
		}
		count := 0
		for len(ids) > 0 {
			batch := ids[:min(len(ids), 500)]
			ids = ids[len(batch):]
			tr := Open(pg, root, true)
			for _, i := range batch {
				require.NoError(t, tr.Put(fmt.Appendf(nil, "k%08d", i), []byte("twenty bytes of value")))
			}
			count += len(batch)
			est, err := tr.EstimateLen() // decoded nodes
			require.NoError(t, err)
			requireWithin(t, count, est, order)
			lsn++
			root, err = tr.Commit(lsn)
			require.NoError(t, err)
			est, err = Open(pg, root, false).EstimateLen() // pages
			require.NoError(t, err)
			requireWithin(t, count, est, order)
			if count <= 100 {
				require.Equal(t, int64(count), est, "one leaf: exact")
			}
		}
	}
}

func requireWithin(t *testing.T, count int, est int64, what string) {
	t.Helper()
	require.GreaterOrEqual(t, est, int64(count/2), "%s: %d keys estimated %d", what, count, est)
	require.LessOrEqual(t, est, int64(count*2), "%s: %d keys estimated %d", what, count, est)
}

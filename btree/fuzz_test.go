package btree

import (
	"bytes"
	"testing"

	"github.com/cairndb/cairn/pager"
)

// FuzzValidate feeds arbitrary bytes as a tree page: Validate must never panic, and a page it
// accepts must be readable by every accessor without panicking.
func FuzzValidate(f *testing.F) {
	leaf, branch := seedPages()
	f.Add(leaf[:128])
	f.Add(branch[:128])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := make([]byte, 4096)
		copy(p, data)
		if Validate(2, p) != nil {
			return
		}
		for i := range pager.Count(p) {
			if pager.Type(p) == pager.PageLeaf {
				leafKey(p, i)
				leafValue(p, i)
			} else if pager.Type(p) == pager.PageBranch {
				branchKey(p, i)
				branchChild(p, i)
			}
		}
		if typ := pager.Type(p); typ == pager.PageLeaf || typ == pager.PageBranch {
			checkDecodeMatchesAccessors(t, p)
			warmElements(p) // stays inside the page
			checkSearchFindsEveryKey(t, p)
		}
	})
}

// checkDecodeMatchesAccessors checks that decodeNode reads every element of valid tree page p as
// the element accessors do.
func checkDecodeMatchesAccessors(t *testing.T, p []byte) {
	t.Helper()
	n := decodeNode(nil, 2, p, 4096, nil)
	n.materialize(nil)
	for i, in := range n.inodes {
		var want inode
		if n.leaf {
			want.key = leafKey(p, i)
			want.value, want.ovf, want.size = leafValue(p, i)
		} else {
			want.key, want.child = branchKey(p, i), branchChild(p, i)
		}
		if !bytes.Equal(in.key, want.key) || !bytes.Equal(in.value, want.value) || (in.value == nil) != (want.value == nil) ||
			in.ovf != want.ovf || in.size != want.size || in.child != want.child {
			t.Fatalf("element %d decoded as %+v, accessors say %+v", i, in, want)
		}
	}
}

// checkSearchFindsEveryKey checks that searching tree page p, valid, for each of its keys lands
// on that key's element: with prefixes, a prefix that disagreed with its key would not.
func checkSearchFindsEveryKey(t *testing.T, p []byte) {
	t.Helper()
	branch := pager.Type(p) == pager.PageBranch
	for i := range pager.Count(p) {
		k := elemKey(p, i, branch)
		if branch {
			if got := searchBranch(p, k); got != i {
				t.Fatalf("searchBranch(key %d = %q) = %d", i, k, got)
			}
		} else if got, ok := searchLeaf(p, k); got != i || !ok {
			t.Fatalf("searchLeaf(key %d = %q) = %d, %v", i, k, got, ok)
		}
	}
}

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
	f.Add(encodePlain(true, []string{"a", "b", "c"})[:128])
	f.Add(encodePlain(false, []string{"a", "m"})[:128])
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

// encodePlain writes a 4 KiB tree page in the layout of format versions 2 and 3 (16-byte
// elements, no key prefixes, header flags 0), with inline values equal to the keys in a leaf
// and child ids 3, 4, ... in a branch.
func encodePlain(leaf bool, keys []string) []byte {
	p := make([]byte, 4096)
	typ := byte(pager.PageBranch)
	if leaf {
		typ = pager.PageLeaf
	}
	pager.SetHeader(p, typ, len(keys), 4096, 1)
	off := pager.HeaderSize + len(keys)*elemSize
	for i, k := range keys {
		e := p[pager.HeaderSize+i*elemSize:]
		if leaf {
			le.PutUint32(e[4:], uint32(len(k)))
			le.PutUint32(e[8:], uint32(len(k)))
			le.PutUint32(e[12:], uint32(off))
			off += copy(p[off:], k)
			off += copy(p[off:], k)
		} else {
			le.PutUint32(e[0:], uint32(off))
			le.PutUint32(e[4:], uint32(len(k)))
			le.PutUint64(e[8:], uint64(3+i))
			off += copy(p[off:], k)
		}
	}
	return p
}

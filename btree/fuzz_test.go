package btree

import (
	"testing"

	"github.com/cairndb/cairn/pager"
)

// FuzzValidate feeds arbitrary bytes as a tree page: Validate must never panic, and a page it
// accepts must be readable by every accessor without panicking.
func FuzzValidate(f *testing.F) {
	leaf := make([]byte, 4096)
	encode(leaf, true, []inode{{key: []byte("a"), value: []byte("1")}, {key: []byte("b"), ovf: 7, size: 5000}}, 4096, 1)
	branch := make([]byte, 4096)
	encode(branch, false, []inode{{key: []byte("a"), child: 3}, {key: []byte("m"), child: 4}}, 4096, 1)
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
			decodeNode(2, p, 4096, nil)
		}
	})
}

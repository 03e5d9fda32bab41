package btree

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cairndb/cairn/pager"
	"github.com/stretchr/testify/require"
)

// prefixTestKeys returns distinct sorted keys that stress prefix comparisons: keys shorter than
// a prefix, keys that are proper prefixes of others, zero bytes where padding also puts zeros,
// 0xff bytes, and keys that share their first 8 bytes and differ after them (among them the
// largest prefix, eight 0xff bytes, which the branch-free search cannot step past).
func prefixTestKeys(rng *rand.Rand, n int) [][]byte {
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0x7f, 0x80, 0xff}
	seen := map[string]bool{}
	var keys [][]byte
	for len(keys) < n {
		var k []byte
		switch rng.IntN(6) {
		case 0, 1:
			k = append(k, "samepref"...) // equal 8-byte prefixes
		case 2:
			k = append(k, "\xff\xff\xff\xff\xff\xff\xff\xff"...) // the largest prefix
		}
		for range rng.IntN(11) {
			k = append(k, alphabet[rng.IntN(len(alphabet))])
		}
		if len(k) == 0 || seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		keys = append(keys, k)
	}
	slices.SortFunc(keys, bytes.Compare)
	return keys
}

// searchLeaf returns the index of the first key >= key in leaf page p and whether it is equal,
// as Get finds it.
func searchLeaf(p []byte, key []byte) (int, bool) {
	i := searchPage(p, key, false)
	return i, i < pager.Count(p) && bytes.Equal(leafKey(p, i), key)
}

// TestSearchPrefixedAgreesWithSortedSearch encodes sorted keys in a page and checks that
// searching it for present and absent keys gives the answer of a plain sorted search: keyPrefix
// must order keys exactly where prefixes differ.
func TestSearchPrefixedAgreesWithSortedSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for round := range 200 {
		keys := prefixTestKeys(rng, 1+rng.IntN(40))
		inodes := make([]inode, len(keys))
		for i, k := range keys {
			inodes[i] = inode{key: k, value: k, child: uint64(3 + i)}
		}
		for _, leaf := range []bool{true, false} {
			p := make([]byte, 4096)
			encode(p, leaf, inodes, 4096, 1)
			require.NoError(t, Validate(2, p))
			for _, probe := range append(prefixTestKeys(rng, 30), keys...) {
				want, found := slices.BinarySearchFunc(keys, probe, bytes.Compare)
				if leaf {
					i, ok := searchLeaf(p, probe)
					require.Equal(t, want, i, "round %d: leaf search for %q", round, probe)
					require.Equal(t, found, ok)
					continue
				}
				child := want - 1 // the last key <= probe, or child 0
				if found {
					child = want
				}
				require.Equal(t, max(child, 0), searchBranch(p, probe), "round %d: branch search for %q", round, probe)
			}
		}
	}
}

// TestValidateRejectsWrongPrefix flips one bit of a key prefix and of a header flag, and clears
// the key-prefix flag: a prefix that disagrees with its key would misdirect searches, and a tree
// page without prefixes is in no layout this build reads, so all are damage.
func TestValidateRejectsWrongPrefix(t *testing.T) {
	p := make([]byte, 4096)
	encode(p, true, []inode{{key: []byte("apple"), value: []byte("red")}, {key: []byte("kiwi"), value: []byte("green")}}, 4096, 1)
	require.NoError(t, Validate(2, p))
	bad := slices.Clone(p)
	bad[pager.HeaderSize+prefixedElemSize+7] ^= 1 // element 1's prefix, last byte
	require.ErrorContains(t, Validate(2, bad), "key prefix does not match")
	bad = slices.Clone(p)
	bad[5] |= 2
	require.ErrorContains(t, Validate(2, bad), "unknown header flags")
	bad = slices.Clone(p)
	bad[5] = 0
	require.ErrorContains(t, Validate(2, bad), "tree page without key prefixes (header flags 0x0)")
}

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

// TestSearchPrefixedAgreesWithPlain encodes the same sorted keys in both page layouts and
// checks that searching either for present and absent keys gives the answer of a plain sorted
// search: keyPrefix must order keys exactly where prefixes differ.
func TestSearchPrefixedAgreesWithPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for round := range 200 {
		keys := prefixTestKeys(rng, 1+rng.IntN(40))
		strs := make([]string, len(keys))
		inodes := make([]inode, len(keys))
		for i, k := range keys {
			strs[i] = string(k)
			inodes[i] = inode{key: k, value: k, child: uint64(3 + i)}
		}
		for _, leaf := range []bool{true, false} {
			prefixedPage := make([]byte, 4096)
			encode(prefixedPage, leaf, inodes, 4096, 1)
			plainPage := encodePlain(leaf, strs)
			require.NoError(t, Validate(2, prefixedPage))
			require.NoError(t, Validate(2, plainPage))
			require.True(t, prefixed(prefixedPage))
			require.False(t, prefixed(plainPage))
			for _, probe := range append(prefixTestKeys(rng, 30), keys...) {
				want, found := slices.BinarySearchFunc(keys, probe, bytes.Compare)
				for _, p := range [][]byte{prefixedPage, plainPage} {
					if leaf {
						i, ok := searchLeaf(p, probe)
						require.Equal(t, want, i, "round %d: leaf search for %q (prefixed %v)", round, probe, prefixed(p))
						require.Equal(t, found, ok)
						continue
					}
					child := want - 1 // the last key <= probe, or child 0
					if found {
						child = want
					}
					require.Equal(t, max(child, 0), searchBranch(p, probe), "round %d: branch search for %q (prefixed %v)", round, probe, prefixed(p))
				}
			}
		}
	}
}

// TestValidateRejectsWrongPrefix flips one bit of a key prefix and of a header flag: a prefix
// that disagrees with its key would misdirect searches, so both are damage.
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
}

package btree

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeekFromLeafAgreesWithDescent checks Seek on a positioned cursor, which searches its leaf
// page alone when the key lies inside it, against Seek on a new cursor, which descends from the
// root: keys present and absent, near the last one (mostly in the same leaf), before it, at the
// leaf's ends, past the last key, and on a writable tree after a Put.
func TestSeekFromLeafAgreesWithDescent(t *testing.T) {
	pg := newPager(t, 4096)
	tr := Open(pg, 0, true)
	for i := range 20_000 {
		require.NoError(t, tr.Put(fmt.Appendf(nil, "k%06d", i*3), fmt.Appendf(nil, "v%d", i)))
	}
	root, err := tr.Commit(1)
	require.NoError(t, err)
	tr = Open(pg, root, true)
	rng := rand.New(rand.NewPCG(1, 2))
	c := tr.Cursor()
	at := 0
	for n := range 20_000 {
		switch r := rng.IntN(10); {
		case r < 6:
			at += rng.IntN(40) // forward, nearby
		case r < 8:
			at -= rng.IntN(400) // backward
		default:
			at = rng.IntN(60_010) // anywhere, past the last key too
		}
		at = max(at, 0)
		if n%1000 == 999 { // a change next to the cursor: it must descend again
			require.NoError(t, tr.Put(fmt.Appendf(nil, "k%06d", at+1), []byte("new")))
		}
		key := fmt.Appendf(nil, "k%06d", at)
		wk, wv := tr.Cursor().Seek(key)
		k, v := c.Seek(key)
		require.Equal(t, string(wk), string(k), "seek %s", key)
		require.Equal(t, string(wv), string(v), "seek %s", key)
		if k == nil {
			continue
		}
		wk, _ = tr.Cursor().Seek(append(append([]byte(nil), k...), 0))
		k, _ = c.Next()
		require.Equal(t, string(wk), string(k), "next after %s", key)
	}
	require.NoError(t, c.Err())
}

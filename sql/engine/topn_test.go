package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTopNSort checks that ORDER BY with LIMIT and OFFSET, sorted by the top-N sort, returns
// exactly the rows of the full stable sort between OFFSET and OFFSET + LIMIT, ties in the same
// order, for limits below, at and above the row count.
func TestTopNSort(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t(a, b, c)")
	rng := rand.New(rand.NewPCG(5, 5))
	vals := []string{"NULL", "1", "1.0", "2", "'x'", "'X'", "x'01'", "-7.5"}
	for i := 0; i < 300; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO t VALUES (%s, %s, %d)", vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))], i))
	}
	for _, order := range []string{"a", "a DESC", "a COLLATE NOCASE, b DESC", "b NULLS LAST, a", "c % 7"} {
		full := query(t, s, "SELECT * FROM t ORDER BY "+order)
		require.Len(t, full, 300)
		for _, lim := range []int{0, 1, 5, 299, 300, 1000} {
			for _, off := range []int{0, 3, 298, 400} {
				q := fmt.Sprintf("SELECT * FROM t ORDER BY %s LIMIT %d OFFSET %d", order, lim, off)
				want := full[min(off, 300):min(off+lim, 300)]
				got := query(t, s, q)
				if len(want) == 0 {
					require.Empty(t, got, q)
					continue
				}
				require.Equal(t, want, got, q)
			}
		}
	}
}

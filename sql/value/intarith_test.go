package value

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntArithIsArith checks that IntArith gives Arith's INTEGER results and declines exactly
// where Arith's result is not an INTEGER.
func TestIntArithIsArith(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -2, 3, 7, 63, 64, 65, -63, -64, -65, 1000, -1000, 1 << 32,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 62, -(1 << 62)}
	r := rand.New(rand.NewSource(1))
	pick := func() int64 {
		if r.Intn(2) == 0 {
			return edges[r.Intn(len(edges))]
		}
		return r.Int63() >> uint(r.Intn(63)) * int64(1-2*r.Intn(2))
	}
	for i := 0; i < 200000; i++ {
		op := Op(r.Intn(int(OpShiftRight) + 1))
		x, y := pick(), pick()
		want := Arith(op, Int(x), Int(y))
		got, ok := IntArith(op, x, y)
		require.Equal(t, want.Kind() == Integer, ok, "%d %d %d", op, x, y)
		if ok {
			require.Equal(t, want.Int(), got, "%d %d %d", op, x, y)
		}
	}
}

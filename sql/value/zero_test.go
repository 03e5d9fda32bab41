package value

import (
	"math"
	"testing"
)

// negZero is the REAL -0.0.
var negZero = Float(math.Copysign(0, -1))

// TestNegateIsZeroMinus: SQLite computes -x as 0 - x (OP_Subtract from the integer 0), so -0.0 and
// -(0.0) computed at run time are 0.0, not -0.0 (SQLite 3.54.1: SELECT -CAST(0 AS REAL), -(-0.0)).
func TestNegateIsZeroMinus(t *testing.T) {
	for _, c := range []struct{ in, want Value }{
		{Float(0), Float(0)},
		{negZero, Float(0)},
		{Float(1.5), Float(-1.5)},
		{Float(-1.5), Float(1.5)},
		{Int(0), Int(0)},
		{Int(5), Int(-5)},
		{Int(math.MinInt64), Float(9223372036854775808.0)},
		{TextString("0.0"), Float(0)},
		{TextString("-0.0"), Float(0)},
		{TextString("abc"), Int(0)},
		{NullValue(), NullValue()},
	} {
		if got := Negate(c.in); !same(got, c.want) {
			t.Errorf("-(%v) = %v (bits %x), SQLite %v", c.in, got, got.bits, c.want)
		}
	}
}

package value

import "testing"

// TestRealAffinityStoresNegativeZeroAsZero: a column of REAL affinity stores a REAL without a
// fractional part as an integer (datatype3.html §3: "small floating point values with no
// fractional component ... are written to disk as integers"), so -0.0 reads back as 0.0; a
// column without affinity keeps -0.0 (SQLite 3.54.1).
func TestRealAffinityStoresNegativeZeroAsZero(t *testing.T) {
	for _, c := range []struct {
		aff     Affinity
		in, out Value
	}{
		{AffinityReal, negZero, Float(0)},
		{AffinityReal, TextString("-0.0"), Float(0)},
		{AffinityReal, Float(-2.5), Float(-2.5)},
		{AffinityBlob, negZero, negZero},
		{AffinityNumeric, negZero, Int(0)},
		{AffinityInteger, negZero, Int(0)},
		{AffinityText, negZero, TextString("0.0")},
	} {
		if got := c.aff.Apply(c.in); !same(got, c.out) {
			t.Errorf("%v affinity stores %v as %v (bits %x), SQLite %v", c.aff, c.in, got, got.bits, c.out)
		}
	}
}

package value

import "testing"

// TestNumericTextEndsAtNUL: SQLite reads numeric text up to its first NUL: a column of numeric
// affinity stores '5\x00x' as 5 and ' 1e3\x00' as 1000, a comparison with numeric affinity
// converts the same way; arithmetic takes such a text as a REAL ('5\x00' + 0 is 5.0), and a text
// whose part before the NUL is not a number as it takes any other ('5x\x00' + 0 is 5)
// (SQLite 3.54.1).
func TestNumericTextEndsAtNUL(t *testing.T) {
	text := func(s string) Value { return TextString(s) }
	for _, c := range []struct {
		aff     Affinity
		in, out Value
	}{
		{AffinityInteger, text("5\x00"), Int(5)},
		{AffinityInteger, text(" 5\x00"), Int(5)},
		{AffinityInteger, text("5x\x00"), text("5x\x00")},
		{AffinityReal, text("5 \x00"), Float(5)},
		{AffinityReal, text("1e3\x00"), Float(1000)},
		{AffinityNumeric, text("+7\x00"), Int(7)},
		{AffinityNumeric, text("\x00"), text("\x00")},
		{AffinityNumeric, text("5\x005"), Int(5)},
	} {
		if got := c.aff.Apply(c.in); !same(got, c.out) {
			t.Errorf("%v affinity stores %q as %v, SQLite %v", c.aff, c.in.Bytes(), got, c.out)
		}
	}
	for _, c := range []struct{ in, want Value }{
		{text("5\x00"), Float(5)},
		{text("5\x00x"), Float(5)},
		{text("\x00"), Int(0)},
		{text("5x\x00"), Int(5)},
		{text("5.5\x00"), Float(5.5)},
		{text(" 5\x00"), Float(5)},
		{text("5 \x00"), Float(5)},
		{text("x\x00"), Int(0)},
		{text("5\x005"), Float(5)},
		{BlobBytes([]byte("5\x00")), Float(5)},
	} {
		if got := Arith(OpAdd, c.in, Int(0)); !same(got, c.want) {
			t.Errorf("%q + 0 = %v, SQLite %v", c.in.Bytes(), got, c.want)
		}
	}
}

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

// TestMustBeInt: a rowid, LIMIT or OFFSET must be an integer, as SQLite's OP_MustBeInt converts
// it: a REAL without a fractional part in the int64 range, -2^63 included (which a column of
// INTEGER affinity keeps as a REAL), or a text that NUMERIC affinity makes an INTEGER
// (SQLite 3.54.1).
func TestMustBeInt(t *testing.T) {
	for _, c := range []struct {
		in   Value
		want int64
		ok   bool
	}{
		{Int(5), 5, true},
		{Float(2), 2, true},
		{Float(-9223372036854775808.0), -9223372036854775808, true},
		{Float(9223372036854775808.0), 0, false},
		{Float(2.5), 0, false},
		{TextString(" 7 "), 7, true},
		{TextString("7.0"), 7, true},
		{TextString("-9223372036854775808"), -9223372036854775808, true},
		{TextString("-9223372036854775808.0"), 0, false},
		{TextString("abc"), 0, false},
		{BlobBytes([]byte("7")), 0, false},
		{NullValue(), 0, false},
	} {
		got, ok := MustBeInt(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("MustBeInt(%v) = %d, %v; SQLite %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestBigIntegerTextBeforeNUL: before a NUL, SQLite takes an integer literal for an integer only
// within ±2^51, where the REAL it parsed is exact; beyond, it is that REAL, which INTEGER and
// NUMERIC affinity store as the integer it equals, if in range (SQLite 3.54.1).
func TestBigIntegerTextBeforeNUL(t *testing.T) {
	text := func(s string) Value { return TextString(s) }
	for _, c := range []struct {
		aff     Affinity
		in, out Value
	}{
		{AffinityInteger, text("-922337203685477580\x00"), Int(-922337203685477632)},
		{AffinityInteger, text("-9223372036854775807\x00"), Float(-9223372036854775808)},
		{AffinityNumeric, text("9223372036854775806\x00"), Float(9223372036854775808)},
		{AffinityNumeric, text("2251799813685247\x00"), Int(2251799813685247)},
		{AffinityNumeric, text("-2251799813685248\x00"), Int(-2251799813685248)},
		{AffinityNumeric, text("2251799813685249\x00"), Int(2251799813685249)},
		{AffinityInteger, text("-922337203685477580"), Int(-922337203685477580)},
	} {
		if got := c.aff.Apply(c.in); !same(got, c.out) {
			t.Errorf("%v affinity stores %q as %v, SQLite %v", c.aff, c.in.Bytes(), got, c.out)
		}
	}
	if got := AffinityInteger.ApplyForCompare(text("-9223372036854775807\x00")); !same(got, Float(-9223372036854775808)) {
		t.Errorf("comparison affinity gives %v, SQLite -9.223372036854776e+18", got)
	}
}

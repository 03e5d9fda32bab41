package value

import (
	"bytes"
	"math"
	"testing"
)

// same reports whether two values are identical: same class, same bits or bytes.
func same(a, b Value) bool {
	return a.kind == b.kind && a.bits == b.bits && bytes.Equal(a.b, b.b)
}

// conversionCases were produced by SQLite 3.54.1 (modernc.org/sqlite v1.61.1): for each input x,
// SELECT CAST(x AS INTEGER), CAST(x AS REAL), CAST(x AS NUMERIC), x+0, CASE WHEN x THEN 1 ELSE 0 END.
var conversionCases = []struct {
	in, asInt, asReal, asNumeric, plusZero Value
	truth                                  bool
}{
	{TextString("12abc"), Int(12), Float(12), Int(12), Int(12), true},
	{TextString("1e5"), Int(1), Float(100000), Int(100000), Float(100000), true},
	{TextString(" 12 "), Int(12), Float(12), Int(12), Int(12), true},
	{TextString("abc"), Int(0), Float(0), Int(0), Int(0), false},
	{TextString("3.5x"), Int(3), Float(3.5), Float(3.5), Float(3.5), true},
	{TextString("0x10"), Int(0), Float(0), Int(0), Int(0), false},
	{TextString("-0"), Int(0), Float(math.Copysign(0, -1)), Int(0), Int(0), false},
	{TextString("1.0"), Int(1), Float(1), Int(1), Float(1), true},
	{TextString("9223372036854775807"), Int(9223372036854775807), Float(9.223372036854776e+18), Int(9223372036854775807), Int(9223372036854775807), true},
	{TextString("9223372036854775808"), Int(9223372036854775807), Float(9.223372036854776e+18), Float(9.223372036854776e+18), Float(9.223372036854776e+18), true},
	{TextString("-9223372036854775808"), Int(-9223372036854775808), Float(-9.223372036854776e+18), Int(-9223372036854775808), Int(-9223372036854775808), true},
	{TextString("1e20"), Int(1), Float(1e+20), Float(1e+20), Float(1e+20), true},
	{TextString("  -7.5e-3  "), Int(-7), Float(-0.0075), Float(-0.0075), Float(-0.0075), true},
	{TextString(".5"), Int(0), Float(0.5), Float(0.5), Float(0.5), true},
	{TextString("5."), Int(5), Float(5), Int(5), Float(5), true},
	{TextString("."), Int(0), Float(0), Int(0), Int(0), false},
	{TextString("+"), Int(0), Float(0), Int(0), Int(0), false},
	{TextString(""), Int(0), Float(0), Int(0), Int(0), false},
	{TextString("1e"), Int(1), Float(1), Int(1), Int(1), true},
	{TextString("1e+"), Int(1), Float(1), Int(1), Int(1), true},
	{TextString("12e1x"), Int(12), Float(120), Int(120), Float(120), true},
	{BlobBytes([]byte{49, 50}), Int(12), Float(12), Int(12), Int(12), true},
	{TextString("  "), Int(0), Float(0), Int(0), Int(0), false},
	{TextString("1 2"), Int(1), Float(1), Int(1), Int(1), true},
	{TextString("00012"), Int(12), Float(12), Int(12), Int(12), true},
	{TextString("1e999"), Int(1), Float(math.Inf(1)), Float(math.Inf(1)), Float(math.Inf(1)), true},
	{TextString("-1e999"), Int(-1), Float(math.Inf(-1)), Float(math.Inf(-1)), Float(math.Inf(-1)), true},
	{TextString("2251799813685248"), Int(2251799813685248), Float(2.251799813685248e+15), Int(2251799813685248), Int(2251799813685248), true},
	{TextString("4503599627370496.0"), Int(4503599627370496), Float(4.503599627370496e+15), Float(4.503599627370496e+15), Float(4.503599627370496e+15), true},
	{Int(0), Int(0), Float(0), Int(0), Int(0), false},
	{Float(math.Copysign(0, -1)), Int(0), Float(math.Copysign(0, -1)), Float(math.Copysign(0, -1)), Float(0), false},
	{Float(1.5), Int(1), Float(1.5), Float(1.5), Float(1.5), true},
	{Float(-1.5), Int(-1), Float(-1.5), Float(-1.5), Float(-1.5), true},
	{Int(9223372036854775807), Int(9223372036854775807), Float(9.223372036854776e+18), Int(9223372036854775807), Int(9223372036854775807), true},
	{Int(-9223372036854775808), Int(-9223372036854775808), Float(-9.223372036854776e+18), Int(-9223372036854775808), Int(-9223372036854775808), true},
	{Float(1e+19), Int(9223372036854775807), Float(1e+19), Float(1e+19), Float(1e+19), true},
	{Float(-1e+19), Int(-9223372036854775808), Float(-1e+19), Float(-1e+19), Float(-1e+19), true},
	{Float(2.5e+15), Int(2500000000000000), Float(2.5e+15), Float(2.5e+15), Float(2.5e+15), true},
	{NullValue(), NullValue(), NullValue(), NullValue(), NullValue(), false},
}

func TestConversionsMatchSQLite(t *testing.T) {
	for _, c := range conversionCases {
		if c.in.IsNull() {
			continue // CAST(NULL AS ...) is NULL: the engine handles NULL before converting
		}
		if got := Int(ToInt(c.in)); !same(got, c.asInt) {
			t.Errorf("CAST(%v AS INTEGER) = %v, SQLite %v", c.in, got, c.asInt)
		}
		if got := Float(ToFloat(c.in)); !same(got, c.asReal) {
			t.Errorf("CAST(%v AS REAL) = %v, SQLite %v", c.in, got, c.asReal)
		}
		if got := ToNumeric(c.in); !same(got, c.asNumeric) {
			t.Errorf("CAST(%v AS NUMERIC) = %v, SQLite %v", c.in, got, c.asNumeric)
		}
		if got := Arith(OpAdd, c.in, Int(0)); !same(got, c.plusZero) {
			t.Errorf("%v+0 = %v, SQLite %v", c.in, got, c.plusZero)
		}
		if got, _ := Truth(c.in); got != c.truth {
			t.Errorf("truth of %v = %v, SQLite %v", c.in, got, c.truth)
		}
	}
}

var _ = math.Inf

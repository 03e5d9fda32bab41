package value

import "testing"

// TestRemainderOfNumericText: when either operand of % is not an INTEGER, SQLite takes the
// integer value of each operand as CAST(x AS INTEGER) does, from the operand itself: a text's
// integer prefix ('1e3' is 1), not the integer part of the number it denotes (SQLite 3.54.1).
func TestRemainderOfNumericText(t *testing.T) {
	for _, c := range []struct{ a, b, want Value }{
		{Int(-256), TextString("1.0e-05"), Float(0)},
		{Int(7), TextString("2.5x"), Float(1)},
		{TextString("7.9"), Int(2), Float(1)},
		{TextString("1e3"), Int(7), Float(1)},
		{Float(1000), Int(7), Float(6)},
		{BlobBytes([]byte("1e3")), Int(7), Float(1)},
		{TextString("12"), TextString("5"), Int(2)},
		{TextString(" 12 "), Int(5), Int(2)},
		{TextString("1.5"), TextString("0.5"), NullValue()},
		{Int(-256), Float(1e-5), NullValue()},
	} {
		if got := Arith(OpRem, c.a, c.b); !same(got, c.want) {
			t.Errorf("%v %% %v = %v, SQLite %v", c.a, c.b, got, c.want)
		}
	}
}

package value

import "math"

// Op is a binary arithmetic or bitwise operator.
type Op uint8

// The operators of Arith.
const (
	OpAdd Op = iota
	OpSub
	OpMul
	OpDiv
	OpRem
	OpBitAnd
	OpBitOr
	OpShiftLeft
	OpShiftRight
)

// Arith returns a op b with SQLite's rules: NULL if either operand is NULL; operands that are
// TEXT or BLOB converted by their numeric prefix; INTEGER arithmetic when both are integers,
// REAL on overflow ("integer overflow to REAL"); division and remainder by zero give NULL;
// integer division truncates toward zero; % with a REAL (or a text that is not an integer) works
// on the operands' integer values, as CAST(x AS INTEGER) finds them, and gives a REAL; a NaN
// result is NULL. The bitwise operators work on the operands' integer values.
func Arith(op Op, a, b Value) Value {
	if a.kind == Integer && b.kind == Integer && op < OpBitAnd {
		if v, ok := intArith(op, int64(a.bits), int64(b.bits)); ok {
			return v // the common case, without converting operands
		}
	}
	if a.kind == Null || b.kind == Null {
		return Value{}
	}
	if op >= OpBitAnd {
		return bitwise(op, ToInt(a), ToInt(b))
	}
	origA, origB := a, b
	a, b = arithmeticOperand(a), arithmeticOperand(b)
	if a.kind == Integer && b.kind == Integer {
		if v, ok := intArith(op, int64(a.bits), int64(b.bits)); ok {
			return v
		}
	}
	x, y := a.Float(), b.Float()
	var r float64
	switch op {
	case OpAdd:
		r = x + y
	case OpSub:
		r = x - y
	case OpMul:
		r = x * y
	case OpDiv:
		if y == 0 {
			return Value{}
		}
		r = x / y
	case OpRem:
		// SQLite's OP_Remainder takes the integer value of each operand as it is (a text's
		// integer prefix: '1e3' is 1), not of the number computed above.
		ia, ib := ToInt(origA), ToInt(origB)
		if ib == 0 {
			return Value{}
		}
		if ib == -1 {
			ib = 1
		}
		r = float64(ia % ib)
	}
	return Float(r) // NaN becomes NULL
}

// intArith is Arith on two integers; ok is false when the result must be computed as a REAL.
func intArith(op Op, x, y int64) (Value, bool) {
	switch op {
	case OpAdd:
		s := x + y
		if (s > x) != (y > 0) {
			return Value{}, false
		}
		return Int(s), true
	case OpSub:
		d := x - y
		if (d < x) != (y > 0) {
			return Value{}, false
		}
		return Int(d), true
	case OpMul:
		p := x * y
		if x != 0 && (p/x != y || x == -1 && y == math.MinInt64 || y == -1 && x == math.MinInt64) {
			return Value{}, false
		}
		return Int(p), true
	case OpDiv:
		if y == 0 {
			return Value{}, true
		}
		if y == -1 && x == math.MinInt64 {
			return Value{}, false
		}
		return Int(x / y), true
	case OpRem:
		if y == 0 {
			return Value{}, true
		}
		if y == -1 {
			y = 1
		}
		return Int(x % y), true
	}
	return Value{}, false
}

// IntArith is Arith on two INTEGERs where its result is an INTEGER, without building Values:
// ok is false where it is not (NULL for a division or remainder by zero, a REAL on overflow),
// and the caller uses Arith.
func IntArith(op Op, x, y int64) (r int64, ok bool) {
	switch op {
	case OpAdd:
		s := x + y
		return s, (s > x) == (y > 0)
	case OpSub:
		d := x - y
		return d, (d < x) == (y > 0)
	case OpMul:
		p := x * y
		return p, x == 0 || p/x == y && !(x == -1 && y == math.MinInt64 || y == -1 && x == math.MinInt64)
	case OpDiv:
		if y == 0 || y == -1 && x == math.MinInt64 {
			return 0, false
		}
		return x / y, true
	case OpRem:
		if y == 0 {
			return 0, false
		}
		if y == -1 {
			y = 1
		}
		return x % y, true
	}
	return bitwiseInt(op, x, y), true
}

// bitwise applies a bitwise operator to two integers; a negative shift shifts the other way,
// and shifting by 64 or more gives 0 (or -1 for a right shift of a negative number).
func bitwise(op Op, x, y int64) Value { return Int(bitwiseInt(op, x, y)) }

func bitwiseInt(op Op, x, y int64) int64 {
	switch op {
	case OpBitAnd:
		return x & y
	case OpBitOr:
		return x | y
	}
	left := op == OpShiftLeft
	if y < 0 {
		left, y = !left, -y
		if y < 0 { // -MinInt64
			y = 64
		}
	}
	switch {
	case y >= 64 && left, y >= 64 && x >= 0:
		return 0
	case y >= 64:
		return -1
	case left:
		return int64(uint64(x) << uint(y))
	}
	return x >> uint(y)
}

// Negate returns -v as SQLite computes it, 0 - v: NULL for NULL, a REAL for the negation of the
// smallest INTEGER, numbers for numeric text, 0.0 (not -0.0) for a REAL zero. (SQLite negates a
// REAL literal exactly: -0.0 written so is -0.0; the binder does that.)
func Negate(v Value) Value {
	v = arithmeticOperand(v)
	switch v.kind {
	case Integer:
		if int64(v.bits) == math.MinInt64 {
			return Float(-float64(math.MinInt64))
		}
		return Int(-int64(v.bits))
	case Real:
		return Float(0 - v.Float())
	}
	return Value{}
}

// BitNot returns ~v on v's integer value, NULL for NULL.
func BitNot(v Value) Value {
	if v.kind == Null {
		return Value{}
	}
	return Int(^ToInt(v))
}

// Concat returns a || b: NULL if either is NULL, else the text of both, appended to dst's
// storage (dst may be nil).
func Concat(dst []byte, a, b Value) Value {
	if a.kind == Null || b.kind == Null {
		return Value{}
	}
	dst = a.AppendText(dst[:0])
	return TextBytes(b.AppendText(dst))
}

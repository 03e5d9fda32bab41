package value

// Conversions between text and numbers, with SQLite's rules (sqlite3AtoF, sqlite3Atoi64 and the
// VDBE's conversions in the SQLite sources; lang_expr.html "CAST expressions").

import (
	"bytes"
	"math"
	"strconv"
)

// realScan is what scanning a text for a real number found.
type realScan struct {
	f        float64
	digits   bool // at least one digit in the mantissa
	complete bool // the whole text is the number (but leading and trailing whitespace)
	pointOrE bool // the number (or its longest prefix) has a decimal point or an exponent
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '\v'
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanReal scans b as SQLite's sqlite3AtoF does: leading whitespace, a sign, digits, a decimal
// point and digits, an exponent (ignored, with what follows, when it has no digits), trailing
// whitespace. The value is that of the longest numeric prefix, correctly rounded.
func scanReal(b []byte) realScan {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	var s realScan
	for i < len(b) && isDigit(b[i]) {
		i++
		s.digits = true
	}
	if i < len(b) && b[i] == '.' {
		i++
		s.pointOrE = true
		for i < len(b) && isDigit(b[i]) {
			i++
			s.digits = true
		}
	}
	if !s.digits {
		return realScan{}
	}
	end := i
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j < len(b) && isDigit(b[j]) {
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			end, i = j, j
			s.pointOrE = true
		}
	}
	s.f, _ = strconv.ParseFloat(string(b[start:end]), 64) // ErrRange still gives ±Inf or 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	s.complete = i == len(b)
	return s
}

// intScan results, as sqlite3Atoi64 returns them.
const (
	intNoDigits   = -1 // not even a prefix is an integer
	intOK         = 0  // the whole text (but whitespace) is an integer that fits in an int64
	intExtraText  = 1  // an integer followed by other text
	intOverflow   = 2  // too large for an int64 (clamped)
	intPow63Exact = 3  // exactly 9223372036854775808 (fits only negated)
)

// scanInt scans b as SQLite's sqlite3Atoi64 does: leading whitespace, a sign, decimal digits;
// the result is clamped to the int64 range. It returns the value and one of the int* codes.
func scanInt(b []byte) (int64, int) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	for i < len(b) && b[i] == '0' {
		i++
	}
	digitsStart := i
	var u uint64
	overflow := false
	for i < len(b) && isDigit(b[i]) {
		d := uint64(b[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
		i++
	}
	nDigits := i - digitsStart
	if i == start {
		return 0, intNoDigits
	}
	rc := intOK
	for j := i; j < len(b); j++ {
		if !isSpace(b[j]) {
			rc = intExtraText
			break
		}
	}
	switch {
	case overflow || nDigits > 19 || u > 1<<63:
		if neg {
			return math.MinInt64, intOverflow
		}
		return math.MaxInt64, intOverflow
	case u == 1<<63:
		if neg {
			return math.MinInt64, rc
		}
		return math.MaxInt64, intPow63Exact
	case neg:
		return -int64(u), rc
	}
	return int64(u), rc
}

// realToInt converts f to an int64 as SQLite does (sqlite3RealToI64): truncated toward zero,
// clamped to the int64 range, NaN to 0.
func realToInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f < -9223372036854775808.0:
		return math.MinInt64
	case f >= 9223372036854775808.0:
		return math.MaxInt64
	}
	return int64(f)
}

// realIsInt reports whether f is an integer that fits in an int64, other than its two extremes
// (SQLite's rule for storing a REAL as an INTEGER), and returns it.
func realIsInt(f float64) (int64, bool) {
	i := realToInt(f)
	return i, float64(i) == f && i > math.MinInt64 && i < math.MaxInt64
}

// ToInt returns v as an INTEGER the way CAST(v AS INTEGER) computes it: a REAL truncated toward
// zero and clamped, a TEXT or BLOB by the longest integer prefix of its text ('12abc' is 12,
// '1e5' is 1, 'abc' is 0), NULL as 0.
func ToInt(v Value) int64 {
	switch v.kind {
	case Integer:
		return int64(v.bits)
	case Real:
		return realToInt(math.Float64frombits(v.bits))
	case Text, Blob:
		i, _ := scanInt(v.b)
		return i
	}
	return 0
}

// ToFloat returns v as a REAL the way CAST(v AS REAL) computes it: a TEXT or BLOB by its longest
// numeric prefix ('1e5x' is 100000.0), NULL as 0.
func ToFloat(v Value) float64 {
	switch v.kind {
	case Integer:
		return float64(int64(v.bits))
	case Real:
		return math.Float64frombits(v.bits)
	case Text, Blob:
		return scanReal(v.b).f
	}
	return 0
}

// ToNumeric returns v as CAST(v AS NUMERIC) does: numbers unchanged; a TEXT or BLOB as the
// INTEGER or REAL of its longest numeric prefix: an INTEGER when that prefix has no decimal point
// or exponent and fits, or when the real it denotes is an integer below 2^51 in magnitude
// ('12abc' is 12, '1.0' is 1, '3.5x' is 3.5, 'abc' is 0, '1e20' is 1.0e+20); NULL stays NULL.
func ToNumeric(v Value) Value {
	if v.kind != Text && v.kind != Blob {
		return v
	}
	s := scanReal(v.b)
	if !s.pointOrE {
		if i, rc := scanInt(v.b); rc <= intExtraText {
			return Int(i)
		}
	}
	if i, ok := realSameAsInt(s.f); ok {
		return Int(i)
	}
	return Float(s.f)
}

// realSameAsInt reports whether f is an integer of magnitude below 2^51 (or zero), and returns
// it: SQLite's rule for CAST(... AS NUMERIC) and for numeric text that is also an integer.
func realSameAsInt(f float64) (int64, bool) {
	i := realToInt(f)
	return i, f == 0 || float64(i) == f && i > -(1<<51) && i < 1<<51
}

// arithmeticOperand returns v as a number for arithmetic: numbers as they are, NULL as NULL, a
// TEXT or BLOB by its longest numeric prefix, an INTEGER when that prefix is an integer that fits
// ('3abc' is 3, 'abc' is 0, '3.5x' is 3.5). It is SQLite's computeNumericType.
func arithmeticOperand(v Value) Value {
	if v.kind != Text && v.kind != Blob {
		return v
	}
	// A text that is a number up to its first NUL is taken as a REAL (SQLite 3.54: '5\x00' + 0
	// is 5.0); otherwise the NUL is just a character that is not part of a number.
	if i := bytes.IndexByte(v.b, 0); i >= 0 {
		if n, ok := ParseNumericText(v.b[:i], false); ok {
			return Float(n.Float())
		}
	}
	s := scanReal(v.b)
	switch {
	case !s.complete || !s.digits:
		if !s.pointOrE {
			if i, rc := scanInt(v.b); rc <= intExtraText {
				return Int(i)
			}
		}
		return Float(s.f)
	case !s.pointOrE:
		if i, rc := scanInt(v.b); rc == intOK {
			return Int(i)
		}
	}
	return Float(s.f)
}

// Truth returns v's truth value in a WHERE clause, CASE WHEN or a logical operator: NULL is
// unknown (ok false), a number is true when not zero, a TEXT or BLOB when its numeric prefix is
// not zero ('1x' is true, 'abc' false).
func Truth(v Value) (truth, ok bool) {
	switch v.kind {
	case Null:
		return false, false
	case Integer:
		return v.bits != 0, true
	}
	return ToFloat(v) != 0, true
}

// ParseNumericText converts b to a number if it is a well-formed integer or real literal, with
// optional leading and trailing whitespace, as NUMERIC affinity requires (SQLite reads b up to
// its first NUL): an INTEGER for an integer literal that fits in an int64, a REAL otherwise (ok
// false if b is not such a literal). With intIfExact, a REAL that is an integer in range becomes
// that INTEGER ('1.0', '1e3'), as NUMERIC and INTEGER affinity store it.
func ParseNumericText(b []byte, intIfExact bool) (Value, bool) {
	nul := bytes.IndexByte(b, 0)
	if nul >= 0 {
		b = b[:nul] // SQLite reads the text as a C string: what follows a NUL is not looked at
	}
	s := scanReal(b)
	if !s.complete || !s.digits {
		return Value{}, false
	}
	if !s.pointOrE {
		// With a NUL after it, SQLite takes an integer for one only within ±2^51, where the
		// REAL it parsed is exact (alsoAnInt: sqlite3Atoi64 of the whole text sees the NUL as
		// a character that is not part of the number); beyond, it is that REAL.
		if i, rc := scanInt(b); rc == intOK && (nul < 0 || i >= -1<<51 && i < 1<<51) {
			return Int(i), true
		}
	}
	if intIfExact {
		if i, ok := realIsInt(s.f); ok {
			return Int(i), true
		}
	}
	return Float(s.f), true
}

package value

import (
	"bytes"
	"math"
	"strings"
)

// Collation orders TEXT values. The built-in collations are BINARY (byte order of the UTF-8
// text), NOCASE (ASCII letters folded to lower case) and RTRIM (trailing spaces ignored), as in
// SQLite (datatype3.html §7).
type Collation uint8

// The built-in collations.
const (
	Binary Collation = iota
	NoCase
	RTrim
)

// String returns the collation's name.
func (c Collation) String() string { return [...]string{"BINARY", "NOCASE", "RTRIM"}[c] }

// CollationByName returns the built-in collation called name (any case), or false.
func CollationByName(name string) (Collation, bool) {
	switch strings.ToUpper(name) {
	case "BINARY":
		return Binary, true
	case "NOCASE":
		return NoCase, true
	case "RTRIM":
		return RTrim, true
	}
	return 0, false
}

// CompareText compares two texts under collation c: negative, zero or positive.
func (c Collation) CompareText(a, b []byte) int {
	switch c {
	case NoCase:
		// As SQLite's sqlite3StrNICmp: the comparison stops at a NUL byte both texts have at the
		// same place, and the lengths decide (so "ab\x00x" equals "AB\x00y").
		n := min(len(a), len(b))
		for i := 0; i < n; i++ {
			x, y := lowerASCII(a[i]), lowerASCII(b[i])
			if x != y {
				return int(x) - int(y)
			}
			if x == 0 {
				break
			}
		}
		return len(a) - len(b)
	case RTrim:
		return bytes.Compare(bytes.TrimRight(a, " "), bytes.TrimRight(b, " "))
	}
	return bytes.Compare(a, b)
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Compare orders two values as SQLite sorts them (datatype3.html §4.1): NULL first, then INTEGER
// and REAL by numeric value, then TEXT by collation c, then BLOB by bytes. Two NULLs compare
// equal here; SQL's comparison operators treat NULL separately.
func Compare(a, b Value, c Collation) int {
	ka, kb := a.kind, b.kind
	if ka == Null || kb == Null {
		return cmpInt(int64(boolInt(ka != Null)), int64(boolInt(kb != Null)))
	}
	na, nb := ka == Integer || ka == Real, kb == Integer || kb == Real
	switch {
	case na && nb:
		return compareNumbers(a, b)
	case na:
		return -1
	case nb:
		return 1
	case ka != kb:
		return int(ka) - int(kb) // TEXT before BLOB
	case ka == Text:
		return c.CompareText(a.b, b.b)
	}
	return bytes.Compare(a.b, b.b)
}

func compareNumbers(a, b Value) int {
	switch {
	case a.kind == Integer && b.kind == Integer:
		return cmpInt(int64(a.bits), int64(b.bits))
	case a.kind == Integer:
		return compareIntReal(int64(a.bits), math.Float64frombits(b.bits))
	case b.kind == Integer:
		return -compareIntReal(int64(b.bits), math.Float64frombits(a.bits))
	}
	x, y := math.Float64frombits(a.bits), math.Float64frombits(b.bits)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// compareIntReal compares an int64 with a float64 exactly (no rounding of the integer).
func compareIntReal(i int64, r float64) int {
	switch {
	case r < -9223372036854775808.0:
		return 1
	case r >= 9223372036854775808.0:
		return -1
	}
	if c := cmpInt(i, int64(r)); c != 0 {
		return c
	}
	s := float64(i)
	switch {
	case s < r:
		return -1
	case s > r:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

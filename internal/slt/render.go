package slt

// Rendering follows SQLite's harness (slt_sqlite.c), which reads each column with the C API call
// its type letter names and prints the result:
//   - NULL, of any type, is "NULL".
//   - T: sqlite3_column_text. An INTEGER prints as "%lld"; a REAL as SQLite's text of a REAL, which
//     depends on SQLite's version: this is 3.54's (modernc.org/sqlite v1.61.1), "%!.17g" with
//     fewer digits where they convert back (0.1, 49.47, 0.66666666666666663, 1.0e+20); SQLite of
//     the corpus's time printed "%!.15g", and no record of the corpus renders a REAL as T. The text
//     ends at its first NUL byte; an empty text is "(empty)"; every byte outside ' '..'~' is '@'.
//   - I: sqlite3_column_int, "%d": a REAL is truncated toward zero (clamped to the 64-bit range); a
//     TEXT or BLOB yields the integer its leading characters spell (sqlite3Atoi64: white space,
//     sign, digits; "12abc" is 12, "1.9" is 1, "abc" is 0); the 64-bit value is then cut to its
//     low 32 bits, as C's (int) cast does.
//   - R: sqlite3_column_double, then sqlite3_snprintf "%.3f": an INTEGER converts to double; a TEXT
//     or BLOB yields the real its leading characters spell (sqlite3AtoF). SQLite's printf rounds
//     the decimal digits half away from zero and keeps at most 16 significant digits, so its
//     output differs from Go's %.3f (0.0625 is "0.063", not "0.062").

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Render returns the text SQLite's harness prints for v in a result column of type typ ('T', 'I'
// or 'R'). v is what database/sql scans into an *any: nil, int64, float64, bool (as 1 or 0),
// string, []byte or time.Time. A time.Time counts as the text modernc.org/sqlite (and cairnsql)
// store for it by default, Time.String without a monotonic clock reading; text stored in
// another layout cannot be recovered once a driver has parsed it (from a column declared DATE,
// DATETIME or TIMESTAMP). Another type or type letter is an error.
func Render(v any, typ byte) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	if t, ok := v.(time.Time); ok {
		v = t.Round(0).String()
	}
	if b, ok := v.(bool); ok {
		v = int64(0)
		if b {
			v = int64(1)
		}
	}
	switch typ {
	case 'T':
		var s string
		switch x := v.(type) {
		case int64:
			s = strconv.FormatInt(x, 10)
		case float64:
			s = realText(x)
		case string:
			s = x
		case []byte:
			s = string(x)
		default:
			return "", fmt.Errorf("slt: cannot render %T", v)
		}
		return printable(s), nil
	case 'I':
		var i int64
		switch x := v.(type) {
		case int64:
			i = x
		case float64:
			i = realToInt(x)
		case string:
			i = atoi64(x)
		case []byte:
			i = atoi64(string(x))
		default:
			return "", fmt.Errorf("slt: cannot render %T", v)
		}
		return strconv.Itoa(int(int32(i))), nil
	case 'R':
		var r float64
		switch x := v.(type) {
		case int64:
			r = float64(x)
		case float64:
			r = x
		case string:
			r = atof(x)
		case []byte:
			r = atof(string(x))
		default:
			return "", fmt.Errorf("slt: cannot render %T", v)
		}
		return fixed3(r), nil
	}
	return "", fmt.Errorf("slt: unknown type character %q", typ)
}

// printable applies the T rules after conversion to text: cut at NUL, "(empty)", '@'.
func printable(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "(empty)"
	}
	b := []byte(s)
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '@'
		}
	}
	return string(b)
}

// realToInt is SQLite's doubleToInt64: truncation toward zero, clamped to the int64 range. A NaN
// gives what x86's conversion gives C, the smallest int64.
func realToInt(r float64) int64 {
	switch {
	case r <= math.MinInt64 || r != r:
		return math.MinInt64
	case r >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(r)
}

// atoi64 is the value sqlite3Atoi64 stores: the integer spelled by s's leading white space, sign
// and digits, clamped to the int64 range; 0 if there are no digits.
func atoi64(s string) int64 {
	i := 0
	for i < len(s) && isSpace(rune(s[i])) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	for i < len(s) && s[i] == '0' {
		i++
	}
	var u uint64
	n := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		u = u*10 + uint64(s[i]-'0')
		n++
	}
	switch {
	case n > 19 || u > math.MaxInt64+1 || (u == math.MaxInt64+1 && !neg):
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	case neg:
		return -int64(u)
	}
	return int64(u)
}

// atof is the value sqlite3AtoF yields: the real spelled by s's longest prefix of the form
// [space][sign]digits[.digits][e[sign]digits]; 0 if there is none.
func atof(s string) float64 {
	i := 0
	for i < len(s) && isSpace(rune(s[i])) {
		i++
	}
	start := i
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return 0
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() > 0 {
			end = i
		}
	}
	r, _ := strconv.ParseFloat(s[start:end], 64) // out of range: ±Inf or ±0, as in SQLite
	return r
}

// fpDecode returns the significant decimal digits of |r| (finite, non-zero) and the position of
// the decimal point (|r| = 0.DIGITS × 10^dp), rounded as SQLite's sqlite3FpDecode rounds them:
// if iRound <= 0, to -iRound digits after the decimal point, else to iRound significant digits;
// never to more than mxRound significant digits; half away from zero on the digits of decode.
// At 17 digits (SQLite's text of a REAL) it takes fewer when they still convert back to r: 49.47,
// not 49.469999999999999. Trailing zeros are dropped.
func fpDecode(r float64, iRound, mxRound int) (digits []byte, dp int) {
	digits, dp = decode(math.Abs(r))
	if iRound <= 0 {
		iRound = dp - iRound
		if iRound == 0 && digits[0] >= '5' {
			digits, iRound = append([]byte{'0'}, digits...), 1
			dp++
		}
	}
	if iRound > 0 && (iRound < len(digits) || len(digits) > mxRound) {
		iRound = min(iRound, mxRound)
		if iRound == 17 {
			iRound = shortest(math.Abs(r), digits, dp)
		}
		up := digits[iRound] >= '5'
		digits = digits[:iRound]
		for j := iRound - 1; up; j-- {
			if j < 0 {
				digits = append([]byte{'1'}, digits...)
				dp++
				break
			}
			digits[j]++
			up = digits[j] > '9'
			if up {
				digits[j] = '0'
			}
		}
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return digits, dp
}

// decode returns the digits sqlite3Fp2Convert10 gives r (finite, > 0), 18 or 19 of them, and
// the position of the decimal point: with r = m·2^e (m's top bit set) and
// p = 17 - floor((e+63)·78913/2^18), the integer nearest r·10^p, halves up. SQLite computes it in
// 128-bit arithmetic, exactly where 0 <= p <= 27 (r from about 1e-10 to 1e17) and to about a
// unit of the last digit elsewhere; this computes it exactly.
func decode(r float64) (digits []byte, dp int) {
	b := math.Float64bits(r)
	m, e := b&(1<<52-1), int(b>>52)
	if e == 0 { // subnormal
		nn := bits.LeadingZeros64(m)
		m, e = m<<nn, -1074-nn
	} else {
		m, e = m<<11|1<<63, e-1086
	}
	p := 17 - (e+63)*78913>>18
	num, den := new(big.Int).SetUint64(m), big.NewInt(1)
	if pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(p, -p))), nil); p >= 0 {
		num.Mul(num, pow)
	} else {
		den.Set(pow)
	}
	if e >= 0 {
		num.Lsh(num, uint(e))
	} else {
		den.Lsh(den, uint(-e))
	}
	num.Add(num.Lsh(num, 1), den) // floor((2·num + den) / (2·den)): the nearest, halves up
	num.Quo(num, den.Lsh(den, 1))
	s := num.String()
	return []byte(s), len(s) - p
}

// shortest is SQLite's search for fewer than 17 digits (18 decoded digits, point at dp): where
// digits 15 and 16 are nines, the prefix before the run of nines, plus one; where r is an integer
// or digits 14 to 16 are zeros, the prefix before the zeros. It returns the number of digits to
// round at: one past that prefix if it converts back to r, else 17.
func shortest(r float64, digits []byte, dp int) int {
	var j int
	switch {
	case digits[14] == '9' && digits[15] == '9':
		for j = 14; j > 0 && digits[j-1] == '9'; j-- {
		}
		prefix := "1"
		if j > 0 {
			n, _ := strconv.ParseUint(string(digits[:j]), 10, 64)
			prefix = strconv.FormatUint(n+1, 10)
		}
		if x, _ := strconv.ParseFloat(prefix+"e"+strconv.Itoa(dp-j), 64); x == r {
			return j + 1
		}
	case dp >= len(digits) || (digits[13] == '0' && digits[14] == '0' && digits[15] == '0'):
		for j = 13; digits[j-1] == '0'; j-- {
		}
		if x, _ := strconv.ParseFloat(string(digits[:j])+"e"+strconv.Itoa(dp-j), 64); x == r {
			return j + 1
		}
	}
	return 17
}

// special renders an infinity or NaN as SQLite's printf does; ok is false for a finite r.
func special(r float64) (s string, ok bool) {
	switch {
	case math.IsNaN(r):
		return "NaN", true
	case math.IsInf(r, 1):
		return "Inf", true
	case math.IsInf(r, -1):
		return "-Inf", true
	}
	return "", false
}

// digitAt returns digit i of digits ('0' outside them).
func digitAt(digits []byte, i int) byte {
	if i < 0 || i >= len(digits) {
		return '0'
	}
	return digits[i]
}

// intPart writes the digits before the decimal point of 0.DIGITS × 10^dp.
func intPart(b *strings.Builder, digits []byte, dp int) {
	if dp <= 0 {
		b.WriteByte('0')
	}
	for i := 0; i < dp; i++ {
		b.WriteByte(digitAt(digits, i))
	}
}

// fixed3 is SQLite's printf("%.3f", r).
func fixed3(r float64) string {
	if s, ok := special(r); ok {
		return s
	}
	if r == 0 {
		return "0.000"
	}
	digits, dp := fpDecode(r, -3, 16)
	var b strings.Builder
	if r < 0 {
		b.WriteByte('-')
	}
	intPart(&b, digits, dp)
	b.WriteByte('.')
	for k := 0; k < 3; k++ {
		b.WriteByte(digitAt(digits, dp+k))
	}
	return b.String()
}

// realText is SQLite's text of a REAL value, printf("%!.17g", r) with the search for fewer
// digits (fpDecode): 17 significant digits at most, exponent form below 1e-4 and from 1e17,
// always a decimal point (1.0, 0.1, 1.0e+20).
func realText(r float64) string {
	if s, ok := special(r); ok {
		return s
	}
	if r == 0 {
		return "0.0"
	}
	digits, dp := fpDecode(r, 17, 20)
	var b strings.Builder
	if r < 0 {
		b.WriteByte('-')
	}
	if exp := dp - 1; exp < -4 || exp > 16 {
		b.WriteByte(digits[0])
		b.WriteByte('.')
		if len(digits) == 1 {
			b.WriteByte('0')
		}
		b.Write(digits[1:])
		b.WriteByte('e')
		if exp < 0 {
			b.WriteByte('-')
			exp = -exp
		} else {
			b.WriteByte('+')
		}
		if exp < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(exp))
		return b.String()
	}
	intPart(&b, digits, dp)
	b.WriteByte('.')
	if dp >= len(digits) {
		b.WriteByte('0')
	}
	for i := dp; i < len(digits); i++ { // from a negative dp: the zeros after the point
		b.WriteByte(digitAt(digits, i))
	}
	return b.String()
}

// SortValues sorts rendered values as the harness does for mode: "rowsort" orders the rows
// (ncol values each) by comparing their values byte-wise, column by column; "valuesort" orders
// every value on its own; "nosort" and "" leave the order. Another mode is an error.
func SortValues(vals []string, ncol int, mode string) error {
	switch mode {
	case "", "nosort":
	case "valuesort":
		slices.Sort(vals)
	case "rowsort":
		if ncol <= 0 || len(vals)%ncol != 0 {
			return fmt.Errorf("slt: %d values do not form rows of %d", len(vals), ncol)
		}
		rows := make([][]string, 0, len(vals)/ncol)
		for i := 0; i < len(vals); i += ncol {
			rows = append(rows, vals[i:i+ncol:i+ncol])
		}
		slices.SortFunc(rows, slices.Compare)
		out := make([]string, 0, len(vals))
		for _, row := range rows {
			out = append(out, row...)
		}
		copy(vals, out)
	default:
		return fmt.Errorf("slt: unknown sort method %q", mode)
	}
	return nil
}

// Hash returns the hex MD5 of every value followed by a newline: what the harness prints as
// "N values hashing to H".
func Hash(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashLine is the expected-result line of a hashed query result.
func HashLine(vals []string) string {
	return fmt.Sprintf("%d values hashing to %s", len(vals), Hash(vals))
}

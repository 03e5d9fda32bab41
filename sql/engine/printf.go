package engine

// printf(FORMAT, ...) as SQLite's built-in printf (lang_corefunc.html#printf, printf.c): the
// conversions d i u f e E g G x X o c s z q Q w %, flags - + space 0 # ! , width and precision
// (* takes them from the arguments).

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/cairndb/cairn/sql/value"
)

func fnPrintf(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() {
		return value.Value{}, nil
	}
	format := string(textBeforeNUL(a[0].AppendText(nil))) // SQLite formats C strings
	args := a[1:]
	next := func() value.Value {
		if len(args) == 0 {
			return value.Value{}
		}
		v := args[0]
		args = args[1:]
		return v
	}
	var out []byte
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(format) {
			break
		}
		var minus, plus, space, zero, alt, alt2, comma bool
	flags:
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				minus = true
			case '+': // of + and space, the last one given counts, as in SQLite
				plus, space = true, false
			case ' ':
				space, plus = true, false
			case '0':
				zero = true
			case '#':
				alt = true
			case '!':
				alt2 = true
			case ',':
				comma = true
			default:
				break flags
			}
		}
		// Width and precision as printf.c reads them: a * argument is cast to a 32-bit int, a
		// negative one negated (a negative width left-justifies); digits accumulate in a 32-bit
		// unsigned, masked to 31 bits.
		width := 0
		if i < len(format) && format[i] == '*' {
			width = int(int32(value.ToInt(next())))
			if width < 0 {
				minus = true
				width = negate32(width, 0)
			}
			i++
		} else if i < len(format) && format[i] >= '0' && format[i] <= '9' {
			width, i = digits32(format, i)
		}
		prec := -1
		if i < len(format) && format[i] == '.' {
			i++
			prec = 0
			if i < len(format) && format[i] == '*' {
				prec = int(int32(value.ToInt(next())))
				if prec < 0 {
					prec = negate32(prec, -1)
				}
				i++
			} else {
				prec, i = digits32(format, i)
			}
		}
		if width > maxLength || prec > maxLength && !strings.ContainsRune("feEgG", rune(verb(format, i))) {
			return value.Value{}, errTooBig // (float conversions cap their precision instead)
		}
		for i < len(format) && (format[i] == 'l' || format[i] == 'h') { // length modifiers: ignored
			i++
		}
		if i >= len(format) {
			break
		}
		verb := format[i]
		var body string
		numeric := true
		// Width and precision count bytes for %s, %q, %Q and %w (characters with the ! flag, and
		// for %c), as in SQLite: a precision may cut a character in two.
		inChars := alt2 || verb == 'c'
		cut := func(s string) string {
			switch {
			case prec < 0:
			case inChars && prec < len([]rune(s)):
				s = string([]rune(s)[:prec])
			case !inChars && prec < len(s):
				s = s[:prec]
			}
			return s
		}
		switch verb {
		case '%':
			body, numeric = "%", false // padded to the width like any conversion
		case 'd', 'i', 'u', 'x', 'X', 'o':
			body = formatInt(value.ToInt(next()), verb, width, prec, plus, space, zero, alt, comma)
		case 'f', 'e', 'E', 'g', 'G':
			f := value.ToFloat(next())
			if prec < 0 {
				prec = 6
			}
			prec = min(prec, maxFloatPrecision)
			if verb != 'f' {
				body = formatEG(f, verb, prec, plus, space, alt, alt2)
			} else {
				body = formatFloat(f, verb, prec, plus, space, alt2)
			}
			if alt && verb == 'f' && !strings.Contains(body, ".") && body[len(body)-1] >= '0' && body[len(body)-1] <= '9' {
				body += "." // %#.0f keeps its point
			}
			if comma && !strings.ContainsAny(body, "eEI") { // %f, and %g without an exponent
				body = withCommas(body)
			}
		case 'c':
			s := string(next().AppendText(nil))
			numeric = false
			r := "\x00" // SQLite's character of an empty text, NULL or a missing argument
			if s != "" {
				// The first byte, and the continuation bytes after a lead byte (up to four
				// bytes in all), as SQLite copies them: not decoded, so invalid UTF-8 stays.
				n := 1
				if s[0]&0xc0 == 0xc0 {
					for n < 4 && n < len(s) && s[n]&0xc0 == 0x80 {
						n++
					}
				}
				r = s[:n]
			}
			n := 1
			if prec > 1 {
				n = prec
			}
			body = strings.Repeat(r, n)
		case 's', 'z':
			v := next()
			numeric = false
			if v.IsNull() {
				body = ""
			} else {
				body = cut(string(textBeforeNUL(v.AppendText(nil))))
			}
		case 'q', 'Q', 'w':
			v := next()
			numeric = false
			switch {
			case verb == 'Q' && v.IsNull():
				body = cut("NULL") // the precision cuts what stands for NULL too
			default:
				q := byte('\'')
				if verb == 'w' {
					q = '"'
				}
				s := string(textBeforeNUL(v.AppendText(nil)))
				if v.IsNull() {
					s = "(NULL)"
				}
				s = cut(s)
				s = strings.ReplaceAll(s, string(q), string([]byte{q, q}))
				if verb == 'Q' {
					s = "'" + s + "'"
				}
				body = s
			}
		default:
			// An unknown conversion ends the output, as in SQLite.
			return value.TextBytes(out), nil
		}
		n := len(body)
		if inChars {
			n = len([]rune(body))
		}
		pad := width - n
		if len(out)+len(body)+max(pad, 0) > maxLength {
			return value.Value{}, errTooBig
		}
		switch {
		case pad <= 0:
			out = append(out, body...)
		case minus:
			out = append(out, body...)
			out = append(out, strings.Repeat(" ", pad)...)
		case zero && numeric:
			sign := ""
			if len(body) > 0 && (body[0] == '-' || body[0] == '+' || body[0] == ' ') {
				sign, body = body[:1], body[1:]
			}
			out = append(out, sign...)
			out = append(out, strings.Repeat("0", pad)...)
			out = append(out, body...)
		default:
			out = append(out, strings.Repeat(" ", pad)...)
			out = append(out, body...)
		}
	}
	return value.TextBytes(out), nil
}

// maxLength is the longest string or blob a function makes, SQLite's default SQLITE_MAX_LENGTH;
// maxFloatPrecision caps the precision of printf's float conversions (SQLITE_FP_PRECISION_LIMIT).
const (
	maxLength         = 1_000_000_000
	maxFloatPrecision = 100_000_000
)

// errTooBig is SQLite's SQLITE_TOOBIG error.
var errTooBig = errors.New("string or blob too big")

// verb returns the conversion character at or after format[i] (past length modifiers), or 0.
func verb(format string, i int) byte {
	for i < len(format) && (format[i] == 'l' || format[i] == 'h') {
		i++
	}
	if i < len(format) {
		return format[i]
	}
	return 0
}

// negate32 negates a negative 32-bit n, or returns min for the one it cannot negate.
func negate32(n, min int) int {
	if n >= -math.MaxInt32 {
		return -n
	}
	return min
}

// digits32 reads the decimal digits at format[i:] into a 32-bit unsigned that wraps, masked to 31
// bits, as printf.c reads a width or precision; it returns the value and the index after them.
func digits32(format string, i int) (int, int) {
	var n uint32
	for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
		n = n*10 + uint32(format[i]-'0')
	}
	return int(n & math.MaxInt32), i
}

// formatInt is %d, %i, %u, %x, %X and %o as SQLite writes them: the digits (of the unsigned
// 64-bit value for %u, %x, %X and %o), zeros before them up to the precision, or up to the width
// with the 0 flag; then thousands separators for the ',' flag (decimal conversions), then the
// prefix: the sign of %d and %i ('-', or '+' or ' ' by flag), "0x", "0X" or "0" with the # flag
// for a value other than 0.
func formatInt(n int64, verb byte, width, prec int, plus, space, zero, alt, comma bool) string {
	var mag uint64
	prefix := ""
	base := 10
	switch verb {
	case 'd', 'i':
		mag = uint64(n)
		switch {
		case n < 0:
			mag, prefix = uint64(-n), "-" // -(-2^63) wraps to 2^63 as a uint64
		case plus:
			prefix = "+"
		case space:
			prefix = " "
		}
	case 'x', 'X':
		mag, base = uint64(n), 16
	case 'o':
		mag, base = uint64(n), 8
	default:
		mag = uint64(n)
	}
	digits := strconv.FormatUint(mag, base)
	if verb == 'X' {
		digits = strings.ToUpper(digits)
	}
	p := prec
	if zero && p < width-len(prefix) {
		p = width - len(prefix) // the sign counts against the width, not the # prefix
	}
	if alt && mag != 0 {
		prefix = map[byte]string{'x': "0x", 'X': "0X", 'o': "0"}[verb] + prefix
	}
	if len(digits) < p {
		digits = strings.Repeat("0", p-len(digits)) + digits
	}
	if comma && base == 10 {
		digits = withCommas(digits)
	}
	return prefix + digits
}

// withCommas puts thousands separators into the integer part of a decimal number.
func withCommas(s string) string {
	sign := ""
	if len(s) > 0 && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
		sign, s = s[:1], s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String() + frac
}

func formatFloat(f float64, verb byte, prec int, plus, space, alt2 bool) string {
	if math.IsInf(f, 0) || f != f {
		switch {
		case f != f:
			return "NaN"
		case f > 0 && plus:
			return "+Inf"
		case f > 0:
			return "Inf"
		}
		return "-Inf"
	}
	if f == 0 {
		f = 0 // -0.0 prints as 0: SQLite signs only a value below zero
	}
	var s string
	switch verb {
	case 'f':
		maxDigits := 16
		if alt2 {
			maxDigits = 26
		}
		s = string(value.AppendFixed(nil, f, prec, maxDigits))
	case 'e', 'E':
		s = strconv.FormatFloat(f, 'e', prec, 64)
	default:
		if prec == 0 {
			prec = 1
		}
		s = strconv.FormatFloat(f, 'g', prec, 64)
		if alt2 && !strings.ContainsAny(s, ".eInf") {
			s += ".0"
		}
	}
	if alt2 && (verb == 'f' || verb == 'e' || verb == 'E') {
		s = trimFraction(s)
	}
	if verb == 'E' || verb == 'G' {
		s = strings.ToUpper(s)
	}
	if s[0] != '-' {
		switch {
		case plus:
			s = "+" + s
		case space:
			s = " " + s
		}
	}
	return s
}

// formatEG is %e, %E, %g and %G as SQLite writes them: at most 16 significant digits (26 with
// the ! flag), zeros past them; %g in exponent form when the exponent is below -4 or not below
// the precision, without trailing zeros unless # is given; # always writes the point; ! keeps one
// digit after the point but drops trailing zeros (of %g too, unless # is given).
func formatEG(f float64, verb byte, prec int, plus, space, alt, alt2 bool) string {
	if math.IsInf(f, 0) || f != f {
		return formatFloat(f, verb, prec, plus, space, alt2)
	}
	g := verb == 'g' || verb == 'G'
	maxDigits := 16
	if alt2 {
		maxDigits = 26
	}
	n := prec + 1 // significant digits
	if g {
		n = max(prec, 1)
	}
	var digits []byte
	dp := 1
	if f != 0 {
		digits, dp = value.SignificantDigits(f, n, maxDigits)
	}
	for len(digits) < n {
		digits = append(digits, '0')
	}
	exp := dp - 1
	var b []byte
	switch {
	case f < 0:
		b = append(b, '-')
	case plus:
		b = append(b, '+')
	case space:
		b = append(b, ' ')
	}
	start := len(b)
	if !g || exp < -4 || exp >= n {
		frac := digits[1:]
		if g {
			frac = digits[1:n]
		}
		b = append(b, digits[0])
		if len(frac) > 0 || alt {
			b = append(b, '.')
		}
		b = append(b, frac...)
	} else if exp >= 0 {
		b = append(b, digits[:exp+1]...)
		if exp+1 < n || alt {
			b = append(b, '.')
		}
		b = append(b, digits[exp+1:n]...)
	} else {
		b = append(b, '0', '.')
		b = append(b, strings.Repeat("0", -exp-1)...)
		b = append(b, digits[:n]...)
	}
	mant := string(b[start:])
	switch {
	case g && !alt:
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		if alt2 {
			mant = trimFraction(mant)
		}
	case alt2 && !g:
		mant = trimFraction(mant)
	}
	b = append(b[:start], mant...)
	if !g || exp < -4 || exp >= n {
		e := byte('e')
		if verb == 'E' || verb == 'G' {
			e = 'E'
		}
		b = value.AppendExponent(b, e, exp)
	}
	return string(b)
}

// trimFraction removes the trailing zeros of the fraction of s (a %f or %e rendering, before
// any exponent) but keeps one digit after the point, adding ".0" where there is no point: the
// ! flag of %f and %e.
func trimFraction(s string) string {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	if !strings.Contains(mant, ".") {
		return mant + ".0" + exp
	}
	mant = strings.TrimRight(mant, "0")
	if strings.HasSuffix(mant, ".") {
		mant += "0"
	}
	return mant + exp
}

// roundDecimal returns f rounded half away from zero to n decimal places, as SQLite's round()
// computes it (printf("%!.*f") and back).
func roundDecimal(f float64, n int) float64 {
	r, _ := strconv.ParseFloat(string(value.AppendFixed(nil, f, n, 26)), 64)
	return r
}

package value

import "strconv"

// SignificantDigits returns the decimal digits of |f| (f finite and not 0) rounded half up to n
// significant digits, or to maxDigits if fewer, as SQLite's printf computes them for %e and %g
// (16 digits at most, 26 with the "!" flag): the digits of the fixed-point conversion (about 18),
// rounded in decimal, without trailing zeros; dp is the position of the decimal point (the value
// is 0.DIGITS × 10^dp). A caller pads with zeros to n digits. When 17 digits are asked for, 16
// are given if they read back as f (a normal number), as SQLite does.
func SignificantDigits(f float64, n, maxDigits int) (digits []byte, dp int) {
	if f < 0 {
		f = -f
	}
	n = min(max(n, 1), maxDigits)
	digits, dp = decimalDigits(make([]byte, 0, 24), f)
	if n == 17 && f >= 0x1p-1022 { // not for subnormals, where SQLite keeps 17
		d16, dp16 := roundDigits(append([]byte(nil), digits...), dp, 16)
		text := "0." + string(d16) + "e" + strconv.Itoa(dp16)
		if g, err := strconv.ParseFloat(text, 64); err == nil && g == f {
			return d16, dp16
		}
	}
	return roundDigits(digits, dp, n)
}

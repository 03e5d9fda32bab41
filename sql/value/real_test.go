package value

import (
	"math"
	"testing"
)

// runtime returns f unchanged, so that an expression of it is computed in float64 arithmetic,
// not folded as an exact constant.
func runtime(f float64) float64 { return f }

// realTexts were produced by SQLite 3.54.1 (modernc.org/sqlite v1.61.1): SELECT CAST(x AS TEXT).
// The last group is where SQLite's 17-digit conversion differs from the shortest round-trip
// text that strconv gives.
var realTexts = []struct {
	f    float64
	text string
}{
	{0.1, "0.1"},
	{100.0, "100.0"},
	{1e20, "1.0e+20"},
	{2.5, "2.5"},
	{1e-5, "1.0e-05"},
	{123456789.123, "123456789.123"},
	{-7.5e-3, "-0.0075"},
	{1.7976931348623157e308, "1.7976931348623157e+308"},
	{1e16, "10000000000000000.0"},
	{1e17, "1.0e+17"},
	{0.0001, "0.0001"},
	{math.Copysign(0, -1), "0.0"},
	{1e15, "1000000000000000.0"},
	{3423.8, "3423.8"},
	{22305.1, "22305.1"},
	{math.Inf(1), "Inf"},
	{math.Inf(-1), "-Inf"},
	{9007199254740993.0, "9007199254740992.0"},
	{0.5e-300, "5.0e-301"},

	{1.0 / 3, "0.33333333333333332"},
	{2.0 / 3, "0.66666666666666663"},
	{runtime(0.1) + runtime(0.2), "0.30000000000000004"},
	{5e-324, "4.9406564584124654e-324"},
	{1762.89010989011, "1762.8901098901099"},
	{285.107223476298, "285.10722347629798"},
}

func TestRealTextMatchesSQLite(t *testing.T) {
	for _, c := range realTexts {
		if got := string(AppendReal(nil, c.f)); got != c.text {
			t.Errorf("text of %v = %s, SQLite %s", c.f, got, c.text)
		}
		if got := string(Float(c.f).AppendText(nil)); got != c.text {
			t.Errorf("AppendText of %v = %s, SQLite %s", c.f, got, c.text)
		}
	}
}

func TestRealTextReadsBack(t *testing.T) {
	for _, f := range []float64{0.1, 1.0 / 3, 5e-324, 1.7976931348623157e308, 123.456, 1e-300, 6.02214076e23} {
		text := AppendReal(nil, f)
		if got := ToFloat(TextBytes(text)); got != f {
			t.Errorf("%v renders as %s, which reads back as %v", f, text, got)
		}
	}
}

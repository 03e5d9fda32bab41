package slt

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRender(t *testing.T) {
	for _, c := range []struct {
		v    any
		typ  byte
		want string
	}{
		{nil, 'T', "NULL"},
		{nil, 'I', "NULL"},
		{nil, 'R', "NULL"},

		{"abc", 'T', "abc"},
		{"", 'T', "(empty)"},
		{[]byte{}, 'T', "(empty)"},
		{"a\tb\x7f~ ", 'T', "a@b@~ "},
		{"é", 'T', "@@"}, // every byte of a UTF-8 sequence
		{"x\x00y", 'T', "x"},
		{"\x00y", 'T', "(empty)"},
		{[]byte("blob"), 'T', "blob"},
		{int64(-42), 'T', "-42"},
		{true, 'T', "1"},
		{1.0, 'T', "1.0"},
		{0.1, 'T', "0.1"},
		{-2.5, 'T', "-2.5"},
		{100.0, 'T', "100.0"},
		{1.0 / 3, 'T', "0.33333333333333332"}, // 17 digits where fewer do not convert back
		{2.0 / 3, 'T', "0.66666666666666663"},
		{49.47, 'T', "49.47"}, // fewer where they do: not 49.469999999999999
		{123456789012345.0, 'T', "123456789012345.0"},
		{1234567890123456.0, 'T', "1234567890123456.0"},
		{1e16, 'T', "10000000000000000.0"},
		{1e17, 'T', "1.0e+17"},
		{1e20, 'T', "1.0e+20"},
		{1e23, 'T', "1.0e+23"},
		{1e-5, 'T', "1.0e-05"},
		{0.0001, 'T', "0.0001"},
		{-1.5e300, 'T', "-1.5e+300"},
		{0.0, 'T', "0.0"},
		{math.Copysign(0, -1), 'T', "0.0"},
		{math.Inf(1), 'T', "Inf"},
		{time.Date(2024, 5, 6, 7, 8, 9, 500, time.UTC), 'T', "2024-05-06 07:08:09.0000005 +0000 UTC"},

		{int64(7), 'I', "7"},
		{int64(-7), 'I', "-7"},
		{int64(1<<32 + 5), 'I', "5"}, // C's (int) keeps the low 32 bits
		{int64(1 << 31), 'I', "-2147483648"},
		{2.9, 'I', "2"},
		{-2.9, 'I', "-2"},
		{1e30, 'I', "-1"}, // clamped to MaxInt64, whose low 32 bits are all ones
		{-1e30, 'I', "0"}, // clamped to MinInt64
		{math.NaN(), 'I', "0"},
		{"12abc", 'I', "12"},
		{" \t-0042", 'I', "-42"},
		{"+5", 'I', "5"},
		{"1.9", 'I', "1"},
		{"1e3", 'I', "1"},
		{"abc", 'I', "0"},
		{"NULL", 'I', "0"}, // the corpus: evidence/slt_lang_aggfunc.test, min(y) of texts
		{"true", 'I', "0"}, // and max(y)
		{"99999999999999999999", 'I', "-1"},
		{"-9223372036854775808", 'I', "0"},
		{[]byte("65"), 'I', "65"},
		{false, 'I', "0"},

		{int64(3), 'R', "3.000"},
		{2.0 / 3, 'R', "0.667"},
		{-2.0 / 3, 'R', "-0.667"},
		{0.0625, 'R', "0.063"},  // half away from zero on the decimal digits; Go says 0.062
		{2.0625, 'R', "2.063"},  // likewise
		{0.0005, 'R', "0.001"},  // binary 0.0005 is a little above it
		{0.00049, 'R', "0.000"}, //
		{0.0004, 'R', "0.000"},
		{-0.0001, 'R', "-0.000"},
		{0.9999, 'R', "1.000"},
		{999.9996, 'R', "1000.000"},
		{1e20, 'R', "100000000000000000000.000"},
		{1e23, 'R', "99999999999999990000000.000"},                // 9.999999999999999161e22 to 16 digits
		{-9223372036854775808.0, 'R', "-9223372036854776000.000"}, // the corpus: 16 digits at most
		{-18446744073709551616.0, 'R', "-18446744073709550000.000"},
		{123456789.123456789, 'R', "123456789.123"},
		{"1.5e1x", 'R', "15.000"},
		{" -.5", 'R', "-0.500"},
		{"7e", 'R', "7.000"},
		{"abc", 'R', "0.000"},
		{"-", 'R', "0.000"},
		{math.Inf(-1), 'R', "-Inf"},
	} {
		got, err := Render(c.v, c.typ)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "Render(%#v, %c)", c.v, c.typ)
	}

	_, err := Render(int64(1), 'X')
	require.ErrorContains(t, err, "unknown type character")
	_, err = Render(uint64(1), 'I')
	require.ErrorContains(t, err, "cannot render uint64")
}

func TestSortValues(t *testing.T) {
	vals := func(s ...string) []string { return s }
	for _, c := range []struct {
		mode string
		ncol int
		in   []string
		want []string
	}{
		{"nosort", 2, vals("b", "1", "a", "2"), vals("b", "1", "a", "2")},
		{"", 1, vals("b", "a"), vals("b", "a")},
		// Column by column, not the rows' joined text ("abc" < "azz" would put ab|c first).
		{"rowsort", 2, vals("ab", "c", "a", "zz"), vals("a", "zz", "ab", "c")},
		// Byte-wise: upper case before lower case, "10" before "9", NULL by its letters.
		{"rowsort", 1, vals("a", "B", "9", "10", "NULL", "-1"), vals("-1", "10", "9", "B", "NULL", "a")},
		{"valuesort", 2, vals("b", "1", "a", "2"), vals("1", "2", "a", "b")},
	} {
		got := append([]string(nil), c.in...)
		require.NoError(t, SortValues(got, c.ncol, c.mode))
		require.Equal(t, c.want, got, "%s %v", c.mode, c.in)
	}
	require.ErrorContains(t, SortValues(vals("a"), 1, "random"), `unknown sort method "random"`)
	require.Error(t, SortValues(vals("a", "b", "c"), 2, "rowsort"))
}

func TestHash(t *testing.T) {
	// Sums from md5sum(1): printf '1\n2\n' | md5sum, and so on.
	require.Equal(t, "6ddb4095eb719e2a9f0a3f95677d24e0", Hash([]string{"1", "2"}))
	require.Equal(t, "d41d8cd98f00b204e9800998ecf8427e", Hash(nil))
	require.Equal(t, "c575918d5fa6de8ec4bbdcd8ac286ca8", Hash([]string{"a", "zz", "ab", "c"}))
	require.Equal(t, "4 values hashing to c575918d5fa6de8ec4bbdcd8ac286ca8", HashLine([]string{"a", "zz", "ab", "c"}))
}

// ExampleRender shows the three types on one REAL value.
func ExampleRender() {
	for _, typ := range []byte("TIR") {
		s, _ := Render(-2.0/3, typ)
		fmt.Printf("%c %s\n", typ, s)
	}
	// Output:
	// T -0.66666666666666663
	// I 0
	// R -0.667
}

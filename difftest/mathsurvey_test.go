package difftest

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"modernc.org/libc"
)

var mathSurveyFlag = flag.Bool("difftest.mathsurvey", false, "TestMathSurvey compares cairn's math functions with the C library's that modernc.org/sqlite calls")

// TestMathSurvey is a measurement, not a check: cairn's math functions (sql/engine/funcs_math.go)
// are computed with Go's math package, SQLite's with the C library's (here musl's, as
// modernc.org/libc translates it). For 20,000 random arguments of each function it runs the
// function on cairn through SQL and the C function in process, and logs the share of results
// that differ and by how many units in the last place; docs/SQL.md quotes the numbers. Without
// -difftest.mathsurvey it does nothing.
func TestMathSurvey(t *testing.T) {
	if !*mathSurveyFlag {
		t.Skip("no -difftest.mathsurvey")
	}
	tls := libc.NewTLS()
	defer tls.Close()
	db := openDB(t, "cairn")
	defer db.Close()
	const n = 20000
	r := rand.New(rand.NewPCG(1, 2))
	_, err := db.Exec("CREATE TABLE v(x REAL, y REAL)")
	require.NoError(t, err)
	tx, err := db.Begin()
	require.NoError(t, err)
	for range n {
		_, err := tx.Exec("INSERT INTO v VALUES (?, ?)", r.Float64(), r.Float64())
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	c1 := func(f func(*libc.TLS, float64) float64) func(x, y float64) float64 {
		return func(x, _ float64) float64 { return f(tls, x) }
	}
	c2 := func(f func(*libc.TLS, float64, float64) float64) func(x, y float64) float64 {
		return func(x, y float64) float64 { return f(tls, x, y) }
	}
	// Each function's arguments: x and y (uniform in [0, 1)) scaled to the range of interest.
	for _, f := range []struct {
		name, x, y string
		c          func(x, y float64) float64
	}{
		{"sin", "x*20-10", "0", c1(libc.Xsin)},
		{"cos", "x*20-10", "0", c1(libc.Xcos)},
		{"tan", "x*20-10", "0", c1(libc.Xtan)},
		{"asin", "x*2-1", "0", c1(libc.Xasin)},
		{"acos", "x*2-1", "0", c1(libc.Xacos)},
		{"atan", "x*20-10", "0", c1(libc.Xatan)},
		{"sinh", "x*20-10", "0", c1(libc.Xsinh)},
		{"cosh", "x*20-10", "0", c1(libc.Xcosh)},
		{"tanh", "x*20-10", "0", c1(libc.Xtanh)},
		{"asinh", "x*20-10", "0", c1(libc.Xasinh)},
		{"acosh", "1+x*9", "0", c1(libc.Xacosh)},
		{"atanh", "x*2-1", "0", c1(libc.Xatanh)},
		{"exp", "x*20-10", "0", c1(libc.Xexp)},
		{"ln", "x*100", "0", c1(libc.Xlog)},
		{"log10", "x*100", "0", c1(libc.Xlog10)},
		{"log2", "x*100", "0", c1(libc.Xlog2)},
		{"sqrt", "x*100", "0", c1(libc.Xsqrt)},
		{"pow", "x*10", "y*10-5", c2(libc.Xpow)},
		{"atan2", "x*10-5", "y*10-5", c2(libc.Xatan2)},
	} {
		call := fmt.Sprintf("%s(%s)", f.name, f.x)
		if f.y != "0" {
			call = fmt.Sprintf("%s(%s, %s)", f.name, f.x, f.y)
		}
		rows, err := db.Query(fmt.Sprintf("SELECT %s, %s, %s FROM v", f.x, f.y, call))
		require.NoError(t, err)
		diff, most := 0, uint64(0)
		for rows.Next() {
			var x, y, got float64
			require.NoError(t, rows.Scan(&x, &y, &got))
			if want := f.c(x, y); got != want {
				diff++
				most = max(most, ulps(got, want))
			}
		}
		require.NoError(t, rows.Err())
		t.Logf("%-6s %5.2f%% differ, by at most %d ulp", f.name, 100*float64(diff)/n, most)
	}
}

// ulps is the distance of two finite doubles of the same sign in units in the last place.
func ulps(a, b float64) uint64 {
	x, y := math.Float64bits(a), math.Float64bits(b)
	if x > y {
		return x - y
	}
	return y - x
}

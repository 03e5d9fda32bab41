package engine

// Math functions (lang_mathfunc.html). Each takes numbers: an INTEGER or REAL argument as it is,
// a TEXT argument when it is a well-formed number (as numeric affinity reads it: '4', ' 4 ',
// '1e2'), else the call is NULL, as is a call with a NULL or BLOB argument. The result is a REAL,
// NULL where the function is undefined (a domain error: sqrt(-1), acos(2), mod(x, 0), and the
// logarithms of 0 and below, which C gives as -Inf), ±Inf where it overflows; ceil, ceiling,
// floor and trunc of an INTEGER return it unchanged, an INTEGER. The transcendental functions are
// Go's math package, which can differ from a C library's in the last bit of some results
// (docs/SQL.md).

import (
	"math"

	"github.com/cairndb/cairn/sql/value"
)

func init() {
	for _, f := range []*scalarFunc{
		math1("acos", acos),
		math1("acosh", math.Acosh),
		math1("asin", math.Asin),
		math1("asinh", math.Asinh),
		math1("atan", math.Atan),
		math1("atanh", math.Atanh),
		math1("cos", math.Cos),
		math1("cosh", math.Cosh),
		math1("exp", math.Exp),
		logFunc("ln", math.Log),
		logFunc("log10", math.Log10),
		logFunc("log2", log2),
		math1("sin", math.Sin),
		math1("sinh", math.Sinh),
		math1("sqrt", math.Sqrt),
		math1("tan", math.Tan),
		math1("tanh", math.Tanh),
		math1("degrees", func(x float64) float64 { return x * radToDeg }),
		math1("radians", func(x float64) float64 { return x * degToRad }),
		math2("atan2", math.Atan2),
		math2("mod", math.Mod),
		math2("pow", math.Pow),
		math2("power", math.Pow),
		{name: "ceil", minArgs: 1, maxArgs: 1, fn: roundingFunc(math.Ceil)},
		{name: "ceiling", minArgs: 1, maxArgs: 1, fn: roundingFunc(math.Ceil)},
		{name: "floor", minArgs: 1, maxArgs: 1, fn: roundingFunc(math.Floor)},
		{name: "trunc", minArgs: 1, maxArgs: 1, fn: roundingFunc(math.Trunc)},
		{name: "log", minArgs: 1, maxArgs: 2, fn: fnLog},
		{name: "pi", minArgs: 0, maxArgs: 0, fn: fnPi},
	} {
		scalarFuncs[f.name] = f
	}
}

// piDouble is π rounded to a float64; the degree factors are computed from it in float64
// arithmetic, as C computes M_PI/180.0, so that degrees and radians round as SQLite's do.
var (
	piDouble = math.Pi
	degToRad = piDouble / 180.0
	radToDeg = 180.0 / piDouble
)

// acos is math.Acos without its loss of precision near ±1 (where it subtracts two close values:
// hundreds of units in the last place, against the C library's): there it uses
// acos(x) = 2·asin(√((1-x)/2)) and its mirror image, within 2 units of the C library's.
func acos(x float64) float64 {
	switch {
	case x > 0.5:
		return 2 * math.Asin(math.Sqrt((1-x)/2))
	case x < -0.5:
		return math.Pi - 2*math.Asin(math.Sqrt((1+x)/2))
	}
	return math.Acos(x)
}

// log2 is math.Log2 without its loss of precision just above 1 (it adds the exponent 1 to a
// logarithm near -1): from 0.5 to 2 it is ln(x)/ln(2), within a unit in the last place of the
// C library's.
func log2(x float64) float64 {
	if x >= 0.5 && x <= 2 {
		return math.Log(x) * (1 / math.Ln2)
	}
	return math.Log2(x)
}

// numericArg returns v as a number for a math function: INTEGER and REAL as they are, TEXT when
// it is a well-formed number (an INTEGER when it is an integer literal that fits, else a REAL);
// ok false for NULL, BLOB and other text (SQLite's sqlite3_value_numeric_type).
func numericArg(v value.Value) (value.Value, bool) {
	switch v.Kind() {
	case value.Integer, value.Real:
		return v, true
	case value.Text:
		return value.ParseNumericText(v.Bytes(), false)
	}
	return value.Value{}, false
}

// math1 is a function of one REAL argument.
func math1(name string, f func(float64) float64) *scalarFunc {
	return &scalarFunc{name: name, minArgs: 1, maxArgs: 1,
		fn: func(a []value.Value, _ value.Collation) (value.Value, error) {
			x, ok := numericArg(a[0])
			if !ok {
				return value.Value{}, nil
			}
			return value.Float(f(value.ToFloat(x))), nil // a NaN is NULL
		}}
}

// math2 is a function of two REAL arguments.
func math2(name string, f func(float64, float64) float64) *scalarFunc {
	return &scalarFunc{name: name, minArgs: 2, maxArgs: 2,
		fn: func(a []value.Value, _ value.Collation) (value.Value, error) {
			x, ok := numericArg(a[0])
			if !ok {
				return value.Value{}, nil
			}
			y, ok := numericArg(a[1])
			if !ok {
				return value.Value{}, nil
			}
			return value.Float(f(value.ToFloat(x), value.ToFloat(y))), nil
		}}
}

// roundingFunc is ceil, floor or trunc: an INTEGER stays that INTEGER, a REAL is rounded.
func roundingFunc(f func(float64) float64) func([]value.Value, value.Collation) (value.Value, error) {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		x, ok := numericArg(a[0])
		switch {
		case !ok:
			return value.Value{}, nil
		case x.Kind() == value.Integer:
			return x, nil
		}
		return value.Float(f(x.Float())), nil
	}
}

// logFunc is ln, log10 or log2: NULL for an argument that is not above 0.
func logFunc(name string, f func(float64) float64) *scalarFunc {
	return &scalarFunc{name: name, minArgs: 1, maxArgs: 1,
		fn: func(a []value.Value, _ value.Collation) (value.Value, error) {
			x, ok := numericArg(a[0])
			if !ok || value.ToFloat(x) <= 0 {
				return value.Value{}, nil
			}
			return value.Float(f(value.ToFloat(x))), nil
		}}
}

// fnLog is log(X), the base-10 logarithm, or log(B, X), the logarithm of X to base B. X must be
// above 0, and ln(B) above 0 (B above 1), else NULL. The type of B decides whether the call is
// NULL, as in SQLite: X is then read as a REAL whatever its type ('abc' as 0, so NULL).
func fnLog(a []value.Value, _ value.Collation) (value.Value, error) {
	x, ok := numericArg(a[0])
	if !ok || value.ToFloat(x) <= 0 {
		return value.Value{}, nil
	}
	if len(a) == 1 {
		return value.Float(math.Log10(value.ToFloat(x))), nil
	}
	lnBase := math.Log(value.ToFloat(x))
	if lnBase <= 0 || a[1].IsNull() {
		return value.Value{}, nil
	}
	y := value.ToFloat(a[1])
	if y <= 0 {
		return value.Value{}, nil
	}
	return value.Float(math.Log(y) / lnBase), nil
}

func fnPi([]value.Value, value.Collation) (value.Value, error) {
	return value.Float(math.Pi), nil
}

package engine

// Scalar functions (lang_corefunc.html). Each is called with its evaluated arguments.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// scalarFunc is a built-in scalar function: minArgs to maxArgs arguments (maxArgs -1: any number).
type scalarFunc struct {
	name             string
	minArgs, maxArgs int
	// fn computes the result (of functions without lazy); coll is the collation of the call (min, max, nullif, instr... use
	// it for comparisons).
	fn func(args []value.Value, coll value.Collation) (value.Value, error)
	// nondeterministic functions (random) are never folded into constants.
	nondeterministic bool
	// lazy, when set, evaluates the call instead of fn: it evaluates only the arguments it
	// needs, as SQLite codes coalesce, ifnull and iif (an argument not needed cannot fail).
	lazy func(args []expr, e *env) (value.Value, error)
	// checkArgs, when set, checks the call's arguments when it is bound (likelihood's constant).
	checkArgs func(args []ast.Expr) error
	// pureVariant, when set, returns the function to bind where SQLite requires a pure call
	// (where: "a CHECK constraint"): one that fails when the call reads the clock or the
	// time zone (datetime.go).
	pureVariant func(where string) *scalarFunc
}

func (f *scalarFunc) call(args []value.Value, coll value.Collation) (value.Value, error) {
	return f.fn(args, coll)
}

var errIntegerOverflow = errors.New("integer overflow")

var scalarFuncs = map[string]*scalarFunc{}

func init() {
	for _, f := range []*scalarFunc{
		{name: "abs", minArgs: 1, maxArgs: 1, fn: fnAbs},
		{name: "coalesce", minArgs: 2, maxArgs: -1, lazy: lazyCoalesce},
		{name: "ifnull", minArgs: 2, maxArgs: 2, lazy: lazyCoalesce},
		{name: "nullif", minArgs: 2, maxArgs: 2, fn: fnNullif},
		{name: "iif", minArgs: 2, maxArgs: -1, lazy: lazyIif},
		{name: "if", minArgs: 2, maxArgs: -1, lazy: lazyIif},
		{name: "length", minArgs: 1, maxArgs: 1, fn: fnLength},
		{name: "lower", minArgs: 1, maxArgs: 1, fn: fnLower},
		{name: "upper", minArgs: 1, maxArgs: 1, fn: fnUpper},
		{name: "substr", minArgs: 2, maxArgs: 3, fn: fnSubstr},
		{name: "substring", minArgs: 2, maxArgs: 3, fn: fnSubstr},
		{name: "trim", minArgs: 1, maxArgs: 2, fn: trimFunc(true, true)},
		{name: "ltrim", minArgs: 1, maxArgs: 2, fn: trimFunc(true, false)},
		{name: "rtrim", minArgs: 1, maxArgs: 2, fn: trimFunc(false, true)},
		{name: "replace", minArgs: 3, maxArgs: 3, fn: fnReplace},
		{name: "instr", minArgs: 2, maxArgs: 2, fn: fnInstr},
		{name: "round", minArgs: 1, maxArgs: 2, fn: fnRound},
		{name: "min", minArgs: 2, maxArgs: -1, fn: minMaxFunc(-1)},
		{name: "max", minArgs: 2, maxArgs: -1, fn: minMaxFunc(1)},
		{name: "typeof", minArgs: 1, maxArgs: 1, fn: fnTypeof},
		{name: "hex", minArgs: 1, maxArgs: 1, fn: fnHex},
		{name: "quote", minArgs: 1, maxArgs: 1, fn: fnQuote},
		{name: "random", minArgs: 0, maxArgs: 0, fn: fnRandom, nondeterministic: true},
		{name: "printf", minArgs: 1, maxArgs: -1, fn: fnPrintf},
		{name: "format", minArgs: 1, maxArgs: -1, fn: fnPrintf},
		{name: "char", minArgs: 0, maxArgs: -1, fn: fnChar},
		{name: "unicode", minArgs: 1, maxArgs: 1, fn: fnUnicode},
		{name: "zeroblob", minArgs: 1, maxArgs: 1, fn: fnZeroblob},
	} {
		scalarFuncs[f.name] = f
	}
}

func fnAbs(a []value.Value, _ value.Collation) (value.Value, error) {
	x := a[0]
	switch x.Kind() {
	case value.Null:
		return x, nil
	case value.Integer:
		i := x.Int()
		if i == math.MinInt64 {
			return value.Value{}, errIntegerOverflow
		}
		if i < 0 {
			i = -i
		}
		return value.Int(i), nil
	}
	f := value.ToFloat(x)
	if f < 0 { // not math.Abs: SQLite's abs(-0.0) is -0.0
		f = -f
	}
	return value.Float(f), nil
}

// lazyCoalesce evaluates the arguments in turn up to the first that is not NULL.
func lazyCoalesce(args []expr, e *env) (value.Value, error) {
	for _, a := range args {
		v, err := a.eval(e)
		if err != nil || !v.IsNull() {
			return v, err
		}
	}
	return value.Value{}, nil
}

// lazyIif is iif(C1, V1 [, C2, V2 ...] [, ELSE]) (and its other name, if): the value after the
// first true condition, else ELSE, else NULL. It evaluates the conditions in turn, then the value
// it chooses.
func lazyIif(args []expr, e *env) (value.Value, error) {
	for i := 0; i+1 < len(args); i += 2 {
		t, err := truth(args[i], e)
		if err != nil {
			return value.Value{}, err
		}
		if t {
			return args[i+1].eval(e)
		}
	}
	if len(args)%2 == 1 {
		return args[len(args)-1].eval(e)
	}
	return value.Value{}, nil
}

func fnNullif(a []value.Value, coll value.Collation) (value.Value, error) {
	if !a[0].IsNull() && !a[1].IsNull() && value.Compare(a[0], a[1], coll) == 0 {
		return value.Value{}, nil
	}
	return a[0], nil
}

func fnLength(a []value.Value, _ value.Collation) (value.Value, error) {
	x := a[0]
	switch x.Kind() {
	case value.Null:
		return x, nil
	case value.Blob:
		return value.Int(int64(len(x.Bytes()))), nil
	case value.Text:
		return value.Int(int64(utf8.RuneCount(textBeforeNUL(x.Bytes())))), nil
	}
	return value.Int(int64(len(x.AppendText(nil)))), nil
}

// textBeforeNUL returns b up to its first NUL: SQLite's character functions stop there.
func textBeforeNUL(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

func caseFunc(a []value.Value, upper bool) (value.Value, error) {
	x := a[0]
	if x.IsNull() {
		return x, nil
	}
	b := x.AppendText(nil)
	for i, c := range b {
		switch {
		case upper && c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case !upper && c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return value.TextBytes(b), nil
}

func fnLower(a []value.Value, _ value.Collation) (value.Value, error) { return caseFunc(a, false) }
func fnUpper(a []value.Value, _ value.Collation) (value.Value, error) { return caseFunc(a, true) }

// fnSubstr is substr(X, Y[, Z]) with SQLite's rules for a start of 0 or below and for a
// negative length; characters for text, bytes for blobs.
func fnSubstr(a []value.Value, _ value.Collation) (value.Value, error) {
	x := a[0]
	if x.IsNull() || a[1].IsNull() || len(a) == 3 && a[2].IsNull() {
		return value.Value{}, nil
	}
	start := value.ToInt(a[1])
	length := int64(math.MaxInt64)
	hasLen := len(a) == 3
	if hasLen {
		length = value.ToInt(a[2])
	}
	blob := x.Kind() == value.Blob
	var units []int // byte offsets of the characters (text), for slicing
	b := x.Bytes()
	if blob && len(b) == 0 {
		return value.Value{}, nil // SQLite: an empty blob has no bytes to point at, so NULL
	}
	if !blob {
		b = x.AppendText(nil)
		if x.Kind() == value.Text {
			b = textBeforeNUL(x.Bytes()) // SQLite counts the characters of a C string
		}
	}
	n := int64(len(b))
	if !blob {
		units = make([]int, 0, len(b)+1)
		for i := range string(b) {
			units = append(units, i)
		}
		units = append(units, len(b))
		n = int64(len(units) - 1)
	}
	// Translate to a 0-based [p1, p1+p2) in units with SQLite's arithmetic: int64 that wraps
	// (a length of -2^63 stays negative when negated), no length as the largest int64.
	p1, p2 := start, int64(math.MaxInt64)
	negLen := false
	if hasLen {
		p2 = length
		if p2 < 0 {
			p2, negLen = -p2, true
		}
	}
	if p1 < 0 {
		p1 += n
		if p1 < 0 {
			if p2 += p1; p2 < 0 {
				p2 = 0
			}
			p1 = 0
		}
	} else if p1 > 0 {
		p1--
	} else if p2 > 0 {
		p2--
	}
	if negLen {
		p1 -= p2
		if p1 < 0 {
			p2 += p1
			p1 = 0
		}
	}
	if p1 > n {
		p1 = n
	}
	end := n // a p2 still negative (by wrapping) takes the rest, as SQLite's loop does
	if p2 >= 0 && p2 < n-p1 {
		end = p1 + p2
	}
	if blob {
		return value.BlobBytes(b[p1:end]), nil
	}
	return value.TextBytes(b[units[p1]:units[end]]), nil
}

// trimFunc is trim, ltrim or rtrim(X[, Y]): X's text without the characters of Y (a space
// without Y) at its start, end or both. As in SQLite the characters of Y are its UTF-8 sequences
// (a first byte and its continuation bytes, up to Y's first NUL) matched as bytes, so a byte of
// Y that is not a whole character still trims a byte of X.
func trimFunc(left, right bool) func([]value.Value, value.Collation) (value.Value, error) {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		x := a[0]
		if x.IsNull() || len(a) == 2 && a[1].IsNull() {
			return value.Value{}, nil
		}
		set := []byte{' '}
		if len(a) == 2 {
			set = textBeforeNUL(a[1].AppendText(nil))
		}
		var chars [][]byte
		for i := 0; i < len(set); {
			n := utf8CharLen(set[i:])
			chars = append(chars, set[i:i+n])
			i += n
		}
		s := x.AppendText(nil)
		if left {
			s = trimChars(s, chars, bytes.HasPrefix, func(s []byte, n int) []byte { return s[n:] })
		}
		if right {
			s = trimChars(s, chars, bytes.HasSuffix, func(s []byte, n int) []byte { return s[:len(s)-n] })
		}
		return value.TextBytes(s), nil
	}
}

// fnReplace is replace(X, Y, Z) in SQLite's order: NULL for a NULL X or Y; X as text when Y is
// empty (or starts with NUL), whatever Z is; else NULL for a NULL Z.
func fnReplace(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() || a[1].IsNull() {
		return value.Value{}, nil
	}
	s, from := a[0].AppendText(nil), a[1].AppendText(nil)
	if len(from) == 0 || from[0] == 0 {
		return value.TextBytes(s), nil
	}
	if a[2].IsNull() {
		return value.Value{}, nil
	}
	return value.TextBytes(bytes.ReplaceAll(s, from, a[2].AppendText(nil))), nil
}

func fnInstr(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() || a[1].IsNull() {
		return value.Value{}, nil
	}
	if a[0].Kind() == value.Blob && a[1].Kind() == value.Blob {
		return value.Int(int64(bytes.Index(a[0].Bytes(), a[1].Bytes()) + 1)), nil
	}
	h, n := string(a[0].AppendText(nil)), string(a[1].AppendText(nil))
	i := strings.Index(h, n)
	if i < 0 {
		return value.Int(0), nil
	}
	return value.Int(int64(utf8.RuneCountInString(h[:i]) + 1)), nil
}

// fnRound is round(X[, N]): half away from zero, on the decimal digits SQLite renders.
func fnRound(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() || len(a) == 2 && a[1].IsNull() {
		return value.Value{}, nil
	}
	n := int64(0)
	if len(a) == 2 {
		n = max(0, min(value.ToInt(a[1]), 30))
	}
	f := value.ToFloat(a[0])
	switch {
	case n == 0 && math.Abs(f) < 4503599627370496.0:
		return value.Float(float64(int64(f + math.Copysign(0.5, f)))), nil
	case math.IsInf(f, 0) || math.Abs(f) >= 4503599627370496.0:
		return value.Float(f), nil
	}
	return value.Float(roundDecimal(f, int(n))), nil
}

func fnTypeof(a []value.Value, _ value.Collation) (value.Value, error) {
	return value.TextString(a[0].Kind().String()), nil
}

func fnHex(a []value.Value, _ value.Collation) (value.Value, error) {
	const digits = "0123456789ABCDEF"
	var b []byte
	switch a[0].Kind() {
	case value.Text, value.Blob:
		b = a[0].Bytes() // not copied: a huge blob is refused before any work
	default:
		b = a[0].AppendText(nil)
	}
	if 2*len(b)+1 > maxLength { // as hexFunc's allocation of 2n+1 bytes
		return value.Value{}, errTooBig
	}
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return value.TextBytes(out), nil
}

func fnQuote(a []value.Value, _ value.Collation) (value.Value, error) {
	v := a[0]
	if v.Kind() == value.Text {
		v = value.TextBytes(textBeforeNUL(v.Bytes())) // SQLite quotes a C string (%Q)
	}
	return value.TextBytes(value.AppendQuoted(nil, v)), nil
}

func fnRandom([]value.Value, value.Collation) (value.Value, error) {
	return value.Int(int64(rand.Uint64())), nil
}

// minMaxFunc is the scalar min (sign -1) or max (sign 1): NULL if any argument is NULL; among
// equal arguments min returns the last, max the first, as SQLite's minmaxFunc does.
func minMaxFunc(sign int) func([]value.Value, value.Collation) (value.Value, error) {
	return func(a []value.Value, coll value.Collation) (value.Value, error) {
		best := a[0]
		for _, v := range a {
			if v.IsNull() {
				return value.Value{}, nil
			}
		}
		for _, v := range a[1:] {
			c := value.Compare(v, best, coll) * sign
			if c > 0 || c == 0 && sign < 0 {
				best = v
			}
		}
		return best, nil
	}
}

// fnChar is char(X, ...): the characters of the code points, U+FFFD for one below 0 or past
// U+10FFFF; a surrogate is written by its bits (three bytes), as SQLite writes it.
func fnChar(a []value.Value, _ value.Collation) (value.Value, error) {
	var b []byte
	for _, v := range a {
		r := value.ToInt(v)
		if r < 0 || r > utf8.MaxRune {
			r = utf8.RuneError
		}
		b = appendCodePoint(b, uint32(r))
	}
	return value.TextBytes(b), nil
}

func fnUnicode(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() {
		return value.Value{}, nil
	}
	b := textBeforeNUL(a[0].AppendText(nil)) // SQLite reads a C string: NUL first is empty
	if len(b) == 0 {
		return value.Value{}, nil
	}
	r, _ := utf8.DecodeRune(b)
	return value.Int(int64(r)), nil
}

func fnZeroblob(a []value.Value, _ value.Collation) (value.Value, error) {
	n := value.ToInt(a[0])
	if n < 0 {
		n = 0
	}
	if n > maxLength {
		return value.Value{}, errTooBig
	}
	return value.BlobBytes(make([]byte, n)), nil
}

// lookupScalar returns the scalar function name called with n arguments, or an error in SQLite's
// words.
func lookupScalar(name string, n int) (*scalarFunc, error) {
	f := scalarFuncs[name]
	if f == nil {
		return nil, fmt.Errorf("no such function: %s", name)
	}
	if n < f.minArgs || f.maxArgs >= 0 && n > f.maxArgs {
		return nil, fmt.Errorf("wrong number of arguments to function %s()", name)
	}
	return f, nil
}

// trimChars cuts from s, with cut, each of chars that ends it on the side has tests (a prefix
// or a suffix), while one does: trim's loop for either side.
func trimChars(s []byte, chars [][]byte, has func(s, c []byte) bool, cut func(s []byte, n int) []byte) []byte {
	for len(s) > 0 {
		n := 0
		for _, c := range chars {
			if has(s, c) {
				n = len(c)
				break
			}
		}
		if n == 0 {
			return s
		}
		s = cut(s, n)
	}
	return s
}

package engine

// Core scalar functions beyond funcs.go's (lang_corefunc.html): the connection's counters
// (changes, last_insert_rowid, total_changes, read from the session when the call is evaluated:
// a row of a multi-row VALUES sees the rowid of the row inserted before it, dml.go's
// streamableValues), versions,
// concat, concat_ws, octet_length, unhex, like and glob as functions, the planner hints
// (likelihood, likely, unlikely: the value of their first argument), randomblob, sign, soundex,
// unistr and unistr_quote, and load_extension, which fails as SQLite's does by default.

import (
	"bytes"
	crand "crypto/rand"
	"errors"
	"math/rand/v2"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// SQLiteVersion is the SQLite release whose behaviour the SQL layer follows (and which the
// differential tests compare with); sqlite_version() returns it. cairn_version() returns
// cairn.Version.
const SQLiteVersion = "3.54.1"

// maxLikePattern is the longest LIKE or GLOB pattern in bytes (SQLite's default
// SQLITE_LIMIT_LIKE_PATTERN_LENGTH); a longer one is errLikePattern.
const maxLikePattern = 50000

var (
	errLikePattern   = errors.New("LIKE or GLOB pattern too complex")
	errLikeEscape    = errors.New("ESCAPE expression must be a single character")
	errLikelihood    = errors.New("second argument to likelihood() must be a constant between 0.0 and 1.0")
	errUnicodeEscape = errors.New("invalid Unicode escape")
	errNotAuthorized = errors.New("not authorized")
)

func init() {
	for _, f := range []*scalarFunc{
		{name: "changes", minArgs: 0, maxArgs: 0, lazy: sessionCounter(func(s *Session) int64 { return s.changes }), nondeterministic: true},
		{name: "total_changes", minArgs: 0, maxArgs: 0, lazy: sessionCounter(func(s *Session) int64 { return s.totalChanges }), nondeterministic: true},
		{name: "last_insert_rowid", minArgs: 0, maxArgs: 0, lazy: sessionCounter(func(s *Session) int64 { return s.lastInsertID }), nondeterministic: true},
		{name: "sqlite_version", minArgs: 0, maxArgs: 0, fn: constText(SQLiteVersion)},
		{name: "cairn_version", minArgs: 0, maxArgs: 0, fn: constText(cairn.Version)},
		{name: "randomblob", minArgs: 1, maxArgs: 1, fn: fnRandomblob, nondeterministic: true},
		{name: "sign", minArgs: 1, maxArgs: 1, fn: fnSign},
		{name: "concat", minArgs: 1, maxArgs: -1, fn: fnConcat},
		{name: "concat_ws", minArgs: 2, maxArgs: -1, fn: fnConcatWS},
		{name: "octet_length", minArgs: 1, maxArgs: 1, fn: fnOctetLength},
		{name: "unhex", minArgs: 1, maxArgs: 2, fn: fnUnhex},
		{name: "like", minArgs: 2, maxArgs: 3, fn: fnLike},
		{name: "glob", minArgs: 2, maxArgs: 2, fn: fnGlob},
		{name: "likelihood", minArgs: 2, maxArgs: 2, fn: fnFirst, checkArgs: checkLikelihood},
		{name: "likely", minArgs: 1, maxArgs: 1, fn: fnFirst},
		{name: "unlikely", minArgs: 1, maxArgs: 1, fn: fnFirst},
		{name: "soundex", minArgs: 1, maxArgs: 1, fn: fnSoundex},
		{name: "unistr", minArgs: 1, maxArgs: 1, fn: fnUnistr},
		{name: "unistr_quote", minArgs: 1, maxArgs: 1, fn: fnUnistrQuote},
		{name: "load_extension", minArgs: 1, maxArgs: 2, fn: fnLoadExtension, nondeterministic: true},
	} {
		scalarFuncs[f.name] = f
	}
}

// sessionCounter is a function returning a counter of the session running the statement.
func sessionCounter(get func(*Session) int64) func([]expr, *env) (value.Value, error) {
	return func(_ []expr, e *env) (value.Value, error) {
		if e == nil || e.run == nil || e.run.cx == nil || e.run.cx.sess == nil {
			return value.Int(0), nil
		}
		return value.Int(get(e.run.cx.sess)), nil
	}
}

func constText(s string) func([]value.Value, value.Collation) (value.Value, error) {
	return func([]value.Value, value.Collation) (value.Value, error) { return value.TextString(s), nil }
}

// fnRandomblob is randomblob(N): N random bytes, at least 1.
func fnRandomblob(a []value.Value, _ value.Collation) (value.Value, error) {
	n := value.ToInt(a[0])
	if n < 1 {
		n = 1
	}
	if n > maxLength {
		return value.Value{}, errTooBig
	}
	b := make([]byte, n)
	if _, err := crand.Read(b); err != nil { // never fails (crypto/rand's contract); fall back anyway
		for i := range b {
			b[i] = byte(rand.Uint32())
		}
	}
	return value.BlobBytes(b), nil
}

// fnSign is sign(X): -1, 0 or 1 for a number (or numeric text), NULL for anything else.
func fnSign(a []value.Value, _ value.Collation) (value.Value, error) {
	x, ok := numericArg(a[0])
	if !ok {
		return value.Value{}, nil
	}
	switch f := value.ToFloat(x); {
	case f < 0:
		return value.Int(-1), nil
	case f > 0:
		return value.Int(1), nil
	}
	return value.Int(0), nil
}

// fnConcat is concat(X, ...): the texts of the arguments that are not NULL, joined.
func fnConcat(a []value.Value, _ value.Collation) (value.Value, error) {
	var b []byte
	for _, v := range a {
		if !v.IsNull() {
			b = v.AppendText(b)
		}
	}
	if len(b) > maxLength {
		return value.Value{}, errTooBig
	}
	return value.TextBytes(nonNilBytes(b)), nil
}

// fnConcatWS is concat_ws(SEP, X, ...): the texts of the X that are not NULL, separated by SEP;
// NULL when SEP is NULL.
func fnConcatWS(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() {
		return value.Value{}, nil
	}
	sep := a[0].AppendText(nil)
	var b []byte
	first := true
	for _, v := range a[1:] {
		if v.IsNull() {
			continue
		}
		if !first {
			b = append(b, sep...)
		}
		first = false
		b = v.AppendText(b)
	}
	if len(b) > maxLength {
		return value.Value{}, errTooBig
	}
	return value.TextBytes(nonNilBytes(b)), nil
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// fnOctetLength is octet_length(X): the bytes of X's text (all of them: a NUL does not end it) or
// of its blob.
func fnOctetLength(a []value.Value, _ value.Collation) (value.Value, error) {
	switch x := a[0]; x.Kind() {
	case value.Null:
		return x, nil
	case value.Text, value.Blob:
		return value.Int(int64(len(x.Bytes()))), nil
	default:
		return value.Int(int64(len(x.AppendText(nil)))), nil
	}
}

// fnUnhex is unhex(X[, Y]): the blob X's text spells in hexadecimal digit pairs; characters of
// Y may stand between the pairs (not inside one). NULL when X or Y is NULL or X holds anything
// else. X is read up to its first NUL.
func fnUnhex(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() || len(a) == 2 && a[1].IsNull() {
		return value.Value{}, nil
	}
	hex := textBeforeNUL(a[0].AppendText(nil))
	var pass []byte
	if len(a) == 2 {
		pass = textBeforeNUL(a[1].AppendText(nil))
	}
	out := make([]byte, 0, len(hex)/2)
	for i := 0; i < len(hex); {
		if hexDigit(hex[i]) < 0 {
			n := utf8CharLen(hex[i:])
			if !containsChar(pass, hex[i:i+n]) {
				return value.Value{}, nil
			}
			i += n
			continue
		}
		if i+1 >= len(hex) || hexDigit(hex[i+1]) < 0 {
			return value.Value{}, nil
		}
		out = append(out, byte(hexDigit(hex[i])<<4|hexDigit(hex[i+1])))
		i += 2
	}
	return value.BlobBytes(out), nil
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// utf8CharLen is the length of the character b starts with, as SQLite steps through UTF-8: a
// first byte and the continuation bytes (10xxxxxx) after it, valid or not.
func utf8CharLen(b []byte) int {
	n := 1
	if b[0] >= 0xc0 {
		for n < len(b) && b[n]&0xc0 == 0x80 {
			n++
		}
	}
	return n
}

// containsChar reports whether the characters of set (split as utf8CharLen does) include c.
func containsChar(set, c []byte) bool {
	for i := 0; i < len(set); {
		n := utf8CharLen(set[i:])
		if bytes.Equal(set[i:i+n], c) {
			return true
		}
		i += n
	}
	return false
}

// fnLike is like(P, X[, E]), which is X LIKE P [ESCAPE E].
func fnLike(a []value.Value, _ value.Collation) (value.Value, error) {
	if len(a) == 3 {
		return likeCall(a[0], a[1], a[2], true, false)
	}
	return likeCall(a[0], a[1], value.Value{}, false, false)
}

// fnGlob is glob(P, X), which is X GLOB P.
func fnGlob(a []value.Value, _ value.Collation) (value.Value, error) {
	return likeCall(a[0], a[1], value.Value{}, false, true)
}

// likeCall is X LIKE P [ESCAPE E] (hasEsc false without ESCAPE) or X GLOB P, in the order of SQLite's
// like function as modernc.org/sqlite builds it (SQLITE_LIKE_DOESNT_MATCH_BLOBS): a BLOB P or X
// matches nothing (0, even with a NULL other argument); a pattern over maxLikePattern bytes is
// an error; a NULL escape makes NULL, an escape that is not one character an error; a NULL P or X
// makes NULL. Texts are matched up to their first NUL, as SQLite matches C strings.
func likeCall(p, x, esc value.Value, hasEsc, glob bool) (value.Value, error) {
	if p.Kind() == value.Blob || x.Kind() == value.Blob {
		return value.Int(0), nil
	}
	pt := p.AppendText(nil)
	if len(pt) > maxLikePattern {
		return value.Value{}, errLikePattern
	}
	escRune := rune(-1)
	if hasEsc {
		if esc.IsNull() {
			return value.Value{}, nil
		}
		r := []rune(string(textBeforeNUL(esc.AppendText(nil))))
		if len(r) != 1 {
			return value.Value{}, errLikeEscape
		}
		escRune = r[0]
	}
	if p.IsNull() || x.IsNull() {
		return value.Value{}, nil
	}
	pt, xt := textBeforeNUL(pt), textBeforeNUL(x.AppendText(nil))
	if glob {
		return value.Bool(globMatch(pt, xt)), nil
	}
	return value.Bool(likeMatch(string(pt), string(xt), escRune)), nil
}

// fnFirst returns its first argument: likely, unlikely and likelihood, hints for SQLite's planner
// that cairn's does not use.
func fnFirst(a []value.Value, _ value.Collation) (value.Value, error) { return a[0], nil }

// checkLikelihood requires likelihood's second argument to be a REAL literal from 0.0 to 1.0,
// as SQLite does when it prepares the statement.
func checkLikelihood(args []ast.Expr) error {
	lit, ok := args[1].(*ast.Literal)
	if !ok || lit.Value.Kind() != value.Real || lit.Value.Float() < 0 || lit.Value.Float() > 1 {
		return errLikelihood
	}
	return nil
}

// soundexCode is the soundex digit of an ASCII letter (0 for vowels, H, W, Y and non-letters).
func soundexCode(c byte) byte {
	c &= 0x7f // SQLite looks up every byte by its low 7 bits, so UTF-8 bytes count as ASCII
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	if c < 'A' || c > 'Z' {
		return 0
	}
	return "01230120022455012623010202"[c-'A'] - '0'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// fnSoundex is soundex(X): the first ASCII letter of X upper-cased, then the codes of the letters
// that follow it, a run of one code counted once and a vowel ending a run, up to three digits,
// padded with 0; "?000" when X (or NULL) has no ASCII letter.
func fnSoundex(a []value.Value, _ value.Collation) (value.Value, error) {
	s := textBeforeNUL(a[0].AppendText(nil))
	i := 0
	for i < len(s) && !isASCIILetter(s[i]) {
		i++
	}
	if i == len(s) {
		return value.TextString("?000"), nil
	}
	out := []byte{s[i] &^ 0x20}
	prev := soundexCode(s[i])
	for ; i < len(s) && len(out) < 4; i++ {
		code := soundexCode(s[i])
		switch {
		case code == 0:
			prev = 0
		case code != prev:
			prev = code
			out = append(out, '0'+code)
		}
	}
	for len(out) < 4 {
		out = append(out, '0')
	}
	return value.TextBytes(out), nil
}

// appendCodePoint appends c in UTF-8 as SQLite writes a code point: by its value alone, so a
// surrogate or a value past U+10FFFF gets the bytes of its bit pattern (three or four bytes).
func appendCodePoint(b []byte, c uint32) []byte {
	switch {
	case c < 0x80:
		return append(b, byte(c))
	case c < 0x800:
		return append(b, 0xc0|byte(c>>6), 0x80|byte(c&0x3f))
	case c < 0x10000:
		return append(b, 0xe0|byte(c>>12), 0x80|byte(c>>6&0x3f), 0x80|byte(c&0x3f))
	}
	return append(b, 0xf0|byte(c>>18&0x07), 0x80|byte(c>>12&0x3f), 0x80|byte(c>>6&0x3f), 0x80|byte(c&0x3f))
}

// fnUnistr is unistr(X): X's text with its escapes replaced: \\ by \, and \XXXX, \uXXXX,
// \+XXXXXX, \UXXXXXXXX (hexadecimal digits) by that code point; any other backslash is
// errUnicodeEscape.
func fnUnistr(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() {
		return value.Value{}, nil
	}
	s := textBeforeNUL(a[0].AppendText(nil))
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		rest := s[i+1:]
		digits, skip := 4, 1
		switch {
		case len(rest) > 0 && rest[0] == '\\':
			out = append(out, '\\')
			i += 2
			continue
		case len(rest) > 0 && rest[0] == 'u':
			rest = rest[1:]
		case len(rest) > 0 && rest[0] == '+':
			rest, digits = rest[1:], 6
		case len(rest) > 0 && rest[0] == 'U':
			rest, digits = rest[1:], 8
		default:
			skip = 0
		}
		if len(rest) < digits {
			return value.Value{}, errUnicodeEscape
		}
		var c uint32
		for _, d := range rest[:digits] {
			h := hexDigit(d)
			if h < 0 {
				return value.Value{}, errUnicodeEscape
			}
			c = c<<4 | uint32(h)
		}
		out = appendCodePoint(out, c)
		i += 1 + skip + digits
	}
	return value.TextBytes(out), nil
}

// fnUnistrQuote is unistr_quote(X): quote(X), except that a text with control characters
// (below U+0020) is written as a call of unistr, with those characters as \u00XX and each
// backslash doubled, so that the literal holds no control character.
func fnUnistrQuote(a []value.Value, _ value.Collation) (value.Value, error) {
	x := a[0]
	if x.Kind() != value.Text {
		return value.TextBytes(value.AppendQuoted(nil, x)), nil
	}
	s := textBeforeNUL(x.Bytes())
	control := false
	for _, c := range s {
		if c < 0x20 {
			control = true
			break
		}
	}
	if !control {
		return value.TextBytes(value.AppendQuoted(nil, value.TextBytes(s))), nil
	}
	const hexLower = "0123456789abcdef"
	out := append(make([]byte, 0, len(s)+16), "unistr('"...)
	for _, c := range s {
		switch {
		case c == '\'':
			out = append(out, '\'', '\'')
		case c == '\\':
			out = append(out, '\\', '\\')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexLower[c>>4], hexLower[c&15])
		default:
			out = append(out, c)
		}
	}
	return value.TextBytes(append(out, "')"...)), nil
}

// fnLoadExtension is load_extension(X[, Y]): cairn loads no extensions, and the call fails as it
// does in SQLite while extension loading is off (its default), when it is evaluated.
func fnLoadExtension([]value.Value, value.Collation) (value.Value, error) {
	return value.Value{}, errNotAuthorized
}

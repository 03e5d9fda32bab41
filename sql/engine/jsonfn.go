package engine

// SQLite's JSON functions (json1.html), built in: JSON text is parsed into a tree of jsonNode,
// edited, and written back minified as SQLite writes it. Invariants: a string node's raw holds
// the text between its quotes in canonical JSON escapes, and a number node's raw its canonical
// JSON text, so writing a tree back is appending raws; a TEXT a JSON function returns as JSON
// carries value.SubtypeJSON, and another JSON function takes such an argument as JSON, any
// other TEXT as a string (SQLite's subtype rule). JSON5 input is read and written back as
// canonical JSON, as SQLite's json() does. A BLOB argument that looks like JSONB is read as
// JSONB (decodeJSONB), another BLOB as JSON text, as SQLite reads them; nothing writes JSONB.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/cairndb/cairn/sql/value"
)

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonTrue
	jsonFalse
	jsonInt
	jsonReal
	jsonString
	jsonArray
	jsonObject
)

var jsonKindNames = [...]string{"null", "true", "false", "integer", "real", "text", "array", "object"}

// jsonNode is one JSON value. An object's kids alternate label (a string node) and value.
type jsonNode struct {
	kind jsonKind
	raw  []byte
	kids []*jsonNode
	// five marks a number or string read in a JSON5 spelling, which src keeps (JSONB's INT5,
	// FLOAT5, TEXT5); textRaw a string an edit put in from SQL text (JSONB's TEXTRAW).
	five    bool
	textRaw bool
	src     []byte
}

var (
	errMalformedJSON = errors.New("malformed JSON")
)

// jsonMaxDepth is how deeply arrays and objects may nest, as SQLite's JSON_MAX_DEPTH.
const jsonMaxDepth = 1000

// jsonParser reads JSON text (RFC 8259 and the JSON5 extensions SQLite reads).
type jsonParser struct {
	s     []byte
	i     int
	json5 bool // a JSON5 extension was read
	at5   int  // where the first one was (SQLite reports it for text after the value)
	depth int
}

// nonstd records that a JSON5 extension was read at p.i.
func (p *jsonParser) nonstd() {
	if !p.json5 {
		p.json5, p.at5 = true, p.i
	}
}

// parseJSON parses s. On error, pos is the byte offset where the parse failed (for text after
// the value, the offset SQLite reports: where the first JSON5 extension was, else 0).
func parseJSON(s []byte) (n *jsonNode, json5 bool, pos int, err error) {
	p := &jsonParser{s: s}
	p.ws()
	if p.i >= len(p.s) {
		return nil, false, p.i, errMalformedJSON
	}
	n, err = p.value()
	if err != nil {
		return nil, false, p.i, err
	}
	p.ws()
	if p.i < len(p.s) {
		if p.json5 {
			return nil, false, p.at5, errMalformedJSON
		}
		return nil, false, 0, errMalformedJSON
	}
	return n, p.json5, 0, nil
}

// ws skips white space and, as JSON5 allows, comments and further space characters.
func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case ' ', '\t', '\n', '\r':
			p.i++
		case '\v', '\f':
			p.i++
			p.json5 = true // no position: SQLite records none for space
		case '/':
			if p.i+1 < len(p.s) && p.s[p.i+1] == '*' {
				end := bytes.Index(p.s[p.i+2:], []byte("*/"))
				if end < 0 {
					return
				}
				p.i += end + 4
				p.json5 = true // no position: SQLite records none for space
			} else if p.i+1 < len(p.s) && p.s[p.i+1] == '/' {
				end := bytes.IndexByte(p.s[p.i:], '\n')
				if end < 0 {
					p.i = len(p.s)
				} else {
					p.i += end + 1
				}
				p.json5 = true // no position: SQLite records none for space
			} else {
				return
			}
		case 0xc2:
			if p.i+1 < len(p.s) && p.s[p.i+1] == 0xa0 { // U+00A0
				p.i += 2
				p.json5 = true // no position: SQLite records none for space
				continue
			}
			return
		case 0xe2:
			if p.i+2 < len(p.s) && p.s[p.i+1] == 0x80 && (p.s[p.i+2] == 0xa8 || p.s[p.i+2] == 0xa9) {
				p.i += 3
				p.json5 = true // no position: SQLite records none for space
				continue
			}
			return
		case 0xef:
			if p.i+2 < len(p.s) && p.s[p.i+1] == 0xbb && p.s[p.i+2] == 0xbf { // BOM
				p.i += 3
				p.json5 = true // no position: SQLite records none for space
				continue
			}
			return
		default:
			return
		}
	}
}

func (p *jsonParser) value() (*jsonNode, error) {
	if p.i >= len(p.s) {
		return nil, errMalformedJSON
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.container(jsonObject, '}')
	case c == '[':
		return p.container(jsonArray, ']')
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	if n, size := p.keyword(p.i); n != nil {
		if n.kind != jsonTrue && n.kind != jsonFalse && (n.kind != jsonNull || size != 4) {
			p.nonstd()
		}
		p.i += size
		return n, nil
	}
	if n, err := p.infinity(false); n != nil || err != nil {
		return n, err
	}
	return nil, errMalformedJSON
}

// keyword returns the literal at i, if one is there and no letter or digit follows it: true,
// false, null, or (JSON5, any case) NaN, QNaN, SNaN.
func (p *jsonParser) keyword(i int) (*jsonNode, int) {
	for _, w := range [...]struct {
		word string
		fold bool
		kind jsonKind
	}{
		{"true", false, jsonTrue}, {"false", false, jsonFalse}, {"null", false, jsonNull},
		{"nan", true, jsonNull}, {"qnan", true, jsonNull}, {"snan", true, jsonNull},
	} {
		end := i + len(w.word)
		if end > len(p.s) || p.alnumAt(end) {
			continue
		}
		if w.fold && bytes.EqualFold(p.s[i:end], []byte(w.word)) || !w.fold && string(p.s[i:end]) == w.word {
			return &jsonNode{kind: w.kind}, len(w.word)
		}
	}
	return nil, 0
}

// infinity reads Infinity or Inf (any case) at p.i; nil and no error when neither starts there.
func (p *jsonParser) infinity(neg bool) (*jsonNode, error) {
	if p.i+3 > len(p.s) || !bytes.EqualFold(p.s[p.i:p.i+3], []byte("inf")) {
		return nil, nil
	}
	size := 3
	if p.i+8 <= len(p.s) && bytes.EqualFold(p.s[p.i:p.i+8], []byte("infinity")) {
		size = 8
	}
	if p.alnumAt(p.i + size) {
		if neg {
			p.i += 3 // SQLite reports the character after "-inf", and the start of "inf"
		}
		return nil, errMalformedJSON
	}
	p.nonstd()
	p.i += size
	if neg {
		return &jsonNode{kind: jsonReal, raw: []byte("-9e999")}, nil
	}
	return &jsonNode{kind: jsonReal, raw: []byte("9e999")}, nil
}

// alnumAt reports whether an ASCII letter or digit is at i.
func (p *jsonParser) alnumAt(i int) bool {
	if i >= len(p.s) {
		return false
	}
	c := p.s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// identAt reports whether an identifier character is at i.
func (p *jsonParser) identAt(i int) bool {
	if i >= len(p.s) {
		return false
	}
	c := p.s[i]
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func (p *jsonParser) container(kind jsonKind, end byte) (*jsonNode, error) {
	p.depth++
	if p.depth > jsonMaxDepth {
		return nil, errMalformedJSON
	}
	defer func() { p.depth-- }()
	n := &jsonNode{kind: kind}
	p.i++
	for {
		p.ws()
		if p.i >= len(p.s) {
			return nil, errMalformedJSON
		}
		if p.s[p.i] == end {
			if len(n.kids) > 0 {
				p.nonstd() // a trailing comma
			}
			p.i++
			return n, nil
		}
		if kind == jsonObject {
			var label *jsonNode
			if c := p.s[p.i]; c == '"' || c == '\'' {
				l, err := p.str()
				if err != nil {
					return nil, err
				}
				label = l
			} else {
				if n, _ := p.keyword(p.i); n != nil {
					return nil, errMalformedJSON // SQLite takes a literal there for a value
				}
				start := p.i
				if n, _ := p.infinity(false); n != nil {
					p.i = start
					return nil, errMalformedJSON
				}
				p.i = start
				p.nonstd()
				for p.identAt(p.i) && !(p.i == start && p.s[p.i] >= '0' && p.s[p.i] <= '9') {
					p.i++
				}
				if p.i == start {
					return nil, errMalformedJSON
				}
				label = &jsonNode{kind: jsonString, raw: p.s[start:p.i]}
				if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
					// SQLite reads on through a string there before it fails.
					if _, err := p.str(); err != nil {
						return nil, err
					}
					return nil, errMalformedJSON
				}
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, errMalformedJSON
			}
			p.i++
			p.ws()
			n.kids = append(n.kids, label)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, v)
		p.ws()
		if p.i >= len(p.s) {
			return nil, errMalformedJSON
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case end:
			p.i++
			return n, nil
		default:
			return nil, errMalformedJSON
		}
	}
}

// str reads a string; its raw is made canonical (JSON5 single quotes, escapes and raw control
// characters rewritten).
func (p *jsonParser) str() (*jsonNode, error) {
	q := p.s[p.i]
	if q == '\'' {
		p.nonstd()
	}
	p.i++
	start := p.i
	var canon []byte // nil while the raw text is canonical
	for {
		if p.i >= len(p.s) {
			return nil, errMalformedJSON
		}
		c := p.s[p.i]
		switch {
		case c == q:
			raw := p.s[start:p.i]
			n := &jsonNode{kind: jsonString, raw: raw}
			if canon != nil {
				n.raw, n.five, n.src = canon, true, raw
			}
			p.i++
			return n, nil
		case c == '"': // inside a single-quoted string
			canon = p.canonUpTo(canon, start)
			canon = append(canon, '\\', '"')
			p.i++
		case c < 0x20:
			p.nonstd()
			canon = p.canonUpTo(canon, start)
			canon = appendJSONEscape(canon, c)
			p.i++
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, errMalformedJSON
			}
			e := p.s[p.i+1]
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				if canon != nil {
					canon = append(canon, c, e)
				}
				p.i += 2
			case 'u':
				if p.i+6 > len(p.s) || !isHex4(p.s[p.i+2:p.i+6]) {
					p.i++ // SQLite reports the character after the backslash
					return nil, errMalformedJSON
				}
				if canon != nil {
					canon = append(canon, p.s[p.i:p.i+6]...)
				}
				p.i += 6
			default:
				p.nonstd()
				canon = p.canonUpTo(canon, start)
				switch e {
				case '\'':
					canon = append(canon, '\'')
					p.i += 2
				case 'v':
					canon = append(canon, `\u000b`...)
					p.i += 2
				case '0':
					canon = append(canon, `\u0000`...)
					p.i += 2
				case 'x':
					if p.i+4 > len(p.s) || !isHex4(append([]byte("00"), p.s[p.i+2:p.i+4]...)) {
						p.i++
						return nil, errMalformedJSON
					}
					canon = append(canon, `\u00`...)
					canon = append(canon, p.s[p.i+2:p.i+4]...)
					p.i += 4
				case '\r':
					p.i += 2
					if p.i < len(p.s) && p.s[p.i] == '\n' {
						p.i++
					}
				case '\n':
					p.i += 2
				default:
					if bytes.HasPrefix(p.s[p.i+1:], []byte("\u2028")) || bytes.HasPrefix(p.s[p.i+1:], []byte("\u2029")) {
						p.i += 4
						continue
					}
					p.i++ // SQLite reports the character after the backslash
					return nil, errMalformedJSON
				}
			}
		default:
			if canon != nil {
				canon = append(canon, c)
			}
			p.i++
		}
	}
}

// canonUpTo starts the canonical copy of a string at its first non-canonical byte.
func (p *jsonParser) canonUpTo(canon []byte, start int) []byte {
	if canon != nil {
		return canon
	}
	return append(make([]byte, 0, p.i-start+16), p.s[start:p.i]...)
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return len(b) == 4
}

// number reads a number; JSON5 forms (a leading +, hexadecimal, a leading or trailing point,
// Infinity) are rewritten in canonical form.
func (p *jsonParser) number() (*jsonNode, error) {
	start := p.i
	neg := false
	if c := p.s[p.i]; c == '-' || c == '+' {
		neg = c == '-'
		if c == '+' {
			p.nonstd()
		}
		p.i++
	}
	if n, err := p.infinity(neg); n != nil || err != nil {
		return n, err
	}
	if p.i+1 < len(p.s) && p.s[p.i] == '0' && (p.s[p.i+1] == 'x' || p.s[p.i+1] == 'X') {
		p.i += 2
		hs := p.i
		for p.i < len(p.s) && isHex4([]byte{'0', '0', '0', p.s[p.i]}) {
			p.i++
		}
		if p.i == hs {
			p.i = hs - 1
			return nil, errMalformedJSON
		}
		p.nonstd()
		u, err := strconv.ParseUint(string(p.s[hs:p.i]), 16, 64)
		raw := []byte(nil)
		if neg {
			raw = append(raw, '-')
		}
		src := p.s[start:p.i]
		if err != nil {
			return &jsonNode{kind: jsonReal, raw: append(raw, "9e999"...), five: true, src: src}, nil
		}
		return &jsonNode{kind: jsonInt, raw: strconv.AppendUint(raw, u, 10), five: true, src: src}, nil
	}
	var canon []byte
	if neg {
		canon = append(canon, '-')
	}
	digits := func() int {
		s := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		canon = append(canon, p.s[s:p.i]...)
		return p.i - s
	}
	kind := jsonInt
	five := false // a JSON5 spelling JSONB keeps (a leading + is dropped)
	intDigits := p.i
	n := digits()
	if n > 1 && p.s[intDigits] == '0' {
		p.i = start + 1 // SQLite reports the character after the number's first
		return nil, errMalformedJSON
	}
	if n == 0 {
		if p.i >= len(p.s) || p.s[p.i] != '.' {
			p.i = start
			return nil, errMalformedJSON
		}
		canon = append(canon, '0')
		p.nonstd()
		five = true
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		kind = jsonReal
		p.i++
		canon = append(canon, '.')
		if digits() == 0 {
			if n == 0 {
				if p.i == start+1 { // a lone point; after a sign SQLite reports what follows
					p.i = start
				}
				return nil, errMalformedJSON
			}
			canon = append(canon, '0')
			p.nonstd()
			five = true
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		kind = jsonReal
		e := p.i
		canon = append(canon, p.s[p.i])
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			canon = append(canon, p.s[p.i])
			p.i++
		}
		if digits() == 0 {
			p.i-- // SQLite reports the e or the sign after it
			_ = e
			return nil, errMalformedJSON
		}
	}
	if p.identAt(p.i) {
		return nil, errMalformedJSON
	}
	raw := p.s[start:p.i]
	if five {
		return &jsonNode{kind: kind, raw: canon, five: true, src: raw}, nil
	}
	if !bytes.Equal(raw, canon) {
		raw = canon
	}
	return &jsonNode{kind: kind, raw: raw}, nil
}

// appendJSONEscape appends the escape of control character c as SQLite writes it.
func appendJSONEscape(dst []byte, c byte) []byte {
	switch c {
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexLower[c>>4], hexLower[c&15])
}

const hexLower = "0123456789abcdef"

// appendJSONQuoted appends s as the inside of a JSON string, escaped as SQLite escapes it.
func appendJSONQuoted(dst, s []byte) []byte {
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		if c == '"' || c == '\\' {
			dst = append(dst, '\\', c)
		} else {
			dst = appendJSONEscape(dst, c)
		}
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// decodeJSONString returns the text a string node's raw stands for.
func decodeJSONString(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+5 > len(raw) {
				return out
			}
			r, _ := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
			i += 4
			if r >= 0xd800 && r < 0xdc00 && i+6 < len(raw)+0 && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if r2, err := strconv.ParseUint(string(raw[i+3:i+7]), 16, 32); err == nil && r2 >= 0xdc00 && r2 < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
					i += 6
				}
			}
			out = utf8.AppendRune(out, rune(r))
		default:
			out = append(out, raw[i])
		}
	}
	return out
}

// appendJSON writes n minified.
func appendJSON(dst []byte, n *jsonNode) []byte {
	switch n.kind {
	case jsonNull:
		return append(dst, "null"...)
	case jsonTrue:
		return append(dst, "true"...)
	case jsonFalse:
		return append(dst, "false"...)
	case jsonInt, jsonReal:
		return append(dst, n.raw...)
	case jsonString:
		dst = append(dst, '"')
		dst = append(dst, n.raw...)
		return append(dst, '"')
	case jsonArray:
		dst = append(dst, '[')
		for i, k := range n.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, k)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i := 0; i+1 < len(n.kids); i += 2 {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSON(dst, n.kids[i])
		dst = append(dst, ':')
		dst = appendJSON(dst, n.kids[i+1])
	}
	return append(dst, '}')
}

// appendPrettyJSON writes n as json_pretty does: one element or member a line, indented by
// indent per level.
func appendPrettyJSON(dst []byte, n *jsonNode, indent []byte, level int) []byte {
	if n.kind != jsonArray && n.kind != jsonObject || len(n.kids) == 0 {
		return appendJSON(dst, n)
	}
	open, close := byte('['), byte(']')
	step := 1
	if n.kind == jsonObject {
		open, close, step = '{', '}', 2
	}
	dst = append(dst, open, '\n')
	for i := 0; i < len(n.kids); i += step {
		if i > 0 {
			dst = append(dst, ',', '\n')
		}
		for j := 0; j <= level; j++ {
			dst = append(dst, indent...)
		}
		if step == 2 {
			dst = appendJSON(dst, n.kids[i])
			dst = append(dst, ':', ' ')
			dst = appendPrettyJSON(dst, n.kids[i+1], indent, level+1)
		} else {
			dst = appendPrettyJSON(dst, n.kids[i], indent, level+1)
		}
	}
	dst = append(dst, '\n')
	for j := 0; j < level; j++ {
		dst = append(dst, indent...)
	}
	return append(dst, close)
}

// jsonEmit makes a JSON function's result of a tree: JSON text, or a JSONB blob for jsonb_*.
type jsonEmit func(n *jsonNode) value.Value

type jsonScalarFn = func(a []value.Value, _ value.Collation) (value.Value, error)

// jsonBlob returns n as a JSONB blob.
func jsonBlob(n *jsonNode) value.Value { return value.BlobBytes(appendJSONB(nil, n)) }

// jsonText returns n as a TEXT value with the JSON subtype.
func jsonText(n *jsonNode) value.Value {
	return value.TextBytes(appendJSON(nil, n)).WithSubtype(value.SubtypeJSON)
}

// jsonSQLValue is the SQL value of n as json_extract returns it: null NULL, true and false 1
// and 0, numbers INTEGER or REAL, a string its text, an array or object its JSON text.
func jsonSQLValue(n *jsonNode) value.Value { return jsonSQLValueOut(n, jsonText) }

// jsonSQLValueOut is jsonSQLValue with arrays and objects made by out.
func jsonSQLValueOut(n *jsonNode, out jsonEmit) value.Value {
	switch n.kind {
	case jsonNull:
		return value.Value{}
	case jsonTrue:
		return value.Int(1)
	case jsonFalse:
		return value.Int(0)
	case jsonInt:
		if i, err := strconv.ParseInt(string(n.raw), 10, 64); err == nil {
			return value.Int(i)
		}
		return value.Float(parseJSONFloat(n.raw))
	case jsonReal:
		return value.Float(parseJSONFloat(n.raw))
	case jsonString:
		return value.TextBytes(decodeJSONString(n.raw))
	}
	return out(n)
}

func parseJSONFloat(raw []byte) float64 {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0
	}
	return f
}

// jsonArg parses a function's JSON argument; ok is false for NULL. A BLOB is read as JSONB when
// it looks like JSONB, else as JSON text, as SQLite reads it.
func jsonArg(v value.Value) (n *jsonNode, ok bool, err error) {
	switch v.Kind() {
	case value.Null:
		return nil, false, nil
	case value.Blob:
		if looksLikeJSONB(v.Bytes()) {
			n, err := decodeJSONB(append([]byte(nil), v.Bytes()...))
			return n, err == nil, err
		}
	}
	n, _, _, err = parseJSON(v.AppendText(nil))
	if err != nil {
		return nil, false, err
	}
	return n, true, nil
}

// jsonFromValue is the JSON node of an SQL value given as a value to store: a TEXT with the
// JSON subtype is its JSON, another TEXT a string, numbers numbers, NULL null.
func jsonFromValue(v value.Value) (*jsonNode, error) {
	switch v.Kind() {
	case value.Null:
		return &jsonNode{kind: jsonNull}, nil
	case value.Integer:
		return &jsonNode{kind: jsonInt, raw: v.AppendText(nil)}, nil
	case value.Real:
		f := v.Float()
		switch {
		case math.IsInf(f, 1):
			return &jsonNode{kind: jsonReal, raw: []byte("9.0e+999")}, nil
		case math.IsInf(f, -1):
			return &jsonNode{kind: jsonReal, raw: []byte("-9.0e+999")}, nil
		}
		return &jsonNode{kind: jsonReal, raw: v.AppendText(nil)}, nil
	case value.Text:
		if v.Subtype() == value.SubtypeJSON {
			if n, _, _, err := parseJSON(v.Bytes()); err == nil {
				return n, nil
			}
		}
		return &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, v.Bytes())}, nil
	}
	if looksLikeJSONB(v.Bytes()) {
		return decodeJSONB(append([]byte(nil), v.Bytes()...))
	}
	return nil, errors.New("JSON cannot hold BLOB values")
}

// jsonPathStep is one step of a JSON path: an object label, or an array index (fromEnd: counted
// back from the length, [#-N]; N 0 with fromEnd is [#], the place after the last element).
type jsonPathStep struct {
	isKey   bool
	key     []byte
	index   int64
	fromEnd bool
}

// parseJSONPath parses a path $, .label, ."label", [N], [#], [#-N].
func parseJSONPath(path []byte) ([]jsonPathStep, error) {
	bad := fmt.Errorf("bad JSON path: %s", value.AppendQuoted(nil, value.TextBytes(path)))
	if len(path) == 0 || path[0] != '$' {
		return nil, bad
	}
	var steps []jsonPathStep
	for i := 1; i < len(path); {
		switch path[i] {
		case '.':
			i++
			if i < len(path) && path[i] == '"' {
				end := i + 1
				for end < len(path) && path[end] != '"' {
					if path[end] == '\\' {
						end++
					}
					end++
				}
				if end >= len(path) {
					return nil, bad
				}
				steps = append(steps, jsonPathStep{isKey: true, key: decodeJSONString(path[i+1 : end])})
				i = end + 1
				continue
			}
			start := i
			for i < len(path) && path[i] != '.' && path[i] != '[' {
				i++
			}
			if i == start {
				return nil, bad
			}
			steps = append(steps, jsonPathStep{isKey: true, key: path[start:i]})
		case '[':
			i++
			st := jsonPathStep{}
			ok := true
			switch {
			case i < len(path) && path[i] == '#':
				st.fromEnd = true
				i++
				if i < len(path) && path[i] == '-' {
					st.index, i, ok = pathIndex(path, i+1)
				}
			default:
				st.index, i, ok = pathIndex(path, i)
			}
			if !ok {
				return nil, bad
			}
			if i >= len(path) || path[i] != ']' {
				return nil, bad
			}
			i++
			steps = append(steps, st)
		default:
			return nil, bad
		}
	}
	return steps, nil
}

// pathIndex reads the decimal number of an array step at path[i:]: the number and the position
// after its digits, ok false when there are no digits or the number overflows.
func pathIndex(path []byte, i int) (n int64, next int, ok bool) {
	start := i
	for i < len(path) && path[i] >= '0' && path[i] <= '9' {
		i++
	}
	if i == start {
		return 0, i, false
	}
	n, err := strconv.ParseInt(string(path[start:i]), 10, 64)
	return n, i, err == nil
}

// arrayIndex resolves an index step against an array of n elements (n itself: just past the end).
func (st jsonPathStep) arrayIndex(n int) int64 {
	if st.fromEnd {
		return int64(n) - st.index
	}
	return st.index
}

// findLabel returns the kid index of the first member of object n labelled key, or -1.
func findLabel(n *jsonNode, key []byte) int {
	for i := 0; i+1 < len(n.kids); i += 2 {
		if bytes.Equal(n.kids[i].raw, key) || bytes.Equal(decodeJSONString(n.kids[i].raw), key) {
			return i
		}
	}
	return -1
}

// jsonLookup follows steps from n; nil when the path leads nowhere.
func jsonLookup(n *jsonNode, steps []jsonPathStep) *jsonNode {
	for _, st := range steps {
		switch {
		case st.isKey && n.kind == jsonObject:
			i := findLabel(n, st.key)
			if i < 0 {
				return nil
			}
			n = n.kids[i+1]
		case !st.isKey && n.kind == jsonArray:
			i := st.arrayIndex(len(n.kids))
			if i < 0 || i >= int64(len(n.kids)) {
				return nil
			}
			n = n.kids[i]
		default:
			return nil
		}
	}
	return n
}

// The edits of json_set, json_insert, json_replace and json_remove.
const (
	editSet = iota
	editInsert
	editReplace
	editRemove
)

// jsonEdit applies one edit at steps below *np (val is the new value); for editRemove at the
// root it sets *np to nil.
func jsonEdit(np **jsonNode, steps []jsonPathStep, op int, val *jsonNode) {
	n := *np
	if len(steps) == 0 {
		switch op {
		case editSet, editReplace:
			*np = val
		case editRemove:
			*np = nil
		}
		return
	}
	st := steps[0]
	last := len(steps) == 1
	switch {
	case st.isKey && n.kind == jsonObject:
		i := findLabel(n, st.key)
		if i >= 0 {
			if last && op == editRemove {
				n.kids = append(n.kids[:i:i], n.kids[i+2:]...)
				return
			}
			jsonEdit(&n.kids[i+1], steps[1:], op, val)
			return
		}
		if op == editSet || op == editInsert {
			if v := jsonCreate(steps[1:], val); v != nil {
				n.kids = append(n.kids, &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, st.key), textRaw: true}, v)
			}
		}
	case !st.isKey && n.kind == jsonArray:
		i := st.arrayIndex(len(n.kids))
		switch {
		case i >= 0 && i < int64(len(n.kids)):
			if last && op == editRemove {
				n.kids = append(n.kids[:i:i], n.kids[i+1:]...)
				return
			}
			jsonEdit(&n.kids[i], steps[1:], op, val)
		case i == int64(len(n.kids)) && (op == editSet || op == editInsert):
			if v := jsonCreate(steps[1:], val); v != nil {
				n.kids = append(n.kids, v)
			}
		}
	}
}

// jsonCreate builds the value that json_set and json_insert put where steps lead from a missing
// place: objects for labels, one-element arrays for [0] and [#]; nil when a step cannot be made.
func jsonCreate(steps []jsonPathStep, val *jsonNode) *jsonNode {
	if len(steps) == 0 {
		return val
	}
	inner := jsonCreate(steps[1:], val)
	if inner == nil {
		return nil
	}
	st := steps[0]
	if st.isKey {
		return &jsonNode{kind: jsonObject, kids: []*jsonNode{{kind: jsonString, raw: appendJSONQuoted(nil, st.key), textRaw: true}, inner}}
	}
	if st.arrayIndex(0) != 0 {
		return nil
	}
	return &jsonNode{kind: jsonArray, kids: []*jsonNode{inner}}
}

// jsonPatch is RFC 7396's merge of patch into target.
func jsonPatch(target, patch *jsonNode) *jsonNode {
	if patch.kind != jsonObject {
		return patch
	}
	if target == nil || target.kind != jsonObject {
		target = &jsonNode{kind: jsonObject}
	} else {
		target = &jsonNode{kind: jsonObject, kids: append([]*jsonNode(nil), target.kids...)}
	}
	for i := 0; i+1 < len(patch.kids); i += 2 {
		key := decodeJSONString(patch.kids[i].raw)
		j := findLabel(target, key)
		if patch.kids[i+1].kind == jsonNull {
			if j >= 0 {
				target.kids = append(target.kids[:j:j], target.kids[j+2:]...)
			}
			continue
		}
		if j >= 0 {
			target.kids[j+1] = jsonPatch(target.kids[j+1], patch.kids[i+1])
		} else {
			target.kids = append(target.kids, patch.kids[i], jsonPatch(nil, patch.kids[i+1]))
		}
	}
	return target
}

// pathArg parses a path argument; ok is false for NULL.
func pathArg(v value.Value) ([]jsonPathStep, bool, error) {
	if v.IsNull() {
		return nil, false, nil
	}
	steps, err := parseJSONPath(v.AppendText(nil))
	return steps, err == nil, err
}

func init() {
	for _, f := range []*scalarFunc{
		{name: "json", minArgs: 1, maxArgs: 1, fn: fnJSON(jsonText)},
		{name: "jsonb", minArgs: 1, maxArgs: 1, fn: fnJSON(jsonBlob)},
		{name: "json_valid", minArgs: 1, maxArgs: 2, fn: fnJSONValid},
		{name: "json_extract", minArgs: 1, maxArgs: -1, fn: fnJSONExtract(jsonText)},
		{name: "jsonb_extract", minArgs: 1, maxArgs: -1, fn: fnJSONExtract(jsonBlob)},
		{name: "->", minArgs: 2, maxArgs: 2, fn: jsonArrow(false)},
		{name: "->>", minArgs: 2, maxArgs: 2, fn: jsonArrow(true)},
		{name: "json_set", minArgs: 1, maxArgs: -1, fn: jsonEditFunc("json_set", editSet, jsonText)},
		{name: "jsonb_set", minArgs: 1, maxArgs: -1, fn: jsonEditFunc("jsonb_set", editSet, jsonBlob)},
		{name: "json_insert", minArgs: 1, maxArgs: -1, fn: jsonEditFunc("json_insert", editInsert, jsonText)},
		{name: "jsonb_insert", minArgs: 1, maxArgs: -1, fn: jsonEditFunc("jsonb_insert", editInsert, jsonBlob)},
		{name: "json_replace", minArgs: 1, maxArgs: -1, fn: jsonEditFunc("json_replace", editReplace, jsonText)},
		{name: "jsonb_replace", minArgs: 1, maxArgs: -1, fn: jsonEditFunc("jsonb_replace", editReplace, jsonBlob)},
		{name: "json_remove", minArgs: 1, maxArgs: -1, fn: fnJSONRemove(jsonText)},
		{name: "jsonb_remove", minArgs: 1, maxArgs: -1, fn: fnJSONRemove(jsonBlob)},
		{name: "json_patch", minArgs: 2, maxArgs: 2, fn: fnJSONPatch(jsonText)},
		{name: "jsonb_patch", minArgs: 2, maxArgs: 2, fn: fnJSONPatch(jsonBlob)},
		{name: "json_array", minArgs: 0, maxArgs: -1, fn: fnJSONArray(jsonText)},
		{name: "jsonb_array", minArgs: 0, maxArgs: -1, fn: fnJSONArray(jsonBlob)},
		{name: "json_object", minArgs: 0, maxArgs: -1, fn: fnJSONObject(jsonText)},
		{name: "jsonb_object", minArgs: 0, maxArgs: -1, fn: fnJSONObject(jsonBlob)},
		{name: "json_type", minArgs: 1, maxArgs: 2, fn: fnJSONType},
		{name: "json_array_length", minArgs: 1, maxArgs: 2, fn: fnJSONArrayLength},
		{name: "json_quote", minArgs: 1, maxArgs: 1, fn: fnJSONQuote},
		{name: "json_error_position", minArgs: 1, maxArgs: 1, fn: fnJSONErrorPosition},
		{name: "json_pretty", minArgs: 1, maxArgs: 2, fn: fnJSONPretty},
	} {
		scalarFuncs[f.name] = f
	}
	aggDefs["json_group_array"] = &aggDef{minArgs: 1, maxArgs: 1, make: func(value.Collation) aggState { return &jsonGroupState{out: jsonText} }}
	aggDefs["json_group_object"] = &aggDef{minArgs: 2, maxArgs: 2, make: func(value.Collation) aggState { return &jsonGroupState{object: true, out: jsonText} }}
	aggDefs["jsonb_group_array"] = &aggDef{minArgs: 1, maxArgs: 1, make: func(value.Collation) aggState { return &jsonGroupState{out: jsonBlob} }}
	aggDefs["jsonb_group_object"] = &aggDef{minArgs: 2, maxArgs: 2, make: func(value.Collation) aggState { return &jsonGroupState{object: true, out: jsonBlob} }}
}

func fnJSON(out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		n, ok, err := jsonArg(a[0])
		if !ok {
			return value.Value{}, err
		}
		return out(n), nil
	}
}

func fnJSONValid(a []value.Value, _ value.Collation) (value.Value, error) {
	flags := int64(1)
	if len(a) == 2 {
		flags = value.ToInt(a[1])
		if flags < 1 || flags > 15 {
			return value.Value{}, errors.New("FLAGS parameter to json_valid() must be between 1 and 15")
		}
	}
	switch a[0].Kind() {
	case value.Null:
		return value.Value{}, nil
	case value.Blob:
		if looksLikeJSONB(a[0].Bytes()) {
			switch {
			case flags&4 != 0: // the superficial test is the one just made
				return value.Int(1), nil
			case flags&8 != 0:
				_, err := decodeJSONB(a[0].Bytes())
				return value.Bool(err == nil), nil
			}
		}
	}
	if flags&3 == 0 {
		return value.Int(0), nil
	}
	_, json5, _, err := parseJSON(a[0].AppendText(nil))
	return value.Bool(err == nil && (!json5 || flags&2 != 0)), nil
}

func fnJSONExtract(out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		if len(a) < 2 {
			return value.Value{}, nil
		}
		n, ok, err := jsonArg(a[0])
		if !ok {
			return value.Value{}, err
		}
		if len(a) == 2 {
			steps, ok, err := pathArg(a[1])
			if !ok {
				return value.Value{}, err
			}
			if r := jsonLookup(n, steps); r != nil {
				return jsonSQLValueOut(r, out), nil
			}
			return value.Value{}, nil
		}
		res := &jsonNode{kind: jsonArray}
		for _, p := range a[1:] {
			steps, ok, err := pathArg(p)
			if !ok {
				return value.Value{}, err
			}
			r := jsonLookup(n, steps)
			if r == nil {
				r = &jsonNode{kind: jsonNull}
			}
			res.kids = append(res.kids, r)
		}
		return out(res), nil
	}
}

// jsonArrow is x -> p (JSON text of the element) and x ->> p (its SQL value). p is a path, or
// a label, or an array index (negative: counted from the end).
func jsonArrow(sqlValue bool) func(a []value.Value, _ value.Collation) (value.Value, error) {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		n, ok, err := jsonArg(a[0])
		if !ok || a[1].IsNull() {
			return value.Value{}, err
		}
		var steps []jsonPathStep
		switch p := a[1]; {
		case p.Kind() == value.Integer:
			i := p.Int()
			if i < 0 {
				steps = []jsonPathStep{{index: -i, fromEnd: true}}
			} else {
				steps = []jsonPathStep{{index: i}}
			}
		default:
			t := p.AppendText(nil)
			switch {
			case len(t) > 0 && t[0] == '$':
				if steps, err = parseJSONPath(t); err != nil {
					return value.Value{}, err
				}
			case len(t) > 0 && t[0] == '[':
				if steps, err = parseJSONPath(append([]byte{'$'}, t...)); err != nil {
					return value.Value{}, err
				}
			default:
				steps = []jsonPathStep{{isKey: true, key: t}}
			}
		}
		r := jsonLookup(n, steps)
		switch {
		case r == nil:
			return value.Value{}, nil
		case sqlValue:
			return jsonSQLValue(r), nil
		}
		return jsonText(r), nil
	}
}

func jsonEditFunc(name string, op int, out jsonEmit) jsonScalarFn {
	return jsonPairsFunc(name, out, func(n **jsonNode, _ value.Value, steps []jsonPathStep, val *jsonNode) error {
		jsonEdit(n, steps, op, val)
		return nil
	})
}

// jsonPairsFunc is a function of a JSON document and pairs of a path and a value (json_set and
// the other edits, json_array_insert): apply changes the document for each pair in turn, given
// the path as written and parsed, and the value as JSON; a pair with a NULL path changes
// nothing.
func jsonPairsFunc(name string, out jsonEmit, apply func(n **jsonNode, path value.Value, steps []jsonPathStep, val *jsonNode) error) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		if len(a)%2 == 0 {
			return value.Value{}, fmt.Errorf("%s() needs an odd number of arguments", name)
		}
		n, ok, err := jsonArg(a[0])
		if !ok {
			return value.Value{}, err
		}
		for i := 1; i+1 < len(a); i += 2 {
			steps, ok, err := pathArg(a[i])
			if err != nil {
				return value.Value{}, err
			}
			if !ok {
				continue // a NULL path changes nothing
			}
			val, err := jsonFromValue(a[i+1])
			if err != nil {
				return value.Value{}, err
			}
			if a[i+1].Kind() == value.Text && a[i+1].Subtype() != value.SubtypeJSON {
				val.textRaw = true // SQL text an edit puts in is JSONB's TEXTRAW, as SQLite writes it
			}
			if err := apply(&n, a[i], steps, val); err != nil {
				return value.Value{}, err
			}
		}
		return out(n), nil
	}
}

func fnJSONRemove(out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		n, ok, err := jsonArg(a[0])
		if !ok {
			return value.Value{}, err
		}
		for _, p := range a[1:] {
			steps, ok, err := pathArg(p)
			if !ok {
				return value.Value{}, err
			}
			jsonEdit(&n, steps, editRemove, nil)
			if n == nil {
				return value.Value{}, nil
			}
		}
		return out(n), nil
	}
}

func fnJSONPatch(out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		t, ok, err := jsonArg(a[0])
		if !ok {
			return value.Value{}, err
		}
		p, ok, err := jsonArg(a[1])
		if !ok {
			return value.Value{}, err
		}
		return out(jsonPatch(t, p)), nil
	}
}

func fnJSONArray(out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		res := &jsonNode{kind: jsonArray}
		for _, v := range a {
			n, err := jsonFromValue(v)
			if err != nil {
				return value.Value{}, err
			}
			res.kids = append(res.kids, n)
		}
		return out(res), nil
	}
}

func fnJSONObject(out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		if len(a)%2 != 0 {
			return value.Value{}, errors.New("json_object() requires an even number of arguments")
		}
		res := &jsonNode{kind: jsonObject}
		for i := 0; i < len(a); i += 2 {
			if a[i].Kind() != value.Text {
				return value.Value{}, errors.New("json_object() labels must be TEXT")
			}
			n, err := jsonFromValue(a[i+1])
			if err != nil {
				return value.Value{}, err
			}
			res.kids = append(res.kids, &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, a[i].Bytes())}, n)
		}
		return out(res), nil
	}
}

// jsonAt parses a[0] and follows the optional path a[1]; nil when either is NULL or the path
// leads nowhere.
func jsonAt(a []value.Value) (*jsonNode, error) {
	n, ok, err := jsonArg(a[0])
	if !ok {
		return nil, err
	}
	if len(a) < 2 {
		return n, nil
	}
	steps, ok, err := pathArg(a[1])
	if !ok {
		return nil, err
	}
	return jsonLookup(n, steps), nil
}

func fnJSONType(a []value.Value, _ value.Collation) (value.Value, error) {
	n, err := jsonAt(a)
	if n == nil {
		return value.Value{}, err
	}
	return value.TextString(jsonKindNames[n.kind]), nil
}

func fnJSONArrayLength(a []value.Value, _ value.Collation) (value.Value, error) {
	n, err := jsonAt(a)
	if n == nil {
		return value.Value{}, err
	}
	if n.kind != jsonArray {
		return value.Int(0), nil
	}
	return value.Int(int64(len(n.kids))), nil
}

func fnJSONQuote(a []value.Value, _ value.Collation) (value.Value, error) {
	n, err := jsonFromValue(a[0])
	if err != nil {
		return value.Value{}, err
	}
	return jsonText(n), nil
}

func fnJSONErrorPosition(a []value.Value, _ value.Collation) (value.Value, error) {
	switch a[0].Kind() {
	case value.Null:
		return value.Value{}, nil
	case value.Blob:
		if looksLikeJSONB(a[0].Bytes()) {
			if _, err := decodeJSONB(a[0].Bytes()); err != nil {
				return value.Int(1), nil
			}
			return value.Int(0), nil
		}
	}
	s := a[0].AppendText(nil)
	_, _, pos, err := parseJSON(s)
	if err == nil {
		return value.Int(0), nil
	}
	return value.Int(int64(utf8.RuneCount(s[:pos])) + 1), nil
}

func fnJSONPretty(a []value.Value, _ value.Collation) (value.Value, error) {
	n, ok, err := jsonArg(a[0])
	if !ok {
		return value.Value{}, err
	}
	indent := []byte("    ")
	if len(a) == 2 && !a[1].IsNull() {
		indent = a[1].AppendText(nil)
	}
	return value.TextBytes(appendPrettyJSON(nil, n, indent, 0)).WithSubtype(value.SubtypeJSON), nil
}

// jsonGroupState is json_group_array(x) and json_group_object(label, x).
type jsonGroupState struct {
	object bool
	out    jsonEmit
	node   jsonNode
}

func (s *jsonGroupState) step(args []value.Value) error {
	if s.object {
		if args[0].IsNull() {
			return nil
		}
		n, err := jsonFromValue(args[1])
		if err != nil {
			return err
		}
		s.node.kids = append(s.node.kids, &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, args[0].AppendText(nil))}, n)
		return nil
	}
	n, err := jsonFromValue(args[0])
	if err != nil {
		return err
	}
	s.node.kids = append(s.node.kids, n)
	return nil
}

func (s *jsonGroupState) result() (value.Value, error) {
	s.node.kind = jsonArray
	if s.object {
		s.node.kind = jsonObject
	}
	return s.out(&s.node), nil
}

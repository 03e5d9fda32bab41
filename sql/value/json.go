package value

import (
	"encoding/base64"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends v as a JSON value: NULL as null; INTEGER and REAL as JSON numbers (a REAL
// as SQLite renders it as text, which is valid JSON; infinities as ±9.0e+999, as SQLite's JSON
// functions write them); TEXT as a JSON string (escaped as encoding/json escapes, without its
// HTML escaping; invalid UTF-8 as U+FFFD); BLOB as {"base64":"..."} (standard encoding), since
// JSON has no bytes.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.kind {
	case Null:
		return append(dst, "null"...)
	case Integer:
		return strconv.AppendInt(dst, int64(v.bits), 10)
	case Real:
		switch f := math.Float64frombits(v.bits); {
		case math.IsInf(f, 1):
			return append(dst, "9.0e+999"...)
		case math.IsInf(f, -1):
			return append(dst, "-9.0e+999"...)
		}
		return v.AppendText(dst)
	case Text:
		return AppendJSONString(dst, v.b)
	}
	dst = append(dst, `{"base64":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, v.b)
	return append(dst, `"}`...)
}

const hexLower = "0123456789abcdef"

// AppendJSONString appends s as a JSON string.
func AppendJSONString(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexLower[c>>4], hexLower[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' { // as encoding/json does, for JavaScript
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexLower[r&15])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

package value

import "math"

const hexUpper = "0123456789ABCDEF"

// AppendQuoted appends v as an SQL literal, as SQLite's quote() renders it: NULL, an integer, a
// real with enough digits to read back the same value (9.0e+999 for an infinity), a text in
// single quotes with quotes doubled, a blob as X'..' in upper-case hexadecimal.
func AppendQuoted(dst []byte, v Value) []byte {
	switch v.kind {
	case Null:
		return append(dst, "NULL"...)
	case Real:
		switch f := v.Float(); {
		case math.IsInf(f, 1):
			return append(dst, "9.0e+999"...) // reads back as +Inf, as SQLite writes it
		case math.IsInf(f, -1):
			return append(dst, "-9.0e+999"...)
		}
		return v.AppendText(dst)
	case Integer:
		return v.AppendText(dst)
	case Text:
		dst = append(dst, '\'')
		for _, c := range v.b {
			if c == '\'' {
				dst = append(dst, '\'')
			}
			dst = append(dst, c)
		}
		return append(dst, '\'')
	}
	dst = append(dst, "X'"...)
	for _, c := range v.b {
		dst = append(dst, hexUpper[c>>4], hexUpper[c&15])
	}
	return append(dst, '\'')
}

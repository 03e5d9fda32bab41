package main

import (
	"fmt"
	"reflect"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxListValue is the number of value bytes shown per line by listings (scan, prefix).
const maxListValue = 200

// formatBytes renders b on one line: as is when it is printable UTF-8 (spaces allowed, no tabs,
// newlines or other control characters), otherwise as a Go-quoted string that the argument
// syntax reads back. Printable text starting with a double quote is quoted too, so a leading
// quote always means a quoted rendering.
func formatBytes(b []byte) string {
	if isPrintable(b) && (len(b) == 0 || b[0] != '"') {
		return string(b)
	}
	return strconv.Quote(string(b))
}

// isPrintable reports whether b is valid UTF-8 made only of printable characters.
func isPrintable(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		if !unicode.IsPrint(r) {
			return false
		}
		b = b[size:]
	}
	return true
}

// formatListValue is formatBytes for listings: values longer than maxListValue bytes are cut
// (at a character boundary when possible) and followed by " … (N bytes)".
func formatListValue(b []byte) string { return formatCut(b, maxListValue) }

// formatCut is formatBytes for b cut to at most limit bytes (at a character boundary when
// possible) and followed by " … (N bytes)" when it was cut.
func formatCut(b []byte, limit int) string {
	if len(b) <= limit {
		return formatBytes(b)
	}
	cut := limit
	for i := cut; i > limit-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(b[i]) {
			cut = i
			break
		}
	}
	return fmt.Sprintf("%s … (%d bytes)", formatBytes(b[:cut]), len(b))
}

// formatFields renders every exported field of a struct as "Name value" lines, flattening nested
// structs as "Outer.Inner value". Non-struct values print as a single "value" line.
func formatFields(v any) []string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return []string{fmt.Sprint(v)}
	}
	return appendFields(nil, "", rv)
}

// appendFields appends the "Name value" lines of struct rv, with names prefixed by prefix.
func appendFields(lines []string, prefix string, rv reflect.Value) []string {
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := rv.Field(i)
		if fv.Kind() == reflect.Struct && !hasStringMethod(fv) {
			lines = appendFields(lines, prefix+f.Name+".", fv)
			continue
		}
		lines = append(lines, fmt.Sprintf("%s%s %v", prefix, f.Name, fv.Interface()))
	}
	return lines
}

// hasStringMethod reports whether v prints itself (like time.Time), so it is not flattened.
func hasStringMethod(v reflect.Value) bool {
	_, ok := v.Interface().(fmt.Stringer)
	return ok
}

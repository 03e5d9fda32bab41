package main

import (
	"bufio"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// outputMode selects how get, the listings (scan, range, prefix, first, last) and SQL results
// print.
type outputMode int

// The output modes of .mode.
const (
	modeTable outputMode = iota // binary-safe text, long listed values cut (the default)
	modeJSON                    // one JSON array of {"key":…,"value":…} objects
	modeJSONL                   // one {"key":…,"value":…} object per line
	modeRaw                     // bytes as stored, not escaped
	modeHex                     // keys and values in lowercase hex
	modeCSV                     // a key,value header, then one CSV record per pair
)

// modeNames maps .mode arguments to modes.
var modeNames = []string{"table", "json", "jsonl", "raw", "hex", "csv"}

// String is the .mode name of m.
func (m outputMode) String() string { return modeNames[m] }

// parseMode returns the mode called name.
func parseMode(name string) (outputMode, error) {
	for i, n := range modeNames {
		if n == name {
			return outputMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %s (want table, json, jsonl, csv, raw or hex)", formatBytes([]byte(name)))
}

// jsonBytes is a key or value in JSON: a string when the bytes are valid UTF-8 made of printable
// characters, tabs, newlines and carriage returns, otherwise {"base64": "…"} (standard encoding,
// with padding).
type jsonBytes []byte

// MarshalJSON implements json.Marshaler.
func (b jsonBytes) MarshalJSON() ([]byte, error) {
	if isJSONText(b) {
		return marshalNoHTML(string(b))
	}
	return marshalNoHTML(struct {
		Base64 string `json:"base64"`
	}{base64.StdEncoding.EncodeToString(b)})
}

// UnmarshalJSON implements json.Unmarshaler: a string (its UTF-8 bytes) or {"base64": "…"}.
func (b *jsonBytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = []byte(s)
		return nil
	}
	var obj struct {
		Base64 *string `json:"base64"`
	}
	if err := json.Unmarshal(data, &obj); err != nil || obj.Base64 == nil {
		return errors.New(`want a string or {"base64": "…"}`)
	}
	dec, err := base64.StdEncoding.DecodeString(*obj.Base64)
	if err != nil {
		return fmt.Errorf("bad base64: %v", err)
	}
	*b = dec
	return nil
}

// marshalNoHTML is json.Marshal without the escaping of <, > and &.
func marshalNoHTML(v any) ([]byte, error) {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf[:len(buf)-1], nil // drop Encode's newline
}

// jsonBuffer is a minimal io.Writer collecting bytes.
type jsonBuffer []byte

// Write implements io.Writer.
func (b *jsonBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

// isJSONText reports whether b is shown as a JSON string: valid UTF-8 whose characters are all
// printable, tab, newline or carriage return.
func isJSONText(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		if !unicode.IsPrint(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
		b = b[size:]
	}
	return true
}

// jsonPair is one line of JSON Lines output and input.
type jsonPair struct {
	Key   jsonBytes `json:"key"`
	Value jsonBytes `json:"value"`
}

// pairPrinter writes the pairs of one listing in the shell's mode, streaming them.
type pairPrinter struct {
	out  *bufio.Writer
	mode outputMode
	n    int         // pairs written
	csv  *csv.Writer // csv mode
}

// newPairPrinter starts a listing on out.
func newPairPrinter(out *bufio.Writer, mode outputMode) *pairPrinter {
	return &pairPrinter{out: out, mode: mode}
}

// pair writes one key and value.
func (p *pairPrinter) pair(k, v []byte) error {
	switch p.mode {
	case modeJSON, modeJSONL:
		line, err := marshalNoHTML(jsonPair{k, v})
		if err != nil {
			return err
		}
		if p.mode == modeJSON {
			if p.n == 0 {
				p.out.WriteString("[\n")
			} else {
				p.out.WriteString(",\n")
			}
		}
		p.out.Write(line)
		if p.mode == modeJSONL {
			p.out.WriteByte('\n')
		}
	case modeRaw:
		p.out.Write(k)
		p.out.WriteByte('\t')
		p.out.Write(v)
		p.out.WriteByte('\n')
	case modeHex:
		fmt.Fprintf(p.out, "%x\t%x\n", k, v)
	case modeCSV:
		if p.csv == nil {
			p.csv = csv.NewWriter(p.out)
			p.csv.Write([]string{"key", "value"})
		}
		if err := p.csv.Write([]string{string(k), string(v)}); err != nil {
			return err
		}
	default:
		fmt.Fprintf(p.out, "%s\t%s\n", formatBytes(k), formatListValue(v))
	}
	p.n++
	return nil
}

// end finishes the listing (closes the JSON array).
func (p *pairPrinter) end() {
	if p.csv != nil {
		p.csv.Flush()
	}
	if p.mode != modeJSON {
		return
	}
	if p.n == 0 {
		p.out.WriteString("[]\n")
	} else {
		p.out.WriteString("\n]\n")
	}
}

// printValue prints the value of get: in full, in the shell's mode. Raw mode writes the bytes
// exactly, without a newline, so `.mode raw; get K` can be redirected to a file.
func printValue(out *bufio.Writer, mode outputMode, k, v []byte) error {
	switch mode {
	case modeJSON, modeJSONL:
		line, err := marshalNoHTML(jsonPair{k, v})
		if err != nil {
			return err
		}
		out.Write(line)
		out.WriteByte('\n')
	case modeRaw:
		out.Write(v)
	case modeHex:
		out.WriteString(hex.EncodeToString(v))
		out.WriteByte('\n')
	case modeCSV:
		p := newPairPrinter(out, mode)
		err := p.pair(k, v)
		p.end()
		return err
	default:
		fmt.Fprintln(out, formatBytes(v))
	}
	return nil
}

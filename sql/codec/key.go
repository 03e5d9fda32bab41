package codec

// Key encoding. A key is a concatenation of components, one per value, each self-delimiting, so
// that bytes.Compare of two keys orders them as SQLite orders the value tuples (NULLs first,
// numbers by value across INTEGER and REAL, texts by collation, blobs by bytes). Format
// (FORMAT.md, "SQL keys"):
//
//	NULL     0x05
//	number   0x15, 8 bytes: the nearest float64 d of the value, sign-flipped big-endian bits;
//	         then, only when |d| >= 2^53, 2 bytes: value - d + 0x8000, big-endian (an INTEGER
//	         that a float64 cannot hold exactly; |value - d| <= 512)
//	TEXT     0x25, the collation's sort key escaped (0x00 -> 0x00 0xFF), then 0x00 0x01; a sort
//	         key longer than MaxKeyPart bytes is cut to MaxKeyPart and ends 0x00 0x02 followed by
//	         the 8-byte FNV-1a hash of the whole sort key ("truncated")
//	BLOB     0x35, the bytes escaped the same way
//
// A descending component is the same bytes each inverted (^b). INTEGER 1 and REAL 1.0 encode
// equally, as they compare equal; NOCASE texts that differ in case too. So a key does not always
// give back its values: the row (or an index entry's value) keeps them.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"

	"github.com/cairndb/cairn/sql/value"
)

// Component tags (on-disk format).
const (
	tagNull   = 0x05
	tagNumber = 0x15
	tagText   = 0x25
	tagBlob   = 0x35
)

// Escaping of text and blob bytes (on-disk format).
const (
	escByte    = 0x00
	escZero    = 0xFF // 0x00 0xFF: a 0x00 byte of the value
	escEnd     = 0x01 // 0x00 0x01: the end of the value
	escTrunc   = 0x02 // 0x00 0x02: the value goes on; 8 bytes of hash follow
	hashLength = 8
)

// MaxKeyPart is the most bytes of a text's sort key, or a blob, that a key holds; longer values
// are cut and marked truncated, so that a key stays within cairn's key limit with several
// columns. Keys of values that share their first MaxKeyPart bytes then tell them apart by hash
// only, not by order: their order must come from the values themselves.
const MaxKeyPart = 2048

// ErrCorrupt is returned for a key or record whose bytes do not follow the format.
var ErrCorrupt = errors.New("codec: malformed key or record")

// AppendKey appends the key component of v to dst: ascending unless desc, a text by collation c.
func AppendKey(dst []byte, v value.Value, desc bool, c value.Collation) []byte {
	start := len(dst)
	switch v.Kind() {
	case value.Null:
		dst = append(dst, tagNull)
	case value.Integer, value.Real:
		dst = appendNumber(dst, v)
	case value.Text:
		dst = append(dst, tagText)
		dst = appendEscaped(dst, sortKey(v.Bytes(), c))
	case value.Blob:
		dst = append(dst, tagBlob)
		dst = appendEscaped(dst, v.Bytes())
	}
	if desc {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

// AppendKeyBound appends the component of v as the bound of a range of keys: the bytes of
// AppendKey, except that a text or blob cut at MaxKeyPart ends where it was cut (no end marker,
// no hash), so that the bound takes in every value with that prefix, whose keys do not order them
// among themselves. truncated reports that cut; a caller extends an upper bound past the prefix.
func AppendKeyBound(dst []byte, v value.Value, desc bool, c value.Collation) (out []byte, truncated bool) {
	start := len(dst)
	dst = AppendKey(dst, v, desc, c)
	if v.Kind() != value.Text && v.Kind() != value.Blob {
		return dst, false
	}
	b := v.Bytes()
	if v.Kind() == value.Text {
		b = sortKey(b, c)
	}
	if len(b) <= MaxKeyPart {
		return dst, false
	}
	// Drop the 0x00 0x02 marker and the hash that end a cut component.
	cut := len(dst) - 2 - hashLength
	return dst[:max(cut, start)], true
}

// sortKey returns the bytes whose byte order is collation c's order of the text b (a new slice
// for NOCASE when b has upper-case letters or a NUL byte, else a sub-slice of b). NOCASE, as
// SQLite compares it, stops at a NUL byte and lets the lengths decide: its key is the text up
// to and with its first NUL, in lower case, then the text's length (8 bytes, big-endian).
func sortKey(b []byte, c value.Collation) []byte {
	switch c {
	case value.NoCase:
		nul := bytes.IndexByte(b, 0)
		if nul < 0 && !hasUpper(b) {
			return b
		}
		end := len(b)
		if nul >= 0 {
			end = nul + 1
		}
		k := make([]byte, end, end+8)
		for j := range k {
			ch := b[j]
			if ch >= 'A' && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			k[j] = ch
		}
		if nul >= 0 {
			k = binary.BigEndian.AppendUint64(k, uint64(len(b)))
		}
		return k
	case value.RTrim:
		n := len(b)
		for n > 0 && b[n-1] == ' ' {
			n--
		}
		return b[:n]
	}
	return b
}

func hasUpper(b []byte) bool {
	for _, ch := range b {
		if ch >= 'A' && ch <= 'Z' {
			return true
		}
	}
	return false
}

func appendEscaped(dst, b []byte) []byte {
	part := b
	if len(part) > MaxKeyPart {
		part = part[:MaxKeyPart]
	}
	for _, ch := range part {
		if ch == escByte {
			dst = append(dst, escByte, escZero)
		} else {
			dst = append(dst, ch)
		}
	}
	if len(b) <= MaxKeyPart {
		return append(dst, escByte, escEnd)
	}
	h := fnv.New64a()
	h.Write(b)
	dst = append(dst, escByte, escTrunc)
	return binary.BigEndian.AppendUint64(dst, h.Sum64())
}

// appendNumber appends the component of an INTEGER or REAL.
func appendNumber(dst []byte, v value.Value) []byte {
	d := v.Float()
	if d == 0 {
		d = 0 // -0.0 compares equal to 0.0: one encoding
	}
	dst = append(dst, tagNumber)
	dst = binary.BigEndian.AppendUint64(dst, sortableFloat(d))
	if math.Abs(d) < 1<<53 || math.IsInf(d, 0) {
		return dst
	}
	var diff int64
	if v.Kind() == value.Integer {
		i := v.Int()
		if d >= 1<<63 { // float64(i) rounded up to 2^63, which no int64 holds
			diff = i - math.MaxInt64 - 1
		} else {
			diff = i - int64(d)
		}
	}
	return binary.BigEndian.AppendUint16(dst, uint16(diff+0x8000))
}

// sortableFloat maps a float64 to a uint64 whose unsigned order is the float's order.
func sortableFloat(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func unsortableFloat(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// DecodeKey decodes the component at the start of key (written ascending unless desc) and
// returns its value and the rest of the key. A number decodes as an INTEGER when it is an exact
// integer that fits, else as a REAL; a text decodes as its sort key (a NOCASE key in lower case,
// an RTRIM key without trailing spaces); a truncated text or blob as its first MaxKeyPart bytes
// with truncated set. Text and blob bytes are copied.
func DecodeKey(key []byte, desc bool) (v value.Value, rest []byte, truncated bool, err error) {
	if len(key) == 0 {
		return v, nil, false, ErrCorrupt
	}
	flip := byte(0)
	if desc {
		flip = 0xFF
	}
	switch key[0] ^ flip {
	case tagNull:
		return value.NullValue(), key[1:], false, nil
	case tagNumber:
		return decodeNumber(key[1:], flip)
	case tagText, tagBlob:
		b, rest, truncated, err := decodeEscaped(key[1:], flip)
		if err != nil {
			return v, nil, false, err
		}
		if key[0]^flip == tagText {
			return value.TextBytes(b), rest, truncated, nil
		}
		return value.BlobBytes(b), rest, truncated, nil
	}
	return v, nil, false, ErrCorrupt
}

func decodeNumber(b []byte, flip byte) (value.Value, []byte, bool, error) {
	if len(b) < 8 {
		return value.Value{}, nil, false, ErrCorrupt
	}
	var raw [8]byte
	for i := range raw {
		raw[i] = b[i] ^ flip
	}
	d := unsortableFloat(binary.BigEndian.Uint64(raw[:]))
	b = b[8:]
	if math.Abs(d) < 1<<53 || math.IsInf(d, 0) {
		if i := int64(d); float64(i) == d && math.Abs(d) < 1<<53 {
			return value.Int(i), b, false, nil
		}
		return value.Float(d), b, false, nil
	}
	if len(b) < 2 {
		return value.Value{}, nil, false, ErrCorrupt
	}
	diff := int64(binary.BigEndian.Uint16([]byte{b[0] ^ flip, b[1] ^ flip})) - 0x8000
	b = b[2:]
	switch {
	case d >= 1<<63:
		if diff > -1 || diff < -512 {
			return value.Float(d), b, false, nil
		}
		return value.Int(math.MaxInt64 + (diff + 1)), b, false, nil
	case d < -(1 << 63):
		return value.Float(d), b, false, nil
	}
	return value.Int(int64(d) + diff), b, false, nil
}

func decodeEscaped(b []byte, flip byte) (out, rest []byte, truncated bool, err error) {
	for i := 0; i < len(b); i++ {
		ch := b[i] ^ flip
		if ch != escByte {
			out = append(out, ch)
			continue
		}
		if i+1 >= len(b) {
			return nil, nil, false, ErrCorrupt
		}
		switch b[i+1] ^ flip {
		case escZero:
			out = append(out, 0)
			i++
		case escEnd:
			return nonNil(out), b[i+2:], false, nil
		case escTrunc:
			if i+2+hashLength > len(b) {
				return nil, nil, false, ErrCorrupt
			}
			return nonNil(out), b[i+2+hashLength:], true, nil
		default:
			return nil, nil, false, ErrCorrupt
		}
	}
	return nil, nil, false, ErrCorrupt
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// SkipKey returns key without its first component (written ascending unless desc).
func SkipKey(key []byte, desc bool) ([]byte, error) {
	_, rest, _, err := DecodeKey(key, desc)
	return rest, err
}

// AppendRowid appends the key of a table row with rowid id: 8 bytes, big-endian with the sign bit
// flipped, so that rowids sort as signed integers.
func AppendRowid(dst []byte, id int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(id)^1<<63)
}

// Rowid decodes a key written by AppendRowid.
func Rowid(key []byte) (int64, error) {
	if len(key) != 8 {
		return 0, ErrCorrupt
	}
	return int64(binary.BigEndian.Uint64(key) ^ 1<<63), nil
}

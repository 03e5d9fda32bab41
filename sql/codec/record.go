package codec

// Record format of a row (and of an index entry's values). FORMAT.md, "SQL records":
//
//	uvarint n                  number of values
//	uvarint type, n times      serial type of each value
//	bodies, in order           the bytes of each value, per its type
//
// Serial types (SQLite's, file format §2.1): 0 NULL; 1, 2, 3, 4, 5, 6 an INTEGER in 1, 2, 3, 4, 6,
// 8 bytes, big-endian two's complement; 7 a REAL, IEEE 754 big-endian; 8 the INTEGER 0; 9 the
// INTEGER 1; 10 and 11 unused; N >= 12 even a BLOB of (N-12)/2 bytes; N >= 13 odd a TEXT of
// (N-13)/2 bytes. uvarint is encoding/binary's unsigned varint. A record with fewer values than
// its table has columns reads the missing ones as NULL (the engine's decodeRow).

import (
	"encoding/binary"
	"math"

	"github.com/cairndb/cairn/sql/value"
)

// intSizes are the body sizes of serial types 1 to 6.
var intSizes = [...]int{0, 1, 2, 3, 4, 6, 8}

// serialType returns v's serial type.
func serialType(v value.Value) uint64 {
	switch v.Kind() {
	case value.Integer:
		i := v.Int()
		switch {
		case i == 0:
			return 8
		case i == 1:
			return 9
		case i >= -1<<7 && i < 1<<7:
			return 1
		case i >= -1<<15 && i < 1<<15:
			return 2
		case i >= -1<<23 && i < 1<<23:
			return 3
		case i >= -1<<31 && i < 1<<31:
			return 4
		case i >= -1<<47 && i < 1<<47:
			return 5
		}
		return 6
	case value.Real:
		return 7
	case value.Text:
		return uint64(len(v.Bytes()))*2 + 13
	case value.Blob:
		return uint64(len(v.Bytes()))*2 + 12
	}
	return 0
}

// bodySize returns the bytes of the body of serial type t, or -1 for an unused type.
func bodySize(t uint64) int {
	switch {
	case t <= 6:
		return intSizes[t]
	case t == 7:
		return 8
	case t == 8, t == 9:
		return 0
	case t < 12:
		return -1
	case t > math.MaxInt32*2: // no value is that long; keeps the int conversion safe
		return -1
	}
	return int((t - 12) / 2)
}

// AppendRecord appends the record of vals to dst.
func AppendRecord(dst []byte, vals []value.Value) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(vals)))
	for _, v := range vals {
		dst = binary.AppendUvarint(dst, serialType(v))
	}
	for _, v := range vals {
		switch t := serialType(v); {
		case t >= 1 && t <= 6:
			n := intSizes[t]
			u := uint64(v.Int())
			for i := n - 1; i >= 0; i-- {
				dst = append(dst, byte(u>>(8*uint(i))))
			}
		case t == 7:
			dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(v.Float()))
		case t >= 12:
			dst = append(dst, v.Bytes()...)
		}
	}
	return dst
}

// DecodeRecord decodes every value of the record b into out (reusing its storage) and returns
// it. Text and blob values point into b: they are valid as long as b is.
func DecodeRecord(b []byte, out []value.Value) ([]value.Value, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, ErrCorrupt
	}
	head := b[k:]
	body := 0
	types := head
	for i := uint64(0); i < n; i++ { // first pass: where the bodies start
		_, k := binary.Uvarint(types)
		if k <= 0 {
			return nil, ErrCorrupt
		}
		types = types[k:]
	}
	bodies := types
	out = out[:0]
	for i := uint64(0); i < n; i++ {
		t, k := binary.Uvarint(head)
		head = head[k:]
		size := bodySize(t)
		if size < 0 || body+size > len(bodies) {
			return nil, ErrCorrupt
		}
		out = append(out, decodeBody(t, bodies[body:body+size]))
		body += size
	}
	if body != len(bodies) {
		return nil, ErrCorrupt
	}
	return out, nil
}

func decodeBody(t uint64, b []byte) value.Value {
	switch {
	case t == 0:
		return value.NullValue()
	case t <= 6:
		u := uint64(0)
		for _, c := range b {
			u = u<<8 | uint64(c)
		}
		shift := uint(64 - 8*len(b)) // sign-extend
		return value.Int(int64(u<<shift) >> shift)
	case t == 7:
		return value.Float(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case t == 8:
		return value.Int(0)
	case t == 9:
		return value.Int(1)
	case t%2 == 0:
		return value.BlobBytes(b)
	}
	return value.TextBytes(b)
}

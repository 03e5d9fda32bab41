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
	return DecodeColumns(b, out, AllColumns)
}

// AllColumns is the column set of DecodeColumns that decodes every value.
const AllColumns = ^uint64(0)

// DecodeColumns is DecodeRecord for the values whose bit is set in need (bit i for value i, bit
// 63 for every value from the 63rd on): it returns one value per value of the record, those
// outside need NULL, and checks the whole record's shape as DecodeRecord does, so that a record
// is corrupt for both or for neither.
func DecodeColumns(b []byte, out []value.Value, need uint64) ([]value.Value, error) {
	var n uint64
	p := 1
	if len(b) > 0 && b[0] < 0x80 {
		n = uint64(b[0])
	} else if n, p = uvarint(b, 0); p <= 0 {
		return nil, ErrCorrupt
	}
	if n > uint64(len(b)) {
		return nil, ErrCorrupt
	}
	// The header's end is where the bodies start: one pass over the types to find it (the
	// record does not store it), then one that decodes.
	head := p
	for i := uint64(0); i < n; i++ {
		if p < len(b) && b[p] < 0x80 {
			p++
			continue
		}
		if _, p = uvarint(b, p); p <= 0 {
			return nil, ErrCorrupt
		}
	}
	body := p
	if uint64(cap(out)) < n {
		out = make([]value.Value, n, n+1) // room for the rowid decodeRow appends
	}
	out = out[:n]
	for i := range out {
		var t uint64
		if c := b[head]; c < 0x80 {
			t = uint64(c)
			head++
		} else {
			t, head = uvarint(b, head)
		}
		size := bodySize(t)
		if size < 0 || size > len(b)-body {
			return nil, ErrCorrupt
		}
		if need&(1<<uint(min(i, 63))) != 0 {
			decodeBody(&out[i], t, b[body:body+size])
		} else {
			out[i].SetNull()
		}
		body += size
	}
	if body != len(b) {
		return nil, ErrCorrupt
	}
	return out, nil
}

// uvarint reads the uvarint at b[p:] and returns it and the position after it; the position is
// 0 or less when b holds no valid uvarint there (binary.Uvarint's cases).
func uvarint(b []byte, p int) (uint64, int) {
	v, k := binary.Uvarint(b[p:])
	if k <= 0 {
		return 0, k
	}
	return v, p + k
}

// decodeBody sets *v to the value of serial type t with body b (bodySize(t) bytes), in place
// (value.Value's setters).
func decodeBody(v *value.Value, t uint64, b []byte) {
	switch t {
	case 0:
		v.SetNull()
	case 1:
		v.SetInt(int64(int8(b[0])))
	case 2:
		v.SetInt(int64(int16(binary.BigEndian.Uint16(b))))
	case 3:
		v.SetInt(int64(int32(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8) >> 8))
	case 4:
		v.SetInt(int64(int32(binary.BigEndian.Uint32(b))))
	case 5:
		u := uint64(binary.BigEndian.Uint16(b))<<32 | uint64(binary.BigEndian.Uint32(b[2:]))
		v.SetInt(int64(u<<16) >> 16)
	case 6:
		v.SetInt(int64(binary.BigEndian.Uint64(b)))
	case 7:
		v.SetFloat(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 8:
		v.SetInt(0)
	case 9:
		v.SetInt(1)
	default:
		if t%2 == 0 {
			v.SetBlob(b)
		} else {
			v.SetText(b)
		}
	}
}

package value

import (
	"math"
	"strconv"
)

// Kind is a value's storage class. The order of the constants is the order of the classes in
// comparisons and sorting: NULL first, then numbers (INTEGER and REAL compared by value), TEXT,
// BLOB.
type Kind uint8

// The storage classes.
const (
	Null Kind = iota
	Integer
	Real
	Text
	Blob
)

// String returns the class's name as typeof() reports it: "null", "integer", "real", "text" or
// "blob".
func (k Kind) String() string {
	switch k {
	case Integer:
		return "integer"
	case Real:
		return "real"
	case Text:
		return "text"
	case Blob:
		return "blob"
	}
	return "null"
}

// Value is one SQL value. The zero Value is NULL. Integer and Real values keep their number in
// bits (an int64, or a float64's bits); Text and Blob values keep a byte slice that the Value
// does not own (see the package doc).
type Value struct {
	b    []byte
	bits uint64
	kind Kind
	// sub is the value's subtype (SQLite's sqlite3_result_subtype): 0, or SubtypeJSON on a TEXT
	// that a JSON function returned. It travels with the value through expressions and is lost
	// when the value is stored.
	sub uint8
}

// SubtypeJSON marks a TEXT value that a JSON function returned as JSON text, so that another
// JSON function takes it as JSON rather than as a string (SQLite's subtype 'J').
const SubtypeJSON uint8 = 'J'

// Subtype returns v's subtype: 0, or SubtypeJSON.
func (v Value) Subtype() uint8 { return v.sub }

// WithSubtype returns v with subtype t.
func (v Value) WithSubtype(t uint8) Value {
	v.sub = t
	return v
}

// Constructors.

// NullValue returns NULL.
func NullValue() Value { return Value{} }

// Int returns an INTEGER value.
func Int(i int64) Value { return Value{kind: Integer, bits: uint64(i)} }

// Float returns a REAL value; NaN becomes NULL, as SQLite stores it (-0.0 stays -0.0, which
// compares equal to 0.0 and renders as "0.0").
func Float(f float64) Value {
	if f != f {
		return Value{}
	}
	return Value{kind: Real, bits: math.Float64bits(f)}
}

// Bool returns the INTEGER 1 or 0.
func Bool(b bool) Value {
	if b {
		return Int(1)
	}
	return Int(0)
}

// TextBytes returns a TEXT value over b (not copied).
func TextBytes(b []byte) Value { return Value{kind: Text, b: b} }

// TextString returns a TEXT value holding a copy of s.
func TextString(s string) Value { return Value{kind: Text, b: []byte(s)} }

// BlobBytes returns a BLOB value over b (not copied). A nil b is an empty blob, not NULL.
func BlobBytes(b []byte) Value { return Value{kind: Blob, b: b} }

// Accessors.

// Kind returns the value's storage class.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.kind == Null }

// IsNumeric reports whether v is an INTEGER or a REAL.
func (v Value) IsNumeric() bool { return v.kind == Integer || v.kind == Real }

// Int returns the int64 of an INTEGER value (0 for other classes: use ToInt to convert).
func (v Value) Int() int64 {
	if v.kind != Integer {
		return 0
	}
	return int64(v.bits)
}

// Float returns the float64 of a REAL value, or an INTEGER's value as a float64 (0 for other
// classes: use ToFloat to convert).
func (v Value) Float() float64 {
	switch v.kind {
	case Real:
		return math.Float64frombits(v.bits)
	case Integer:
		return float64(int64(v.bits))
	}
	return 0
}

// Bytes returns the bytes of a TEXT or BLOB value (nil for other classes), valid as long as what
// the value points into.
func (v Value) Bytes() []byte {
	if v.kind == Text || v.kind == Blob {
		return v.b
	}
	return nil
}

// Clone returns v with its bytes copied, so that it outlives the buffer it pointed into. A clone
// is a materialized copy (a row of a subquery, a sorted or stored row), so it has no subtype, as
// SQLite's subtypes do not outlive their expression.
func (v Value) Clone() Value {
	v.sub = 0
	if v.kind == Text || v.kind == Blob {
		c := make([]byte, len(v.b))
		copy(c, v.b)
		v.b = c
	}
	return v
}

// AppendText appends v as SQLite's CAST(v AS TEXT) renders it (NULL appends nothing).
func (v Value) AppendText(dst []byte) []byte {
	switch v.kind {
	case Integer:
		return strconv.AppendInt(dst, int64(v.bits), 10)
	case Real:
		return AppendReal(dst, math.Float64frombits(v.bits))
	case Text, Blob:
		return append(dst, v.b...)
	}
	return dst
}

// String renders v for debugging and error messages: NULL, numbers as text, text quoted, blobs
// as X'..'.
func (v Value) String() string {
	return string(AppendQuoted(nil, v))
}

// In-place setters. *v = Int(i) builds the Value in a temporary and copies it, which compiles to
// narrow stores followed by wide loads of the same bytes (a store-forwarding stall per copy); the
// setters store each field where it stays. Decoding a row's columns uses them.

// IntOf returns the int64 of an INTEGER and true, or 0 and false for the other classes. It
// reads *v where it is: v.Int() on a *Value copies the whole Value first, reading wide what the
// setters wrote narrow.
func (v *Value) IntOf() (int64, bool) {
	if v.kind != Integer {
		return 0, false
	}
	return int64(v.bits), true
}

// SetNull makes *v NULL.
func (v *Value) SetNull() { v.b, v.bits, v.kind, v.sub = nil, 0, Null, 0 }

// SetInt makes *v the INTEGER i.
func (v *Value) SetInt(i int64) { v.b, v.bits, v.kind, v.sub = nil, uint64(i), Integer, 0 }

// SetFloat makes *v the REAL f (NULL for NaN, as Float).
func (v *Value) SetFloat(f float64) {
	if f != f {
		v.SetNull()
		return
	}
	v.b, v.bits, v.kind, v.sub = nil, math.Float64bits(f), Real, 0
}

// SetText makes *v the TEXT over b (not copied).
func (v *Value) SetText(b []byte) { v.b, v.bits, v.kind, v.sub = b, 0, Text, 0 }

// SetBlob makes *v the BLOB over b (not copied).
func (v *Value) SetBlob(b []byte) { v.b, v.bits, v.kind, v.sub = b, 0, Blob, 0 }

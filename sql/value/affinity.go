package value

import (
	"math"
	"strings"
)

// Affinity is a column's preferred storage class (datatype3.html §3). The zero Affinity is BLOB
// (SQLite's "none"): values are stored as they are.
type Affinity uint8

// The five affinities, in SQLite's order.
const (
	AffinityBlob Affinity = iota
	AffinityText
	AffinityNumeric
	AffinityInteger
	AffinityReal
)

// String returns the affinity's name: BLOB, TEXT, NUMERIC, INTEGER or REAL.
func (a Affinity) String() string {
	return [...]string{"BLOB", "TEXT", "NUMERIC", "INTEGER", "REAL"}[a]
}

// IsNumeric reports whether a is NUMERIC, INTEGER or REAL.
func (a Affinity) IsNumeric() bool { return a >= AffinityNumeric }

// AffinityOf returns the affinity of a column declared with type decl, by the rules of
// datatype3.html §3.1, in order: a type containing "INT" is INTEGER; "CHAR", "CLOB" or "TEXT",
// TEXT; "BLOB" or no type, BLOB; "REAL", "FLOA" or "DOUB", REAL; anything else NUMERIC.
func AffinityOf(decl string) Affinity {
	t := strings.ToUpper(decl)
	switch {
	case strings.Contains(t, "INT"):
		return AffinityInteger
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return AffinityText
	case strings.Contains(t, "BLOB"), strings.TrimSpace(t) == "":
		return AffinityBlob
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return AffinityReal
	}
	return AffinityNumeric
}

// Apply returns v converted as a column of affinity a stores it: TEXT stores numbers as their
// text; NUMERIC and INTEGER store well-formed numeric text as a number and a REAL that is an
// integer as an INTEGER; REAL stores numbers and numeric text as a REAL (-0.0 as 0.0: SQLite
// writes a REAL without a fractional part as an integer and reads it back as a REAL); BLOB
// stores v as it is.
// A converted text is a new allocation; other values keep pointing where v did.
func (a Affinity) Apply(v Value) Value {
	switch a {
	case AffinityText:
		if v.IsNumeric() {
			return TextBytes(v.AppendText(nil))
		}
	case AffinityNumeric, AffinityInteger:
		switch v.kind {
		case Text:
			if n, ok := ParseNumericText(v.b, true); ok {
				return n
			}
		case Real:
			if i, ok := realIsInt(v.Float()); ok {
				return Int(i)
			}
		}
	case AffinityReal:
		switch v.kind {
		case Text:
			if n, ok := ParseNumericText(v.b, false); ok {
				return Float(positiveZero(n.Float()))
			}
		case Integer:
			return Float(v.Float())
		case Real:
			return Float(positiveZero(v.Float()))
		}
	}
	return v
}

// positiveZero returns f, or 0.0 for -0.0.
func positiveZero(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

// ApplyForCompare returns v converted as a comparison with affinity a converts an operand
// (datatype3.html §4.2): numeric affinities turn well-formed numeric text into a number, TEXT
// turns numbers into text; BLOB changes nothing.
func (a Affinity) ApplyForCompare(v Value) Value {
	switch {
	case a.IsNumeric():
		if v.kind == Text {
			if n, ok := ParseNumericText(v.b, false); ok {
				return n
			}
		}
	case a == AffinityText:
		if v.IsNumeric() {
			return TextBytes(v.AppendText(nil))
		}
	}
	return v
}

// MustBeInt returns v as an INTEGER the way SQLite's OP_MustBeInt makes a rowid, LIMIT or OFFSET
// of it: an INTEGER as it is; a REAL without a fractional part in the int64 range (-2^63
// included, which a column of INTEGER affinity keeps as a REAL); a text that NUMERIC affinity
// turns into an INTEGER. ok is false for anything else (SQLite's "datatype mismatch").
func MustBeInt(v Value) (int64, bool) {
	if v.kind == Real && v.Float() == -9223372036854775808.0 {
		return math.MinInt64, true
	}
	v = AffinityNumeric.Apply(v)
	if v.kind != Integer {
		return 0, false
	}
	return v.Int(), true
}

// Package value holds SQLite's values and the rules that govern them: the five storage classes,
// column affinity, comparison and collation, and the conversions between text and numbers, as
// sqlite.org/datatype3.html and the SQLite sources define them.
//
// A Value is a small struct, not an interface, so that rows of values are slices that are reused
// without boxing each cell. Text and blob values hold a byte slice that may point into a page of
// the database or a caller's buffer: its lifetime is the lifetime of what it points into, and a
// Value that outlives it must be copied with Clone.
package value

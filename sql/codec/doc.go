// Package codec holds the SQL layer's two byte formats: the order-preserving (memcomparable) key
// encoding of SQLite values, so that a range of SQL values is a range of cairn keys, and the
// record format of a row. docs/FORMAT.md ("SQL keys", "SQL records") specifies both byte by byte;
// golden tests in testdata/ pin them.
package codec

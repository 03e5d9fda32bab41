// Package txn tracks which versions of the database are pinned by read transactions, so that the
// pages a version references are reused only after no reader can reach them.
//
// It is an internal layer of cairn without a compatibility promise: only the root package,
// github.com/cairndb/cairn, is a public API.
package txn

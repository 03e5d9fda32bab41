// Package btree is a copy-on-write B+tree over pager extents: readers walk immutable pages
// directly, a writable tree decodes the nodes it changes and writes them to new pages on commit.
//
// It is an internal layer of cairn without a compatibility promise: only the root package,
// github.com/cairndb/cairn, is a public API.
package btree

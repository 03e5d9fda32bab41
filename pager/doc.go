// Package pager owns the database file: fixed-size pages addressed by id, two alternating meta
// pages, an in-memory page table, free-page management and checkpoint write-out.
//
// It is an internal layer of cairn without a compatibility promise: only the root package,
// github.com/cairndb/cairn, is a public API.
package pager

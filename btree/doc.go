// Package btree is a copy-on-write B+tree over pager extents: readers walk immutable pages
// directly, a writable tree decodes the nodes it changes and writes them to new pages on commit.
package btree

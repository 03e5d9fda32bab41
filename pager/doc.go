// Package pager owns the database file: fixed-size pages addressed by id, two alternating meta
// pages, an in-memory page table, free-page management and checkpoint write-out.
package pager

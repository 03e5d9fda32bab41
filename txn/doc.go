// Package txn tracks which versions of the database are pinned by read transactions, so that the
// pages a version references are reused only after no reader can reach them.
package txn

// Package cairn is an embedded, ordered key-value store with ACID transactions, a write-ahead log
// with group commit, and MVCC read transactions that never block and are never blocked.
package cairn

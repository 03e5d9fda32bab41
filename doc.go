// Package cairn is an embedded, ordered key-value store with ACID transactions, a write-ahead log
// with group commit, and MVCC read transactions that never block and are never blocked.
//
// # Code map
//
// The root package is the public API and the glue between the engine packages; docs/DESIGN.md
// explains the design, docs/FORMAT.md the bytes on disk.
//
//   - Write path: tx.go (Begin, the write transaction), redo.go (its WAL record), commit.go
//     (Tx.Commit to the durable acknowledgement: held commits, materialization, group commit's
//     hooks, publication; it opens with the data-flow diagram), then wal/committer.go (batches:
//     one write and one fdatasync each) and btree/commit.go (decoded nodes written as pages).
//   - Read path: tx.go (Begin(false), BeginReadInto, View: a pinned version), bucket.go (Get,
//     Range, Prefix, Cursor), then txn/registry.go (reader slots), btree/tree.go and
//     btree/cursor.go (the page walk), pager/table.go (page id to page, lock-free).
//   - Versions and locks: db.go (the DB struct: version markers, lock order; Open, Close).
//   - Checkpoints: checkpoint.go, then pager/checkpoint.go and pager/flush.go; wal/log.go for
//     the two WAL segments a checkpoint switches between.
//   - Recovery: db.go (open, recover), readonly.go, then wal/recover.go.
//   - Buckets: catalog.go (the catalog tree, the drop stack), bucket.go.
//   - Savepoints: savepoint.go. Backup: backup.go. Compaction: compact.go. Check: check.go.
//     Statistics: stats.go.
//
// Engine packages (wal, pager, btree, txn, internal/...) are internal layers of this module: they
// have no compatibility promise and may change with any commit.
package cairn

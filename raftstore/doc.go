// Package raftstore keeps a hashicorp/raft log and stable store in a cairn database.
//
// A Store implements raft.LogStore and raft.StableStore, the roles raft-boltdb and raft-wal play:
// the log entries are in one bucket, keyed by their index (8 bytes, big-endian), each encoded in
// a compact record of its own (docs/FORMAT.md, "raftstore"); the stable keys (the current term,
// the last vote) are in a second bucket. Every write is one durable cairn commit by default
// (cairn.SyncFull), and a StoreLogs call is one commit however many entries it holds, so
// concurrent appends from several goroutines share cairn's group commit: one fdatasync per batch.
// FirstIndex and LastIndex read a cached value; GetLog is a read transaction, which never waits
// for a writer.
//
// Open gives a Store that owns its database file; New puts one on a database the caller opened
// (with other buckets of the caller's beside it):
//
//	store, err := raftstore.Open(filepath.Join(dir, "raft.db"), nil)
//	if err != nil {
//		return err
//	}
//	defer store.Close() // after raft.Raft's Shutdown
//	r, err := raft.NewRaft(conf, fsm, store, store, snapshots, transport)
//
// Errors: a missing log entry is raft.ErrLogNotFound and a missing stable key ErrKeyNotFound,
// both unwrapped, as raft expects; a record that does not decode wraps cairn.ErrCorrupt; cairn's
// errors (cairn.ErrFailed after a failed fdatasync, cairn.ErrReadOnly, cairn.ErrClosed) come
// wrapped, with a "raftstore: " prefix.
//
// The root package cairn does not import this one, so a program that uses cairn alone compiles
// none of hashicorp/raft (docs/CLUSTER.md).
package raftstore

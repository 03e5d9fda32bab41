// Package cluster replicates a cairn database over Raft (github.com/hashicorp/raft): each Node
// embeds a cairn.DB whose commits, batch by batch, are Raft log entries that every node applies in
// log order.
//
// The leader runs write transactions as cairn does (Update); their redo records leave through
// cairn.Options.Replicate as one log entry per group-commit batch, and a commit is acknowledged
// and visible once Raft committed it on a quorum. Every node's state machine applies the entries
// with cairn.DB.ApplyRecords, so followers never run user code again. Reads choose their
// consistency (ViewWith): linearizable on the leader, leader-local, or follower reads bounded in
// staleness and ordered after a write by its LSN. Write commits a KV batch (with compare-and-set
// conditions) from any node, and SQLConnector gives database/sql access to the node's SQL
// tables: a follower forwards its writes to the leader (forward.go). Snapshots are cairn
// Backups. Nodes talk over one TCP listener each (Config.BindAddr), which carries Raft and
// forwarded writes, in mutual TLS when Config.TLS is set. docs/CLUSTER.md describes the design, its invariants, the failure
// cases, security, and cmd/cairnd, the server that runs a node.
package cluster

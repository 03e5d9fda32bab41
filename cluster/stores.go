package cluster

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/raft"

	"github.com/cairndb/cairn/raftstore"
)

// raftFile is the name of the node's Raft log and stable store (a raftstore, durable with
// cairn.SyncFull) in its directory.
const raftFile = "raft.db"

// openStores opens the node's Raft stores and transport: those of Config, else the raftstore in
// dir/raft.db, file snapshots in dir/snapshots and a TCP transport on BindAddr.
func (n *Node) openStores() error {
	n.logs, n.stable = n.cfg.LogStore, n.cfg.StableStore
	if n.logs == nil || n.stable == nil {
		store, err := raftstore.Open(filepath.Join(n.dir, raftFile), nil)
		if err != nil {
			return fmt.Errorf("cluster: log store: %w", err)
		}
		n.closers = append(n.closers, store)
		n.logs, n.stable = store, store
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(n.dir, 2, n.logger.Named("snapshots"))
	if err != nil {
		return fmt.Errorf("cluster: snapshot store: %w", err)
	}
	if err := os.Chmod(filepath.Join(n.dir, "snapshots"), 0o700); err != nil {
		return fmt.Errorf("cluster: snapshot store: %w", err)
	}
	n.snaps = snaps
	n.trans = n.cfg.Transport
	if n.trans == nil {
		advertise := n.cfg.AdvertiseAddr
		if advertise == "" {
			advertise = n.cfg.BindAddr
		}
		addr, err := resolveTCP(advertise)
		if err != nil {
			return err
		}
		t, err := raft.NewTCPTransportWithLogger(n.cfg.BindAddr, addr, 3, 10*time.Second, n.logger.Named("transport"))
		if err != nil {
			return fmt.Errorf("cluster: transport: %w", err)
		}
		n.trans = t
	}
	if c, ok := n.trans.(io.Closer); ok {
		n.closers = append(n.closers, c)
	}
	return nil
}

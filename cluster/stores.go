package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"

	"github.com/cairndb/cairn/raftstore"
)

// raftFile is the name of the node's Raft log and stable store (a raftstore, durable with
// cairn.SyncFull) in its directory.
const raftFile = "raft.db"

// openStores opens the node's Raft stores and transport: those of Config, else the raftstore in
// dir/raft.db, file snapshots in dir/snapshots (snapshots.go) and a TCP transport on BindAddr
// (net.go).
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
	n.snaps = privateSnapshots{snaps, filepath.Join(n.dir, "snapshots")}
	n.trans = n.cfg.Transport
	if n.trans == nil {
		// One listener for Raft and forwarding (net.go), advertising its real address.
		m, err := listen(n.cfg.BindAddr, n.cfg.AdvertiseAddr, n.cfg.TLS, n.logger.Named("net"))
		if err != nil {
			return err
		}
		n.mux = m
		n.trans = newNetTransport(m, n.logger.Named("transport"))
	} else if n.cfg.TLS != nil {
		return errors.New("cluster: Config.TLS needs the node's own listener (BindAddr), not Config.Transport")
	}
	if c, ok := n.trans.(io.Closer); ok {
		n.closers = append(n.closers, c)
	}
	return nil
}

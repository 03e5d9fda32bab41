package cluster

// Snapshots are kept by raft's FileSnapshotStore under DIR/snapshots, wrapped so that they keep
// the modes of the rest of the node's directory. Invariant: a snapshot's directory is 0700 and
// its files (meta.json, state.bin) 0600 before a byte of the database is written to them.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"
)

// privateSnapshots is a raft.FileSnapshotStore whose snapshots only the node's user can read.
// FileSnapshotStore makes them with os.MkdirAll(0755) and os.Create (0666 less the umask); Create
// here restricts the new snapshot's directory and files right after FileSnapshotStore made them
// and before the sink is returned, so the state is never written to a file others may read.
// (A chmod after Persist would leave the image readable while it is written; the node's
// directory is 0700 anyway, this keeps each file right on its own.) The meta file is rewritten
// at Close with os.Create, which keeps the mode of the existing file, and the rename that
// publishes the snapshot keeps the modes.
type privateSnapshots struct {
	*raft.FileSnapshotStore
	dir string // DIR/snapshots
}

// Create makes a snapshot sink whose directory and files are private.
func (s privateSnapshots) Create(version raft.SnapshotVersion, index, term uint64,
	configuration raft.Configuration, configurationIndex uint64, trans raft.Transport) (raft.SnapshotSink, error) {
	sink, err := s.FileSnapshotStore.Create(version, index, term, configuration, configurationIndex, trans)
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(s.dir, sink.ID()+".tmp") // FileSnapshotStore's temporary directory
	err = os.Chmod(tmp, 0o700)
	for _, f := range []string{"meta.json", "state.bin"} {
		if err == nil {
			err = os.Chmod(filepath.Join(tmp, f), 0o600)
		}
	}
	if err != nil {
		sink.Cancel()
		return nil, fmt.Errorf("cluster: snapshot modes: %w", err)
	}
	return sink, nil
}

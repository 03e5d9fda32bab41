package raftstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// kvFSM is the state machine of the cluster test: each command is "key=value" and sets the key.
type kvFSM struct {
	mu sync.Mutex
	kv map[string]string
}

func newKVFSM() *kvFSM { return &kvFSM{kv: map[string]string{}} }

func (f *kvFSM) Apply(l *raft.Log) any {
	k, v, ok := strings.Cut(string(l.Data), "=")
	if !ok {
		return fmt.Errorf("bad command %q", l.Data)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kv[k] = v
	return nil
}

func (f *kvFSM) state() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.kv)
}

func (f *kvFSM) Snapshot() (raft.FSMSnapshot, error) { return kvSnapshot(f.state()), nil }

func (f *kvFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	kv := map[string]string{}
	if err := json.NewDecoder(rc).Decode(&kv); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kv = kv
	return nil
}

type kvSnapshot map[string]string

func (s kvSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode(map[string]string(s)); err != nil {
		_ = sink.Cancel()
		return err
	}
	return sink.Close()
}

func (kvSnapshot) Release() {}

// testLogWriter passes raft's log lines to t.Log until the test ends.
type testLogWriter struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

// node is one member of the test cluster: its store and snapshots outlive a restart, as its
// files would.
type node struct {
	id    raft.ServerID
	addr  raft.ServerAddress
	path  string
	snaps *raft.InmemSnapshotStore

	store *Store
	fsm   *kvFSM
	trans *raft.InmemTransport
	raft  *raft.Raft
}

type cluster struct {
	t     *testing.T
	nodes []*node
	log   *testLogWriter
	// bootstrap is the configuration start bootstraps a node with, if not nil.
	bootstrap *raft.Configuration
}

func (c *cluster) start(n *node) {
	t := c.t
	var err error
	n.store, err = Open(n.path, nil)
	require.NoError(t, err)
	n.fsm = newKVFSM()
	n.addr, n.trans = raft.NewInmemTransport(n.addr)
	for _, o := range c.nodes {
		if o != n && o.raft != nil {
			n.trans.Connect(o.addr, o.trans)
			o.trans.Connect(n.addr, n.trans)
		}
	}
	conf := raft.DefaultConfig()
	conf.LocalID = n.id
	conf.HeartbeatTimeout = 50 * time.Millisecond
	conf.ElectionTimeout = 50 * time.Millisecond
	conf.LeaderLeaseTimeout = 50 * time.Millisecond
	conf.CommitTimeout = 5 * time.Millisecond
	// Snapshots and log compaction (DeleteRange of a prefix) while the test appends.
	conf.SnapshotInterval = 20 * time.Millisecond
	conf.SnapshotThreshold = 64
	conf.TrailingLogs = 128
	conf.LogOutput = c.log
	conf.LogLevel = "WARN"
	if c.bootstrap != nil {
		// HasExistingState reads the current term: a new Store must answer "not found".
		require.NoError(t, raft.BootstrapCluster(conf, n.store, n.store, n.snaps, n.trans, *c.bootstrap))
	}
	n.raft, err = raft.NewRaft(conf, n.fsm, n.store, n.store, n.snaps, n.trans)
	require.NoError(t, err)
}

func (c *cluster) stop(n *node) {
	require.NoError(c.t, n.raft.Shutdown().Error())
	for _, o := range c.nodes {
		if o != n && o.raft != nil {
			o.trans.Disconnect(n.addr)
		}
	}
	require.NoError(c.t, n.trans.Close())
	require.NoError(c.t, n.store.Close())
	n.raft, n.store = nil, nil
}

// leader waits for a leader among the running nodes.
func (c *cluster) leader() *node {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range c.nodes {
			if n.raft != nil && n.raft.State() == raft.Leader {
				return n
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatal("no leader elected in 10 s")
	return nil
}

// apply sets the keys from lo to hi-1 through the leader, retrying while leadership moves (a
// command may then apply twice, which sets the same value again).
func (c *cluster) apply(lo, hi int) {
	for i := lo; i < hi; {
		l := c.leader()
		var futures []raft.ApplyFuture
		for j := i; j < hi; j++ {
			futures = append(futures, l.raft.Apply(fmt.Appendf(nil, "k%03d=v%d", j, j), 5*time.Second))
		}
		ok := 0
		for _, f := range futures {
			err := f.Error()
			if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
				break
			}
			require.NoError(c.t, err)
			ok++
		}
		i += ok
	}
}

// waitState waits until every running node's state machine holds want.
func (c *cluster) waitState(want map[string]string) {
	deadline := time.Now().Add(20 * time.Second)
	for _, n := range c.nodes {
		for n.raft != nil && !maps.Equal(n.fsm.state(), want) {
			if time.Now().After(deadline) {
				c.t.Fatalf("node %s holds %d keys, want %d", n.id, len(n.fsm.state()), len(want))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func wantKeys(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("k%03d", i)] = fmt.Sprintf("v%d", i)
	}
	return m
}

// TestRaftCluster runs three hashicorp/raft nodes on in-memory transports, each with a Store as
// its LogStore and StableStore: they elect a leader and apply commands while snapshots compact
// their logs; a follower is shut down, misses 100 commands, restarts on the same store files and
// catches up from the leader's log; then the leader does, missing 300 (by a snapshot, most likely).
func TestRaftCluster(t *testing.T) {
	dir := t.TempDir()
	c := &cluster{t: t, log: &testLogWriter{t: t}}
	t.Cleanup(func() {
		for _, n := range c.nodes {
			if n.raft != nil {
				c.stop(n)
			}
			if n.store != nil {
				require.NoError(t, n.store.Close())
			}
		}
		c.log.mu.Lock()
		c.log.done = true
		c.log.mu.Unlock()
	})
	var servers []raft.Server
	for i := 1; i <= 3; i++ {
		n := &node{id: raft.ServerID(fmt.Sprintf("node%d", i)), addr: raft.ServerAddress(fmt.Sprintf("addr%d", i)),
			path: filepath.Join(dir, fmt.Sprintf("node%d.db", i)), snaps: raft.NewInmemSnapshotStore()}
		c.nodes = append(c.nodes, n)
		servers = append(servers, raft.Server{ID: n.id, Address: n.addr})
	}
	c.bootstrap = &raft.Configuration{Servers: servers}
	for _, n := range c.nodes {
		c.start(n)
	}
	c.bootstrap = nil

	c.apply(0, 200)
	c.waitState(wantKeys(200))

	// Restart a follower: it misses 100 commands, then catches up from its own files (and the
	// leader's log or snapshot).
	leader := c.leader()
	var follower *node
	for _, n := range c.nodes {
		if n != leader {
			follower = n
			break
		}
	}
	term, err := follower.store.GetUint64([]byte("CurrentTerm"))
	require.NoError(t, err)
	require.NotZero(t, term)
	last, err := follower.store.LastIndex()
	require.NoError(t, err)
	require.GreaterOrEqual(t, last, uint64(200))
	c.stop(follower)

	c.apply(200, 300)
	c.waitState(wantKeys(300))
	c.start(follower)
	require.GreaterOrEqual(t, follower.raft.LastIndex(), last, "the restarted follower read its log")
	c.waitState(wantKeys(300))
	first, err := follower.store.FirstIndex()
	require.NoError(t, err)
	last2, err := follower.store.LastIndex()
	require.NoError(t, err)
	// The leader keeps 128 entries behind its snapshots, so the follower caught up by entries.
	t.Logf("restarted follower's log: %d to %d (was up to %d)", first, last2, last)
	require.Greater(t, last2, last)

	// Restart the leader: a new one is elected, and the old one catches up too, after 300
	// commands, more than the new leader keeps behind a snapshot: so most likely by a snapshot,
	// which leaves a gap in its log (its old entries, then those after the snapshot).
	leader = c.leader()
	c.stop(leader)
	c.apply(300, 600)
	c.start(leader)
	c.waitState(wantKeys(600))
	first, _ = leader.store.FirstIndex()
	last2, _ = leader.store.LastIndex()
	t.Logf("restarted leader's log: %d to %d", first, last2)

	// Every node's log agrees on every index that two of them hold (a log may have a gap where
	// a snapshot was installed). The nodes stop first, so that no compaction deletes entries
	// while the logs are compared.
	for _, n := range c.nodes {
		require.NoError(t, n.raft.Shutdown().Error())
	}
	total := 0
	for i, na := range c.nodes {
		for _, nb := range c.nodes[i+1:] {
			n := sameEntries(t, na.store, nb.store)
			t.Logf("%s and %s: %d entries alike", na.id, nb.id, n)
			total += n
		}
	}
	require.Positive(t, total, "no index held by two nodes")
}

// sameEntries checks that a and b hold the same entry at every index both hold, and returns how
// many those are.
func sameEntries(t *testing.T, a, b *Store) int {
	af, _ := a.FirstIndex()
	al, _ := a.LastIndex()
	bf, _ := b.FirstIndex()
	bl, _ := b.LastIndex()
	n := 0
	for i := max(af, bf); i <= min(al, bl); i++ {
		var la, lb raft.Log
		ea, eb := a.GetLog(i, &la), b.GetLog(i, &lb)
		if ea == raft.ErrLogNotFound || eb == raft.ErrLogNotFound {
			continue
		}
		require.NoError(t, ea)
		require.NoError(t, eb)
		require.Equal(t, la.Term, lb.Term, "index %d", i)
		require.Equal(t, la.Data, lb.Data, "index %d", i)
		n++
	}
	return n
}

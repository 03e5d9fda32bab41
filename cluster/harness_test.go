package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
)

// testCluster runs nodes in this process over raft's in-memory transport (or, newTCPCluster,
// each on its loopback TCP listener), each with its files (database, raftstore, snapshots) in a
// directory of the test. A node stopped and started again keeps its directory (and address).
type testCluster struct {
	t     *testing.T
	mu    sync.Mutex
	ids   []string
	dirs  map[string]string
	nodes map[string]*Node // running nodes
	trans map[string]*raft.InmemTransport
	addrs map[string]string // TCP: each node's listener address; nil: in-memory transports
	cfg   func(c *Config)   // adjusts every node's Config
	// wrap, if set, gives the transport an in-memory node uses in place of its own (the
	// fault-injecting faultTransport); the in-memory ones stay connected to each other.
	wrap func(id string, tr *raft.InmemTransport) raft.Transport
}

// newTestCluster starts n voting nodes, the first bootstrapping the cluster of all of them, and
// waits for a leader.
func newTestCluster(t *testing.T, n int, adjust func(c *Config)) *testCluster {
	return newCluster(t, n, adjust, false, nil)
}

// newWrappedTestCluster is newTestCluster with the transports wrapped by wrap (testCluster.wrap).
func newWrappedTestCluster(t *testing.T, n int, adjust func(c *Config),
	wrap func(id string, tr *raft.InmemTransport) raft.Transport) *testCluster {
	return newCluster(t, n, adjust, false, wrap)
}

// newTCPCluster is newTestCluster with each node on a listener of its own on loopback TCP (Raft
// and forwarding, net.go), at an address that stays the node's across restarts.
func newTCPCluster(t *testing.T, n int, adjust func(c *Config)) *testCluster {
	return newCluster(t, n, adjust, true, nil)
}

func newCluster(t *testing.T, n int, adjust func(c *Config), tcp bool,
	wrap func(id string, tr *raft.InmemTransport) raft.Transport) *testCluster {
	tc := &testCluster{t: t, dirs: map[string]string{}, nodes: map[string]*Node{},
		trans: map[string]*raft.InmemTransport{}, cfg: adjust, wrap: wrap}
	root := t.TempDir()
	if tcp {
		tc.addrs = map[string]string{}
	}
	for i := range n {
		id := fmt.Sprintf("n%d", i+1)
		tc.ids = append(tc.ids, id)
		tc.dirs[id] = filepath.Join(root, id)
		if tcp {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			tc.addrs[id] = ln.Addr().String()
			require.NoError(t, ln.Close())
		}
	}
	for i, id := range tc.ids {
		tc.start(id, i == 0)
	}
	t.Cleanup(tc.closeAll)
	tc.leader()
	return tc
}

// start opens node id (bootstrapping the cluster of every id if bootstrap) and connects its
// transport to the running nodes'.
func (tc *testCluster) start(id string, bootstrap bool) *Node {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	cfg := Config{NodeID: id, Bootstrap: bootstrap,
		// Short enough for quick elections, long enough that a loaded 2-core machine (tests
		// under -race beside other packages) does not lose its leader at random.
		HeartbeatTimeout: 200 * time.Millisecond, ElectionTimeout: 200 * time.Millisecond,
		LeaderLeaseTimeout: 200 * time.Millisecond, CommitTimeout: 5 * time.Millisecond,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: testWriter{tc.t}})}
	if tc.addrs != nil {
		cfg.BindAddr = tc.addrs[id]
		cfg.HeartbeatTimeout, cfg.ElectionTimeout, cfg.LeaderLeaseTimeout = 200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	} else {
		_, tr := raft.NewInmemTransport(raft.ServerAddress(id))
		for other, ot := range tc.trans {
			tr.Connect(raft.ServerAddress(other), ot)
			ot.Connect(raft.ServerAddress(id), tr)
		}
		tc.trans[id] = tr
		cfg.Transport = tr
		if tc.wrap != nil {
			cfg.Transport = tc.wrap(id, tr)
		}
	}
	for _, p := range tc.ids {
		addr := p
		if tc.addrs != nil {
			addr = tc.addrs[p]
		}
		cfg.Peers = append(cfg.Peers, Peer{ID: p, Addr: addr})
	}
	if tc.cfg != nil {
		tc.cfg(&cfg)
	}
	n, err := Open(tc.dirs[id], cfg)
	require.NoError(tc.t, err)
	tc.nodes[id] = n
	return n
}

// stop closes node id and disconnects it.
func (tc *testCluster) stop(id string) {
	tc.mu.Lock()
	n := tc.nodes[id]
	delete(tc.nodes, id)
	tr := tc.trans[id]
	delete(tc.trans, id)
	for _, ot := range tc.trans {
		ot.Disconnect(raft.ServerAddress(id))
	}
	tc.mu.Unlock()
	require.NoError(tc.t, n.Close())
	if tr != nil {
		tr.DisconnectAll()
	}
}

// wipe removes node id's files: it starts again empty.
func (tc *testCluster) wipe(id string) {
	require.NoError(tc.t, os.RemoveAll(tc.dirs[id]))
}

func (tc *testCluster) closeAll() {
	for _, id := range tc.ids {
		tc.mu.Lock()
		_, ok := tc.nodes[id]
		tc.mu.Unlock()
		if ok {
			tc.stop(id)
		}
	}
}

// node returns running node id.
func (tc *testCluster) node(id string) *Node {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.nodes[id]
}

// running returns the running nodes.
func (tc *testCluster) running() []*Node {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var out []*Node
	for _, id := range tc.ids {
		if n, ok := tc.nodes[id]; ok {
			out = append(out, n)
		}
	}
	return out
}

// leader waits up to 10 s for a running node that accepts writes and returns it.
func (tc *testCluster) leader() *Node {
	tc.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range tc.running() {
			if n.IsLeader() {
				return n
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	tc.t.Fatal("no leader within 10 s")
	return nil
}

// followers returns the running nodes other than leader.
func (tc *testCluster) followers(leader *Node) []*Node {
	var out []*Node
	for _, n := range tc.running() {
		if n != leader {
			out = append(out, n)
		}
	}
	return out
}

// state returns node n's keys and values once it holds LSN lsn (a follower read).
func state(t *testing.T, n *Node, lsn uint64) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := map[string]string{}
	require.NoError(t, n.ViewWith(ctx, ReadOptions{Consistency: Follower, MinLSN: lsn}, func(tx *cairn.Tx) error {
		for k, v := range tx.Range(nil, nil) {
			got[string(k)] = string(v)
		}
		return nil
	}), "node %s", n.cfg.NodeID)
	return got
}

// testWriter sends log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

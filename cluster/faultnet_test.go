package cluster

// A fault-injecting network for tests: faultTransport wraps a node's raft.InmemTransport and
// passes each outgoing RPC through a faultNet, which can drop the messages from one node to
// another (a partition, possibly one-way) and delay them (a random latency up to a bound).
// Invariants:
//   - A request from a to b is delivered only if a->b is open; its response reaches a only if
//     b->a is open too. A request delivered whose response is dropped has taken effect on b
//     (as on a real network), and a gets an error after a timeout, as for a request dropped.
//   - Pipelined replication is refused (raft.ErrPipelineReplicationNotSupported), so every
//     AppendEntries passes through the faultNet; raft falls back to one RPC at a time.

import (
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// errDropped is the error of an RPC whose request or response the faultNet dropped.
var errDropped = errors.New("faultnet: message dropped")

// faultNet decides the fate of messages between nodes, named by their IDs (which are also their
// in-memory addresses).
type faultNet struct {
	mu       sync.Mutex
	blocked  map[[2]string]bool // from, to: messages dropped
	maxDelay time.Duration      // each message waits a random time in [0, maxDelay)
	rng      *rand.Rand         // for delays; not the nemesis's generator (timing is not replayable)
	dropWait time.Duration      // how long a dropped RPC takes to fail
}

func newFaultNet() *faultNet {
	return &faultNet{blocked: map[[2]string]bool{}, rng: rand.New(rand.NewPCG(1, 2)),
		dropWait: 20 * time.Millisecond}
}

// block drops the messages from each node of from to each node of to (one way).
func (f *faultNet) block(from, to []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range from {
		for _, b := range to {
			if a != b {
				f.blocked[[2]string{a, b}] = true
			}
		}
	}
}

// partition splits the nodes into groups that cannot reach each other (both ways).
func (f *faultNet) partition(groups ...[]string) {
	for i, g := range groups {
		for j, h := range groups {
			if i != j {
				f.block(g, h)
			}
		}
	}
}

// setDelay sets the bound of the random delay of every message (0: none).
func (f *faultNet) setDelay(d time.Duration) {
	f.mu.Lock()
	f.maxDelay = d
	f.mu.Unlock()
}

// heal opens every link and removes the delays.
func (f *faultNet) heal() {
	f.mu.Lock()
	clear(f.blocked)
	f.maxDelay = 0
	f.mu.Unlock()
}

// fate returns whether a message from -> to is dropped, and how long it waits first.
func (f *faultNet) fate(from, to string) (drop bool, delay time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.maxDelay > 0 {
		delay = time.Duration(f.rng.Int64N(int64(f.maxDelay)))
	}
	return f.blocked[[2]string{from, to}], delay
}

// call runs rpc, the delivery of a request from -> to, under the faultNet's rules.
func (f *faultNet) call(from, to string, rpc func() error) error {
	drop, delay := f.fate(from, to)
	if drop {
		time.Sleep(f.dropWait + delay)
		return errDropped
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	if err := rpc(); err != nil {
		return err
	}
	if drop, delay := f.fate(to, from); drop { // the response is lost
		time.Sleep(f.dropWait + delay)
		return errDropped
	} else if delay > 0 {
		time.Sleep(delay)
	}
	return nil
}

// faultTransport is node id's raft.Transport: its in-memory transport, with every outgoing RPC
// passed through net.
type faultTransport struct {
	id    string
	inner *raft.InmemTransport
	net   *faultNet
}

var (
	_ raft.Transport   = (*faultTransport)(nil)
	_ raft.WithPreVote = (*faultTransport)(nil)
	_ raft.WithClose   = (*faultTransport)(nil)
)

func (t *faultTransport) Consumer() <-chan raft.RPC             { return t.inner.Consumer() }
func (t *faultTransport) LocalAddr() raft.ServerAddress         { return t.inner.LocalAddr() }
func (t *faultTransport) SetHeartbeatHandler(cb func(raft.RPC)) { t.inner.SetHeartbeatHandler(cb) }
func (t *faultTransport) EncodePeer(id raft.ServerID, addr raft.ServerAddress) []byte {
	return t.inner.EncodePeer(id, addr)
}
func (t *faultTransport) DecodePeer(b []byte) raft.ServerAddress { return t.inner.DecodePeer(b) }
func (t *faultTransport) Close() error                           { return t.inner.Close() }

// AppendEntriesPipeline is refused: every AppendEntries goes through the faultNet one by one.
func (t *faultTransport) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported
}

func (t *faultTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress,
	args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	return t.net.call(t.id, string(target), func() error { return t.inner.AppendEntries(id, target, args, resp) })
}

func (t *faultTransport) RequestVote(id raft.ServerID, target raft.ServerAddress,
	args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	return t.net.call(t.id, string(target), func() error { return t.inner.RequestVote(id, target, args, resp) })
}

func (t *faultTransport) RequestPreVote(id raft.ServerID, target raft.ServerAddress,
	args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.net.call(t.id, string(target), func() error { return t.inner.RequestPreVote(id, target, args, resp) })
}

func (t *faultTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress,
	args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	return t.net.call(t.id, string(target), func() error {
		return t.inner.InstallSnapshot(id, target, args, resp, data)
	})
}

func (t *faultTransport) TimeoutNow(id raft.ServerID, target raft.ServerAddress,
	args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	return t.net.call(t.id, string(target), func() error { return t.inner.TimeoutNow(id, target, args, resp) })
}

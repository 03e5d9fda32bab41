package cluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
)

// put commits key=value on n.
func put(n *Node, key, value string) error {
	return n.Update(func(tx *cairn.Tx) error { return tx.Put([]byte(key), []byte(value)) })
}

// putRetry commits key=value on the cluster's leader, retrying for up to 10 s on another leader
// when the leader changed (a put of a fixed value may be repeated: its outcome was unknown or it
// did not run). It reports whether it had to retry.
func (tc *testCluster) putRetry(key, value string) (retried bool) {
	tc.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := put(tc.leader(), key, value)
		if err == nil {
			return retried
		}
		if !errors.Is(err, ErrNotLeader) && !errors.Is(err, cairn.ErrFailed) || time.Now().After(deadline) {
			require.NoError(tc.t, err)
		}
		retried = true
	}
}

// TestClusterReplicates: writes of concurrent clients on the leader reach every node with the
// leader's LSNs; a follower refuses writes and leader reads, naming the leader.
func TestClusterReplicates(t *testing.T) {
	tc := newTestCluster(t, 3, nil)
	want := map[string]string{}
	var mu sync.Mutex
	var retries atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				k, v := fmt.Sprintf("g%d-%02d", g, i), fmt.Sprintf("v%d", i)
				if tc.putRetry(k, v) {
					retries.Add(1)
				}
				mu.Lock()
				want[k] = v
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	leader := tc.leader()
	lsn := leader.LastLSN()
	if retries.Load() == 0 { // a retried put may have committed twice
		require.Equal(t, uint64(200), lsn, "one LSN per commit")
	}
	require.Equal(t, want, state(t, leader, lsn))
	for _, f := range tc.followers(leader) {
		require.Equal(t, want, state(t, f, lsn))
		require.Equal(t, lsn, f.LastLSN())

		err := put(f, "x", "y")
		var nl *NotLeaderError
		require.ErrorAs(t, err, &nl)
		require.ErrorIs(t, err, ErrNotLeader)
		require.Equal(t, leader.cfg.NodeID, nl.LeaderID)
		require.ErrorIs(t, f.View(func(*cairn.Tx) error { return nil }), ErrNotLeader)
		require.ErrorIs(t, f.ViewWith(context.Background(), ReadOptions{Consistency: LeaderLocal},
			func(*cairn.Tx) error { return nil }), ErrNotLeader)
	}
	require.NoError(t, leader.View(func(tx *cairn.Tx) error {
		_, err := tx.Get([]byte("g0-00"))
		return err
	}))
	st := leader.Status()
	require.Equal(t, "Leader", st.State)
	require.Len(t, st.Members, 3)
}

// TestClusterSurvivesLeaderLoss stops the leader while clients write, and requires a new leader,
// every acknowledged write on every remaining node, and the old leader catching up when it comes
// back.
func TestClusterSurvivesLeaderLoss(t *testing.T) {
	tc := newTestCluster(t, 3, nil)
	var acked sync.Map
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				k := fmt.Sprintf("g%d-%05d", g, i)
				for _, n := range tc.running() {
					if n.IsLeader() && put(n, k, "v") == nil {
						acked.Store(k, true)
						break
					}
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	old := tc.leader()
	oldID := old.cfg.NodeID
	tc.stop(oldID)
	next := tc.leader()
	require.NotEqual(t, oldID, next.cfg.NodeID)
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	lsn := next.LastLSN()
	var n int
	for _, node := range tc.running() {
		got := state(t, node, lsn)
		acked.Range(func(k, _ any) bool {
			require.Contains(t, got, k.(string), "node %s lost an acknowledged write", node.cfg.NodeID)
			return true
		})
		n = len(got)
	}
	require.Positive(t, n)
	back := tc.start(oldID, false)
	require.Equal(t, state(t, next, lsn), state(t, back, lsn), "the old leader caught up")
}

// TestClusterFollowerRecoversBySnapshot wipes a follower's files while the others compact their
// logs, and requires it to come back from a snapshot.
func TestClusterFollowerRecoversBySnapshot(t *testing.T) {
	tc := newTestCluster(t, 3, func(c *Config) { c.SnapshotThreshold, c.TrailingLogs = 20, 5 })
	leader := tc.leader()
	victim := tc.followers(leader)[0].cfg.NodeID
	tc.stop(victim)
	tc.wipe(victim)
	for i := range 300 {
		tc.putRetry(fmt.Sprintf("k%04d", i), "v")
	}
	leader = tc.leader()
	require.NoError(t, leader.Snapshot())
	lsn := leader.LastLSN()
	back := tc.start(victim, false)
	require.Equal(t, state(t, leader, lsn), state(t, back, lsn))
	require.Equal(t, uint64(1), back.Status().SnapshotsInstalled)
	tc.putRetry("after", "snapshot")
	require.Contains(t, state(t, back, tc.leader().LastLSN()), "after")
}

// TestClusterLostQuorum: a leader cut off from both followers fails the write in flight (its
// outcome unknown) and steps down; once the partition heals, every node holds the same state,
// with the failed write on all of them or none.
func TestClusterLostQuorum(t *testing.T) {
	tc := newTestCluster(t, 3, nil)
	leader := tc.leader()
	require.NoError(t, put(leader, "before", "v"))
	tr := tc.trans[leader.cfg.NodeID]
	tr.DisconnectAll()
	for _, f := range tc.followers(leader) {
		tc.trans[f.cfg.NodeID].Disconnect(tr.LocalAddr())
	}
	err := put(leader, "cut-off", "v")
	require.Error(t, err)
	require.True(t, errors.Is(err, cairn.ErrFailed) || errors.Is(err, ErrNotLeader), "%v", err)
	for _, f := range tc.followers(leader) {
		tr.Connect(f.trans.LocalAddr(), tc.trans[f.cfg.NodeID])
		tc.trans[f.cfg.NodeID].Connect(tr.LocalAddr(), tr)
	}
	next := tc.leader()
	require.NoError(t, put(next, "after", "v"))
	require.Equal(t, uint64(1), leader.Status().Reopens, "the refused batch failed the database")
	lsn := next.LastLSN()
	want := state(t, next, lsn)
	require.Contains(t, want, "before")
	require.Contains(t, want, "after")
	for _, n := range tc.running() {
		require.Equal(t, want, state(t, n, lsn), "node %s", n.cfg.NodeID)
	}
}

// TestClusterMembership adds a non-voter, which receives the log without voting, promotes it to
// a voter, and removes another voter: the cluster goes on with its new members.
func TestClusterMembership(t *testing.T) {
	tc := newTestCluster(t, 3, nil)
	tc.putRetry("a", "1")
	tc.mu.Lock()
	tc.ids = append(tc.ids, "n4")
	tc.dirs["n4"] = filepath.Join(filepath.Dir(tc.dirs["n1"]), "n4")
	tc.mu.Unlock()
	n4 := tc.start("n4", false)
	require.NoError(t, tc.leader().AddNonvoter("n4", "n4"))
	require.ErrorIs(t, n4.AddVoter("x", "x"), ErrNotLeader, "membership changes run on the leader")
	tc.putRetry("b", "2")
	leader := tc.leader()
	require.Equal(t, state(t, leader, leader.LastLSN()), state(t, n4, leader.LastLSN()))
	require.Equal(t, map[string]bool{"n1": true, "n2": true, "n3": true, "n4": false}, voters(leader))

	require.NoError(t, leader.AddVoter("n4", "n4"))
	var victim string
	for _, f := range tc.followers(leader) {
		if f != n4 {
			victim = f.cfg.NodeID
			break
		}
	}
	require.NoError(t, leader.RemoveServer(victim))
	want := map[string]bool{"n1": true, "n2": true, "n3": true, "n4": true}
	delete(want, victim)
	require.Equal(t, want, voters(leader))
	tc.putRetry("c", "3")
	require.Equal(t, "3", state(t, n4, tc.leader().LastLSN())["c"])
}

// voters returns the members of n's configuration, each with whether it votes.
func voters(n *Node) map[string]bool {
	out := map[string]bool{}
	for _, m := range n.Status().Members {
		out[m.ID] = m.Voter
	}
	return out
}

package main

// The process test of issue 25: three real cairnd processes on loopback. Concurrent writers put
// unique keys through the HTTP API (any node: a follower redirects to the leader) and record
// what was acknowledged; the leader is killed with SIGKILL mid-workload, a new leader is
// elected, the writes go on, the old leader restarts on its directory and catches up, and every
// acknowledged write is read back on every node (follower reads with min_lsn). Then a follower
// is stopped, its directory wiped, the others compact their logs past it, and it comes back by
// a snapshot.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ledger records acknowledged writes.
type ledger struct {
	mu     sync.Mutex
	acked  map[string]string
	maxLSN uint64
}

func (l *ledger) ack(k, v string, lsn uint64) {
	l.mu.Lock()
	l.acked[k] = v
	l.maxLSN = max(l.maxLSN, lsn)
	l.mu.Unlock()
}

func (l *ledger) snapshot() (map[string]string, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]string, len(l.acked))
	for k, v := range l.acked {
		m[k] = v
	}
	return m, l.maxLSN
}

func (l *ledger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

func TestProcessCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs three cairnd processes for about 20 s")
	}
	root := t.TempDir()
	ports := freePorts(t, 6)
	var peers []string
	for i := range 3 {
		peers = append(peers, fmt.Sprintf("n%d=%s", i+1, ports[2*i]))
	}
	// Snapshots every 100 log entries, checked every 200 ms, keep 50 entries behind them: a
	// node away for a few hundred entries comes back by snapshot.
	common := []string{"-heartbeat-timeout", "500ms", "-election-timeout", "500ms", "-snapshot-threshold", "100",
		"-snapshot-interval", "200ms", "-trailing-logs", "50", "-log-level", "info"}
	var procs []*proc
	for i := range 3 {
		procs = append(procs, newProc(t, root, fmt.Sprintf("n%d", i+1), ports[2*i], ports[2*i+1], common...))
	}
	boot := []string{"-bootstrap", "-peers", strings.Join(peers, ",")}
	for _, p := range procs {
		p.start(boot...)
		t.Cleanup(p.kill)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range procs {
				t.Logf("stderr of %s:\n%s", p.id, p.log())
			}
		}
	})
	client := &http.Client{Timeout: 5 * time.Second}
	base := func(p *proc) string { return "http://" + p.http }
	leader := func(among []*proc) *proc {
		var found *proc
		waitUntil(t, 20*time.Second, "a leader that every running node knows, with every HTTP address", func() bool {
			found = nil
			for _, p := range among {
				st, err := status(client, base(p))
				if err != nil || st.LeaderID == "" || len(st.HTTPAddrs) < 3 {
					return false
				}
				for _, q := range among {
					if q.id == st.LeaderID {
						found = q
					}
				}
			}
			return found != nil
		})
		return found
	}
	old := leader(procs)
	t.Logf("leader %s", old.id)

	// Writers: unique keys, each through a node chosen in turn (a follower redirects).
	l := &ledger{acked: map[string]string{}}
	ctx, stopWriters := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				k, v := fmt.Sprintf("w%d-%05d", g, i), fmt.Sprintf("value %d of writer %d", i, g)
				lsn, err := put(ctx, client, base(procs[(g+i)%3]), k, v)
				if err != nil {
					failed.Add(1) // outcome unknown: not counted
					time.Sleep(20 * time.Millisecond)
					continue
				}
				l.ack(k, v, lsn)
			}
		})
	}
	defer func() { stopWriters(); wg.Wait() }()
	waitUntil(t, 20*time.Second, "100 acknowledged writes", func() bool { return l.count() >= 100 })

	old.kill() // SIGKILL, mid-workload
	killedAt := l.count()
	t.Logf("killed leader %s after %d acknowledged writes", old.id, killedAt)
	var rest []*proc
	for _, p := range procs {
		if p != old {
			rest = append(rest, p)
		}
	}
	waitUntil(t, 20*time.Second, "a new leader", func() bool {
		st, err := status(client, base(rest[0]))
		return err == nil && st.State != "" && st.LeaderID != "" && st.LeaderID != old.id
	})
	waitUntil(t, 20*time.Second, "100 writes acknowledged by the new leader", func() bool { return l.count() >= killedAt+100 })
	old.start() // its state exists: -bootstrap is not needed (and would be ignored)
	waitUntil(t, 20*time.Second, "more writes with the old leader back", func() bool { return l.count() >= killedAt+200 })
	stopWriters()
	wg.Wait()

	acked, maxLSN := l.snapshot()
	t.Logf("%d writes acknowledged (LSN up to %d), %d failed or unknown", len(acked), maxLSN, failed.Load())
	checkAll := func(p *proc) {
		t.Helper()
		for k, v := range acked {
			got, found, err := get(client, base(p), k, fmt.Sprintf("consistency=follower&min_lsn=%d", maxLSN))
			require.NoError(t, err, "node %s", p.id)
			require.True(t, found, "node %s lost acknowledged key %s", p.id, k)
			require.Equal(t, v, got, "node %s, key %s", p.id, k)
		}
	}
	for _, p := range procs {
		checkAll(p)
	}

	// A follower loses its directory: it comes back empty and recovers by snapshot.
	lead := leader(procs)
	var wiped *proc
	for _, p := range procs {
		if p != lead {
			wiped = p
			break
		}
	}
	wiped.stop()
	require.NoError(t, os.RemoveAll(wiped.dir))
	// 300 more entries, one write each: the others snapshot and compact their logs past the
	// wiped node's.
	for i := range 300 {
		k, v := fmt.Sprintf("s-%04d", i), fmt.Sprintf("after the wipe %d", i)
		lsn, err := put(context.Background(), client, base(lead), k, v)
		require.NoError(t, err)
		l.ack(k, v, lsn)
	}
	acked, maxLSN = l.snapshot()
	wiped.start() // no -bootstrap: it joins the configuration it is still a member of
	waitUntil(t, 30*time.Second, "the wiped node's catch-up", func() bool {
		st, err := status(client, base(wiped))
		return err == nil && st.LastLSN >= maxLSN
	})
	st, err := status(client, base(wiped))
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.SnapshotsInstalled, uint64(1), "the wiped node came back by snapshot")
	checkAll(wiped)
	t.Logf("wiped node %s recovered by snapshot: LSN %d, %d keys checked", wiped.id, st.LastLSN, len(acked))
}

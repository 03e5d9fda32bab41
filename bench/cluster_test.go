package bench

// BenchmarkClusterPut: replicated durable puts on a 3-node cluster on loopback, cairn (package
// cluster, hashicorp/raft over TCP, the raftstore log) beside etcd (server/v3 embed, its own
// raft and WAL), every node in this process, each with its own directory on a disk. A put is
// acknowledged once it is in the fdatasync'd log of a quorum, on both engines.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"
	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cluster"
	"github.com/cairndb/cairn/raftstore"
)

// clusterSize is the number of nodes of the replicated benchmarks.
const clusterSize = 3

// putCluster is a running 3-node cluster of one engine that takes puts on its leader.
type putCluster interface {
	// put writes one key and value, durable on a quorum when it returns.
	put(ctx context.Context, key, value []byte) error
	// get reads a key on the leader (nil if it is missing).
	get(ctx context.Context, key []byte) ([]byte, error)
	// logCounters returns the counters of the Raft logs so far.
	logCounters() logCounters
	// retries returns how many puts were retried after a change of leader.
	retries() uint64
	close() error
}

// logCounters count the fdatasyncs (or fsyncs) of a cluster's Raft logs: of all nodes, their
// summed latency, and (cairn only: zero for etcd) of the leader's log and its last index.
type logCounters struct {
	syncs, leaderSyncs uint64
	syncTime           time.Duration
	leaderIndex        uint64
}

// clusterEngines are the engines of BenchmarkClusterPut and how to start a cluster of each in a
// directory.
var clusterEngines = []struct {
	name string
	open func(dir string) (putCluster, error)
}{
	{"cairn", openCairnCluster},
	{"etcd", openEtcdCluster},
}

// BenchmarkClusterPut measures N clients each putting one new 16-byte key with a 100-byte value
// at a time on the leader of a 3-node cluster on loopback: puts/s, latency percentiles, and for
// cairn the puts per fdatasync of the leader's Raft log and per Raft log entry. Names are
// clients=N/engine=E so that `benchstat -col /engine` puts the engines side by side. One cluster
// per engine serves its three client counts (cairn's, then etcd's: never both at once); allocs/op
// counts the whole process, client and all three nodes.
func BenchmarkClusterPut(b *testing.B) {
	for _, e := range clusterEngines {
		var c putCluster
		var dir string
		for _, clients := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("clients=%d/engine=%s", clients, e.name), func(b *testing.B) {
				if c == nil {
					var err error
					if dir, err = clusterDir(); err != nil {
						b.Fatal(err)
					}
					if c, err = e.open(dir); err != nil {
						b.Fatal(err)
					}
				}
				benchClusterPut(b, c, clients)
			})
		}
		if c != nil {
			if err := c.close(); err != nil {
				b.Error(err)
			}
			os.RemoveAll(dir)
		}
	}
}

// clusterDir returns a new directory on a disk for a cluster's nodes; the caller removes it.
func clusterDir() (string, error) {
	base, err := benchBase()
	if err != nil {
		return "", err
	}
	if base == "" {
		base = os.TempDir()
	}
	return os.MkdirTemp(base, "cairn-bench-cluster-")
}

// clusterKeys numbers the keys of all runs of BenchmarkClusterPut, so that every put writes a
// new key.
var clusterKeys atomic.Uint64

func benchClusterPut(b *testing.B, c putCluster, clients int) {
	ctx := context.Background()
	log0 := c.logCounters()
	retries0 := c.retries()
	var timers *metrics.InmemSink
	if os.Getenv(raftTimersEnv) != "" {
		timers = startRaftTimers()
	}
	hists := make([]Histogram, clients)
	var done atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var key []byte
			for done.Add(1) <= int64(b.N) {
				i := clusterKeys.Add(1)
				key = RandomKey(key[:0], i)
				value := Value(i, commitValueSize)
				start := time.Now()
				if err := c.put(ctx, key, value); err != nil {
					b.Error(err)
					return
				}
				hists[g].Record(time.Since(start))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	var h Histogram
	for i := range hists {
		h.Merge(&hists[i])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	reportLatency(b, &h)
	log := c.logCounters()
	if syncs := float64(log.syncs - log0.syncs); syncs > 0 {
		b.ReportMetric(syncs/float64(b.N), "log-syncs/put")
		b.ReportMetric(float64(log.syncTime-log0.syncTime)/syncs, "log-sync-ns")
	}
	if syncs := float64(log.leaderSyncs - log0.leaderSyncs); syncs > 0 {
		b.ReportMetric(syncs/float64(b.N), "leader-syncs/put")
		b.ReportMetric(float64(b.N)/float64(log.leaderIndex-log0.leaderIndex), "puts/entry")
	}
	if r := c.retries() - retries0; r > 0 {
		b.ReportMetric(float64(r), "retries")
	}
	if timers != nil {
		b.Logf("hashicorp/raft's timers over %d puts:\n%s", b.N, raftTimers(timers))
	}
}

// raftTimersEnv, when set, makes BenchmarkClusterPut log the mean of hashicorp/raft's own timers
// (go-metrics, all three nodes) for each run of a cairn benchmark: how long the leader's log
// append, a follower's append and the AppendEntries round trip take.
const raftTimersEnv = "CAIRN_BENCH_RAFT_TIMERS"

// startRaftTimers makes a new in-memory sink the destination of go-metrics' global calls.
func startRaftTimers() *metrics.InmemSink {
	sink := metrics.NewInmemSink(time.Hour, time.Hour)
	cfg := metrics.DefaultConfig("")
	cfg.EnableHostname, cfg.EnableRuntimeMetrics, cfg.EnableServiceLabel = false, false, false
	if _, err := metrics.NewGlobal(cfg, sink); err != nil {
		return nil
	}
	return sink
}

// raftTimers returns the count and mean of each timer of raft's commit path in sink.
func raftTimers(sink *metrics.InmemSink) string {
	names := []string{
		"raft.leader.dispatchLog",               // the leader's StoreLogs (fdatasync)
		"raft.replication.appendEntries.rpc.n1", // AppendEntries sent to n1 until its answer
		"raft.replication.appendEntries.rpc.n2", //
		"raft.replication.appendEntries.rpc.n3", //
		"raft.rpc.appendEntries.storeLogs",      // a follower's StoreLogs (fdatasync)
		"raft.commitTime",                       // from the leader's dispatch to the commit
		"raft.fsm.applyBatch",                   // the FSM's ApplyBatch, every node
	}
	var out strings.Builder
	for _, iv := range sink.Data() {
		for _, name := range names {
			if s, ok := iv.Samples[name]; ok {
				fmt.Fprintf(&out, "%-40s n=%7d mean=%7.3f ms\n", name, s.Count, s.AggregateSample.Mean())
			}
		}
	}
	return out.String()
}

// freeAddrs returns n loopback addresses whose ports were free a moment ago.
func freeAddrs(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// cairnCluster is three cluster.Nodes over loopback TCP, each with its raftstore opened here
// (as the node would open it, dir/raft.db with raftstore's defaults) so that the benchmark can
// read its fdatasync counter.
type cairnCluster struct {
	nodes   []*cluster.Node
	stores  []*raftstore.Store
	retried atomic.Uint64
	mu      sync.Mutex
	leader  int // index of the last known leader
}

func openCairnCluster(dir string) (putCluster, error) {
	addrs, err := freeAddrs(clusterSize)
	if err != nil {
		return nil, err
	}
	var peers []cluster.Peer
	for i, a := range addrs {
		peers = append(peers, cluster.Peer{ID: fmt.Sprintf("n%d", i+1), Addr: a})
	}
	c := &cairnCluster{}
	logger := hclog.New(&hclog.LoggerOptions{Name: "bench", Level: hclog.Error})
	for i, p := range peers {
		nodeDir := filepath.Join(dir, p.ID)
		if err := os.MkdirAll(nodeDir, 0o700); err != nil {
			c.close()
			return nil, err
		}
		store, err := raftstore.Open(filepath.Join(nodeDir, "raft.db"), nil)
		if err != nil {
			c.close()
			return nil, err
		}
		c.stores = append(c.stores, store)
		n, err := cluster.Open(nodeDir, cluster.Config{NodeID: p.ID, BindAddr: addrs[i],
			Bootstrap: true, Peers: peers, LogStore: store, StableStore: store, Logger: logger})
		if err != nil {
			c.close()
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	if _, err := c.findLeader(); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// findLeader waits up to 20 s for a node that accepts writes and returns its index.
func (c *cairnCluster) findLeader() (int, error) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for i, n := range c.nodes {
			if n.IsLeader() {
				c.mu.Lock()
				c.leader = i
				c.mu.Unlock()
				return i, nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, errors.New("cairn cluster: no leader within 20 s")
}

func (c *cairnCluster) put(ctx context.Context, key, value []byte) error {
	for {
		c.mu.Lock()
		n := c.nodes[c.leader]
		c.mu.Unlock()
		err := n.Update(func(tx *cairn.Tx) error { return tx.Put(key, value) })
		if err == nil || !(errors.Is(err, cluster.ErrNotLeader) || errors.Is(err, cairn.ErrFailed)) {
			return err
		}
		// A change of leader (the key is new, so a put whose outcome is unknown may be retried).
		c.retried.Add(1)
		if _, err := c.findLeader(); err != nil {
			return err
		}
	}
}

func (c *cairnCluster) get(ctx context.Context, key []byte) ([]byte, error) {
	c.mu.Lock()
	n := c.nodes[c.leader]
	c.mu.Unlock()
	var v []byte
	err := n.View(func(tx *cairn.Tx) error {
		got, err := tx.Get(key)
		if errors.Is(err, cairn.ErrNotFound) {
			return nil
		}
		v = append([]byte(nil), got...)
		return err
	})
	return v, err
}

func (c *cairnCluster) logCounters() logCounters {
	c.mu.Lock()
	leader := c.leader
	c.mu.Unlock()
	var lc logCounters
	for i, s := range c.stores {
		st := s.DB().Stats()
		lc.syncs += st.Syncs
		lc.syncTime += st.SyncTime
		if i == leader {
			lc.leaderSyncs = st.Syncs
			lc.leaderIndex, _ = s.LastIndex()
		}
	}
	return lc
}

func (c *cairnCluster) retries() uint64 { return c.retried.Load() }

func (c *cairnCluster) close() error {
	var first error
	for _, n := range c.nodes {
		if err := n.Close(); err != nil && first == nil {
			first = err
		}
	}
	for _, s := range c.stores {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// etcdCluster is three embedded etcd members on loopback and one client of the leader's client
// URL, shared by every client goroutine (one gRPC connection, a stream per request).
type etcdCluster struct {
	members []*embed.Etcd
	client  *clientv3.Client
}

func openEtcdCluster(dir string) (putCluster, error) {
	addrs, err := freeAddrs(2 * clusterSize)
	if err != nil {
		return nil, err
	}
	mustURL := func(a string) url.URL { return url.URL{Scheme: "http", Host: a} }
	var initial []string
	for i := range clusterSize {
		initial = append(initial, fmt.Sprintf("m%d=http://%s", i+1, addrs[2*i]))
	}
	c := &etcdCluster{members: make([]*embed.Etcd, clusterSize)}
	errs := make([]error, clusterSize)
	var wg sync.WaitGroup
	for i := range clusterSize {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i+1)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		cfg.ListenPeerUrls = []url.URL{mustURL(addrs[2*i])}
		cfg.AdvertisePeerUrls = cfg.ListenPeerUrls
		cfg.ListenClientUrls = []url.URL{mustURL(addrs[2*i+1])}
		cfg.AdvertiseClientUrls = cfg.ListenClientUrls
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "bench"
		cfg.ClusterState = embed.ClusterStateFlagNew
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop()) // its shutdown logs errors
		wg.Add(1)
		go func() { // members wait for each other to start
			defer wg.Done()
			e, err := embed.StartEtcd(cfg)
			if err != nil {
				errs[i] = err
				return
			}
			c.members[i] = e
			select {
			case <-e.Server.ReadyNotify():
			case <-time.After(30 * time.Second):
				errs[i] = errors.New("etcd member not ready within 30 s")
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.close()
		return nil, err
	}
	leader := -1
	for deadline := time.Now().Add(20 * time.Second); leader < 0 && time.Now().Before(deadline); {
		for i, e := range c.members {
			if e.Server.Leader() == e.Server.MemberID() {
				leader = i
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if leader < 0 {
		c.close()
		return nil, errors.New("etcd cluster: no leader within 20 s")
	}
	c.client, err = clientv3.New(clientv3.Config{Endpoints: []string{addrs[2*leader+1]},
		DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *etcdCluster) put(ctx context.Context, key, value []byte) error {
	_, err := c.client.Put(ctx, string(key), string(value))
	return err
}

// logCounters reads etcd's WAL fsync histogram, which the members of this process share.
func (c *etcdCluster) logCounters() logCounters {
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		return logCounters{}
	}
	for _, mf := range mfs {
		if mf.GetName() != "etcd_disk_wal_fsync_duration_seconds" {
			continue
		}
		var lc logCounters
		for _, m := range mf.GetMetric() {
			h := m.GetHistogram()
			lc.syncs += h.GetSampleCount()
			lc.syncTime += time.Duration(h.GetSampleSum() * float64(time.Second))
		}
		return lc
	}
	return logCounters{}
}

func (c *etcdCluster) get(ctx context.Context, key []byte) ([]byte, error) {
	r, err := c.client.Get(ctx, string(key))
	if err != nil || len(r.Kvs) == 0 {
		return nil, err
	}
	return r.Kvs[0].Value, nil
}

func (c *etcdCluster) retries() uint64 { return 0 }

func (c *etcdCluster) close() error {
	var err error
	if c.client != nil {
		err = c.client.Close()
	}
	for _, e := range c.members {
		if e != nil {
			e.Close()
		}
	}
	return err
}

// TestClusterPutSame checks what BenchmarkClusterPut measures: on each engine's cluster, puts
// from 8 goroutines are acknowledged, then read back on the leader with their values, and a key
// never put is missing.
func TestClusterPutSame(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two 3-node clusters")
	}
	for _, e := range clusterEngines {
		t.Run(e.name, func(t *testing.T) {
			c, err := e.open(tempDir(t))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := c.close(); err != nil {
					t.Error(err)
				}
			}()
			ctx := context.Background()
			const goroutines, perGoroutine = 8, 25
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range perGoroutine {
						n := uint64(g*perGoroutine + i)
						if err := c.put(ctx, RandomKey(nil, n), Value(n, commitValueSize)); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			for n := range uint64(goroutines * perGoroutine) {
				got, err := c.get(ctx, RandomKey(nil, n))
				if err != nil {
					t.Fatal(err)
				}
				if want := Value(n, commitValueSize); string(got) != string(want) {
					t.Fatalf("key %d: got %d bytes, want %d bytes %x...", n, len(got), len(want), want[:8])
				}
			}
			if got, err := c.get(ctx, RandomKey(nil, 1<<40)); err != nil || got != nil {
				t.Fatalf("a key never put: got %q, %v", got, err)
			}
		})
	}
}

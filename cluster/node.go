package cluster

// A Node is one member of a replicated cairn database: its cairn.DB (the state machine), its
// raft.Raft, and the hooks between them. Invariants (docs/CLUSTER.md, "Design"):
//   - Only the leader commits locally, and only after its FSM applied every entry committed
//     before its term (writable is set after a Barrier): its commits take the LSNs after them.
//     A follower's database changes only through the FSM.
//   - A local commit passes through Options.Replicate (replicate): it counts, is acknowledged and
//     becomes visible only once Raft committed its batch on a quorum. A refused batch fails the
//     database, which reopenDB reopens without it (the entry may still commit: then the FSM
//     applies it, from the log or from inflight).
//   - db is swapped only under dbMu's write lock (reopenDB, installSnapshot); a call that met a
//     closed database retries on the new one.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/cairndb/cairn"
)

// Errors of the cluster package. Errors of cairn (ErrNotFound, ErrFailed, ...) pass as they are.
var (
	// ErrNotLeader is returned by writes, linearizable and leader reads and membership changes
	// on a node that is not the leader (or is a leader still applying its predecessor's log). The
	// error is a *NotLeaderError, which names the leader if one is known.
	ErrNotLeader = errors.New("cluster: not the leader")
	// ErrStale is returned by a follower read whose bound on staleness the node cannot meet: it
	// has not heard from a leader for longer than ReadOptions.MaxStaleness.
	ErrStale = errors.New("cluster: node too far behind the leader")
	// ErrStopped is returned by every call on a node stopped by a fatal error (a log entry or
	// snapshot that cannot be applied); Err gives the cause.
	ErrStopped = errors.New("cluster: node stopped")
)

// NotLeaderError is the error of a call that needs the leader on another node. It wraps
// ErrNotLeader.
type NotLeaderError struct {
	LeaderID   string // the leader's node ID, "" if no leader is known
	LeaderAddr string // the leader's Raft address, "" if no leader is known
}

func (e *NotLeaderError) Error() string {
	if e.LeaderID == "" {
		return "cluster: not the leader, and no leader is known"
	}
	return fmt.Sprintf("cluster: not the leader; the leader is %s at %s", e.LeaderID, e.LeaderAddr)
}

func (e *NotLeaderError) Unwrap() error { return ErrNotLeader }

// Peer is a voting member of the initial configuration.
type Peer struct {
	ID   string // node ID
	Addr string // Raft address, host:port
}

// Config configures a Node. NodeID and either Transport or BindAddr are required.
type Config struct {
	// NodeID names the node in the cluster: unique and stable across restarts.
	NodeID string
	// BindAddr is the TCP address (host:port) of the node's one listener, which serves Raft and
	// forwarded writes (a port 0 picks a free port); AdvertiseAddr, if set, is the address the
	// other nodes dial (default: the listener's address; required when BindAddr's host is
	// 0.0.0.0 or ::). Node.Addr returns it.
	BindAddr      string
	AdvertiseAddr string
	// TLS, if set, makes every connection of the node, accepted or dialled, mutual TLS 1.3: it
	// must hold the node's certificate (Certificates[0], with the server and client extended key
	// usages) and the cluster's CA (RootCAs; ClientCAs defaults to it). A peer whose certificate
	// that CA did not sign is refused and logged. LoadTLS builds it from PEM files. Host names are
	// not checked: the CA must sign the cluster's members only. TLS needs BindAddr (not
	// Transport).
	TLS *tls.Config
	// Bootstrap makes a new cluster of Peers (which must include this node) when the node has no
	// Raft state yet; it is ignored once the state exists. Exactly one node, or every node of
	// Peers with the same list, bootstraps; the others join through AddVoter on the leader.
	Bootstrap bool
	Peers     []Peer

	// Transport replaces the TCP transport (tests: raft.NewInmemTransport or a fault-injecting
	// wrapper). The node closes it if it implements io.Closer.
	Transport raft.Transport
	// LogStore and StableStore replace the raftstore in DIR/raft.db (tests).
	LogStore    raft.LogStore
	StableStore raft.StableStore

	// HeartbeatTimeout, ElectionTimeout and LeaderLeaseTimeout are Raft's (default 1 s, 1 s,
	// 500 ms); CommitTimeout is Raft's bound on the delay of a commit index update (50 ms).
	HeartbeatTimeout   time.Duration
	ElectionTimeout    time.Duration
	LeaderLeaseTimeout time.Duration
	CommitTimeout      time.Duration
	// SnapshotThreshold is how many log entries since the last snapshot start a new one, and
	// TrailingLogs how many entries a snapshot leaves in the log for slow followers (defaults
	// 8192 and 10240, Raft's).
	SnapshotThreshold uint64
	TrailingLogs      uint64
	// SnapshotInterval is how often Raft checks whether SnapshotThreshold is reached (default
	// 120 s, Raft's; each check waits a random time between one and two intervals).
	SnapshotInterval time.Duration
	// ApplyTimeout bounds how long a batch of commits waits to enter Raft's queue (default 10 s).
	ApplyTimeout time.Duration

	// DBSync is the durability mode of the node's cairn database. The default, cairn.SyncNone,
	// is safe: every commit is durable in the Raft log (fdatasync'd on a quorum) before it is
	// acknowledged, and a database that lost its unsynced tail in a power loss catches up from the
	// log, or from a snapshot (docs/CLUSTER.md, "Durability").
	DBSync cairn.SyncMode
	// CacheBytes is the cairn database's page cache (cairn.Options.CacheBytes).
	CacheBytes int64

	// Logger receives Raft's and the node's log lines (default: warnings and errors to stderr).
	Logger hclog.Logger

	// DisableForwarding makes a follower refuse writes (Write, and SQL writes through
	// SQLConnector) and linearizable SQL reads with a *NotLeaderError naming the leader, instead
	// of forwarding them to the leader (forward.go; docs/CLUSTER.md, "Forwarding writes").
	DisableForwarding bool
	// ForwardTimeout bounds how long a forwarded request waits for a leader and its answer
	// (default 10 s; the request's context may end it sooner).
	ForwardTimeout time.Duration
}

// Node is a member of a replicated cairn database. It is safe for concurrent use.
type Node struct {
	cfg    Config
	dir    string
	logger hclog.Logger

	raft    *raft.Raft
	fsm     *fsm
	trans   raft.Transport
	logs    raft.LogStore
	stable  raft.StableStore
	snaps   raft.SnapshotStore
	closers []io.Closer // stores and transport the node owns
	mux     *mux        // the node's listener (net.go); nil with Config.Transport

	dbMu  sync.RWMutex
	db    *cairn.DB
	dbGen uint64 // bumped at each swap of db

	reopens  atomic.Uint64 // databases reopened after a failed replication
	installs atomic.Uint64 // snapshots installed

	writable atomic.Bool // leader, and its FSM has applied the log of earlier terms
	closing  atomic.Bool
	stopped  atomic.Pointer[error] // the fatal error that stopped the node

	appliedMu sync.Mutex
	appliedCh chan struct{} // closed and replaced when the database publishes new commits

	quit      chan struct{} // closed by Close
	recheck   chan struct{} // asks watchLeadership to re-evaluate writable (after a reopen)
	started   chan struct{} // closed once raft is set (or start failed)
	watchDone chan struct{}

	fwd forwarding // forwarded writes and reads: server and client (forward.go)
	sql sqlState   // the node's SQL engine (sql.go)
}

// dbFile is the name of the node's cairn database in its directory.
const dbFile = "state.db"

// Open starts the node whose files are in dir (created with mode 0700 if missing): the cairn
// database dir/state.db, the Raft log and stable store dir/raft.db, and snapshots under
// dir/snapshots. It returns once Raft runs; the node may not know a leader yet (WaitLeader).
func Open(dir string, cfg Config) (*Node, error) {
	if cfg.NodeID == "" {
		return nil, errors.New("cluster: Config.NodeID is required")
	}
	if cfg.Transport == nil && cfg.BindAddr == "" {
		return nil, errors.New("cluster: Config.BindAddr or Config.Transport is required")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	n := &Node{cfg: cfg, dir: dir, logger: cfg.Logger, appliedCh: make(chan struct{}),
		quit: make(chan struct{}), recheck: make(chan struct{}, 1), started: make(chan struct{}),
		watchDone: make(chan struct{})}
	if n.logger == nil {
		n.logger = hclog.New(&hclog.LoggerOptions{Name: "cairn-cluster", Level: hclog.Warn})
	}
	n.logger = n.logger.With("node", cfg.NodeID)
	err := n.start()
	close(n.started)
	if err != nil {
		n.closeOwned()
		if n.db != nil {
			n.db.Close()
		}
		return nil, err
	}
	go n.watchLeadership()
	n.startForwarding()
	return n, nil
}

// start opens the database and the stores and starts Raft.
func (n *Node) start() error {
	db, err := n.openDB(1)
	if err != nil {
		return err
	}
	n.db, n.dbGen = db, 1
	n.fsm = &fsm{n: n, lastLSN: publishedLSN(db)}
	if err := n.openStores(); err != nil {
		return err
	}
	rc := n.raftConfig()
	if n.cfg.Bootstrap {
		if err := n.bootstrap(rc); err != nil {
			return err
		}
	}
	r, err := raft.NewRaft(rc, n.fsm, n.logs, n.stable, n.snaps, n.trans)
	if err != nil {
		return fmt.Errorf("cluster: start raft: %w", err)
	}
	n.raft = r
	return nil
}

// openDB opens the node's database as generation gen, its commits replicated through Raft.
func (n *Node) openDB(gen uint64) (*cairn.DB, error) {
	opts := &cairn.Options{Sync: n.cfg.DBSync, CacheBytes: n.cfg.CacheBytes,
		Replicate: func(first uint64, records [][]byte) error { return n.replicate(gen, first, records) }}
	db, err := cairn.Open(filepath.Join(n.dir, dbFile), opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: open database: %w", err)
	}
	return db, nil
}

// raftConfig returns the Raft configuration of the node.
func (n *Node) raftConfig() *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(n.cfg.NodeID)
	rc.Logger = n.logger.Named("raft")
	setIf := func(d *time.Duration, v time.Duration) {
		if v > 0 {
			*d = v
		}
	}
	setIf(&rc.HeartbeatTimeout, n.cfg.HeartbeatTimeout)
	setIf(&rc.ElectionTimeout, n.cfg.ElectionTimeout)
	setIf(&rc.LeaderLeaseTimeout, n.cfg.LeaderLeaseTimeout)
	setIf(&rc.CommitTimeout, n.cfg.CommitTimeout)
	if n.cfg.SnapshotThreshold > 0 {
		rc.SnapshotThreshold = n.cfg.SnapshotThreshold
	}
	setIf(&rc.SnapshotInterval, n.cfg.SnapshotInterval)
	if n.cfg.TrailingLogs > 0 {
		rc.TrailingLogs = n.cfg.TrailingLogs
	}
	rc.BatchApplyCh = true // many concurrent batches enter the leader's log as one append
	return rc
}

// bootstrap makes the initial configuration of a node without Raft state.
func (n *Node) bootstrap(rc *raft.Config) error {
	has, err := raft.HasExistingState(n.logs, n.stable, n.snaps)
	if err != nil || has {
		return err
	}
	var servers []raft.Server
	for _, p := range n.cfg.Peers {
		servers = append(servers, raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Addr)})
	}
	if len(servers) == 0 {
		servers = []raft.Server{{ID: rc.LocalID, Address: n.trans.LocalAddr()}}
	}
	if err := raft.BootstrapCluster(rc, n.logs, n.stable, n.snaps, n.trans, raft.Configuration{Servers: servers}); err != nil {
		return fmt.Errorf("cluster: bootstrap: %w", err)
	}
	return nil
}

// replicate is the database's Options.Replicate: it proposes a batch of commits as one log
// entry and returns once Raft committed it, or its error (which fails the database; a reopen is
// started).
func (n *Node) replicate(gen uint64, first uint64, records [][]byte) error {
	err := n.propose(first, records)
	if err != nil {
		n.writable.Store(false)
		go n.recoverAfterRefusal(gen) // the batch writer waits for us: reopen elsewhere
	}
	return err
}

func (n *Node) propose(first uint64, records [][]byte) error {
	if !n.writable.Load() || n.raft.State() != raft.Leader {
		return n.notLeader()
	}
	timeout := n.cfg.ApplyTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	f := n.raft.Apply(encodeEntry(first, records), timeout)
	if err := n.await(f); err != nil {
		return fmt.Errorf("cluster: replicate LSNs %d-%d: %w", first, first+uint64(len(records))-1, err)
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return err
	}
	return nil
}

// currentDB returns the database and its generation.
func (n *Node) currentDB() (*cairn.DB, uint64) {
	n.dbMu.RLock()
	defer n.dbMu.RUnlock()
	return n.db, n.dbGen
}

// recoverAfterRefusal reopens the database of generation gen, failed by a refused batch, applies
// again what the FSM applied or skipped that it may lack, and lets the node take writes again if
// it is still the leader.
func (n *Node) recoverAfterRefusal(gen uint64) {
	n.fsm.applyMu.Lock()
	err := n.fsm.recoverDB(gen)
	n.fsm.applyMu.Unlock()
	if err != nil {
		n.fatal(err)
		return
	}
	select {
	case n.recheck <- struct{}{}:
	default: // a recheck is pending already
	}
}

// reopenDB closes the database of generation gen, if it is still the current one, and opens it
// again (recovering every commit its WAL holds); it returns the current database and whether it
// reopened it. REQUIRES: fsm.applyMu.
func (n *Node) reopenDB(gen uint64) (*cairn.DB, bool, error) {
	n.dbMu.Lock()
	defer n.dbMu.Unlock()
	if n.dbGen != gen || n.closing.Load() {
		return n.db, false, nil
	}
	if err := n.db.Close(); err != nil && !errors.Is(err, cairn.ErrFailed) {
		n.logger.Warn("closing the failed database", "error", err)
	}
	db, err := n.openDB(gen + 1)
	if err != nil {
		return nil, false, err
	}
	n.db, n.dbGen = db, gen+1
	n.reopens.Add(1)
	n.logger.Info("database reopened after a failed replication", "lsn", publishedLSN(db))
	return db, true, nil
}

// installSnapshot replaces the database by the Backup image read from r and returns the new one.
func (n *Node) installSnapshot(r io.Reader) (*cairn.DB, error) {
	path := filepath.Join(n.dir, dbFile)
	tmp := path + ".restore"
	if err := writeFileSync(tmp, r); err != nil {
		return nil, err
	}
	n.dbMu.Lock()
	defer n.dbMu.Unlock()
	if err := n.db.Close(); err != nil && !errors.Is(err, cairn.ErrFailed) {
		n.logger.Warn("closing the database for a snapshot", "error", err)
	}
	if err := cairn.RestoreFile(path, tmp); err != nil {
		return nil, err
	}
	db, err := n.openDB(n.dbGen + 1)
	if err != nil {
		return nil, err
	}
	n.db, n.dbGen = db, n.dbGen+1
	n.installs.Add(1)
	n.logger.Info("snapshot installed", "lsn", publishedLSN(db))
	return db, nil
}

func writeFileSync(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fatal stops the node after an error it cannot repair (a log entry or snapshot that does not
// apply): Raft is shut down, and every later call returns ErrStopped. It returns the error.
func (n *Node) fatal(err error) error {
	err = fmt.Errorf("%w: %w", ErrStopped, err)
	if n.stopped.CompareAndSwap(nil, &err) {
		n.logger.Error("node stopped", "error", err)
		n.writable.Store(false)
		go func() { // not on the FSM goroutine, which Shutdown waits for
			<-n.started
			if n.raft != nil {
				n.raft.Shutdown()
			}
		}()
	}
	return err
}

// Err returns the error that stopped the node, or nil.
func (n *Node) Err() error {
	if p := n.stopped.Load(); p != nil {
		return *p
	}
	return nil
}

// watchLeadership sets writable when the node becomes leader and its FSM has applied every
// entry before its term (a Barrier), and clears it when leadership is lost.
func (n *Node) watchLeadership() {
	defer close(n.watchDone)
	for {
		select {
		case <-n.quit:
			return
		case <-n.raft.LeaderCh():
		case <-n.recheck:
		}
		n.writable.Store(false)
		if n.raft.State() != raft.Leader {
			continue
		}
		if err := n.await(n.raft.Barrier(0)); err != nil {
			n.logger.Warn("barrier after election", "error", err)
			continue
		}
		if n.raft.State() == raft.Leader && n.Err() == nil {
			n.writable.Store(true)
			n.notifyApplied()
		}
	}
}

// notLeader returns the error of a call that needs the leader.
func (n *Node) notLeader() error {
	if err := n.Err(); err != nil {
		return err
	}
	addr, id := n.raft.LeaderWithID()
	if id == raft.ServerID(n.cfg.NodeID) {
		addr, id = "", "" // this node, still applying the log of earlier terms
	}
	return &NotLeaderError{LeaderID: string(id), LeaderAddr: string(addr)}
}

// IsLeader reports whether the node is the leader and accepts writes.
func (n *Node) IsLeader() bool { return n.writable.Load() }

// WaitLeader waits until the cluster has a leader that accepts writes, as far as this node
// knows, and returns its ID, or ctx's error.
func (n *Node) WaitLeader(ctx context.Context) (string, error) {
	for {
		if n.writable.Load() {
			return n.cfg.NodeID, nil
		}
		if _, id := n.raft.LeaderWithID(); id != "" && id != raft.ServerID(n.cfg.NodeID) {
			return string(id), nil
		}
		if err := n.Err(); err != nil {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Update runs fn in a read-write transaction of the leader's database and commits it: when
// Update returns nil the commit is durable on a quorum and visible to linearizable reads. On a
// node that is not the leader it returns a *NotLeaderError (nothing ran). An error wrapping
// cairn.ErrFailed means the commit's outcome is unknown: the leader lost its role or quorum
// while replicating it, and the commit may still be applied by the cluster. Other errors are
// fn's or cairn's, as cairn.DB.Update returns them. fn runs under the same rules as in
// cairn.DB.Update, but for what it reads: a transaction sees the leader's commits still being
// replicated, so when fn returns an error (the transaction rolls back, and the error may tell
// what fn read, as a compare-and-set's mismatch does), Update returns it only once the commits
// fn saw are committed by Raft and the node confirmed it still leads, as a linearizable read
// does; if it cannot, it returns a *NotLeaderError instead (nothing was written: retry on the
// leader). A transaction that writes nothing and returns nil is not confirmed: what it read may
// be a commit still being replicated (never committed, if the leader then loses its role), or
// stale on a leader deposed unawares. Read with View, or report through fn's error.
func (n *Node) Update(fn func(tx *cairn.Tx) error) error {
	for {
		if !n.writable.Load() {
			return n.notLeader()
		}
		db, _ := n.currentDB()
		var readLSN uint64
		var fnErr error
		err := db.Update(func(tx *cairn.Tx) error {
			readLSN = tx.LSN()
			fnErr = fn(tx)
			return fnErr
		})
		if errors.Is(err, cairn.ErrClosed) && !n.closing.Load() {
			continue // swapped while beginning: nothing ran
		}
		if err != nil && err == fnErr {
			if cerr := n.confirmRead(readLSN); cerr != nil {
				return cerr
			}
		}
		return err
	}
}

// confirmRead waits until the database published lsn, the newest commit a rolled-back write
// transaction saw, and checks with a quorum that the node still leads: then what the
// transaction read was the cluster's committed state. Else it returns a *NotLeaderError.
func (n *Node) confirmRead(lsn uint64) error {
	timeout := n.cfg.ApplyTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for n.LastLSN() < lsn {
		if !n.writable.Load() || ctx.Err() != nil {
			return n.notLeader() // the commits it saw were refused, or may be
		}
		n.appliedMu.Lock()
		ch := n.appliedCh
		n.appliedMu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		case <-time.After(time.Millisecond): // the leader's own commits do not notify
		}
	}
	if !n.writable.Load() || n.verifyLeader() != nil {
		return n.notLeader()
	}
	return nil
}

// Consistency is the guarantee a read asks for.
type Consistency int

const (
	// Linearizable reads run on the leader after it confirmed with a quorum that it still is the
	// leader: they see every write acknowledged before they began. The default.
	Linearizable Consistency = iota
	// LeaderLocal reads run on the leader without that round trip: they may miss writes of a
	// newer leader for up to an election timeout after this one lost its role unawares.
	LeaderLocal
	// Follower reads run on any node on its own state: they see a prefix of the committed writes,
	// at most ReadOptions.MaxStaleness old if set, and at least ReadOptions.MinLSN.
	Follower
)

// ReadOptions choose a read's consistency. The zero value is a linearizable read.
type ReadOptions struct {
	Consistency Consistency
	// MaxStaleness (Follower reads, 0: no bound) refuses, with ErrStale, a read on a follower
	// that last heard from the leader longer ago.
	MaxStaleness time.Duration
	// MinLSN waits until this node's database holds the commit at this LSN (read-your-writes:
	// pass the LastLSN of the leader after a write), or ctx is done.
	MinLSN uint64
}

// View runs fn in a linearizable read transaction (see ViewWith).
func (n *Node) View(fn func(tx *cairn.Tx) error) error {
	return n.ViewWith(context.Background(), ReadOptions{}, fn)
}

// ViewWith runs fn in a read transaction of this node's database with the consistency of opts;
// fn runs under the rules of cairn.DB.View. Errors: a *NotLeaderError for a Linearizable or
// LeaderLocal read on a node that is not the leader (or, Linearizable, that could not confirm
// it), ErrStale, ctx's error while waiting for MinLSN, and fn's.
func (n *Node) ViewWith(ctx context.Context, opts ReadOptions, fn func(tx *cairn.Tx) error) error {
	if err := n.readCheck(opts); err != nil {
		return err
	}
	if opts.MinLSN > 0 {
		if err := n.awaitLSN(ctx, opts.MinLSN); err != nil {
			return err
		}
	}
	for {
		db, _ := n.currentDB()
		err := db.View(fn)
		if errors.Is(err, cairn.ErrClosed) && !n.closing.Load() {
			continue // swapped under us (reopen, snapshot): read again
		}
		return err
	}
}

// readCheck checks that this node may serve a read of opts.
func (n *Node) readCheck(opts ReadOptions) error {
	if err := n.Err(); err != nil {
		return err
	}
	switch opts.Consistency {
	case Linearizable:
		if !n.writable.Load() {
			return n.notLeader()
		}
		if err := n.verifyLeader(); err != nil {
			return n.notLeader()
		}
	case LeaderLocal:
		if !n.writable.Load() {
			return n.notLeader()
		}
	case Follower:
		if opts.MaxStaleness > 0 && n.raft.State() != raft.Leader &&
			time.Since(n.raft.LastContact()) > opts.MaxStaleness {
			return fmt.Errorf("%w: last contact %v ago", ErrStale, time.Since(n.raft.LastContact()).Round(time.Millisecond))
		}
	default:
		return fmt.Errorf("cluster: unknown consistency %d", opts.Consistency)
	}
	return nil
}

// verifyLeader confirms with a quorum that the node still leads (raft's VerifyLeader).
func (n *Node) verifyLeader() error { return n.await(n.raft.VerifyLeader()) }

// await waits for f's answer. Raft v1.8.0 queues VerifyLeader requests, and with BatchApplyCh
// Apply and Barrier ones too, in buffered channels, and their futures have no shutdown channel:
// a request queued as Raft shuts down is never answered. So the wait also ends, with
// raft.ErrRaftShutdown, when the node is closed or its Raft has shut down (one goroutine then
// stays blocked on the abandoned future).
func (n *Node) await(f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-n.quit:
			return raft.ErrRaftShutdown
		case <-tick.C:
			if n.raft.State() == raft.Shutdown {
				return raft.ErrRaftShutdown
			}
		}
	}
}

// LastLSN returns the LSN of the newest commit readers of this node see. After a write on the
// leader, the leader's LastLSN is a token for read-your-writes on any node (ReadOptions.MinLSN).
func (n *Node) LastLSN() uint64 {
	db, _ := n.currentDB()
	return publishedLSN(db)
}

// awaitLSN waits until the database has published lsn.
func (n *Node) awaitLSN(ctx context.Context, lsn uint64) error {
	for {
		n.appliedMu.Lock()
		ch := n.appliedCh
		n.appliedMu.Unlock()
		if n.LastLSN() >= lsn {
			return nil
		}
		if err := n.Err(); err != nil {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond): // the leader's own commits do not notify
		}
	}
}

// notifyApplied wakes the waiters of awaitLSN.
func (n *Node) notifyApplied() {
	n.appliedMu.Lock()
	close(n.appliedCh)
	n.appliedCh = make(chan struct{})
	n.appliedMu.Unlock()
}

// waitPublished waits up to d until the database has published lsn and returns it.
func (n *Node) waitPublished(lsn uint64, d time.Duration) (*cairn.DB, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := n.awaitLSN(ctx, lsn); err != nil {
		return nil, fmt.Errorf("waiting for LSN %d: %w", lsn, err)
	}
	db, _ := n.currentDB()
	return db, nil
}

// AddVoter adds a voting member (or makes a non-voter one), on the leader.
func (n *Node) AddVoter(id, addr string) error {
	return n.membership(func() raft.IndexFuture {
		return n.raft.AddVoter(raft.ServerID(id), raft.ServerAddress(addr), 0, 0)
	})
}

// AddNonvoter adds a member that receives the log but does not vote (a read replica), on the
// leader.
func (n *Node) AddNonvoter(id, addr string) error {
	return n.membership(func() raft.IndexFuture {
		return n.raft.AddNonvoter(raft.ServerID(id), raft.ServerAddress(addr), 0, 0)
	})
}

// RemoveServer removes a member, on the leader.
func (n *Node) RemoveServer(id string) error {
	return n.membership(func() raft.IndexFuture { return n.raft.RemoveServer(raft.ServerID(id), 0, 0) })
}

func (n *Node) membership(change func() raft.IndexFuture) error {
	if n.raft.State() != raft.Leader {
		return n.notLeader()
	}
	if err := change().Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return n.notLeader()
		}
		return fmt.Errorf("cluster: membership change: %w", err)
	}
	return nil
}

// Member is a server of the cluster's configuration.
type Member struct {
	ID    string
	Addr  string
	Voter bool
}

// Status is a node's view of the cluster.
type Status struct {
	NodeID       string
	State        string // "Leader", "Follower", "Candidate" or "Shutdown"
	LeaderID     string
	LeaderAddr   string
	Term         string
	CommitIndex  uint64        // Raft's
	AppliedIndex uint64        // Raft's
	LastLSN      uint64        // of this node's database
	LastContact  time.Duration // since the leader was last heard (followers)
	// Reopens counts the database reopened after a refused replication (lost leadership or
	// quorum); SnapshotsInstalled the snapshots installed from the leader.
	Reopens            uint64
	SnapshotsInstalled uint64
	Members            []Member
}

// Status returns the node's view of the cluster.
func (n *Node) Status() Status {
	addr, id := n.raft.LeaderWithID()
	s := Status{NodeID: n.cfg.NodeID, State: n.raft.State().String(), LeaderID: string(id),
		LeaderAddr: string(addr), Term: n.raft.Stats()["term"], CommitIndex: n.raft.CommitIndex(),
		AppliedIndex: n.raft.AppliedIndex(), LastLSN: n.LastLSN(), Reopens: n.reopens.Load(),
		SnapshotsInstalled: n.installs.Load()}
	if s.State != raft.Leader.String() {
		s.LastContact = time.Since(n.raft.LastContact())
	}
	if f := n.raft.GetConfiguration(); f.Error() == nil {
		for _, srv := range f.Configuration().Servers {
			s.Members = append(s.Members, Member{ID: string(srv.ID), Addr: string(srv.Address), Voter: srv.Suffrage == raft.Voter})
		}
	}
	return s
}

// Snapshot takes a snapshot now (it also happens by itself every SnapshotThreshold entries).
func (n *Node) Snapshot() error {
	if err := n.raft.Snapshot().Error(); err != nil {
		return fmt.Errorf("cluster: snapshot: %w", err)
	}
	return nil
}

// Close stops the node: Raft shuts down (the cluster goes on without it; the node stays a member)
// and the files are closed. A later Open of the same directory rejoins with its state.
func (n *Node) Close() error {
	if !n.closing.CompareAndSwap(false, true) {
		return nil
	}
	n.writable.Store(false)
	close(n.quit)
	n.stopForwarding()
	err := n.raft.Shutdown().Error()
	<-n.watchDone
	n.dbMu.Lock()
	if cerr := n.db.Close(); err == nil && cerr != nil && !errors.Is(cerr, cairn.ErrFailed) {
		err = cerr
	}
	n.dbMu.Unlock()
	if cerr := n.closeOwned(); err == nil {
		err = cerr
	}
	return err
}

// closeOwned closes the stores and transport the node made.
func (n *Node) closeOwned() error {
	var first error
	for i := len(n.closers) - 1; i >= 0; i-- {
		if err := n.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	n.closers = nil
	return first
}

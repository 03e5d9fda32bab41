package cairn

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

var (
	cmodelTxns = flag.Int("cmodel.txns", 1200, "write transactions of TestConcurrentModel, committed or not")
	cmodelSeed = flag.Uint64("cmodel.seed", 0, "seed of TestConcurrentModel (0: from the clock)")
)

const (
	cmWriters     = 8
	cmReaders     = 4
	cmPageSize    = 4096
	cmDefaultKeys = 150 // keys of the default key space (besides the sequence key)
	cmBucketKeys  = 60  // keys of each bucket
	cmSnapEvery   = 32  // the log keeps the model state of every cmSnapEvery-th sequence number
	cmMaxTxSize   = 256 << 10
	cmSyncDelay   = 200 * time.Microsecond // each WAL fdatasync takes this long, so commits batch
	cmWait        = time.Minute            // bound on waiting for the log to catch up
)

// cmSeqKey holds, in the default key space, the number of transactions committed so far: every
// transaction reads it and writes it plus one, so the sequence number a snapshot holds says which
// prefix of the serial order of commits it must show.
var cmSeqKey = "\x00cmodel/seq"

// cmBucketNames are the buckets the writers use ("" is the default key space in a cmState).
var cmBucketNames = []string{"alpha", "beta", "\x00gamma\xff"}

var errCMRollback = errors.New("cmodel: rolled back on purpose")

// TestConcurrentModel checks that the public API keeps its serial semantics while many writers
// commit, roll back and use savepoints at once and readers read snapshots. It checks held
// commits (commit.go): write transactions that share decoded trees across commits and materialize
// them once per group commit, with rollback (of fn's error, of a failed commit, and RollbackTo) done by replaying
// redo records. Such a change can leak a rolled-back change into the next transaction, build on
// or publish the wrong version, or lose a change of a bucket or a commit that was acknowledged;
// this test tells each of them from correct behaviour, today and after the change.
//
// cmWriters goroutines run -cmodel.txns write transactions through db.Update. Every transaction
// reads the sequence key (cmSeqKey) and writes it plus one, so the commits form a chain, and only
// a transaction whose Update returned nil enters the log, keyed by that sequence number, with the
// exact operations it applied: puts (values up to 10 KB, overflow values included at a 4 KiB page
// size), deletes of present and absent keys, in the default key space and in cmBucketNames
// (CreateBucketIfNotExists, DeleteBucket and re-creation), minus what RollbackTo undid. About 12%
// of the transactions return an error from fn at the end and 2% fail at Commit with
// ErrTxTooLarge: they enter no log. Every transaction also records what it read (Get, cursors
// forward and backward, bucket lookups, sometimes its whole view, also right after RollbackTo),
// and these observations are compared with the model when the log replays the transaction, or,
// for a transaction that did not commit, with the model state it was based on.
//
// cmReaders goroutines read snapshots (View, Begin(false) ended on another goroutine, and long
// reads held while writers and checkpoints go on): each compares its whole snapshot, every key
// space through cursors plus some Gets and short scans, with the model state after exactly as
// many commits as its sequence key says. A snapshot (and a write transaction) begun after an
// Update returned nil must hold that commit; a sequence number no acknowledged commit wrote must
// never be visible. A small cache, checkpoint size and MaxBatchBytes, a goroutine calling
// db.Checkpoint and a WAL fdatasync that takes cmSyncDelay make eviction, checkpoints and group
// commit happen. At the end the final state, db.check(), and after Close and Open the state and
// db.check() again must agree with the log.
//
// Goroutine interleaving is not replayed by the seed, only each goroutine's choices; a failure
// names the seed, the sequence number, the transaction and the key that differed.
func TestConcurrentModel(t *testing.T) {
	// Not parallel: it lowers the package-wide maxTxSize.
	seed := *cmodelSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -run TestConcurrentModel -cmodel.seed=%d; goroutine interleaving is not replayed)", seed, seed)
	defer func(old int) { maxTxSize = old }(maxTxSize)
	maxTxSize = cmMaxTxSize

	// MaxBatchBytes is small enough to split some queues of commits into several batches.
	opts := &Options{PageSize: cmPageSize, CacheBytes: 64 << 10, CheckpointBytes: 128 << 10, MaxBatchBytes: 24 << 10,
		fs: slowSyncFS{FS: vfs.NewMem(), delay: cmSyncDelay}}
	const path = "/cmodel/db"
	db, err := Open(path, opts)
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()

	l := newCMLog()
	var (
		issued, committed       atomic.Int64
		stats                   cmStats
		writers, readers, other sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range cmWriters {
		writers.Add(1)
		go func() {
			defer writers.Done()
			wr := &cmWriter{id: w, rng: rand.New(rand.NewPCG(seed, uint64(100+w))), db: db, log: l, stats: &stats}
			for !l.failed.Load() && issued.Add(1) <= int64(*cmodelTxns) {
				if wr.txn() {
					committed.Add(1)
				}
			}
		}()
	}
	ended := make(chan *Tx, 16)
	other.Add(1)
	go func() { // ends read transactions begun on other goroutines
		defer other.Done()
		for tx := range ended {
			if err := tx.Rollback(); err != nil {
				l.fail("Rollback of a read transaction on another goroutine: %v", err)
			}
		}
	}()
	for r := range cmReaders {
		readers.Add(1)
		go func() {
			defer readers.Done()
			rd := &cmReader{id: r, rng: rand.New(rand.NewPCG(seed, uint64(200+r))), db: db, log: l, ended: ended, stats: &stats}
			for !l.failed.Load() {
				rd.once()
				select { // leave the CPU to the writers most of the time
				case <-stop:
					return
				case <-time.After(time.Duration(1+rd.rng.IntN(5)) * time.Millisecond):
				}
			}
		}()
	}
	other.Add(1)
	go func() {
		defer other.Done()
		rng := rand.New(rand.NewPCG(seed, 300))
		for !l.failed.Load() {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(5+rng.IntN(25)) * time.Millisecond):
			}
			if err := db.Checkpoint(context.Background()); err != nil {
				l.fail("Checkpoint: %v", err)
			}
		}
	}()
	writers.Wait()
	close(stop)
	readers.Wait()
	close(ended)
	other.Wait()
	l.requireNoFailure(t, seed)

	final := l.lastSeq()
	require.Equal(t, committed.Load(), int64(final),
		"seed %d: %d Updates returned nil, but the log's sequence numbers run without a gap to %d", seed, committed.Load(), final)
	want, err := l.stateAt(final)
	require.NoError(t, err, "seed %d", seed)
	cmRequireState(t, db, want, final, seed, "final state")
	require.NoError(t, db.check(), "seed %d", seed)
	st := db.Stats()
	t.Logf("%d transactions: %d committed, %d rolled back by fn, %d too large; %d RollbackTo, %d DeleteBucket; "+
		"%d snapshots checked by readers; %d batches (mean %.2f commits), %d materializations (%d of copies), %d evictions, %d checkpoints",
		min(issued.Load(), int64(*cmodelTxns)), committed.Load(), stats.rolledBack.Load(), stats.tooLarge.Load(),
		stats.rollbackTo.Load(), stats.dropBucket.Load(), stats.snapshots.Load(),
		st.Batches, st.MeanBatch, st.Materializations, st.CopyMaterializations, st.Evictions, st.Checkpoints)
	require.Positive(t, committed.Load())
	require.Positive(t, stats.rolledBack.Load(), "seed %d: no transaction rolled back", seed)
	require.Positive(t, stats.rollbackTo.Load(), "seed %d: no RollbackTo", seed)
	require.Positive(t, stats.snapshots.Load(), "seed %d: no snapshot read", seed)
	require.Positive(t, st.Evictions, "the cache must be small enough to evict and re-read pages")
	require.Positive(t, st.Checkpoints)
	require.Less(t, st.Materializations, uint64(committed.Load()), "seed %d: no commit was held", seed)
	require.Positive(t, st.CopyMaterializations, "seed %d: no copy materialization", seed)

	require.NoError(t, db.Close())
	closed = true
	db, err = Open(path, opts)
	require.NoError(t, err, "seed %d: reopen", seed)
	closed = false
	cmRequireState(t, db, want, final, seed, "state after Close and Open")
	require.NoError(t, db.check(), "seed %d: after reopen", seed)
	require.NoError(t, db.Close())
	closed = true
}

// cmRequireState compares the database's newest snapshot with want, the model after seq commits.
func cmRequireState(t *testing.T, db *DB, want cmState, seq, seed uint64, what string) {
	t.Helper()
	var got cmState
	var gotSeq uint64
	require.NoError(t, db.View(func(tx *Tx) error {
		var err error
		if gotSeq, err = cmReadSeq(tx); err != nil {
			return err
		}
		got, err = cmDump(tx)
		return err
	}), "seed %d: %s", seed, what)
	require.Equal(t, int64(seq), int64(gotSeq), "seed %d: %s: sequence number", seed, what)
	require.Empty(t, cmDiff(want, got), "seed %d: %s at seq %d differs from the model", seed, what, seq)
}

type cmStats struct {
	rolledBack, tooLarge, rollbackTo, dropBucket, snapshots atomic.Int64
}

// cmState is the content of a database by bucket name ("" is the default key space), as
// bucketState, with the methods of this test.
type cmState bucketState

func (s cmState) clone() cmState { return cmState(bucketState(s).clone()) }

type cmOpKind uint8

const (
	// Changes.
	cmPut          cmOpKind = iota // a Put that returned nil
	cmDelete                       // a Delete that returned nil (of a present or an absent key)
	cmEnsureBucket                 // CreateBucketIfNotExists returned nil
	cmDropBucket                   // DeleteBucket returned nil
	// Observations.
	cmSeeValue  // Get returned value (present) or ErrNotFound
	cmSeeBucket // a bucket lookup or a handle's use found the bucket (present) or ErrBucketNotFound
	cmSeeRange  // a cursor from key (or the end) returned got, forward or in reverse
	cmSeeAll    // the transaction's whole view (every key space) was dump
)

type cmKV struct{ k, v string }

// cmOp is one change a transaction made or one thing it saw.
type cmOp struct {
	kind    cmOpKind
	bucket  string // "": the default key space
	key     string
	value   string
	present bool
	reverse bool
	limit   int
	got     []cmKV
	dump    cmState
}

func (op *cmOp) change() bool { return op.kind <= cmDropBucket }

func cmShowBucket(name string) string {
	if name == "" {
		return "default key space"
	}
	return fmt.Sprintf("bucket %q", name)
}

func cmShowKey(k string) string { return fmt.Sprintf("%.40q (len %d)", k, len(k)) }

func cmShowValue(v string) string { return fmt.Sprintf("%.32q (len %d)", v, len(v)) }

func cmShowKVs(kvs []cmKV) string {
	var b strings.Builder
	for i, kv := range kvs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", cmShowKey(kv.k), cmShowValue(kv.v))
	}
	return "[" + b.String() + "]"
}

// apply applies a change to s, or compares an observation with s, and returns what differed,
// or "". A change is a check too: a put or delete succeeded only if its bucket existed, a
// DeleteBucket only if the bucket existed.
func (s cmState) apply(op *cmOp) string {
	kv, ok := s[op.bucket]
	switch op.kind {
	case cmPut, cmDelete:
		if !ok {
			return fmt.Sprintf("a put or delete of %s in %s succeeded, but the model has no such bucket", cmShowKey(op.key), cmShowBucket(op.bucket))
		}
		if op.kind == cmPut {
			kv[op.key] = op.value
		} else {
			delete(kv, op.key)
		}
	case cmEnsureBucket:
		if !ok {
			s[op.bucket] = map[string]string{}
		}
	case cmDropBucket:
		if !ok {
			return fmt.Sprintf("DeleteBucket of %s succeeded, but the model has no such bucket", cmShowBucket(op.bucket))
		}
		delete(s, op.bucket)
	case cmSeeBucket:
		if ok != op.present {
			return fmt.Sprintf("%s: found %v, model %v", cmShowBucket(op.bucket), op.present, ok)
		}
	case cmSeeValue:
		if !ok {
			return fmt.Sprintf("Get of %s in %s worked, but the model has no such bucket", cmShowKey(op.key), cmShowBucket(op.bucket))
		}
		if v, in := kv[op.key]; in != op.present || v != op.value {
			return fmt.Sprintf("Get of %s in %s: got present=%v %s, model present=%v %s",
				cmShowKey(op.key), cmShowBucket(op.bucket), op.present, cmShowValue(op.value), in, cmShowValue(v))
		}
	case cmSeeRange:
		if !ok {
			return fmt.Sprintf("a cursor over %s worked, but the model has no such bucket", cmShowBucket(op.bucket))
		}
		if want := cmRangeOf(kv, op.key, op.limit, op.reverse); !slices.Equal(want, op.got) {
			return fmt.Sprintf("cursor over %s from %s (reverse %v): got %s, model %s",
				cmShowBucket(op.bucket), cmShowKey(op.key), op.reverse, cmShowKVs(op.got), cmShowKVs(want))
		}
	case cmSeeAll:
		if d := cmDiff(s, op.dump); d != "" {
			return "the whole view (every key space) differs: " + d
		}
	}
	return ""
}

// cmRangeOf is what a cursor over kv returns from Seek(start) on (Last if Seek finds nothing, in
// reverse), at most limit pairs.
func cmRangeOf(kv map[string]string, start string, limit int, reverse bool) []cmKV {
	keys := slices.Sorted(maps.Keys(kv))
	i, _ := slices.BinarySearch(keys, start)
	var out []cmKV
	if !reverse {
		for ; i < len(keys) && len(out) < limit; i++ {
			out = append(out, cmKV{keys[i], kv[keys[i]]})
		}
		return out
	}
	if i == len(keys) {
		i--
	}
	for ; i >= 0 && len(out) < limit; i-- {
		out = append(out, cmKV{keys[i], kv[keys[i]]})
	}
	return out
}

// cmDiff describes how got differs from want (the first few differences), or returns "".
func cmDiff(want, got cmState) string {
	var d []string
	add := func(format string, a ...any) bool {
		d = append(d, fmt.Sprintf(format, a...))
		return len(d) < 8
	}
	names := slices.Sorted(maps.Keys(want))
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
outer:
	for _, name := range names {
		w, wok := want[name]
		g, gok := got[name]
		switch {
		case !wok:
			if !add("%s exists (%d keys), the model has none", cmShowBucket(name), len(g)) {
				break outer
			}
			continue
		case !gok:
			if !add("%s missing, the model has it (%d keys)", cmShowBucket(name), len(w)) {
				break outer
			}
			continue
		}
		keys := slices.Sorted(maps.Keys(w))
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			wv, wok := w[k]
			gv, gok := g[k]
			var more bool
			switch {
			case !gok:
				more = add("%s key %s missing, model %s", cmShowBucket(name), cmShowKey(k), cmShowValue(wv))
			case !wok:
				more = add("%s key %s present %s, the model has none", cmShowBucket(name), cmShowKey(k), cmShowValue(gv))
			case wv != gv:
				more = add("%s key %s is %s, model %s", cmShowBucket(name), cmShowKey(k), cmShowValue(gv), cmShowValue(wv))
			default:
				more = true
			}
			if !more {
				break outer
			}
		}
	}
	return strings.Join(d, "; ")
}

// cmLog is the serial order of the acknowledged commits, by sequence number, and the model
// states it implies.
type cmLog struct {
	mu      sync.Mutex
	entries map[uint64][]cmOp // seq -> the changes of the commit that wrote it
	writer  map[uint64]string // seq -> who committed it, for messages
	contig  uint64            // every seq up to contig is in entries and applied to cur
	cur     cmState           // the model after contig commits
	snaps   []cmState         // snaps[i]: the model after i*cmSnapEvery commits
	acked   uint64            // the highest seq recorded
	changed chan struct{}     // closed (and replaced) when contig grows, inFlight drops to 0 or a check fails
	// inFlight counts the writers between begin and end: in Update, or back from it but not yet
	// recorded. While it is 0, every commit made so far is in the log.
	inFlight int

	failed atomic.Bool
	errs   []string
}

func newCMLog() *cmLog {
	empty := cmState{"": {}}
	return &cmLog{entries: map[uint64][]cmOp{}, writer: map[uint64]string{}, cur: empty.clone(),
		snaps: []cmState{empty}, changed: make(chan struct{})}
}

// wake tells the goroutines waiting in stateAt to look again; l.mu is held.
func (l *cmLog) wake() {
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *cmLog) fail(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) < 20 {
		l.errs = append(l.errs, fmt.Sprintf(format, a...))
	}
	if !l.failed.Swap(true) {
		l.wake()
	}
}

func (l *cmLog) requireNoFailure(t *testing.T, seed uint64) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) > 0 {
		require.FailNow(t, fmt.Sprintf("seed %d (replay with -cmodel.seed=%d): %d failure(s), first:\n%s",
			seed, seed, len(l.errs), strings.Join(l.errs, "\n")))
	}
}

// begin is called by a writer before Update, end once its commit is recorded or it knows that
// the transaction did not commit.
func (l *cmLog) begin() {
	l.mu.Lock()
	l.inFlight++
	l.mu.Unlock()
}

func (l *cmLog) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight--; l.inFlight == 0 {
		l.wake()
	}
}

// ackedSeq returns the highest seq whose Update has returned nil, as far as the log knows.
func (l *cmLog) ackedSeq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked
}

func (l *cmLog) lastSeq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.contig
}

// record adds the commit that wrote seq (its Update returned nil), then replays every commit the
// log now holds without a gap, checking their observations.
func (l *cmLog) record(seq uint64, ops []cmOp, who string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, dup := l.writer[seq]; dup {
		l.errs = append(l.errs, fmt.Sprintf("seq %d committed twice, by %s and by %s: both read the same sequence number (lost update)", seq, prev, who))
		l.failed.Store(true)
		l.wake()
		return
	}
	l.entries[seq], l.writer[seq] = ops, who
	l.acked = max(l.acked, seq)
	grew := false
	for {
		ops, ok := l.entries[l.contig+1]
		if !ok {
			break
		}
		l.contig++
		grew = true
		var changes []cmOp
		for i := range ops {
			if d := l.cur.apply(&ops[i]); d != "" && len(l.errs) < 20 {
				l.errs = append(l.errs, fmt.Sprintf("commit of seq %d by %s, op %d: %s", l.contig, l.writer[l.contig], i, d))
				l.failed.Store(true)
			}
			if ops[i].change() {
				changes = append(changes, ops[i])
			}
		}
		l.entries[l.contig] = changes // observations are checked once; stateAt replays changes
		if l.contig%cmSnapEvery == 0 {
			l.snaps = append(l.snaps, l.cur.clone())
		}
	}
	if grew || l.failed.Load() {
		l.wake()
	}
}

// errCMAbandoned is returned by stateAt once a check failed elsewhere: the run is over.
var errCMAbandoned = errors.New("cmodel: the run failed elsewhere")

// stateAt returns the model after seq commits, a copy of its own. It waits for the log to reach
// seq: a snapshot or a transaction may see a commit before its Update has returned.
func (l *cmLog) stateAt(seq uint64) (cmState, error) {
	deadline := time.Now().Add(cmWait)
	l.mu.Lock()
	for l.contig < seq {
		switch {
		case l.failed.Load():
			l.mu.Unlock()
			return nil, errCMAbandoned
		case l.inFlight == 0:
			contig := l.contig
			l.mu.Unlock()
			return nil, fmt.Errorf("seq %d is visible, but no Update that returned nil wrote seq %d and no writer is in Update "+
				"any more: a rolled-back or failed transaction left a trace", seq, contig+1)
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-time.After(time.Until(deadline)):
			l.mu.Lock()
			contig := l.contig
			l.mu.Unlock()
			return nil, fmt.Errorf("seq %d is visible, but after %v no Update that returned nil has written seq %d", seq, cmWait, contig+1)
		}
		l.mu.Lock()
	}
	base := l.snaps[seq/cmSnapEvery]
	var later [][]cmOp
	for s := seq / cmSnapEvery * cmSnapEvery; s < seq; s++ {
		later = append(later, l.entries[s+1])
	}
	l.mu.Unlock()
	st := base.clone()
	for _, ops := range later {
		for i := range ops {
			st.apply(&ops[i]) // checked when the log first replayed them
		}
	}
	return st, nil
}

// cmTx drives one transaction: the operations it applied and saw, in order.
type cmTx struct {
	tx      *Tx
	rng     *rand.Rand
	tag     string
	ops     []cmOp
	sps     []cmSavepoint
	handles map[string]*Bucket
	stats   *cmStats
	// mainOnly transactions touch only the default key space (not even the catalog), so that
	// their commits are held (commit.go).
	mainOnly bool
}

type cmSavepoint struct {
	sp   Savepoint
	mark int // len(ops) when it was made
}

func (c *cmTx) add(op cmOp) { c.ops = append(c.ops, op) }

func cmKey(prefix string, i int) string {
	k := fmt.Sprintf("%s%03d", prefix, i)
	if i%17 == 3 { // some long keys
		k += strings.Repeat("-", 40+i*3)
	}
	return k
}

func (c *cmTx) pickSpace() string {
	if c.mainOnly || c.rng.IntN(2) == 0 {
		return ""
	}
	return cmBucketNames[c.rng.IntN(len(cmBucketNames))]
}

// pickKey returns a key of the key space called space; read says that it may be the sequence
// key, which only the sequence's own put changes.
func (c *cmTx) pickKey(space string, read bool) string {
	if space == "" {
		if read && c.rng.IntN(20) == 0 {
			return cmSeqKey
		}
		return cmKey("k", c.rng.IntN(cmDefaultKeys))
	}
	return cmKey("b", c.rng.IntN(cmBucketKeys))
}

// value returns a value of a size from empty to several overflow pages, tagged with its writer.
func (c *cmTx) value() string {
	var n int
	switch r := c.rng.IntN(100); {
	case r < 55:
		n = c.rng.IntN(33)
	case r < 83:
		n = 33 + c.rng.IntN(300)
	case r < 95:
		n = cmPageSize/4 + 1 + c.rng.IntN(1500) // overflow: larger than a quarter page
	default:
		n = 4000 + c.rng.IntN(6000) // overflow over several pages
	}
	b := make([]byte, 0, n+8)
	b = append(b, c.tag...)
	for len(b) < n {
		b = append(b, byte('a'+c.rng.IntN(26)))
	}
	return string(b[:n])
}

// cmSpace is the default key space (*Tx) or a bucket.
type cmSpace interface {
	Get(key []byte) ([]byte, error)
	Put(key, value []byte) error
	Delete(key []byte) error
	Cursor() *Cursor
}

// space returns the key space called name: the transaction, a cached handle (which may name a
// bucket deleted since, or rolled back by RollbackTo), a new handle or one CreateBucketIfNotExists
// returns. It returns nil if the bucket was not found (and records that observation).
func (c *cmTx) space(name string, create bool) (cmSpace, error) {
	return c.spaceOf(name, create, true)
}

func (c *cmTx) spaceOf(name string, create, cached bool) (cmSpace, error) {
	if name == "" {
		return c.tx, nil
	}
	if b := c.handles[name]; b != nil && cached && c.rng.IntN(2) == 0 {
		return b, nil
	}
	if create {
		b, err := c.tx.CreateBucketIfNotExists([]byte(name))
		if err != nil {
			return nil, fmt.Errorf("CreateBucketIfNotExists(%q): %w", name, err)
		}
		c.add(cmOp{kind: cmEnsureBucket, bucket: name})
		c.handles[name] = b
		return b, nil
	}
	b, err := c.tx.Bucket([]byte(name))
	if errors.Is(err, ErrBucketNotFound) {
		c.add(cmOp{kind: cmSeeBucket, bucket: name})
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Bucket(%q): %w", name, err)
	}
	c.add(cmOp{kind: cmSeeBucket, bucket: name, present: true})
	if c.tx.writable {
		c.handles[name] = b
	}
	return b, nil
}

// bucketGone records that a handle's bucket is gone if err says so, and returns the other errors.
func (c *cmTx) bucketGone(name string, err error) error {
	if errors.Is(err, ErrBucketNotFound) {
		c.add(cmOp{kind: cmSeeBucket, bucket: name})
		return nil
	}
	return err
}

func (c *cmTx) get(name, key string) error {
	sp, err := c.space(name, false)
	if sp == nil {
		return err
	}
	v, err := sp.Get([]byte(key))
	switch {
	case errors.Is(err, ErrNotFound):
		c.add(cmOp{kind: cmSeeValue, bucket: name, key: key})
	case err == nil:
		c.add(cmOp{kind: cmSeeValue, bucket: name, key: key, value: string(v), present: true})
	default:
		return c.bucketGone(name, err)
	}
	return nil
}

// scan records what a cursor returns from key on (up to limit pairs), forward or in reverse.
func (c *cmTx) scan(name, key string, limit int, reverse bool) error {
	sp, err := c.space(name, false)
	if sp == nil {
		return err
	}
	cur := sp.Cursor()
	op := cmOp{kind: cmSeeRange, bucket: name, key: key, limit: limit, reverse: reverse}
	k, v := cur.Seek([]byte(key))
	if reverse && k == nil {
		k, v = cur.Last()
	}
	for k != nil && len(op.got) < limit {
		op.got = append(op.got, cmKV{string(k), string(v)})
		if reverse {
			k, v = cur.Prev()
		} else {
			k, v = cur.Next()
		}
	}
	if err := cur.Err(); err != nil {
		if len(op.got) > 0 {
			return fmt.Errorf("cursor over %s failed after %d keys: %w", cmShowBucket(name), len(op.got), err)
		}
		return c.bucketGone(name, err)
	}
	c.add(op)
	return nil
}

func (c *cmTx) observe() error {
	switch r := c.rng.IntN(10); {
	case r < 6:
		name := c.pickSpace()
		return c.get(name, c.pickKey(name, true))
	case r < 9:
		name := c.pickSpace()
		return c.scan(name, c.pickKey(name, true), 1+c.rng.IntN(30), c.rng.IntN(2) == 0)
	case c.mainOnly:
		return c.scan("", c.pickKey("", true), 1+c.rng.IntN(30), c.rng.IntN(2) == 0)
	default:
		return c.dumpAll()
	}
}

func (c *cmTx) dumpAll() error {
	s, err := cmDump(c.tx)
	if err != nil {
		return err
	}
	c.add(cmOp{kind: cmSeeAll, dump: s})
	return nil
}

// step applies one random operation of a write transaction.
func (c *cmTx) step() error {
	tx, rng := c.tx, c.rng
	switch r := rng.IntN(100); {
	case r < 45: // put
		name := c.pickSpace()
		sp, err := c.space(name, true)
		if sp == nil {
			return err
		}
		k, v := c.pickKey(name, false), c.value()
		if err := sp.Put([]byte(k), []byte(v)); err != nil {
			return c.bucketGone(name, err)
		}
		c.add(cmOp{kind: cmPut, bucket: name, key: k, value: v})
	case r < 62: // delete, of a present or an absent key
		name := c.pickSpace()
		sp, err := c.space(name, rng.IntN(2) == 0)
		if sp == nil {
			return err
		}
		k := c.pickKey(name, false)
		if err := sp.Delete([]byte(k)); err != nil {
			return c.bucketGone(name, err)
		}
		c.add(cmOp{kind: cmDelete, bucket: name, key: k})
	case r < 65 && !c.mainOnly: // DeleteBucket, sometimes created again at once
		name := cmBucketNames[rng.IntN(len(cmBucketNames))]
		err := tx.DeleteBucket([]byte(name))
		switch {
		case errors.Is(err, ErrBucketNotFound):
			c.add(cmOp{kind: cmSeeBucket, bucket: name})
		case err != nil:
			return fmt.Errorf("DeleteBucket(%q): %w", name, err)
		default:
			c.add(cmOp{kind: cmDropBucket, bucket: name})
			c.stats.dropBucket.Add(1)
		}
		if rng.IntN(3) == 0 {
			if _, err := c.space(name, true); err != nil {
				return err
			}
		}
	case r < 80:
		return c.observe()
	case r < 86:
		sp, err := tx.Savepoint()
		if err != nil {
			return fmt.Errorf("Savepoint: %w", err)
		}
		c.sps = append(c.sps, cmSavepoint{sp, len(c.ops)})
	case r < 92 && len(c.sps) > 0:
		i := rng.IntN(len(c.sps))
		if err := tx.RollbackTo(c.sps[i].sp); err != nil {
			return fmt.Errorf("RollbackTo: %w", err)
		}
		c.ops, c.sps = c.ops[:c.sps[i].mark], c.sps[:i+1] // what it undid is not recorded
		c.stats.rollbackTo.Add(1)
		if rng.IntN(3) == 0 && !c.mainOnly {
			return c.dumpAll()
		}
	case r < 94 && len(c.sps) > 0:
		i := rng.IntN(len(c.sps))
		if err := tx.Release(c.sps[i].sp); err != nil {
			return fmt.Errorf("Release: %w", err)
		}
		c.sps = c.sps[:i]
	default:
		name := c.pickSpace()
		return c.get(name, c.pickKey(name, true))
	}
	return nil
}

// oversize puts enough bytes to pass maxTxSize, so that Commit fails with ErrTxTooLarge.
func (c *cmTx) oversize() error {
	name := c.pickSpace()
	sp, err := c.spaceOf(name, true, false)
	if err != nil {
		return err
	}
	big := strings.Repeat("z", 16<<10)
	for range cmMaxTxSize/len(big) + 2 {
		k := c.pickKey(name, false)
		if err := sp.Put([]byte(k), []byte(big)); err != nil {
			return fmt.Errorf("Put in %s: %w", cmShowBucket(name), err)
		}
		c.add(cmOp{kind: cmPut, bucket: name, key: k, value: big})
	}
	return nil
}

func cmReadSeq(tx *Tx) (uint64, error) {
	v, err := tx.Get([]byte(cmSeqKey))
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(v), 10, 64)
}

func cmSeqValue(seq uint64) string { return fmt.Sprintf("%010d", seq) }

// cmDump returns everything tx sees, checking that every key space is in ascending order.
func cmDump(tx *Tx) (cmState, error) {
	var names []string
	if err := tx.ForEachBucket(func(name []byte) error {
		names = append(names, string(name))
		return nil
	}); err != nil {
		return nil, err
	}
	s := cmState{}
	for _, name := range append([]string{""}, names...) {
		var sp cmSpace = tx
		if name != "" {
			b, err := tx.Bucket([]byte(name))
			if err != nil {
				return nil, fmt.Errorf("Bucket(%q) of ForEachBucket: %w", name, err)
			}
			sp = b
		}
		kv := map[string]string{}
		last := ""
		cur := sp.Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if len(kv) > 0 && string(k) <= last {
				return nil, fmt.Errorf("%s: key %s after %s", cmShowBucket(name), cmShowKey(string(k)), cmShowKey(last))
			}
			last = string(k)
			kv[last] = string(v)
		}
		if err := cur.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", cmShowBucket(name), err)
		}
		s[name] = kv
	}
	return s, tx.Err()
}

type cmWriter struct {
	id    int
	rng   *rand.Rand
	db    *DB
	log   *cmLog
	stats *cmStats
	n     int
}

// txn runs one write transaction and reports whether it committed.
func (w *cmWriter) txn() bool {
	w.n++
	rng := w.rng
	fate := rng.IntN(100)
	rollback, tooLarge := fate < 12, fate >= 12 && fate < 14 // fn returns an error; Commit fails
	steps := 1 + rng.IntN(14)
	if rng.IntN(30) == 0 {
		steps = 40 + rng.IntN(40)
	}
	mainOnly := rng.IntN(5) < 2
	var c *cmTx
	var base uint64
	var bad error // an unexpected error of the API inside fn
	w.log.begin()
	ended := false
	defer func() {
		if !ended {
			w.log.end()
		}
	}()
	acked := w.log.ackedSeq()
	err := w.db.Update(func(tx *Tx) error {
		c = &cmTx{tx: tx, rng: rng, tag: fmt.Sprintf("w%d.%d:", w.id, w.n), handles: map[string]*Bucket{}, stats: w.stats,
			mainOnly: mainOnly}
		var err error
		if base, err = cmReadSeq(tx); err != nil {
			bad = fmt.Errorf("reading the sequence key: %w", err)
			return bad
		}
		if err := tx.Put([]byte(cmSeqKey), []byte(cmSeqValue(base+1))); err != nil {
			bad = fmt.Errorf("Put of the sequence key: %w", err)
			return bad
		}
		c.add(cmOp{kind: cmPut, key: cmSeqKey, value: cmSeqValue(base + 1)})
		for range steps {
			if err := c.step(); err != nil {
				bad = err
				return bad
			}
		}
		if tooLarge {
			if bad = c.oversize(); bad != nil {
				return bad
			}
		}
		if rng.IntN(7) == 0 && !mainOnly {
			if bad = c.dumpAll(); bad != nil {
				return bad
			}
		}
		if rollback {
			return errCMRollback
		}
		return nil
	})
	who := fmt.Sprintf("writer %d transaction %d", w.id, w.n)
	if c != nil && base < acked {
		w.log.fail("%s began after seq %d was acknowledged, but it read seq %d: it does not build on every commit", who, acked, base)
	}
	switch {
	case bad != nil:
		w.log.fail("%s on seq %d: %v", who, base, bad)
		return false
	case err == nil:
		if tooLarge {
			w.log.fail("%s on seq %d: Update returned nil for a transaction larger than maxTxSize", who, base)
		}
		w.log.record(base+1, c.ops, who)
		return true
	case errors.Is(err, errCMRollback):
		w.stats.rolledBack.Add(1)
	case errors.Is(err, ErrTxTooLarge):
		w.stats.tooLarge.Add(1)
	default:
		w.log.fail("%s on seq %d: Update: %v", who, base, err)
		return false
	}
	// It did not commit: what it saw must still be the model after base commits, changed by
	// what it did. (It waits for the log: end first, so that it is not counted in flight.)
	ended = true
	w.log.end()
	s, err := w.log.stateAt(base)
	if err != nil {
		if err != errCMAbandoned {
			w.log.fail("%s, rolled back: %v", who, err)
		}
		return false
	}
	for i := range c.ops {
		if d := s.apply(&c.ops[i]); d != "" {
			w.log.fail("%s, rolled back, on seq %d, op %d: %s", who, base, i, d)
			return false
		}
	}
	return false
}

type cmReader struct {
	id    int
	rng   *rand.Rand
	db    *DB
	log   *cmLog
	ended chan<- *Tx
	stats *cmStats
}

// cmReading is what one read of a snapshot saw.
type cmReading struct {
	seq uint64
	ops []cmOp // observations, the whole snapshot among them
}

func (r *cmReader) read(tx *Tx) (cmReading, error) {
	seq, err := cmReadSeq(tx)
	if err != nil {
		return cmReading{}, fmt.Errorf("reading the sequence key: %w", err)
	}
	c := &cmTx{tx: tx, rng: r.rng}
	for range 2 + r.rng.IntN(4) {
		if err := c.observe(); err != nil {
			return cmReading{}, err
		}
	}
	if err := c.dumpAll(); err != nil { // the whole snapshot, always
		return cmReading{}, err
	}
	if err := tx.Put([]byte("x"), nil); !errors.Is(err, ErrTxReadOnly) {
		return cmReading{}, fmt.Errorf("Put in a read transaction: %v, want ErrTxReadOnly", err)
	}
	return cmReading{seq: seq, ops: c.ops}, nil
}

// once reads one snapshot in one of the ways a reader can, then checks what it saw.
func (r *cmReader) once() {
	var reads []cmReading
	var err error
	acked := r.log.ackedSeq()
	switch mode := r.rng.IntN(6); {
	case mode < 3:
		err = r.db.View(func(tx *Tx) error {
			rd, err := r.read(tx)
			reads = append(reads, rd)
			return err
		})
	case mode < 5: // ended by Rollback on another goroutine
		var tx *Tx
		if tx, err = r.db.Begin(false); err == nil {
			var rd cmReading
			rd, err = r.read(tx)
			reads = append(reads, rd)
			r.ended <- tx
		}
	default: // held while writers and checkpoints go on, read twice
		var tx *Tx
		if tx, err = r.db.Begin(false); err == nil {
			var rd cmReading
			for i := 0; i < 2 && err == nil; i++ {
				if i == 1 {
					time.Sleep(time.Duration(1+r.rng.IntN(10)) * time.Millisecond)
				}
				rd, err = r.read(tx)
				reads = append(reads, rd)
			}
			if rerr := tx.Rollback(); err == nil {
				err = rerr
			}
		}
	}
	if err != nil {
		r.log.fail("reader %d: %v", r.id, err)
		return
	}
	for i, rd := range reads {
		if rd.seq != reads[0].seq {
			r.log.fail("reader %d: one snapshot held seq %d, then seq %d", r.id, reads[0].seq, rd.seq)
			return
		}
		if rd.seq < acked {
			r.log.fail("reader %d: a snapshot taken after seq %d was acknowledged (Update returned nil) holds seq %d", r.id, acked, rd.seq)
			return
		}
		want, err := r.log.stateAt(rd.seq)
		if err != nil {
			if err != errCMAbandoned {
				r.log.fail("reader %d: %v", r.id, err)
			}
			return
		}
		for j := range rd.ops {
			if d := want.apply(&rd.ops[j]); d != "" {
				r.log.fail("reader %d, snapshot at seq %d (read %d of it), op %d: %s", r.id, rd.seq, i, j, d)
				return
			}
		}
		r.stats.snapshots.Add(1)
	}
}

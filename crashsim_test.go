package cairn

// Simulated power loss at random points of random workloads. Every mutating file-system call
// (write, fdatasync, truncate, create, directory sync) is numbered; at a chosen number the
// in-memory file system is cloned as a power loss would leave it (vfs.MemFS.CrashClone: synced
// bytes kept, each unsynced write kept, dropped or torn) before the call runs. The workload then
// stops, the database is reopened from the clone, and the test checks that every commit
// acknowledged before the crash is there, that the state is exactly the one after some prefix of
// the commits (no partial transaction, nothing invented), and that Check finds nothing. The next
// crash point continues from the recovered database, so crashes during recovery, close and
// checkpoints are covered too.
//
//	go test -run TestCrashSimulation -crash.points=10000 .   # long mode
//
// A failure prints the seed of its run; -crash.seed=S -crash.points=N replays it (exactly for
// runs with one writer, with the same workload but another interleaving for concurrent ones).

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

var (
	crashPoints = flag.Int("crash.points", 300, "simulated crash points of TestCrashSimulation")
	crashSeed   = flag.Uint64("crash.seed", 0, "seed of TestCrashSimulation (0: from the clock)")
)

// crashPointsPerRun is the number of crash points of one run (one database, one seed).
const crashPointsPerRun = 25

// crashStats are the figures of one TestCrashSimulation, for docs/RELIABILITY.md.
type crashStats struct {
	points, inOpen, commits, lostUnacked, checks int
}

func TestCrashSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 300 simulated crash points")
	}
	t.Parallel()
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -crash.seed=%d)", seed, seed)
	var st crashStats
	for r := 0; r*crashPointsPerRun < *crashPoints; r++ {
		runSeed, n := seed+uint64(r), min(crashPointsPerRun, *crashPoints-r*crashPointsPerRun)
		ok := t.Run(fmt.Sprintf("run%d", r), func(t *testing.T) {
			cr := newCrashRun(t, runSeed, &st)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("replay: go test -run TestCrashSimulation -crash.seed=%d -crash.points=%d .", runSeed, n)
				}
			})
			cr.run(n)
		})
		if !ok {
			break
		}
	}
	t.Logf("%d crash points (%d during Open), %d commits, %d unacknowledged commits lost, %d recoveries "+
		"checked against the model and by Check", st.points, st.inOpen, st.commits, st.lostUnacked, st.checks)
}

// crashFS numbers the mutating calls to the file system and calls fire before call number
// trigger.
type crashFS struct {
	vfs.FS
	ops     atomic.Int64
	trigger atomic.Int64
	fire    func()
}

func (c *crashFS) op() {
	if c.ops.Add(1) == c.trigger.Load() {
		c.fire()
	}
}

func (c *crashFS) OpenFile(name string, flag int, perm os.FileMode) (vfs.File, error) {
	if flag&os.O_CREATE != 0 {
		c.op()
	}
	f, err := c.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &crashFile{File: f, fs: c}, nil
}

func (c *crashFS) Remove(name string) error { c.op(); return c.FS.Remove(name) }
func (c *crashFS) SyncDir(dir string) error { c.op(); return c.FS.SyncDir(dir) }

type crashFile struct {
	vfs.File
	fs *crashFS
}

func (f *crashFile) WriteAt(b []byte, off int64) (int, error) {
	f.fs.op()
	return f.File.WriteAt(b, off)
}
func (f *crashFile) Sync() error               { f.fs.op(); return f.File.Sync() }
func (f *crashFile) Truncate(size int64) error { f.fs.op(); return f.File.Truncate(size) }

// crashImage is the file system a crash left, and the newest commit acknowledged before it.
type crashImage struct {
	fs    *vfs.MemFS
	acked uint64
}

// crashOp is one put or delete of a logged commit, or the deletion of a bucket (drop). The
// model keeps bucket keys under bucketModelKey, and a bucket's existence under its marker.
type crashOp struct {
	key, value []byte
	del, drop  bool
}

// bucketModelKey is the model's key for key of bucket name; key nil is the bucket's marker.
func bucketModelKey(name string, key []byte) []byte {
	return append([]byte("\x01"+name+"\x00"), key...)
}

// applyCrashOps applies ops to the model state m.
func applyCrashOps(m map[string][]byte, ops []crashOp) {
	for _, op := range ops {
		switch {
		case op.drop:
			for k := range m {
				if strings.HasPrefix(k, string(op.key)) {
					delete(m, k)
				}
			}
		case op.del:
			delete(m, string(op.key))
		default:
			m[string(op.key)] = op.value
		}
	}
}

// seqKey holds, in every commit, the commit's number: the recovered state names its own prefix.
var seqKey = []byte("\x00seq")

var errCrashRollback = errors.New("rollback")

// crashRun is one database through a series of crash points.
type crashRun struct {
	t          *testing.T
	seed       uint64
	rng        *rand.Rand
	concurrent bool
	st         *crashStats
	mem        *vfs.MemFS
	opts       Options

	// The model: the state after commit baseK, and the commits logged since, in commit order.
	base  map[string][]byte
	baseK uint64
	logMu sync.Mutex
	log   [][]crashOp

	acked  atomic.Uint64
	images chan crashImage
}

func newCrashRun(t *testing.T, seed uint64, st *crashStats) *crashRun {
	cr := &crashRun{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 0xc4a54)), concurrent: seed%2 == 1,
		st: st, mem: vfs.NewMem(), base: map[string][]byte{}, images: make(chan crashImage, 1)}
	cr.opts = Options{PageSize: 4096, CacheBytes: 64 << 10, CheckpointBytes: 1 << 40}
	if cr.rng.IntN(4) == 0 {
		cr.opts.PageSize = 8192
	}
	if cr.concurrent {
		cr.opts.CheckpointBytes = 32 << 10 // background checkpoints too
	}
	return cr
}

// run goes through n crash points.
func (cr *crashRun) run(n int) {
	for point := range n {
		cfs := &crashFS{FS: cr.mem}
		cfs.trigger.Store(1 + int64(cr.rng.IntN(200)))
		keep := []float64{0, 0.5, 0.9}[cr.rng.IntN(3)]
		crashRng := rand.New(rand.NewPCG(cr.seed, uint64(point)))
		cfs.fire = func() {
			acked := cr.acked.Load()
			cr.images <- crashImage{fs: cr.mem.CrashClone(vfs.CrashOptions{Rand: crashRng, KeepProb: keep, Garble: true}), acked: acked}
		}
		opts := cr.opts
		opts.fs = cfs
		db, err := Open("/db/crash.db", &opts)
		require.NoError(cr.t, err, "point %d: open", point)
		if len(cr.images) > 0 {
			cr.st.inOpen++
		}
		db = cr.verify(db, point)
		cr.workload(db, &opts, point)
		img := <-cr.images
		cr.mem = img.fs
		cr.acked.Store(img.acked)
		cr.st.points++
	}
}

// verify checks that db holds exactly the state after some commit k >= the last acknowledged
// one, and that Check passes; it makes that state the new base of the model.
func (cr *crashRun) verify(db *DB, point int) *DB {
	got := map[string][]byte{}
	require.NoError(cr.t, db.View(func(tx *Tx) error {
		for k, v := range tx.Range(nil, nil) {
			got[string(k)] = bytes.Clone(v)
		}
		return tx.ForEachBucket(func(name []byte) error {
			got[string(bucketModelKey(string(name), nil))] = []byte{}
			b, err := tx.Bucket(name)
			if err != nil {
				return err
			}
			for k, v := range b.Range(nil, nil) {
				got[string(bucketModelKey(string(name), k))] = bytes.Clone(v)
			}
			return tx.Err()
		})
	}))
	k := uint64(0)
	if v, ok := got[string(seqKey)]; ok {
		k = binary.BigEndian.Uint64(v)
	}
	acked, logged := cr.acked.Load(), cr.baseK+uint64(len(cr.log))
	require.GreaterOrEqual(cr.t, k, acked, "point %d: acknowledged commit %d lost (recovered up to %d)", point, acked, k)
	require.GreaterOrEqual(cr.t, k, cr.baseK, "point %d: recovered %d, before the last verified state %d", point, k, cr.baseK)
	require.LessOrEqual(cr.t, k, logged, "point %d: recovered commit %d was never made", point, k)
	want := maps.Clone(cr.base)
	for _, ops := range cr.log[:k-cr.baseK] {
		applyCrashOps(want, ops)
	}
	cr.requireState(want, got, point, k)
	require.NoError(cr.t, db.Check(), "point %d: Check after recovery to commit %d", point, k)
	cr.st.checks++
	cr.st.lostUnacked += int(logged - k)
	cr.base, cr.baseK, cr.log = want, k, nil
	cr.acked.Store(k)
	return db
}

func (cr *crashRun) requireState(want, got map[string][]byte, point int, k uint64) {
	for key, v := range want {
		g, ok := got[key]
		require.True(cr.t, ok, "point %d, state of commit %d: key %q missing (partial transaction)", point, k, key)
		require.True(cr.t, bytes.Equal(v, g), "point %d, state of commit %d: key %q has %d bytes, want %d", point, k, key, len(g), len(v))
	}
	for key := range got {
		_, ok := want[key]
		require.True(cr.t, ok, "point %d, state of commit %d: key %q should not exist", point, k, key)
	}
}

// workload commits (and checkpoints, closes and reopens) until the crash image is taken, then
// abandons the database.
func (cr *crashRun) workload(db *DB, opts *Options, point int) {
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	if cr.concurrent {
		for w := range 1 + cr.rng.IntN(3) {
			rng := rand.New(rand.NewPCG(cr.seed, uint64(point*10+w+1)))
			wg.Go(func() { cr.writer(db, rng, stop, errs) })
		}
	}
	for len(cr.images) == 0 {
		switch r := cr.rng.IntN(100); {
		case r < 3 && !cr.concurrent:
			require.NoError(cr.t, db.Close(), "point %d: close", point)
			var err error
			db, err = Open("/db/crash.db", opts)
			require.NoError(cr.t, err, "point %d: reopen", point)
			db = cr.verify(db, point)
		case r < 8:
			require.NoError(cr.t, db.Checkpoint(context.Background()), "point %d: checkpoint", point)
		default:
			if err := cr.commit(db, cr.rng); err != nil {
				require.ErrorIs(cr.t, err, errCrashRollback, "point %d: commit", point)
			}
		}
		if len(errs) > 0 {
			require.NoError(cr.t, <-errs)
		}
	}
	close(stop)
	db.abandon()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(cr.t, err)
	}
}

// writer commits in a loop until stop is closed (a concurrent writer).
func (cr *crashRun) writer(db *DB, rng *rand.Rand, stop chan struct{}, errs chan<- error) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		err := cr.commit(db, rng)
		select {
		case <-stop:
			return // abandoned under us: errors are expected
		default:
		}
		if err != nil && !errors.Is(err, errCrashRollback) {
			errs <- err
			return
		}
	}
}

// commit runs one random write transaction; it logs it (in commit order: the writer slot is
// held) and records the acknowledgement when Update returns.
func (cr *crashRun) commit(db *DB, rng *rand.Rand) error {
	var k uint64
	err := db.Update(func(tx *Tx) error {
		var ops []crashOp
		for range 1 + rng.IntN(8) {
			key := fmt.Appendf(nil, "k%03d", rng.IntN(200))
			if r := rng.IntN(10); r < 3 {
				op, err := crashBucketOp(tx, rng, []string{"b1", "b2", "b3"}[r], key)
				if err != nil {
					return err
				}
				ops = append(ops, op...)
				continue
			}
			if rng.IntN(10) < 3 {
				ops = append(ops, crashOp{key: key, del: true})
				if err := tx.Delete(key); err != nil {
					return err
				}
				continue
			}
			v := crashValue(rng)
			ops = append(ops, crashOp{key: key, value: v})
			if err := tx.Put(key, v); err != nil {
				return err
			}
		}
		if rng.IntN(20) == 0 {
			return errCrashRollback
		}
		cr.logMu.Lock()
		defer cr.logMu.Unlock()
		k = cr.baseK + uint64(len(cr.log)) + 1
		seq := binary.BigEndian.AppendUint64(nil, k)
		cr.log = append(cr.log, append(ops, crashOp{key: seqKey, value: seq}))
		return tx.Put(seqKey, seq)
	})
	if err != nil {
		return err
	}
	cr.logMu.Lock()
	cr.st.commits++
	cr.logMu.Unlock()
	for a := cr.acked.Load(); a < k && !cr.acked.CompareAndSwap(a, k); a = cr.acked.Load() {
	}
	return nil
}

// crashBucketOp puts (creating the bucket if needed), deletes key in bucket name, or now and
// then deletes the whole bucket, and returns the model's operations for it.
func crashBucketOp(tx *Tx, rng *rand.Rand, name string, key []byte) ([]crashOp, error) {
	switch r := rng.IntN(50); {
	case r == 0:
		err := tx.DeleteBucket([]byte(name))
		if errors.Is(err, ErrBucketNotFound) {
			return nil, nil
		}
		return []crashOp{{key: bucketModelKey(name, nil), drop: true}}, err
	case r < 15:
		b, err := tx.Bucket([]byte(name))
		if errors.Is(err, ErrBucketNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		return []crashOp{{key: bucketModelKey(name, key), del: true}}, b.Delete(key)
	}
	b, err := tx.CreateBucketIfNotExists([]byte(name))
	if err != nil {
		return nil, err
	}
	v := crashValue(rng)
	ops := []crashOp{{key: bucketModelKey(name, nil), value: []byte{}}, {key: bucketModelKey(name, key), value: v}}
	return ops, b.Put(key, v)
}

// crashValue returns a random value: mostly small, some of a few KiB (overflow extents at
// 4 KiB pages), a few of tens of KiB (multi-page overflow extents).
func crashValue(rng *rand.Rand) []byte {
	n := rng.IntN(100)
	switch r := rng.IntN(100); {
	case r < 2:
		n = 5000 + rng.IntN(40000)
	case r < 7:
		n = 1000 + rng.IntN(3000)
	}
	v := make([]byte, n)
	for i := range v {
		v[i] = byte(rng.Uint32())
	}
	return v
}

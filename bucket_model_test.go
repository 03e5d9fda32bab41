package cairn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// bucketModel drives buckets and savepoints with random transactions against a bucketState,
// through commits, rollbacks, savepoint rollbacks, checkpoints, Close+reopen and simulated
// crashes, and checks every read and, after each reopen, the whole database and Check.
type bucketModel struct {
	t     *testing.T
	rng   *rand.Rand
	fs    *vfs.MemFS
	opts  *Options
	db    *DB
	state bucketState
}

var bucketNames = []string{"", "alpha", "beta", "gamma", "a\x00binary\xffname"}

func TestBucketModel(t *testing.T) {
	t.Parallel()
	seed := *modelSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -run TestBucketModel -model.seed=%d)", seed, seed)
	fs := vfs.NewMem()
	m := &bucketModel{t: t, rng: rand.New(rand.NewPCG(seed, 7)), fs: fs,
		state: bucketState{"": {}}}
	m.opts = &Options{PageSize: 4096, CacheBytes: 256 << 10, CheckpointBytes: 256 << 10, fs: fs}
	m.open()
	for range *modelOps / 500 {
		switch r := m.rng.IntN(100); {
		case r < 3:
			require.NoError(t, m.db.Close())
			m.open()
		case r < 6:
			clone := m.fs.CrashClone(vfs.CrashOptions{Rand: m.rng, KeepProb: 0.5, Garble: true})
			m.db.abandon()
			m.fs, m.opts.fs = clone, clone
			m.open()
		case r < 10:
			require.NoError(t, m.db.Checkpoint(context.Background()))
		case r < 12:
			m.compact()
		default:
			m.writeTx()
		}
	}
	m.checkAll()
	require.NoError(t, m.db.Close())
}

// compact runs Compact and, at a random step, takes a crash clone (power loss in the middle of
// the compaction) and goes on from it.
func (m *bucketModel) compact() {
	var clone *vfs.MemFS
	_, err := m.db.Compact(context.Background(), func(CompactStats) {
		if clone == nil && m.rng.IntN(3) == 0 {
			clone = m.fs.CrashClone(vfs.CrashOptions{Rand: m.rng, KeepProb: 0.5, Garble: true})
		}
	})
	require.NoError(m.t, err)
	if clone != nil {
		m.db.abandon()
		m.fs, m.opts.fs = clone, clone
		m.open()
	}
}

func (m *bucketModel) open() {
	db, err := Open("/db/b.db", m.opts)
	require.NoError(m.t, err)
	m.db = db
	m.checkAll()
}

// writeTx runs one transaction of random bucket operations with savepoints; local is what it
// should see, saved the states at its savepoints.
func (m *bucketModel) writeTx() {
	tx, err := m.db.Begin(true)
	require.NoError(m.t, err)
	local := m.state.clone()
	type saved struct {
		sp    Savepoint
		state bucketState
	}
	var sps []saved
	for range 1 + m.rng.IntN(60) {
		switch r := m.rng.IntN(100); {
		case r < 4:
			sp, err := tx.Savepoint()
			require.NoError(m.t, err)
			sps = append(sps, saved{sp, local.clone()})
		case r < 7 && len(sps) > 0:
			i := m.rng.IntN(len(sps))
			require.NoError(m.t, tx.RollbackTo(sps[i].sp))
			local, sps = sps[i].state.clone(), sps[:i+1]
		case r < 8 && len(sps) > 0:
			i := m.rng.IntN(len(sps))
			require.NoError(m.t, tx.Release(sps[i].sp))
			sps = sps[:i]
		case r < 11:
			m.createOrDelete(tx, local)
		case r < 13:
			m.fill(tx, local)
		default:
			m.keyOp(tx, local)
		}
	}
	if m.rng.IntN(4) == 0 {
		m.checkTx(tx, local)
	}
	if m.rng.IntN(8) == 0 {
		require.NoError(m.t, tx.Rollback())
		return
	}
	require.NoError(m.t, tx.Commit())
	m.state = local
}

func (m *bucketModel) bucket(tx *Tx, name string) (*Bucket, error) {
	if name == "" {
		return &tx.main, nil
	}
	return tx.Bucket([]byte(name))
}

func (m *bucketModel) createOrDelete(tx *Tx, local bucketState) {
	name := bucketNames[1+m.rng.IntN(len(bucketNames)-1)]
	if _, ok := local[name]; ok {
		require.NoError(m.t, tx.DeleteBucket([]byte(name)))
		delete(local, name)
		require.ErrorIs(m.t, tx.DeleteBucket([]byte(name)), ErrBucketNotFound)
		return
	}
	_, err := tx.CreateBucket([]byte(name))
	require.NoError(m.t, err)
	local[name] = map[string]string{}
	_, err = tx.CreateBucket([]byte(name))
	require.ErrorIs(m.t, err, ErrBucketExists)
}

// fill puts many keys into one bucket, so buckets span many pages (splits, drop stack work).
func (m *bucketModel) fill(tx *Tx, local bucketState) {
	name := bucketNames[m.rng.IntN(len(bucketNames))]
	b, err := m.bucket(tx, name)
	if _, ok := local[name]; !ok {
		require.ErrorIs(m.t, err, ErrBucketNotFound)
		return
	}
	require.NoError(m.t, err)
	base := m.rng.IntN(8) // bounded key set: the state stays small enough to compare often
	for i := range 100 + m.rng.IntN(300) {
		k, v := fmt.Sprintf("fill%04d-%d", base, i), string(bytes.Repeat([]byte{byte(i)}, m.rng.IntN(120)))
		require.NoError(m.t, b.Put([]byte(k), []byte(v)))
		local[name][k] = v
	}
}

func (m *bucketModel) keyOp(tx *Tx, local bucketState) {
	name := bucketNames[m.rng.IntN(len(bucketNames))]
	b, err := m.bucket(tx, name)
	kv, ok := local[name]
	if !ok {
		require.ErrorIs(m.t, err, ErrBucketNotFound, "bucket %q", name)
		return
	}
	require.NoError(m.t, err, "bucket %q", name)
	k := fmt.Sprintf("k%03d", m.rng.IntN(300))
	switch r := m.rng.IntN(10); {
	case r < 5:
		v := fmt.Sprintf("v%d-%s", m.rng.IntN(1000), bytes.Repeat([]byte("x"), m.rng.IntN(50)))
		if m.rng.IntN(40) == 0 {
			v = string(bytes.Repeat([]byte("o"), 3000+m.rng.IntN(10000))) // overflow value
		}
		require.NoError(m.t, b.Put([]byte(k), []byte(v)))
		kv[k] = v
	case r < 8:
		require.NoError(m.t, b.Delete([]byte(k)))
		delete(kv, k)
	default:
		got, err := b.Get([]byte(k))
		if want, ok := kv[k]; ok {
			require.NoError(m.t, err)
			require.Equal(m.t, want, string(got))
		} else {
			require.ErrorIs(m.t, err, ErrNotFound)
		}
	}
}

// checkTx compares every bucket and key tx sees with want.
func (m *bucketModel) checkTx(tx *Tx, want bucketState) {
	var names []string
	require.NoError(m.t, tx.ForEachBucket(func(name []byte) error {
		names = append(names, string(name))
		return nil
	}))
	var wantNames []string
	for name := range want {
		if name != "" {
			wantNames = append(wantNames, name)
		}
	}
	slices.Sort(wantNames)
	require.Equal(m.t, wantNames, names)
	for name, kv := range want {
		b, err := m.bucket(tx, name)
		require.NoError(m.t, err)
		got := map[string]string{}
		for k, v := range b.Range(nil, nil) {
			got[string(k)] = string(v)
		}
		require.NoError(m.t, tx.Err())
		if !maps.Equal(kv, got) {
			require.Equal(m.t, kv, got, "bucket %q", name) // prints the difference
		}
	}
}

func (m *bucketModel) checkAll() {
	err := m.db.Check()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		require.NoError(m.t, err)
	}
	require.NoError(m.t, err)
	require.NoError(m.t, m.db.View(func(tx *Tx) error {
		m.checkTx(tx, m.state)
		return nil
	}))
}

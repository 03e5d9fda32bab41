package cairn

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

var (
	modelOps  = flag.Int("model.ops", 100_000, "operations of TestModel")
	modelSeed = flag.Uint64("model.seed", 0, "seed of TestModel (0: from the clock)")
)

// modelRun drives the public API with random transactions and checks every read against a plain
// map of the committed state. Close+reopen and simulated crashes (a crash clone of the in-memory
// file system) happen along the way; after each, every committed key must be back.
type modelRun struct {
	t     *testing.T
	rng   *rand.Rand
	fs    *vfs.MemFS
	opts  *Options
	db    *DB
	model map[string][]byte
	// sorted holds the keys of model in order, kept up to date with it, so that a range check
	// does not sort the whole model.
	sorted []string
	keys   [][]byte
}

func TestModel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 100,000 random operations against a model")
	}
	t.Parallel()
	seed := *modelSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -model.seed=%d)", seed, seed)
	for _, ps := range []int{4096, 16384} {
		t.Run(fmt.Sprintf("page=%d", ps), func(t *testing.T) {
			t.Parallel()
			m := newModelRun(t, seed, ps)
			m.run(*modelOps / 2)
			t.Logf("%d keys, stats %+v", len(m.model), m.db.Stats())
			require.NoError(t, m.db.Close())
		})
	}
}

func newModelRun(t *testing.T, seed uint64, pageSize int) *modelRun {
	m := &modelRun{t: t, rng: rand.New(rand.NewPCG(seed, uint64(pageSize))), fs: vfs.NewMem(),
		model: map[string][]byte{}}
	m.opts = &Options{PageSize: pageSize, CacheBytes: 256 << 10, CheckpointBytes: 512 << 10, fs: m.fs}
	for range 3000 {
		m.keys = append(m.keys, m.randKey())
	}
	m.open()
	return m
}

func (m *modelRun) randKey() []byte {
	n := 1 + m.rng.IntN(24)
	if m.rng.IntN(200) == 0 {
		n = 1 + m.rng.IntN(5000)
	}
	k := make([]byte, n)
	for i := range k {
		k[i] = byte('a' + m.rng.IntN(4))
		if m.rng.IntN(10) == 0 {
			k[i] = byte(m.rng.IntN(256))
		}
	}
	return k
}

func (m *modelRun) randValue() []byte {
	n := m.rng.IntN(64)
	switch r := m.rng.IntN(100); {
	case r < 5:
		n = 500 + m.rng.IntN(3000)
	case r == 5:
		n = 20000 + m.rng.IntN(100000)
	}
	v := make([]byte, n)
	for i := range v {
		v[i] = byte(m.rng.Uint32())
	}
	return v
}

func (m *modelRun) open() {
	db, err := Open("/db/test.db", m.opts)
	require.NoError(m.t, err)
	m.db = db
}

func (m *modelRun) run(ops int) {
	for done := 0; done < ops; {
		switch r := m.rng.IntN(1000); {
		case r < 2:
			require.NoError(m.t, m.db.Close())
			m.open()
			m.checkAll()
		case r < 4:
			m.crash()
			m.checkAll()
		case r < 8:
			require.NoError(m.t, m.db.Checkpoint(context.Background()))
		case r < 600:
			done += m.writeTx()
		default:
			done += m.readTx()
		}
	}
	m.checkAll()
}

// crash abandons the database as a power loss would: only synced bytes survive (unsynced ones are
// kept, dropped or torn at random), then reopens from that state.
func (m *modelRun) crash() {
	clone := m.fs.CrashClone(vfs.CrashOptions{Rand: m.rng, KeepProb: 0.5, Garble: true})
	m.db.Close()
	m.fs = clone
	m.opts.fs = clone
	m.open()
}

// writeTx runs one write transaction of random operations, checked against an overlay of the
// model, and commits or rolls back.
func (m *modelRun) writeTx() int {
	tx, err := m.db.Begin(true)
	require.NoError(m.t, err)
	overlay := map[string][]byte{}
	deleted := map[string]bool{}
	n := 1 + m.rng.IntN(20)
	if m.rng.IntN(50) == 0 {
		n = 500 + m.rng.IntN(1500)
	}
	for range n {
		k := m.keys[m.rng.IntN(len(m.keys))]
		switch r := m.rng.IntN(10); {
		case r < 5:
			v := m.randValue()
			require.NoError(m.t, tx.Put(k, v))
			overlay[string(k)], deleted[string(k)] = v, false
		case r < 8:
			require.NoError(m.t, tx.Delete(k))
			delete(overlay, string(k))
			deleted[string(k)] = true
		case r < 9:
			v, ok := m.lookup(overlay, deleted, k)
			m.checkGet(tx, k, v, ok)
		default:
			m.checkRange(tx, overlay, deleted)
		}
	}
	if m.rng.IntN(10) == 0 {
		require.NoError(m.t, tx.Rollback())
		return n
	}
	require.NoError(m.t, tx.Commit())
	for k, del := range deleted {
		if _, ok := m.model[k]; del && ok {
			delete(m.model, k)
			i, _ := slices.BinarySearch(m.sorted, k)
			m.sorted = slices.Delete(m.sorted, i, i+1)
		}
	}
	for k, v := range overlay {
		if _, ok := m.model[k]; !ok {
			i, _ := slices.BinarySearch(m.sorted, k)
			m.sorted = slices.Insert(m.sorted, i, k)
		}
		m.model[k] = v
	}
	return n
}

func (m *modelRun) lookup(overlay map[string][]byte, deleted map[string]bool, k []byte) ([]byte, bool) {
	if v, ok := overlay[string(k)]; ok {
		return v, true
	}
	if deleted[string(k)] {
		return nil, false
	}
	v, ok := m.model[string(k)]
	return v, ok
}

func (m *modelRun) readTx() int {
	tx, err := m.db.Begin(false)
	require.NoError(m.t, err)
	defer tx.Rollback()
	for range 5 {
		k := m.keys[m.rng.IntN(len(m.keys))]
		v, ok := m.model[string(k)]
		m.checkGet(tx, k, v, ok)
	}
	m.checkRange(tx, nil, nil)
	require.ErrorIs(m.t, tx.Put([]byte("x"), nil), ErrTxReadOnly)
	return 6
}

func (m *modelRun) checkGet(tx *Tx, k []byte, want []byte, ok bool) {
	got, err := tx.Get(k)
	if !ok {
		require.ErrorIs(m.t, err, ErrNotFound, "key %q", k)
		return
	}
	require.NoError(m.t, err)
	require.True(m.t, bytes.Equal(want, got), "key %q: value differs", k)
}

// checkRange compares a random range (or prefix) scan, forward or backward, with the model.
func (m *modelRun) checkRange(tx *Tx, overlay map[string][]byte, deleted map[string]bool) {
	start := m.keys[m.rng.IntN(len(m.keys))]
	want := m.sortedFrom(overlay, deleted, start, 40)
	if m.rng.IntN(2) == 0 {
		i := 0
		for k, v := range tx.Range(start, nil) {
			if i == len(want) {
				break
			}
			require.Equal(m.t, want[i], string(k))
			require.True(m.t, bytes.Equal(m.mustLookup(overlay, deleted, want[i]), v))
			i++
		}
		require.Equal(m.t, len(want), i)
		return
	}
	c := tx.Cursor()
	k, _ := c.Seek(start)
	if len(want) == 0 {
		require.Nil(m.t, k)
		return
	}
	for i := range want {
		require.Equal(m.t, want[i], string(k))
		k, _ = c.Next()
	}
	k, _ = c.Seek([]byte(want[len(want)-1]))
	require.Equal(m.t, want[len(want)-1], string(k))
	for i := len(want) - 2; i >= 0; i-- {
		k, _ = c.Prev()
		require.Equal(m.t, want[i], string(k))
	}
	require.NoError(m.t, c.Err())
}

func (m *modelRun) mustLookup(overlay map[string][]byte, deleted map[string]bool, k string) []byte {
	v, ok := m.lookup(overlay, deleted, []byte(k))
	require.True(m.t, ok)
	return v
}

// sortedFrom returns up to n visible keys >= start in order: the model's (m.sorted) but those
// deleted, merged with the overlay's that the model does not hold.
func (m *modelRun) sortedFrom(overlay map[string][]byte, deleted map[string]bool, start []byte, n int) []string {
	var added []string
	for k := range overlay {
		if _, dup := m.model[k]; !dup && k >= string(start) {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	i, _ := slices.BinarySearch(m.sorted, string(start))
	var out []string
	for len(out) < n {
		switch {
		case i < len(m.sorted) && (len(added) == 0 || m.sorted[i] < added[0]):
			if !deleted[m.sorted[i]] {
				out = append(out, m.sorted[i])
			}
			i++
		case len(added) > 0:
			out, added = append(out, added[0]), added[1:]
		default:
			return out
		}
	}
	return out
}

// checkAll compares every key and value, in order, with the model, and checks the tree's
// invariants and page accounting.
func (m *modelRun) checkAll() {
	require.NoError(m.t, m.db.check())
	want := m.sortedFrom(nil, nil, nil, len(m.model))
	i := 0
	require.NoError(m.t, m.db.View(func(tx *Tx) error {
		for k, v := range tx.Range(nil, nil) {
			require.Less(m.t, i, len(want), "extra key %q", k)
			require.Equal(m.t, want[i], string(k))
			require.True(m.t, bytes.Equal(m.model[want[i]], v), "key %q value differs", k)
			i++
		}
		return nil
	}))
	require.Equal(m.t, len(want), i)
}

package cairn

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// Each commit of the snapshot test writes the same generation number into every key of a group;
// a reader that ever sees two generations in one group saw a torn snapshot or a reused page.
const groupKeys = 40

func groupKey(g, i int) []byte { return fmt.Appendf(nil, "g%02d/%04d", g, i) }

// snapshotModel records which commit (by LSN) wrote which value id into which group, so that a
// reader can compute exactly what its snapshot must contain.
type snapshotModel struct {
	mu      sync.Mutex
	history map[uint64][2]uint64 // LSN -> (group, value id)
}

func (m *snapshotModel) record(lsn, group, id uint64) {
	m.mu.Lock()
	m.history[lsn] = [2]uint64{group, id}
	m.mu.Unlock()
}

// expect returns the value id of group g in the version at lsn (0: the group is empty).
func (m *snapshotModel) expect(lsn, g uint64) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	best, id := uint64(0), uint64(0)
	for l, e := range m.history {
		if l <= lsn && l > best && e[0] == g {
			best, id = l, e[1]
		}
	}
	return id
}

// TestConcurrentReadersSeeSnapshots runs writers, checkpoints and readers (View, and Begin with the
// Rollback on another goroutine) at once, with a small cache so pages are evicted and re-read, and
// checks every read against the exact content of the reader's version.
func TestConcurrentReadersSeeSnapshots(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs readers and writers for 2 s")
	}
	t.Parallel()
	db, _ := openMem(t, &Options{CacheBytes: 64 << 10, CheckpointBytes: 128 << 10})
	const groups = 8
	model := &snapshotModel{history: map[uint64][2]uint64{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var ids atomic.Uint64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for ctx.Err() == nil {
				g, id := uint64(rng.IntN(groups)), ids.Add(1)
				require.NoError(t, db.Update(func(tx *Tx) error {
					model.record(tx.db.headLSN.Load()+1, g, id) // the LSN this commit gets (held commits included)
					val := binary.BigEndian.AppendUint64(make([]byte, 0, 200), id)
					val = append(val, make([]byte, rng.IntN(150))...)
					for i := range groupKeys {
						if err := tx.Put(groupKey(int(g), i), val); err != nil {
							return err
						}
					}
					return nil
				}))
			}
		}()
	}
	var reads atomic.Int64
	check := func(tx *Tx, rng *rand.Rand) {
		g := uint64(rng.IntN(groups))
		want := model.expect(tx.base.lsn, g)
		n := 0
		for k, v := range tx.Prefix(fmt.Appendf(nil, "g%02d/", g)) {
			require.Equal(t, want, binary.BigEndian.Uint64(v), "key %s at LSN %d: not the snapshot's value", k, tx.base.lsn)
			n++
			if rng.IntN(4) == 0 {
				time.Sleep(time.Microsecond) // hold the snapshot while writers go on
			}
		}
		require.NoError(t, tx.Err())
		if want == 0 {
			require.Zero(t, n)
		} else {
			require.Equal(t, groupKeys, n)
		}
		reads.Add(1)
	}
	ended := make(chan *Tx, 16)
	wg.Add(1)
	go func() { // ends read transactions begun on other goroutines
		defer wg.Done()
		for tx := range ended {
			require.NoError(t, tx.Rollback())
		}
	}()
	var readers sync.WaitGroup
	for r := range 6 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			for ctx.Err() == nil {
				if r%2 == 0 {
					require.NoError(t, db.View(func(tx *Tx) error { check(tx, rng); return nil }))
					continue
				}
				tx, err := db.Begin(false)
				require.NoError(t, err)
				check(tx, rng)
				ended <- tx
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			require.NoError(t, db.Checkpoint(context.Background()))
			time.Sleep(20 * time.Millisecond)
		}
	}()
	readers.Wait()
	close(ended)
	wg.Wait()
	st := db.Stats()
	t.Logf("%d commits, %d snapshot reads, stats %+v", st.Commits, reads.Load(), st)
	require.Positive(t, st.Batches)
	require.Positive(t, st.Evictions, "the cache must be small enough to evict and re-read pages")
	require.NoError(t, db.check())
}

// TestCrashKeepsAcknowledgedCommits crashes the in-memory file system while several writers
// commit and checks that every commit acknowledged before the crash is present in full, and that
// no transaction is partly visible.
func TestCrashKeepsAcknowledgedCommits(t *testing.T) {
	t.Parallel()
	for round := range 20 {
		fs := vfs.NewMem()
		opts := &Options{fs: fs, CheckpointBytes: 64 << 10, CacheBytes: 128 << 10}
		db, err := Open("/d/db", opts)
		require.NoError(t, err)
		var mu sync.Mutex
		acked := map[int]bool{}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; ; i += 4 {
					select {
					case <-stop:
						return
					default:
					}
					err := db.Update(func(tx *Tx) error {
						for j := range 3 {
							if err := tx.Put(fmt.Appendf(nil, "t%06d/%d", i, j), fmt.Appendf(nil, "value %d", i)); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						return // closed under us
					}
					mu.Lock()
					acked[i] = true
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(5+round*3) * time.Millisecond)
		mu.Lock()
		before := len(acked)
		snapshot := make(map[int]bool, before)
		for k := range acked {
			snapshot[k] = true
		}
		mu.Unlock()
		clone := fs.CrashClone(vfs.CrashOptions{Rand: rand.New(rand.NewPCG(uint64(round), 9)), KeepProb: 0.5, Garble: true})
		close(stop)
		wg.Wait()
		db.Close()

		db2, err := Open("/d/db", &Options{fs: clone})
		require.NoError(t, err, "round %d", round)
		seen := map[int]int{}
		require.NoError(t, db2.View(func(tx *Tx) error {
			for k := range tx.Range(nil, nil) {
				var i, j int
				_, err := fmt.Sscanf(string(k), "t%06d/%d", &i, &j)
				require.NoError(t, err)
				seen[i]++
			}
			return nil
		}))
		for i := range snapshot {
			require.Equal(t, 3, seen[i], "round %d: acknowledged commit %d lost", round, i)
		}
		for i, n := range seen {
			require.Equal(t, 3, n, "round %d: commit %d partly visible", round, i)
		}
		require.NoError(t, db2.check(), "round %d", round)
		require.NoError(t, db2.Close())
		require.GreaterOrEqual(t, len(seen), before)
	}
}

// TestCloseUnderLoad closes the database while writers and readers run: every Update returns nil
// (and its commit is there after reopening) or ErrClosed, and nothing hangs.
func TestCloseUnderLoad(t *testing.T) {
	t.Parallel()
	db, path := openMem(t, &Options{CheckpointBytes: 64 << 10})
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				k := fmt.Sprintf("w%d/%06d", w, i)
				err := db.Update(func(tx *Tx) error { return tx.Put([]byte(k), []byte(k)) })
				if errors.Is(err, ErrClosed) {
					return
				}
				require.NoError(t, err)
				mu.Lock()
				acked[k] = true
				mu.Unlock()
				if err := db.View(func(tx *Tx) error { _, err := tx.Get([]byte(k)); return err }); err != nil {
					require.ErrorIs(t, err, ErrClosed)
					return
				}
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, db.Close())
	wg.Wait()
	db, err := Open(path, &Options{fs: db.opts.fs})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *Tx) error {
		for k := range acked {
			_, err := tx.Get([]byte(k))
			require.NoError(t, err, "acknowledged commit %s lost", k)
		}
		return nil
	}))
	require.NotEmpty(t, acked)
}

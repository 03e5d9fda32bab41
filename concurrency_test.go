package cairn

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
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

func TestConcurrentReadersSeeSnapshots(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "db"), &Options{CacheBytes: 64 << 10, CheckpointBytes: 128 << 10})
	require.NoError(t, err)
	defer db.Close()
	const groups = 8
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var commits atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for gen := uint64(1); ctx.Err() == nil; gen++ {
				g := rng.IntN(groups)
				require.NoError(t, db.Update(func(tx *Tx) error {
					val := binary.BigEndian.AppendUint64(make([]byte, 0, 200), gen)
					val = append(val, make([]byte, rng.IntN(150))...)
					for i := range groupKeys {
						if err := tx.Put(groupKey(g, i), val); err != nil {
							return err
						}
					}
					return nil
				}))
				commits.Add(1)
			}
		}()
	}
	var reads atomic.Int64
	for r := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			for ctx.Err() == nil {
				require.NoError(t, db.View(func(tx *Tx) error {
					g := rng.IntN(groups)
					var first []byte
					n := 0
					for k, v := range tx.Prefix(fmt.Appendf(nil, "g%02d/", g)) {
						if first == nil {
							first = v[:8]
						}
						require.Equal(t, first, v[:8], "key %s: torn snapshot", k)
						n++
						if rng.IntN(4) == 0 {
							time.Sleep(time.Microsecond) // hold the snapshot while writers go on
						}
					}
					require.True(t, n == 0 || n == groupKeys, "group %d has %d keys", g, n)
					return nil
				}))
				reads.Add(1)
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
	wg.Wait()
	t.Logf("%d commits, %d snapshot reads, stats %+v", commits.Load(), reads.Load(), db.Stats())
	require.Positive(t, db.Stats().Batches)
	require.NoError(t, db.check())
}

// TestCrashKeepsAcknowledgedCommits crashes the in-memory file system while several writers
// commit and checks that every commit acknowledged before the crash is present in full, and that
// no transaction is partly visible.
func TestCrashKeepsAcknowledgedCommits(t *testing.T) {
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

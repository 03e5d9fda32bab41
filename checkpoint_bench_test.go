package cairn

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkCheckpointUnderLoad measures what a checkpoint costs the writers that commit while it
// runs. Each iteration dirties pages with random puts into a 200,000-key tree (SyncNone, so that
// the checkpoint's own fdatasyncs are the disk's only work), then checkpoints while one writer
// commits single puts as fast as it can. Reported: stall-µs (Stats.LastCheckpointStall, the time
// the checkpoint held the writer slot), max-commit-µs (the slowest of those commits),
// checkpoint-ms (the whole checkpoint) and commits (how many ran during it).
//
//	go test -run '^$' -bench CheckpointUnderLoad -benchtime 20x -count 6 .
func BenchmarkCheckpointUnderLoad(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "db"), &Options{Sync: SyncNone, CheckpointBytes: 1 << 40, CacheBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	value := make([]byte, 100)
	putRandom := func(n int) {
		err := db.Update(func(tx *Tx) error {
			for range n {
				var k [8]byte
				binary.BigEndian.PutUint64(k[:], rng.Uint64()%200_000)
				if err := tx.Put(k[:], value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for range 200 {
		putRandom(1000)
	}
	if err := db.Checkpoint(b.Context()); err != nil {
		b.Fatal(err)
	}
	var stall, maxCommit, whole time.Duration
	var commits int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for range 20 {
			putRandom(500) // about 10,000 changed leaves
		}
		b.StartTimer()
		w, n := checkpointWithWriter(b, db)
		st := db.Stats()
		stall += st.LastCheckpointStall
		maxCommit = max(maxCommit, w.max)
		whole += w.whole
		commits += n
	}
	b.ReportMetric(float64(stall.Microseconds())/float64(b.N), "stall-µs")
	b.ReportMetric(float64(maxCommit.Microseconds()), "max-commit-µs")
	b.ReportMetric(float64(whole.Milliseconds())/float64(b.N), "checkpoint-ms")
	b.ReportMetric(float64(commits)/float64(b.N), "commits")
}

// writerTimes are the slowest commit of the writer and the checkpoint's duration.
type writerTimes struct{ max, whole time.Duration }

// checkpointWithWriter runs a checkpoint while a writer commits single puts, and returns the
// slowest commit and the number of commits made until the checkpoint returned.
func checkpointWithWriter(b *testing.B, db *DB) (writerTimes, int64) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	var w writerTimes
	var n int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		var k [8]byte
		for i := uint64(0); !stop.Load(); i++ {
			binary.BigEndian.PutUint64(k[:], 1<<40+i)
			start := time.Now()
			if err := db.Update(func(tx *Tx) error { return tx.Put(k[:], k[:]) }); err != nil {
				b.Error(err)
				return
			}
			w.max = max(w.max, time.Since(start))
			n++
		}
	}()
	start := time.Now()
	err := db.Checkpoint(b.Context())
	w.whole = time.Since(start)
	stop.Store(true)
	wg.Wait()
	if err != nil {
		b.Fatal(err)
	}
	return w, n
}

// BenchmarkLogGrowth measures what growing the WAL costs the writer of a new database: each
// iteration opens a new database (256 KiB segments) and commits 1,000-byte values (SyncFull, no
// checkpoint) until the WAL holds 40 MiB, so the segment doubles eight times. Reported:
// max-commit-ms (the slowest commit) and slow-commits (commits over 5 ms).
//
//	go test -run '^$' -bench LogGrowth -benchtime 1x -count 6 .
func BenchmarkLogGrowth(b *testing.B) {
	value := make([]byte, 1000)
	var slowest time.Duration
	slow := 0
	for i := range b.N {
		db, err := Open(filepath.Join(b.TempDir(), fmt.Sprint("db", i)), &Options{CheckpointBytes: 1 << 40})
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; db.Stats().WALBytes < 40<<20; j++ {
			start := time.Now()
			if err := db.Update(func(tx *Tx) error { return tx.Put(fmt.Append(nil, j%1000), value) }); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			slowest = max(slowest, d)
			if d > 5*time.Millisecond {
				slow++
			}
		}
		b.StopTimer()
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(slowest.Microseconds())/1000, "max-commit-ms")
	b.ReportMetric(float64(slow)/float64(b.N), "slow-commits")
}

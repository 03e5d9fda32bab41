package cairn

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// Microbenchmarks of the core paths. Comparisons with other engines live in bench/ (issue 5).
// Run: go test -run XXX -bench . -benchmem -count 6 . | tee new.txt; benchstat old.txt new.txt

func benchKey(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)*0x9E3779B97F4A7C15) }

func benchDB(b *testing.B, keys int, opts *Options) *DB {
	b.Helper()
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	value := make([]byte, 100)
	for start := 0; start < keys; start += 10_000 {
		err := db.Update(func(tx *Tx) error {
			for i := start; i < min(start+10_000, keys); i++ {
				if err := tx.Put(benchKey(i), value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return db
}

// BenchmarkGet measures random point gets of present keys, each in a View of its own
// (tx=per-get) or all in one read transaction (tx=shared), on a tree that fits the CPU's caches
// (keys=5000: the instructions of a get) and on one that does not (keys=200000: its cache misses).
func BenchmarkGet(b *testing.B) {
	for _, keys := range []int{5_000, 200_000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) { benchGet(b, keys) })
	}
}

func benchGet(b *testing.B, keys int) {
	db := benchDB(b, keys, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	b.Run("tx=per-get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			db.View(func(tx *Tx) error {
				_, err := tx.Get(benchKey(rng.IntN(keys)))
				return err
			})
		}
	})
	b.Run("tx=shared", func(b *testing.B) {
		tx, _ := db.Begin(false)
		defer tx.Rollback()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tx.Get(benchKey(rng.IntN(keys))); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkViewBeginEnd measures an empty read transaction: go test -bench ViewBeginEnd -cpu 1,2.
func BenchmarkViewBeginEnd(b *testing.B) {
	db := benchDB(b, 1, nil)
	empty := func(*Tx) error { return nil }
	b.Run("api=View", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				db.View(empty)
			}
		})
	})
	b.Run("api=Begin", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				tx, _ := db.Begin(false)
				tx.Rollback()
			}
		})
	})
}

func BenchmarkCommit(b *testing.B) {
	for _, sync := range []SyncMode{SyncFull, SyncNone} {
		for _, writers := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("sync=%d/writers=%d", sync, writers), func(b *testing.B) {
				db := benchDB(b, 10_000, &Options{Sync: sync})
				parallelPuts(b, db, writers, func(tx *Tx) *Bucket { return &tx.main })
				st := db.Stats()
				b.ReportMetric(float64(st.Commits)/float64(st.Batches), "commits/batch")
				b.ReportMetric(float64(st.CopyMaterializations)/float64(st.Materializations), "copies/materialization")
			})
		}
	}
}

// parallelPuts runs b.N single-put Updates of a random key and a 100-byte value on writers
// goroutines per GOMAXPROCS, each with a key sequence of its own, into the key space space
// returns.
func parallelPuts(b *testing.B, db *DB, writers int, space func(tx *Tx) *Bucket) {
	value := make([]byte, 100)
	b.ReportAllocs()
	b.SetParallelism(writers)
	var seed atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(seed.Add(1), 7))
		for pb.Next() {
			err := db.Update(func(tx *Tx) error { return space(tx).Put(benchKey(rng.IntN(1<<30)), value) })
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBucketCommit is BenchmarkCommit's SyncFull rows for single-put Updates into a bucket
// of 10,000 keys instead of the default key space.
func BenchmarkBucketCommit(b *testing.B) {
	for _, writers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			db := benchDB(b, 0, nil)
			name, value := []byte("bucket"), make([]byte, 100)
			err := db.Update(func(tx *Tx) error {
				bk, err := tx.CreateBucket(name)
				for i := 0; i < 10_000 && err == nil; i++ {
					err = bk.Put(benchKey(i), value)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			parallelPuts(b, db, writers, func(tx *Tx) *Bucket {
				bk, err := tx.Bucket(name)
				if err != nil {
					b.Fatal(err)
				}
				return bk
			})
			st := db.Stats()
			b.ReportMetric(float64(st.Commits)/float64(st.Batches), "commits/batch")
			b.ReportMetric(float64(st.Materializations)/float64(st.Commits), "materializations/commit")
		})
	}
}

// BenchmarkScan measures a full scan with Range of a 200,000-key database.
func BenchmarkScan(b *testing.B) {
	benchScan(b, func(tx *Tx) (n int) {
		for range tx.Range(nil, nil) {
			n++
		}
		return n
	})
}

// BenchmarkScanReverse is BenchmarkScan backwards, with a cursor: Last, then Prev to the first
// key.
func BenchmarkScanReverse(b *testing.B) {
	benchScan(b, func(tx *Tx) (n int) {
		c := tx.Cursor()
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			n++
		}
		return n
	})
}

// benchScan runs scan, which returns the number of keys it visited, in a View of a 200,000-key
// database per op, and reports keys/s.
func benchScan(b *testing.B, scan func(tx *Tx) int) {
	const keys = 200_000
	db := benchDB(b, keys, nil)
	b.ReportAllocs()
	for b.Loop() {
		db.View(func(tx *Tx) error {
			if n := scan(tx); n != keys {
				b.Fatalf("scanned %d keys", n)
			}
			return nil
		})
	}
	b.ReportMetric(float64(keys)*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
}

// BenchmarkSavepoint measures savepoints in one write transaction (rolled back at the end: no
// fdatasync), on a 10,000-key tree. fanout=50: 50 savepoints in a row, each followed by a put and
// then, alternately, a RollbackTo or a Release. chain=5: five nested savepoints with 10 puts
// after each, then a RollbackTo the third. A RollbackTo replays the puts before its savepoint.
func BenchmarkSavepoint(b *testing.B) {
	db := benchDB(b, 10_000, nil)
	value := make([]byte, 100)
	run := func(b *testing.B, body func(tx *Tx) error) {
		b.ReportAllocs()
		for b.Loop() {
			tx, err := db.Begin(true)
			if err != nil {
				b.Fatal(err)
			}
			if err := body(tx); err != nil {
				b.Fatal(err)
			}
			tx.Rollback()
		}
	}
	b.Run("fanout=50", func(b *testing.B) {
		run(b, func(tx *Tx) error {
			for i := range 50 {
				sp, err := tx.Savepoint()
				if err != nil {
					return err
				}
				if err := tx.Put(benchKey(i*97), value); err != nil {
					return err
				}
				if i%2 == 0 {
					err = tx.RollbackTo(sp)
				} else {
					err = tx.Release(sp)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("chain=5", func(b *testing.B) {
		run(b, func(tx *Tx) error {
			var sps []Savepoint
			for level := range 5 {
				sp, err := tx.Savepoint()
				if err != nil {
					return err
				}
				sps = append(sps, sp)
				for i := range 10 {
					if err := tx.Put(benchKey(level*1000+i*7), value); err != nil {
						return err
					}
				}
			}
			return tx.RollbackTo(sps[2])
		})
	})
}

// BenchmarkBeginWrite measures taking and giving back the writer slot, uncontended: Begin(true)
// (or BeginContext with a context that cannot be cancelled, and with one that can) then Rollback,
// with nothing written (no WAL record, no fdatasync). It is the fixed cost every Update pays
// before its first Put.
func BenchmarkBeginWrite(b *testing.B) {
	db := benchDB(b, 1_000, nil)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name  string
		begin func() (*Tx, error)
	}{
		{"Begin", func() (*Tx, error) { return db.Begin(true) }},
		{"BeginContext/background", func() (*Tx, error) { return db.BeginContext(context.Background(), true) }},
		{"BeginContext/cancellable", func() (*Tx, error) { return db.BeginContext(cancellable, true) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tx, err := c.begin()
				if err != nil {
					b.Fatal(err)
				}
				tx.Rollback()
			}
		})
	}
}

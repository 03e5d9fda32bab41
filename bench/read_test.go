package bench

import (
	"fmt"
	"testing"
)

// readValueSize is the value size of the read workloads' data set.
const readValueSize = 100

// loadedEngine opens engine name with n random keys loaded and read once (cached).
func loadedEngine(b *testing.B, name string, n int) (Engine, int) {
	e := openEngine(b, name)
	load(b, e, RandomKey, n, readValueSize)
	warm(b, e, n)
	return e, n
}

// BenchmarkGet measures random point gets of present keys on a cached data set of getKeyCount
// keys (1,000,000 in a full run): each get in a read transaction of its own (per-txn=1), or 100
// gets per read transaction.
func BenchmarkGet(b *testing.B) {
	for _, name := range Engines {
		b.Run("engine="+name, func(b *testing.B) {
			e, n := loadedEngine(b, name, getKeyCount())
			for _, perTxn := range []int{1, 100} {
				sub := fmt.Sprintf("keys=%d/per-txn=%d", n, perTxn)
				b.Run(sub, func(b *testing.B) { benchGet(b, e, n, perTxn) })
			}
		})
	}
}

func benchGet(b *testing.B, e Engine, n, perTxn int) {
	if perTxn == 1 {
		benchGetAlone(b, e, n)
	} else {
		benchGetShared(b, e, n, perTxn)
	}
}

// benchGetAlone does each get in a read transaction of its own (Engine.Get).
func benchGetAlone(b *testing.B, e Engine, n int) {
	rng := newRand(1)
	var key, dst []byte
	var err error
	b.ReportAllocs()
	for b.Loop() {
		key = RandomKey(key[:0], rng.Uint64N(uint64(n)))
		if dst, err = e.Get(dst[:0], key); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGetShared does perTxn gets per read transaction; an op is one get.
func benchGetShared(b *testing.B, e Engine, n, perTxn int) {
	rng := newRand(1)
	var key, dst []byte
	var tx ReadTx
	var err error
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%perTxn == 0 {
			endTx(b, tx)
			tx = beginTx(b, e)
		}
		key = RandomKey(key[:0], rng.Uint64N(uint64(n)))
		if dst, err = tx.Get(dst[:0], key); err != nil {
			b.Fatal(err)
		}
	}
	endTx(b, tx)
}

func beginTx(b *testing.B, e Engine) ReadTx {
	tx, err := e.Begin()
	if err != nil {
		b.Fatal(err)
	}
	return tx
}

// endTx ends tx, if not nil.
func endTx(b *testing.B, tx ReadTx) {
	if tx == nil {
		return
	}
	if err := tx.End(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReadTxn measures beginning and ending an empty read transaction, from GOMAXPROCS
// goroutines at once.
func BenchmarkReadTxn(b *testing.B) {
	for _, name := range Engines {
		b.Run("engine="+name, func(b *testing.B) {
			e := openEngine(b, name)
			load(b, e, RandomKey, loadTxnSize, readValueSize)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tx, err := e.Begin()
					if err != nil {
						b.Error(err)
						return
					}
					if err := tx.End(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkScan measures a full scan of the cached data set (len=all; an op is one scan) and
// scans of 100 keys from a random key in a read transaction of their own (len=100).
func BenchmarkScan(b *testing.B) {
	for _, name := range Engines {
		b.Run("engine="+name, func(b *testing.B) {
			e, n := loadedEngine(b, name, keyCount())
			b.Run(fmt.Sprintf("keys=%d/len=all", n), func(b *testing.B) { benchScanAll(b, e, n) })
			b.Run(fmt.Sprintf("keys=%d/len=100", n), func(b *testing.B) { benchScanRange(b, e, n, 100) })
		})
	}
}

func benchScanAll(b *testing.B, e Engine, n int) {
	var sum int
	b.ReportAllocs()
	for b.Loop() {
		tx := beginTx(b, e)
		got, err := tx.Scan(nil, 0, func(k, v []byte) { sum += len(v) })
		endTx(b, tx)
		if err != nil || got != n {
			b.Fatalf("scan: %d keys, %v; want %d", got, err, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
}

func benchScanRange(b *testing.B, e Engine, n, length int) {
	rng := newRand(2)
	var key []byte
	var sum, keys int
	b.ReportAllocs()
	for b.Loop() {
		key = RandomKey(key[:0], rng.Uint64N(uint64(n)))
		tx := beginTx(b, e)
		got, err := tx.Scan(key, length, func(k, v []byte) { sum += len(v) })
		endTx(b, tx)
		if err != nil || got == 0 {
			b.Fatalf("scan: %d keys, %v", got, err)
		}
		keys += got
	}
	b.ReportMetric(float64(keys)/b.Elapsed().Seconds(), "keys/s")
}

package cairn

import (
	"encoding/binary"
	"flag"
	"hash/maphash"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	largeBytes = flag.Int64("large.bytes", 0, "TestLargerThanCache: bytes of values to load (0: skip)")
	largeCache = flag.Int64("large.cache", 256<<20, "TestLargerThanCache: Options.CacheBytes")
	largeDir   = flag.String("large.dir", "", "TestLargerThanCache: directory of the database (default: a temporary one)")
)

const largeValue = 1000

// largeKey returns the key of record i: a hash, so that the load inserts in random order.
func largeKey(i uint64) []byte {
	h := maphash.Comparable(largeSeed, i)
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, h), i)
}

var largeSeed = maphash.MakeSeed()

// largeVal returns the value of record i: 1000 bytes derived from i, so every read is verified.
func largeVal(i uint64, buf []byte) []byte {
	buf = buf[:0]
	for len(buf) < largeValue {
		buf = binary.LittleEndian.AppendUint64(buf, i*0x9E3779B97F4A7C15+uint64(len(buf)))
	}
	return buf[:largeValue]
}

// TestLargerThanCache loads -large.bytes of 1000-byte values in random key order into a database
// with -large.cache of page cache, then reads random keys for 10 s and scans everything, checking
// every value. Run it as its own binary under /usr/bin/time -v for the peak RSS
// (docs/BENCHMARKS.md):
//
//	go test -c -o /tmp/cairn.test . && /usr/bin/time -v /tmp/cairn.test -test.run TestLargerThanCache -test.v -test.timeout 1h -large.bytes=$((2<<30))
func TestLargerThanCache(t *testing.T) {
	if *largeBytes == 0 {
		t.Skip("set -large.bytes")
	}
	dir := *largeDir
	if dir == "" {
		dir = t.TempDir()
	}
	db, err := Open(filepath.Join(dir, "large.db"), &Options{CacheBytes: *largeCache})
	require.NoError(t, err)
	n := uint64(*largeBytes / largeValue)
	start := time.Now()
	buf := make([]byte, 0, largeValue+8)
	for i := uint64(0); i < n; i += 1000 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for j := i; j < min(n, i+1000); j++ {
				if err := tx.Put(largeKey(j), largeVal(j, buf)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	load := time.Since(start)
	st := db.Stats()
	t.Logf("load: %d records (%d MiB of values) in %v (%.1f MiB/s); page count %d (%d MiB), checkpoints %d, cached %d MiB",
		n, n*largeValue>>20, load.Round(time.Millisecond), float64(n*largeValue)/(1<<20)/load.Seconds(),
		st.PageCount, st.PageCount*uint64(st.PageSize)>>20, st.Checkpoints, st.CachedBytes>>20)
	logMem(t, "after load")

	rng := rand.New(rand.NewPCG(1, 2))
	gets := 0
	start = time.Now()
	for time.Since(start) < 10*time.Second {
		require.NoError(t, db.View(func(tx *Tx) error {
			for range 100 {
				i := rng.Uint64N(n)
				v, err := tx.Get(largeKey(i))
				require.NoError(t, err)
				require.Equal(t, largeVal(i, buf), v)
				gets++
			}
			return nil
		}))
	}
	st = db.Stats()
	t.Logf("random gets: %d in 10 s (%.0f/s); cache misses %d, evictions %d, cached %d MiB",
		gets, float64(gets)/time.Since(start).Seconds(), st.CacheMisses, st.Evictions, st.CachedBytes>>20)
	logMem(t, "after gets")

	start = time.Now()
	count := uint64(0)
	require.NoError(t, db.View(func(tx *Tx) error {
		for k, v := range tx.Range(nil, nil) {
			i := binary.BigEndian.Uint64(k[8:])
			if string(v) != string(largeVal(i, buf)) {
				t.Fatalf("value of record %d differs", i)
			}
			count++
		}
		return nil
	}))
	require.Equal(t, n, count)
	t.Logf("full scan: %d records in %v", count, time.Since(start).Round(time.Millisecond))
	logMem(t, "after scan")
	require.NoError(t, db.Close())
}

func logMem(t *testing.T, when string) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%s: Go heap in use %d MiB, heap from OS %d MiB, GC cycles %d", when, ms.HeapInuse>>20, ms.HeapSys>>20, ms.NumGC)
}

package bench

import (
	"bytes"
	"database/sql"
	"fmt"
	"hash/crc64"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// sameWorkKeys is the data set of the same-work test.
const sameWorkKeys = 5_000

// digest is what a read-back found: how many keys and a checksum of every key and value in order.
type digest struct {
	count int
	sum   uint64
}

var crcTable = crc64.MakeTable(crc64.ECMA)

func (d *digest) add(k, v []byte) {
	d.count++
	d.sum = crc64.Update(d.sum, crcTable, k)
	d.sum = crc64.Update(d.sum, crcTable, v)
}

// sameWorkValue is the value size of key i in the same-work test: sizes vary from 0 to 2,000.
func sameWorkValue(i int) []byte { return Value(uint64(i), i*37%2001) }

// expectedDigest computes the digest of the same-work data set from the generator alone.
func expectedDigest() digest {
	type kv struct{ k, v []byte }
	all := make([]kv, sameWorkKeys)
	for i := range all {
		all[i] = kv{RandomKey(nil, uint64(i)), sameWorkValue(i)}
	}
	slices.SortFunc(all, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	var d digest
	for _, p := range all {
		d.add(p.k, p.v)
	}
	return d
}

// TestSameWork loads the same keys into every engine, overwrites half of them, reads them back
// by get and by scan, and checks that every engine returns the same count and checksum.
func TestSameWork(t *testing.T) {
	want := expectedDigest()
	for _, name := range Engines {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			writeSameWork(t, e)
			if got := scanDigest(t, e, nil, 0); got != want {
				t.Errorf("full scan: %+v, want %+v", got, want)
			}
			if got := getDigest(t, e); got != want {
				t.Errorf("gets in sorted order: %+v, want %+v", got, want)
			}
			checkMissing(t, e)
		})
	}
}

// writeSameWork writes the data set with wrong values first, then the right ones, in
// transactions of various sizes, so that overwrites are exercised too.
func writeSameWork(t *testing.T, e Engine) {
	var kvs []KV
	for i := range sameWorkKeys {
		k := RandomKey(nil, uint64(i))
		if i%2 == 0 {
			kvs = append(kvs, KV{k, Value(uint64(i)+1, 10)})
		}
		kvs = append(kvs, KV{k, sameWorkValue(i)})
		if len(kvs) >= i%700+1 {
			if err := e.Write(kvs); err != nil {
				t.Fatal(err)
			}
			kvs = kvs[:0]
		}
	}
	if err := e.Write(kvs); err != nil {
		t.Fatal(err)
	}
}

func scanDigest(t *testing.T, e Engine, start []byte, limit int) digest {
	tx, err := e.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.End()
	var d digest
	n, err := tx.Scan(start, limit, d.add)
	if err != nil || n != d.count {
		t.Fatalf("scan: %d, %v (callback saw %d)", n, err, d.count)
	}
	return d
}

// getDigest gets every key, in key order, half through Engine.Get and half in one ReadTx.
func getDigest(t *testing.T, e Engine) digest {
	keys := make([][]byte, sameWorkKeys)
	index := map[string]int{}
	for i := range keys {
		keys[i] = RandomKey(nil, uint64(i))
		index[string(keys[i])] = i
	}
	slices.SortFunc(keys, bytes.Compare)
	tx, err := e.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.End()
	var d digest
	for j, k := range keys {
		var v []byte
		if j%2 == 0 {
			v, err = e.Get(nil, k)
		} else {
			v, err = tx.Get(nil, k)
		}
		if err != nil {
			t.Fatalf("get key %d: %v", index[string(k)], err)
		}
		d.add(k, v)
	}
	return d
}

// checkMissing checks that a missing key gives ErrNotFound in both kinds of get.
func checkMissing(t *testing.T, e Engine) {
	missing := RandomKey(nil, sameWorkKeys+1)
	if _, err := e.Get(nil, missing); !isNotFound(err) {
		t.Errorf("Get of a missing key: %v", err)
	}
	tx, err := e.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.End()
	if _, err := tx.Get(nil, missing); !isNotFound(err) {
		t.Errorf("ReadTx.Get of a missing key: %v", err)
	}
}

// TestSameRangeScans checks that 100-key scans from the same starts return the same keys and
// values in every engine (the range-scan workload's work).
func TestSameRangeScans(t *testing.T) {
	var want []digest
	for _, name := range Engines {
		e := openEngine(t, name)
		load(t, e, RandomKey, sameWorkKeys, readValueSize)
		rng := newRand(2)
		var got []digest
		for range 200 {
			start := RandomKey(nil, rng.Uint64N(sameWorkKeys*2)) // half of them missing
			got = append(got, scanDigest(t, e, start, 100))
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Errorf("%s: range scans differ from %s's", name, Engines[0])
		}
	}
}

// TestFloorWrites checks that both floors write records and that the group floor batches.
func TestFloorWrites(t *testing.T) {
	f, err := OpenFloor(tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kvs := []KV{{RandomKey(nil, 1), Value(1, 100)}}
	for range 10 {
		if err := f.Write(kvs); err != nil {
			t.Fatal(err)
		}
	}
	if f.off != 10*int64(len(appendRecord(nil, kvs))) {
		t.Errorf("floor offset %d after 10 records", f.off)
	}
	testGroupFloor(t)
}

func testGroupFloor(t *testing.T) {
	g, err := OpenGroupFloor(tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				kvs := []KV{{RandomKey(nil, uint64(w*each+i)), Value(uint64(i), 100)}}
				if err := g.Write(kvs); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	rec := int64(len(appendRecord(nil, []KV{{RandomKey(nil, 0), Value(0, 100)}})))
	if g.off != writers*each*rec || g.syncs() > writers*each {
		t.Errorf("group floor: offset %d, %d syncs for %d records", g.off, g.syncs(), writers*each)
	}
	t.Logf("group floor: %d records in %d fdatasyncs", writers*each, g.syncs())
}

// TestSQLitePragmas checks that the writer and reader connections of both SQLite engines run
// with WAL, synchronous=FULL and the configured cache size.
func TestSQLitePragmas(t *testing.T) {
	for _, name := range []string{"sqlite", "sqlite-cgo"} {
		e := openEngine(t, name).(*sqlEngine)
		var version string
		if err := e.rdb.QueryRow("SELECT sqlite_version()").Scan(&version); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: SQLite %s", name, version)
		checkPragmas(t, name+" writer", e.wdb, "2") // FULL
		checkPragmas(t, name+" reader", e.rdb, "2")
		relaxed := openEngineConfig(t, name, Config{NoSync: true}).(*sqlEngine)
		checkPragmas(t, name+" NoSync writer", relaxed.wdb, "1") // NORMAL
	}
}

func checkPragmas(t *testing.T, who string, db *sql.DB, synchronous string) {
	want := map[string]string{
		"journal_mode": "wal",
		"synchronous":  synchronous,
		"cache_size":   fmt.Sprint(-DefaultCacheBytes >> 10),
	}
	for pragma, value := range want {
		var got string
		if err := db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != value {
			t.Errorf("%s: PRAGMA %s = %s, want %s", who, pragma, got, value)
		}
	}
}

// TestZipf checks that the zipfian generator stays in range and is skewed as theta says:
// P(0)/P(1) = 2^theta.
func TestZipf(t *testing.T) {
	const n, draws = 1000, 200_000
	z := NewZipf(n, ZipfTheta)
	rng := newRand(3)
	counts := make([]int, n)
	for range draws {
		v := z.Next(rng)
		if v >= n {
			t.Fatalf("value %d out of range", v)
		}
		counts[v]++
	}
	ratio := float64(counts[0]) / float64(counts[1])
	if want := math.Pow(2, ZipfTheta); math.Abs(ratio-want) > 0.1 {
		t.Errorf("P(0)/P(1) = %.2f, want %.2f", ratio, want)
	}
	if s := z.Scrambled(rng); s >= n {
		t.Errorf("scrambled value %d out of range", s)
	}
}

// TestHistogram checks the quantiles against exact ones on known data.
func TestHistogram(t *testing.T) {
	var h Histogram
	for i := 1; i <= 100_000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	for _, q := range []float64{0.5, 0.95, 0.99, 0.999} {
		exact := time.Duration(q*100_000) * time.Microsecond
		got := h.Quantile(q)
		if diff := math.Abs(float64(got-exact)) / float64(exact); diff > 0.01 {
			t.Errorf("q%v = %v, want %v within 1%%", q, got, exact)
		}
	}
	for v := uint64(0); v < 1<<20; v = v*9/8 + 1 {
		if mid := bucketMid(bucketOf(v)); math.Abs(float64(mid)-float64(v)) > float64(v)/128+1 {
			t.Errorf("value %d: bucket middle %d", v, mid)
		}
	}
}

package bench

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// YCSB core workloads: one 1,000-byte value per record (YCSB's 10 fields of 100 bytes), a
// zipfian request distribution (theta 0.99, scrambled), 8 client goroutines, every write durable.
const (
	ycsbValueSize = 1000
	ycsbClients   = 8
	ycsbMaxScan   = 100
)

// ycsbRecords is the record count: 100,000 as YCSB's default, 10,000 with -short.
func ycsbRecords() int {
	if testing.Short() {
		return 10_000
	}
	return 100_000
}

// ycsbMix is the operation mix of a workload, as fractions of 1.
type ycsbMix struct {
	read, update, insert, scan, rmw float64
	latest                          bool // requests favour the newest records (workload D)
}

// ycsbWorkloads are run in this order on one loaded database: D and E insert, so they come last.
var ycsbWorkloads = []struct {
	name string
	mix  ycsbMix
}{
	{"A", ycsbMix{read: 0.5, update: 0.5}},
	{"B", ycsbMix{read: 0.95, update: 0.05}},
	{"C", ycsbMix{read: 1}},
	{"F", ycsbMix{read: 0.5, rmw: 0.5}},
	{"D", ycsbMix{read: 0.95, insert: 0.05, latest: true}},
	{"E", ycsbMix{scan: 0.95, insert: 0.05}},
}

// ycsbDB is a loaded database shared by the workloads of one engine.
type ycsbDB struct {
	e       Engine
	records uint64        // loaded records: keys 0..records-1
	next    atomic.Uint64 // index of the next record to insert
	zipf    *Zipf
}

// ycsbClient is the state of one client goroutine.
type ycsbClient struct {
	rng      *rand.Rand
	key, dst []byte
	kvs      []KV
}

// BenchmarkYCSB runs YCSB workloads A-F; an op is one YCSB operation, reported as ops/s.
func BenchmarkYCSB(b *testing.B) {
	for _, name := range Engines {
		b.Run("engine="+name, func(b *testing.B) {
			db := loadYCSB(b, name)
			for _, w := range ycsbWorkloads {
				sub := fmt.Sprintf("workload=%s/records=%d/clients=%d", w.name, db.records, ycsbClients)
				b.Run(sub, func(b *testing.B) { benchYCSB(b, db, w.mix) })
			}
		})
	}
}

func loadYCSB(b *testing.B, name string) *ycsbDB {
	n := ycsbRecords()
	e := openEngine(b, name)
	load(b, e, RandomKey, n, ycsbValueSize)
	warm(b, e, n)
	db := &ycsbDB{e: e, records: uint64(n), zipf: NewZipf(uint64(n), ZipfTheta)}
	db.next.Store(uint64(n))
	return db
}

func benchYCSB(b *testing.B, db *ycsbDB, mix ycsbMix) {
	var claimed atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for g := range ycsbClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &ycsbClient{rng: newRand(uint64(g) + 100), kvs: make([]KV, 1)}
			for claimed.Add(1) <= int64(b.N) {
				if err := db.op(c, mix); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// op runs one operation drawn from mix.
func (db *ycsbDB) op(c *ycsbClient, mix ycsbMix) error {
	p := c.rng.Float64()
	switch {
	case p < mix.read:
		return db.read(c, mix.latest)
	case p < mix.read+mix.update:
		return db.write(c, db.pick(c, false))
	case p < mix.read+mix.update+mix.insert:
		return db.write(c, db.next.Add(1)-1)
	case p < mix.read+mix.update+mix.insert+mix.scan:
		return db.scan(c)
	}
	if err := db.read(c, false); err != nil { // read-modify-write
		return err
	}
	return db.write(c, db.pick(c, false))
}

// pick draws a record: scrambled zipfian over the loaded records, or for latest, zipfian back
// from the newest inserted record.
func (db *ycsbDB) pick(c *ycsbClient, latest bool) uint64 {
	if !latest {
		return db.zipf.Scrambled(c.rng)
	}
	newest := db.next.Load() - 1
	return newest - min(db.zipf.Next(c.rng), newest)
}

func (db *ycsbDB) read(c *ycsbClient, latest bool) error {
	i := db.pick(c, latest)
	c.key = RandomKey(c.key[:0], i)
	var err error
	c.dst, err = db.e.Get(c.dst[:0], c.key)
	if isNotFound(err) && i >= db.records {
		return nil // an insert claimed this record and has not committed yet
	}
	return err
}

// write puts record i with a new value in a durable transaction of its own.
func (db *ycsbDB) write(c *ycsbClient, i uint64) error {
	c.key = RandomKey(c.key[:0], i)
	c.kvs[0] = KV{c.key, Value(c.rng.Uint64(), ycsbValueSize)}
	return db.e.Write(c.kvs)
}

// scan reads 1 to 100 records (uniform) from a zipfian start key in a read transaction.
func (db *ycsbDB) scan(c *ycsbClient) error {
	c.key = RandomKey(c.key[:0], db.pick(c, false))
	tx, err := db.e.Begin()
	if err != nil {
		return err
	}
	_, err = tx.Scan(c.key, 1+c.rng.IntN(ycsbMaxScan), func(k, v []byte) {})
	if endErr := tx.End(); err == nil {
		err = endErr
	}
	return err
}

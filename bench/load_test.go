package bench

import (
	"fmt"
	"os"
	"testing"
)

// loadValueSize is the value size of the bulk loads.
const loadValueSize = 100

// BenchmarkBulkLoad measures loading keyCount keys into a new database in durable transactions
// of 1,000 keys, in random or ascending key order. An op is the whole load; the database's
// files are measured after Close (db-bytes, and bytes per key).
func BenchmarkBulkLoad(b *testing.B) {
	orders := []struct {
		name string
		keys keyFunc
	}{{"random", RandomKey}, {"seq", SeqKey}}
	for _, name := range Engines {
		for _, order := range orders {
			sub := fmt.Sprintf("engine=%s/order=%s/keys=%d/txn=%d", name, order.name, keyCount(), loadTxnSize)
			b.Run(sub, func(b *testing.B) { benchBulkLoad(b, name, order.keys) })
		}
	}
}

func benchBulkLoad(b *testing.B, name string, keys keyFunc) {
	n := keyCount()
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dir := tempDir(b)
		e, err := Open(name, dir, Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		load(b, e, keys, n, loadValueSize)
		b.StopTimer()
		size = closeAndSize(b, e)
		os.RemoveAll(dir)
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	b.ReportMetric(float64(size), "db-bytes")
	b.ReportMetric(float64(size)/float64(n), "bytes/key")
}

// closeAndSize closes e and returns the size of its files.
func closeAndSize(b *testing.B, e Engine) int64 {
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	size, err := e.Size()
	if err != nil {
		b.Fatal(err)
	}
	return size
}

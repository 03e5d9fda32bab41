package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeEngines are the rows of the write workloads: every engine, then the floor.
var writeEngines = append(append([]string{}, Engines...), FloorName)

// commitValueSize is the value size of the commit workloads.
const commitValueSize = 100

// reportLatency reports the percentiles of h as metrics.
func reportLatency(b *testing.B, h *Histogram) {
	for _, p := range []struct {
		q    float64
		unit string
	}{{0.5, "p50-ns"}, {0.95, "p95-ns"}, {0.99, "p99-ns"}, {0.999, "p99.9-ns"}} {
		b.ReportMetric(float64(h.Quantile(p.q)), p.unit)
	}
}

// syncCounter is implemented by the writers that count their fdatasyncs (cairn and the floor).
type syncCounter interface{ syncs() uint64 }

// BenchmarkCommitSync measures one writer committing one durable put at a time: overwriting one
// key, or inserting a new random key.
func BenchmarkCommitSync(b *testing.B) {
	for _, name := range writeEngines {
		for _, op := range []string{"overwrite", "insert"} {
			sub := fmt.Sprintf("engine=%s/op=%s/value=%d", name, op, commitValueSize)
			b.Run(sub, func(b *testing.B) { benchCommitSync(b, name, op == "insert") })
		}
	}
}

func benchCommitSync(b *testing.B, name string, insert bool) {
	commitSerial(b, openWriter(b, name, false), insert)
}

// commitSerial commits one put at a time to w and reports the latency percentiles.
func commitSerial(b *testing.B, w Writer, insert bool) {
	kvs := []KV{{Key: RandomKey(nil, 0), Value: Value(0, commitValueSize)}}
	if err := w.Write(kvs); err != nil {
		b.Fatal(err)
	}
	var h Histogram
	b.ReportAllocs()
	for i := uint64(1); b.Loop(); i++ {
		if insert {
			kvs[0].Key = RandomKey(kvs[0].Key[:0], i)
		}
		kvs[0].Value = Value(i, commitValueSize) // a new value: SQLite skips identical overwrites
		start := time.Now()
		if err := w.Write(kvs); err != nil {
			b.Fatal(err)
		}
		h.Record(time.Since(start))
	}
	reportLatency(b, &h)
}

// BenchmarkCommitNoSync is BenchmarkCommitSync's insert with the relaxed durability of the
// engines that have one (Config.NoSync): durable against a crash of the process, not of the
// machine. There is no fdatasync, so no floor row.
func BenchmarkCommitNoSync(b *testing.B) {
	for _, name := range NoSyncEngines {
		sub := fmt.Sprintf("engine=%s/op=insert/value=%d", name, commitValueSize)
		b.Run(sub, func(b *testing.B) {
			w := openEngineConfig(b, name, Config{NoSync: true})
			commitSerial(b, w, true)
		})
	}
}

// BenchmarkConcurrentWriters measures N goroutines each committing one durable insert of a
// random key at a time: commits/s, latency, and for cairn and the floor commits per fdatasync.
func BenchmarkConcurrentWriters(b *testing.B) {
	for _, name := range writeEngines {
		for _, writers := range []int{1, 8, 64} {
			sub := fmt.Sprintf("engine=%s/writers=%d/value=%d", name, writers, commitValueSize)
			b.Run(sub, func(b *testing.B) { benchConcurrentWriters(b, name, writers) })
		}
	}
}

func benchConcurrentWriters(b *testing.B, name string, writers int) {
	w := openWriter(b, name, true)
	syncs0 := countSyncs(w)
	hists := make([]Histogram, writers)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			commitLoop(b, w, &next, &hists[g])
		}()
	}
	wg.Wait()
	b.StopTimer()
	var h Histogram
	for i := range hists {
		h.Merge(&hists[i])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	if s := countSyncs(w) - syncs0; s > 0 {
		b.ReportMetric(float64(b.N)/float64(s), "commits/sync")
	}
	reportLatency(b, &h)
}

// commitLoop commits inserts of distinct random keys until b.N commits are claimed.
func commitLoop(b *testing.B, w Writer, next *atomic.Int64, h *Histogram) {
	kvs := []KV{{}}
	for {
		i := next.Add(1)
		if i > int64(b.N) {
			return
		}
		kvs[0] = KV{RandomKey(kvs[0].Key[:0], uint64(i)), Value(uint64(i), commitValueSize)}
		start := time.Now()
		if err := w.Write(kvs); err != nil {
			b.Error(err)
			return
		}
		h.Record(time.Since(start))
	}
}

// countSyncs returns the fdatasyncs w has counted, or 0 if it does not count them.
func countSyncs(w Writer) uint64 {
	if c, ok := w.(syncCounter); ok {
		return c.syncs()
	}
	return 0
}

package wal

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// SyncBuckets is the number of buckets of a SyncStats latency histogram.
const SyncBuckets = 24

// SyncStats counts the fdatasync calls of a Writer's batches and their latency.
type SyncStats struct {
	Syncs uint64        // fdatasync calls that returned (failed ones included)
	Total time.Duration // their summed latency
	// Histogram counts the calls by latency: bucket 0 holds those under 1 µs, bucket i > 0 those
	// in [2^(i-1), 2^i) µs, and the last bucket everything from 2^(SyncBuckets-2) µs (about 4 s).
	Histogram [SyncBuckets]uint64
}

// syncCounters are the atomic counters behind SyncStats: written by the goroutine writing a
// batch (one at a time), read by any.
type syncCounters struct {
	syncs atomic.Uint64
	nanos atomic.Uint64
	hist  [SyncBuckets]atomic.Uint64
}

func (c *syncCounters) record(d time.Duration) {
	c.syncs.Add(1)
	c.nanos.Add(uint64(d))
	c.hist[syncBucket(d)].Add(1)
}

// syncBucket returns the histogram bucket of latency d.
func syncBucket(d time.Duration) int {
	us := uint64(d / time.Microsecond)
	return min(bits.Len64(us), SyncBuckets-1)
}

func (c *syncCounters) snapshot() SyncStats {
	s := SyncStats{Syncs: c.syncs.Load(), Total: time.Duration(c.nanos.Load())}
	for i := range s.Histogram {
		s.Histogram[i] = c.hist[i].Load()
	}
	return s
}

// SyncStats returns the fdatasync counters of the Writer's batches; it may be called from any
// goroutine.
func (w *Writer) SyncStats() SyncStats { return w.syncs.snapshot() }

package bench

import (
	"math/bits"
	"time"
)

// subBits is the number of bits below the leading one that a histogram bucket keeps: buckets
// are at most 1/128 of their value wide.
const subBits = 7

// numBuckets covers every int64 nanosecond value.
const numBuckets = (65 - subBits) << subBits

// Histogram counts durations in log-linear buckets, precise to 1%, without allocating:
// recording it costs nothing that shows in allocs/op.
type Histogram struct {
	counts [numBuckets]uint64
	n      uint64
	max    time.Duration
}

// bucketOf returns the bucket of v: v itself below 256, else the top 8 bits of v and its shift.
func bucketOf(v uint64) int {
	shift := max(bits.Len64(v)-subBits-1, 0)
	if shift == 0 {
		return int(v)
	}
	return (shift+1)<<subBits + int(v>>shift) - 1<<subBits
}

// bucketMid returns the middle of the values of bucket i.
func bucketMid(i int) uint64 {
	if i < 2<<subBits {
		return uint64(i)
	}
	shift := i>>subBits - 1
	low := uint64(i&(1<<subBits-1)+1<<subBits) << shift
	return low + (1<<shift)/2
}

// Record counts one duration.
func (h *Histogram) Record(d time.Duration) {
	h.counts[bucketOf(uint64(max(d, 0)))]++
	h.n++
	h.max = max(h.max, d)
}

// Merge adds the counts of o.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// Count returns the number of durations recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Quantile returns the duration below which a fraction q of the recorded ones lie.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(bucketMid(i)), h.max)
		}
	}
	return h.max
}

// Max returns the longest duration recorded.
func (h *Histogram) Max() time.Duration { return h.max }

package bench

import (
	"math"
	"math/rand/v2"
)

// ZipfTheta is the skew of YCSB's zipfian request distribution.
const ZipfTheta = 0.99

// Zipf draws integers in [0, n) with P(i) proportional to 1/(i+1)^theta, by the method of Gray
// et al., "Quickly generating billion-record synthetic databases" (SIGMOD 1994), which YCSB uses.
// Its constants are computed once; Next may be called from many goroutines, each with its own
// generator.
type Zipf struct {
	n                   uint64
	theta, alpha, eta   float64
	zetan, halfPowTheta float64
}

// zeta returns the sum of 1/i^theta for i = 1..n.
func zeta(n uint64, theta float64) float64 {
	var sum float64
	for i := uint64(1); i <= n; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	return sum
}

// NewZipf returns a zipfian generator over [0, n) with skew theta (0 < theta < 1).
func NewZipf(n uint64, theta float64) *Zipf {
	z := &Zipf{n: n, theta: theta, zetan: zeta(n, theta)}
	z.alpha = 1 / (1 - theta)
	z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta(2, theta)/z.zetan)
	z.halfPowTheta = 1 + math.Pow(0.5, theta)
	return z
}

// Next returns the next value: 0 is the most frequent, then 1, and so on.
func (z *Zipf) Next(rng *rand.Rand) uint64 {
	u := rng.Float64()
	uz := u * z.zetan
	switch {
	case uz < 1:
		return 0
	case uz < z.halfPowTheta:
		return 1
	}
	return min(uint64(float64(z.n)*math.Pow(z.eta*u-z.eta+1, z.alpha)), z.n-1)
}

// Scrambled returns a zipfian value spread over [0, n) by a hash, so that the popular records
// are scattered over the key space instead of being its first keys (YCSB's scrambled zipfian).
func (z *Zipf) Scrambled(rng *rand.Rand) uint64 {
	return fnv64(z.Next(rng)) % z.n
}

// fnv64 is the FNV-1a hash of the 8 bytes of v.
func fnv64(v uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 1099511628211
		v >>= 8
	}
	return h
}

package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// lineSize is the CPU cache line in bytes: the memory latency benchmark puts one link per line.
const lineSize = 64

// BenchmarkMemoryLatency is the read rows' reference, as the floor is the write rows': the time
// of one load that depends on the one before, at a random line of a working set of each size
// (set=2MiB fits the L2 cache of the machines we measure on, set=256MiB fits no cache). An op
// is one load. Its rows are the floor engine's, so that the suite's tables show them in the
// floor column. The links form one random cycle through every line of the set, so neither the
// prefetchers nor the TLB can guess the next one, as with the leaves of a large tree: each is a
// separate 4 KiB allocation in the heap. A point get on a tree much larger than the caches pays
// at least two such misses in its leaf (the page's header with its element table, then the
// element's key and value) besides its way down the branches; docs/BENCHMARKS.md
// ("The read rows' floor") turns this into a floor for BenchmarkGet.
func BenchmarkMemoryLatency(b *testing.B) {
	for _, size := range []int{2 << 20, 256 << 20} {
		b.Run(fmt.Sprintf("engine=%s/set=%dMiB", FloorName, size>>20), func(b *testing.B) {
			links := randomCycle(size / lineSize)
			i := links[0]
			for b.Loop() {
				i = links[i*(lineSize/8)]
			}
			sink = i
		})
	}
}

// sink keeps the benchmark's last load, so that the compiler keeps the chain.
var sink uint64

// randomCycle returns lines cache lines of 8-byte words in which word 0 of each line holds the
// index of the next line of one random cycle through all of them.
func randomCycle(lines int) []uint64 {
	order := rand.New(rand.NewPCG(7, 7)).Perm(lines)
	links := make([]uint64, lines*(lineSize/8))
	for k, line := range order {
		links[line*(lineSize/8)] = uint64(order[(k+1)%lines])
	}
	return links
}

// TestRandomCycleVisitsEveryLine checks that the memory latency chain is one cycle through all
// lines: a shorter cycle would stay in the caches and understate the latency.
func TestRandomCycleVisitsEveryLine(t *testing.T) {
	const lines = 10_000
	links := randomCycle(lines)
	seen := make([]bool, lines)
	i := links[0]
	for range lines {
		if seen[i] {
			t.Fatalf("line %d visited twice before the cycle closed", i)
		}
		seen[i] = true
		i = links[i*(lineSize/8)]
	}
	if i != links[0] {
		t.Fatalf("after %d steps the chain is at line %d, not back at its start %d", lines, i, links[0])
	}
}

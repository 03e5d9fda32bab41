package btree

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/cairndb/cairn/pager"
)

// BenchmarkPutCommit measures the tree's share of a single-put write transaction: decode the path,
// put, commit (spill) and release, on a 100,000-key tree, with no WAL and no goroutines, so that
// changes to decoding and spilling show with little noise.
// Run: go test -run XXX -bench PutCommit -benchmem -count 6 ./btree
func BenchmarkPutCommit(b *testing.B) {
	pg := newPager(b, 4096)
	var ws Workspace
	key := func(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i*0x9E3779B97F4A7C15) }
	value := make([]byte, 100)
	root, lsn := uint64(0), uint64(0)
	commit := func(tr *Tree) {
		lsn++
		var err error
		if root, err = tr.Commit(lsn); err != nil {
			b.Fatal(err)
		}
		pg.Reclaim(pager.Readers{Published: lsn})
	}
	for start := uint64(0); start < 100_000; start += 10_000 {
		tr := Open(pg, root, true)
		for i := start; i < start+10_000; i++ {
			if err := tr.Put(key(i), value); err != nil {
				b.Fatal(err)
			}
		}
		commit(tr)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var tr Tree
	b.ReportAllocs()
	for b.Loop() {
		ws.Reset()
		tr.Reset(pg, root, true)
		tr.UseWorkspace(&ws)
		if err := tr.Put(key(rng.Uint64N(1_000_000)), value); err != nil {
			b.Fatal(err)
		}
		commit(&tr)
	}
}

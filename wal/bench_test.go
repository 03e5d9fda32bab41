package wal

import (
	"sync"
	"testing"
)

// BenchmarkWriteBatch measures one batch of 8 records of 256 bytes: encode, WriteAt, fdatasync.
// In steady state it allocates nothing.
func BenchmarkWriteBatch(b *testing.B) {
	f, _ := openFile(b)
	w, err := Create(f, testDB)
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]Record, 8)
	for i := range recs {
		recs[i].Payload = make([]byte, 256)
	}
	lsn := uint64(1)
	b.ReportAllocs()
	b.SetBytes(int64(len(recs) * 256))
	b.ResetTimer()
	for b.Loop() {
		for i := range recs {
			recs[i].LSN = lsn
			lsn++
		}
		if err := w.WriteBatch(recs); err != nil {
			b.Fatal(err)
		}
		if w.Size() > 64<<20 {
			if err := w.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCommitter measures commits of 128-byte records from 16 concurrent writers.
func BenchmarkCommitter(b *testing.B) {
	f, _ := openFile(b)
	w, err := Create(f, testDB)
	if err != nil {
		b.Fatal(err)
	}
	c := NewCommitter(logOf(b, w), 0, nil, nil)
	defer c.Close()
	payload := make([]byte, 128)
	var mu sync.Mutex
	lsn := uint64(0)
	b.ReportAllocs()
	b.SetParallelism(8) // 8 * GOMAXPROCS writers
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			lsn++
			t := c.Submit(lsn, payload)
			mu.Unlock()
			if err := t.Wait(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

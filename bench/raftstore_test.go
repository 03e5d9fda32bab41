package bench

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/raftstore"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	raftwal "github.com/hashicorp/raft-wal"
	raftbench "github.com/hashicorp/raft/bench"
)

// raftStore is what the raft store benchmarks use of an engine: a raft log and stable store.
type raftStore interface {
	raft.LogStore
	raft.StableStore
	io.Closer
}

// raftEngines are the raft log stores compared, each with its defaults, all durable: cairn's
// raftstore (cairn.SyncFull: one fdatasync per batch of commits), raft-boltdb/v2 (bbolt, an
// fdatasync per transaction) and raft-wal (an fsync per append, the stable store in a bbolt file).
var raftEngines = []struct {
	name string
	open func(dir string) (raftStore, error)
	// ordered: the engine takes appends only in index order without gaps (raft-wal), so
	// concurrent appenders take turns under a mutex.
	ordered bool
}{
	{"cairn", func(dir string) (raftStore, error) { return raftstore.Open(filepath.Join(dir, "raft.db"), nil) }, false},
	{"boltdb", func(dir string) (raftStore, error) { return raftboltdb.NewBoltStore(filepath.Join(dir, "raft.db")) }, false},
	{"wal", func(dir string) (raftStore, error) { return raftwal.Open(dir) }, true},
}

// openRaftStore opens a raft engine in a new directory, closed when tb ends.
func openRaftStore(tb testing.TB, open func(string) (raftStore, error)) raftStore {
	tb.Helper()
	s, err := open(tempDir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// BenchmarkRaftStore runs hashicorp/raft's store benchmarks (package raft/bench, as raft-boltdb
// and raft-wal run them) on each engine, and a concurrent append of its own:
// BenchmarkRaftStore/op=NAME/engine=E, so that `benchstat -col /engine` puts the engines side by
// side.
func BenchmarkRaftStore(b *testing.B) {
	ops := []struct {
		name string
		run  func(*testing.B, raftStore)
		// walSkip says why raft-wal cannot run the helper, if it cannot.
		walSkip string
	}{
		{"FirstIndex", func(b *testing.B, s raftStore) { raftbench.FirstIndex(b, s) }, ""},
		{"LastIndex", func(b *testing.B, s raftStore) { raftbench.LastIndex(b, s) }, ""},
		{"GetLog", func(b *testing.B, s raftStore) { raftbench.GetLog(b, s) }, ""},
		{"StoreLog", func(b *testing.B, s raftStore) { raftbench.StoreLog(b, s) }, "the helper's first index is 0"},
		{"StoreLogs", func(b *testing.B, s raftStore) { raftbench.StoreLogs(b, s) }, ""},
		{"DeleteRange", func(b *testing.B, s raftStore) { raftbench.DeleteRange(b, s) }, "the helper's first index is 0, and its log has gaps"},
		{"Set", func(b *testing.B, s raftStore) { raftbench.Set(b, s) }, ""},
		{"Get", func(b *testing.B, s raftStore) { raftbench.Get(b, s) }, ""},
		{"SetUint64", func(b *testing.B, s raftStore) { raftbench.SetUint64(b, s) }, ""},
		{"GetUint64", func(b *testing.B, s raftStore) { raftbench.GetUint64(b, s) }, ""},
	}
	for _, op := range ops {
		for _, e := range raftEngines {
			b.Run(fmt.Sprintf("op=%s/engine=%s", op.name, e.name), func(b *testing.B) {
				if e.name == "wal" && op.walSkip != "" {
					b.Skip("raft-wal refuses it: " + op.walSkip)
				}
				b.ReportAllocs()
				op.run(b, openRaftStore(b, e.open))
			})
		}
	}
	for _, writers := range []int{1, 8} {
		for _, e := range raftEngines {
			name := fmt.Sprintf("op=ConcurrentAppend/writers=%d/batch=%d/engine=%s", writers, appendBatch, e.name)
			b.Run(name, func(b *testing.B) {
				benchConcurrentAppend(b, openRaftStore(b, e.open), writers, e.ordered)
			})
		}
	}
}

// The concurrent append: each StoreLogs call stores appendBatch entries of appendData bytes.
const (
	appendBatch = 4
	appendData  = 128
)

// benchConcurrentAppend runs b.N StoreLogs calls of appendBatch new entries from writers
// goroutines at once, each call taking the next appendBatch indexes, and reports entries
// appended per second. An ordered engine's writers take turns under a mutex (index order); the
// others append concurrently, in whatever order their calls commit. One op is one StoreLogs
// call: ns/op is the time per call of the whole group, not of one writer.
func benchConcurrentAppend(b *testing.B, s raftStore, writers int, ordered bool) {
	var next atomic.Uint64
	var mu sync.Mutex
	data := Value(1, appendData)
	calls := uint64(b.N)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logs := make([]*raft.Log, appendBatch)
			for i := range logs {
				logs[i] = &raft.Log{Term: 1, Type: raft.LogCommand, Data: data}
			}
			for {
				if ordered {
					mu.Lock()
				}
				n := next.Add(1) - 1
				if n >= calls {
					if ordered {
						mu.Unlock()
					}
					return
				}
				for i, l := range logs {
					l.Index = n*appendBatch + uint64(i) + 1
				}
				err := s.StoreLogs(logs)
				if ordered {
					mu.Unlock()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(calls*appendBatch)/elapsed.Seconds(), "appends/s")
	if st, ok := s.(*raftstore.Store); ok {
		stats := st.DB().Stats()
		b.ReportMetric(float64(stats.Commits)/float64(max(stats.Batches, 1)), "commits/sync")
	}
}

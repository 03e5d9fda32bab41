package txn

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOldestIsTheSmallestPinnedOrPublished(t *testing.T) {
	r := NewRegistry[int]()
	published := uint64(10)
	pub := func() uint64 { return published }
	require.Equal(t, uint64(10), r.Oldest(published))
	a, lsn := r.Pin(pub)
	require.Equal(t, uint64(10), lsn)
	published = 20
	b, _ := r.Pin(pub)
	require.Equal(t, uint64(10), r.Oldest(published))
	require.Equal(t, 2, r.Active())
	r.Unpin(a)
	require.Equal(t, uint64(20), r.Oldest(published))
	r.Unpin(b)
	published = 30
	require.Equal(t, uint64(30), r.Oldest(published))
	require.Zero(t, r.Active())
}

func TestManyLongReadersOverflowBeyondThePerPSlots(t *testing.T) {
	r := NewRegistry[int]()
	var slots []*Slot[int]
	for i := range 100 {
		s, _ := r.Pin(func() uint64 { return uint64(1000 + i) })
		slots = append(slots, s)
	}
	require.Equal(t, 100, r.Active())
	require.Equal(t, uint64(1000), r.Oldest(5000))
	for _, s := range slots[:50] {
		r.Unpin(s)
	}
	require.Equal(t, uint64(1050), r.Oldest(5000))
	for _, s := range slots[50:] {
		r.Unpin(s)
	}
	require.Zero(t, r.Active())
}

// TestPinnedVersionIsNeverBelowOldest races pins against a moving published version and Oldest
// calls: no reader may use a version older than an Oldest result computed while it was pinned.
// A registry that registered after re-reading the published version fails it.
func TestPinnedVersionIsNeverBelowOldest(t *testing.T) {
	r := NewRegistry[int]()
	var published atomic.Uint64
	published.Store(1)
	var floor atomic.Uint64 // highest Oldest result so far
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s, v := r.Pin(published.Load)
				if f := floor.Load(); v < f {
					t.Errorf("reader uses version %d below a computed oldest %d", v, f)
				}
				r.Unpin(s)
			}
		}()
	}
	for range 50_000 {
		published.Add(1)
		o := r.Oldest(published.Load())
		for f := floor.Load(); o > f && !floor.CompareAndSwap(f, o); f = floor.Load() {
		}
	}
	close(stop)
	wg.Wait()
}

// mutexRegistry is the baseline the per-P registry is measured against: one mutex and a map.
type mutexRegistry struct {
	mu     sync.Mutex
	pinned map[uint64]int
}

func (m *mutexRegistry) pin(v uint64) {
	m.mu.Lock()
	m.pinned[v]++
	m.mu.Unlock()
}

func (m *mutexRegistry) unpin(v uint64) {
	m.mu.Lock()
	if m.pinned[v]--; m.pinned[v] == 0 {
		delete(m.pinned, v)
	}
	m.mu.Unlock()
}

// BenchmarkPinUnpin compares a read transaction's registration cost: go test -bench PinUnpin
// -cpu 1,2 -count 6 ./txn | benchstat -col /registry -
func BenchmarkPinUnpin(b *testing.B) {
	var published atomic.Uint64
	published.Store(7)
	b.Run("registry=per-P", func(b *testing.B) {
		r := NewRegistry[struct{}]()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s, _ := r.Pin(published.Load)
				r.Unpin(s)
			}
		})
	})
	b.Run("registry=mutex-map", func(b *testing.B) {
		m := &mutexRegistry{pinned: map[uint64]int{}}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				v := published.Load()
				m.pin(v)
				m.unpin(v)
			}
		})
	})
}

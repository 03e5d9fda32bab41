package txn

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOldestIsTheSmallestPinnedOrPublished(t *testing.T) {
	var r Registry
	published := uint64(10)
	pub := func() uint64 { return published }
	pin := func() uint64 { return Pin(&r, func() (uint64, uint64) { return published, published }) }
	require.Equal(t, uint64(10), r.Oldest(pub))
	a := pin()
	published = 20
	b := pin()
	require.Equal(t, uint64(10), r.Oldest(pub))
	r.Unpin(a)
	require.Equal(t, uint64(20), r.Oldest(pub))
	r.Unpin(b)
	published = 30
	require.Equal(t, uint64(30), r.Oldest(pub))
	require.Zero(t, r.Active())
}

// TestPinnedVersionIsNeverBelowOldest races pins against a moving published version and Oldest
// calls: no reader may hold a version older than an Oldest result computed while it was pinned.
func TestPinnedVersionIsNeverBelowOldest(t *testing.T) {
	var r Registry
	var published atomic.Uint64
	published.Store(1)
	var floor atomic.Uint64 // highest Oldest seen
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
				v := Pin(&r, func() (uint64, uint64) { v := published.Load(); return v, v })
				require.GreaterOrEqual(t, v, floor.Load(), "pinned a version below a computed oldest")
				r.Unpin(v)
			}
		}()
	}
	for range 20000 {
		published.Add(1)
		o := r.Oldest(published.Load)
		for f := floor.Load(); o > f && !floor.CompareAndSwap(f, o); f = floor.Load() {
		}
	}
	close(stop)
	wg.Wait()
}

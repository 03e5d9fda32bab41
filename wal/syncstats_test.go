package wal

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSyncBucket(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {999 * time.Nanosecond, 0}, {time.Microsecond, 1}, {3 * time.Microsecond, 2},
		{100 * time.Microsecond, 7}, {time.Second, 20}, {time.Hour, SyncBuckets - 1},
	} {
		require.Equal(t, c.want, syncBucket(c.d), "%v", c.d)
	}
	var sc syncCounters
	sc.record(100 * time.Microsecond)
	sc.record(300 * time.Microsecond)
	s := sc.snapshot()
	require.Equal(t, uint64(2), s.Syncs)
	require.Equal(t, 400*time.Microsecond, s.Total)
	require.Equal(t, uint64(1), s.Histogram[7])
	require.Equal(t, uint64(1), s.Histogram[9])
}

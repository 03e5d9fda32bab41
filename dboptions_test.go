package cairn

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDBOptionsReportsDefaults: Options returns what Open was given, defaults filled in.
func TestDBOptionsReportsDefaults(t *testing.T) {
	db, err := Open("opts.db", &Options{InMemory: true, Sync: SyncNone, CacheBytes: 1 << 20})
	require.NoError(t, err)
	defer db.Close()
	o := db.Options()
	require.Equal(t, SyncNone, o.Sync)
	require.Equal(t, int64(1<<20), o.CacheBytes)
	require.Equal(t, int64(defaultCheckpointBytes), o.CheckpointBytes)
	require.True(t, o.InMemory)
	require.Nil(t, o.fs)
}

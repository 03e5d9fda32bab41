package pager

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTruncateAfterAllocation: a page allocated after the checkpoint before a truncation (a
// commit running beside a compaction) must not stop the truncation: the file is cut after the
// last page in use, not left at its old size.
func TestTruncateAfterAllocation(t *testing.T) {
	p, f := memPager(t, 4096)
	var ids []uint64
	for range 50 {
		id, _ := p.Allocate(1, 1)
		ids = append(ids, id)
	}
	require.NoError(t, p.Checkpoint(ids[0], 0, 1))
	// The file is longer than its pages, as after a Shrink that dropped pages from its end.
	require.NoError(t, f.Truncate(p.FileSize()+64*4096))
	p.fileSize += 64 * 4096
	big := p.FileSize()
	p.Allocate(1, 2) // a commit after the checkpoint
	size, err := p.Truncate()
	require.NoError(t, err)
	require.Less(t, size, big, "the file was not cut")
	require.Equal(t, int64(p.PageCount())*4096, size, "cut after the last page in use")
	got, err := f.Size()
	require.NoError(t, err)
	require.Equal(t, size, got)
}

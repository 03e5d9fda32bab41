//go:build invariants

package txn

import (
	"testing"

	"github.com/cairndb/cairn/internal/invariants"
	"github.com/stretchr/testify/require"
)

// TestInvariantReaderSlots: a slot is unpinned once (Unpin).
func TestInvariantReaderSlots(t *testing.T) {
	r := NewRegistry[int]()
	s, _ := r.Pin(func() uint64 { return 7 })
	r.Unpin(s)
	defer func() {
		v, ok := recover().(*invariants.Violation)
		require.True(t, ok, "want a violation of %q", invariants.ReaderSlots)
		require.Equal(t, invariants.ReaderSlots, v.Invariant)
	}()
	r.Unpin(s)
}

package invariants

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFail: a failed check panics with a *Violation naming the invariant.
func TestFail(t *testing.T) {
	defer func() {
		v, ok := recover().(*Violation)
		require.True(t, ok)
		require.Equal(t, &Violation{Invariant: HeldCommits, Detail: "holdCommit: 3 records"}, v)
		require.EqualError(t, v, "invariant violated: held commits: holdCommit: 3 records")
	}()
	Fail(HeldCommits, "holdCommit: %d records", 3)
}

// Package invtest is the test helper shared by the tests of the invariants build's checks.
package invtest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/invariants"
)

// RequireViolation runs fn and requires that it panics with a violation of invariant (the name
// the check passes to invariants.Fail).
func RequireViolation(t testing.TB, invariant string, fn func()) {
	t.Helper()
	defer func() {
		r := recover()
		v, ok := r.(*invariants.Violation)
		require.True(t, ok, "want a panic with a violation of %q, got %v", invariant, r)
		require.Equal(t, invariant, v.Invariant, "%v", v)
		t.Logf("panic: %v", v)
	}()
	fn()
}

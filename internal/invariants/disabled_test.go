//go:build !invariants

package invariants

import "testing"

func TestDisabled(t *testing.T) {
	if Enabled {
		t.Fatal("Enabled is true in a build without -tags invariants")
	}
}

//go:build invariants

package invariants

import "testing"

func TestEnabled(t *testing.T) {
	if !Enabled {
		t.Fatal("Enabled is false in a build with -tags invariants")
	}
}

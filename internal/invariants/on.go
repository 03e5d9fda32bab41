//go:build invariants

package invariants

// Enabled is true: this is the invariants build (go build -tags invariants).
const Enabled = true

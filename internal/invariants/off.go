//go:build !invariants

package invariants

// Enabled is false: this is the normal build. Code under "if invariants.Enabled" is removed by
// the compiler.
const Enabled = false

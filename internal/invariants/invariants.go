// Package invariants switches cairn's run-time invariant checks on and off: Enabled is a
// constant, true only in a build with the tag "invariants", and every check is called as
//
//	if invariants.Enabled {
//		db.assertMarkers("setLatest")
//	}
//
// so that a normal build compiles the call away (the checked functions keep their size and
// inlining; the linker drops the checks). A check that finds its invariant broken calls Fail,
// which panics with a *Violation naming the invariant: a programmer error, never a report on
// the input (damage read from a file is an error wrapping cairn.ErrCorrupt in every build, and
// the checks that such damage could trip wait until the page accounting is trusted). The checks
// do not change what they check: they read atomics and what the locks their caller holds guard,
// take no lock of the database's, and read no file.
//
// Run the suite with every check on: go test -tags invariants ./...
package invariants

import "fmt"

// Violation is the value a failed check panics with: the name of the invariant and what was
// found. It is a programmer error, never a report on the input: damage read from a file is an
// error wrapping cairn.ErrCorrupt, in every build.
type Violation struct {
	// Invariant names the invariant, as the list in the package documentation does.
	Invariant string
	// Detail says where the check ran and which values broke it.
	Detail string
}

// Error returns "invariant violated: <invariant>: <detail>".
func (v *Violation) Error() string {
	return "invariant violated: " + v.Invariant + ": " + v.Detail
}

// Fail panics with a *Violation of invariant, its detail formatted as by fmt.Sprintf.
func Fail(invariant, format string, a ...any) {
	panic(&Violation{Invariant: invariant, Detail: fmt.Sprintf(format, a...)})
}

// The invariants, by the name a Violation carries.
const (
	VersionMarkers      = "version markers"
	HeldCommits         = "held commits"
	PendingVersions     = "pending versions"
	DurableMaterialized = "durable batch materialized"
	CheckpointPages     = "checkpoint page accounting"
	FreeList            = "free list"
	ReaderSlots         = "reader slots"
)

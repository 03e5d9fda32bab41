package txn

import "github.com/cairndb/cairn/internal/invariants"

// assertPinned checks, for the invariants build, that slot s pins a version when its owner
// unpins it: a second Unpin could free a slot another reader has claimed since, and the pages
// of that reader's version could then be reused under it.
func assertPinned[T any](s *Slot[T]) {
	if s.pinned.Load() == 0 {
		invariants.Fail(invariants.ReaderSlots, "Unpin of a slot that pins no version (unpinned twice?)")
	}
}

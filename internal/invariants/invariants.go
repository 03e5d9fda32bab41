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
// # Running
//
//	go test -tags invariants ./...                    # the whole suite, every check on
//	go test -tags invariants -run TestInvariant ./... # the tests that break each invariant
//	go build -tags invariants ./cmd/kvsh              # a kvsh that checks as it runs
//
// CI (.ci/run) runs the suite once with the tag, without -race.
//
// # The checks
//
// By the name a Violation carries (the constants below), with where they run:
//
//   - VersionMarkers (cairn, invariants.go): published.lsn <= latest.lsn <= headLSN (db.go,
//     "Version markers"), and none moves back; the published version is durable (at most the
//     last LSN of the batch just synced). In setLatest (before and after the stores), holdCommit,
//     and onDurable (before publishing and after).
//   - HeldCommits (cairn): the commits in (latest.lsn, headLSN] are exactly the held ones, one
//     record each in LSN order, and held.bytes is the sum of the records' lengths (commit.go's
//     header); a commit is held at headLSN+1, on latest (a transaction a copy materialization
//     overtook has rebased), and never while the drop stack frees pages. In setLatest (nothing
//     held after the new latest) and holdCommit (before and after). Skipped on a failed
//     database, whose failed materialization drops the held commits.
//   - PendingVersions (cairn): the versions waiting for their batch's fdatasync are in LSN
//     order, after the published one and at most headLSN. Where a version is queued
//     (submitVersion, materializeTrees) and in onDurable.
//   - DurableMaterialized (cairn): a batch reported durable is covered by a materialization:
//     latest.lsn >= the batch's last LSN, so every acknowledged commit is in a pending or
//     published version (commit.go's header). In onDurable.
//   - CheckpointPages (cairn): at each checkpoint (beginCheckpoint, before the plan), Check's
//     page accounting of the version to checkpoint: no page its trees reach (default key space,
//     catalog, buckets, the drop stack's extents) is reusable, pending or in the free-list
//     extent, or reached twice; no page is free twice; every extent allocated since the last
//     checkpoint is in the trees; the trees are well formed; and, when every extent was in
//     memory, no page is lost. The walk reads only extents in memory (pager.Resident): no I/O,
//     no change to the cache.
//   - FreeList (pager, invariants.go): commits free in LSN order, in the fresh and the durable
//     queue (pager/free.go; checked in Free); at each PrepareCheckpoint the reusable ids are
//     sorted descending and the queues in LSN order, and with trusted accounting every page id
//     lies in [MetaPages, page count) and has at most one of the statuses reusable, pending,
//     allocated since the checkpoint, and in the durable meta page's free-list extent.
//   - ReaderSlots (txn, invariants.go): a reader slot is unpinned only while it pins a version
//     (Unpin), so that no reader's slot is freed under it.
//   - PageLeaves (btree, commit.go): a leaf written as the merge of its page and the keys Put
//     inserted (spillPageLeaf) is a well-formed page (btree.Validate: keys strictly ascending,
//     prefixes matching, every element inside the page). In spillPageLeaf, per leaf written.
//
// Trusted accounting. A free list read from a file may list a page the tree uses, damage that
// Check reports but no read notices; a commit could then free or reuse that page, and the
// checks above would see a bug where there is damage. So CheckpointPages and the cross-status
// part of FreeList run only while the pager's accounting is trusted: the pager created its file
// in this process, or a Check since Open found no problem (pager.AccountingTrusted).
//
// Cost. Off (no tag): nothing; the calls compile to nothing, and the checked functions compile
// to the same instructions as without them. On: a few atomic loads per commit and per batch, a
// sum over the held records (at most maxHeldCommits) per held commit, and per checkpoint a walk
// over the part of the version in memory with one byte per page; the suite's time does not
// change measurably.
//
// Each check has a test, built with the tag, that breaks its invariant on purpose and expects
// the panic (invariants_test.go in the root package, pager and txn): a new check needs one too.
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

// The invariants, by the name a Violation carries (see the list above).
const (
	VersionMarkers      = "version markers"
	HeldCommits         = "held commits"
	PendingVersions     = "pending versions"
	DurableMaterialized = "durable batch materialized"
	CheckpointPages     = "checkpoint page accounting"
	FreeList            = "free list"
	ReaderSlots         = "reader slots"
	PageLeaves          = "page leaves"
)

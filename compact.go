package cairn

import (
	"context"
	"fmt"
	"slices"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/ondisk"
)

// CompactStats reports the progress and the result of Compact.
type CompactStats struct {
	Passes      int    // relocation passes run
	Moved       int    // extents rewritten to lower page ids
	PagesBefore uint64 // page count when Compact began
	PagesAfter  uint64 // page count now
	FileBefore  int64  // file size in bytes when Compact began
	FileAfter   int64  // file size in bytes now
}

// Compact shrinks the database file online: it moves the pages near the end of the file to free
// pages nearer its start and truncates the file after the last used page. Readers and writers go
// on: Compact works in steps, each a short write transaction that rewrites at most
// compactBudget (256) extents, with checkpoints between its passes. It first lets the pages of
// deleted buckets be freed and checkpoints, so that every freed page can be reused. progress, if
// not nil, is called after every step. ctx is checked between steps (a nil ctx is
// context.Background()).
//
// Pages that a read transaction still pins cannot be reused, so a long reader open during
// Compact leaves the file larger. Compact runs at most four passes; the file is as small as
// the live pages plus about an eighth. A crash at any point loses nothing: every step is an
// ordinary commit, and the file is cut only after a checkpoint has recorded the smaller size.
// Errors: ctx's error between steps, ErrClosed, and those of Update and Checkpoint.
func (db *DB) Compact(ctx context.Context, progress func(CompactStats)) (CompactStats, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	st := CompactStats{PagesBefore: db.pager.PageCount(), FileBefore: db.pager.FileSize()}
	report := func() {
		st.PagesAfter, st.FileAfter = db.pager.PageCount(), db.pager.FileSize()
		if progress != nil {
			progress(st)
		}
	}
	for db.dropping() {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if err := db.commitStep(nil); err != nil {
			return st, err
		}
		report()
	}
	// The pages freed so far become reusable at a checkpoint: relocation needs them.
	if err := db.shrink(ctx); err != nil {
		return st, err
	}
	report()
	for st.Passes < maxCompactPasses {
		before := db.pager.PageCount()
		above := db.compactTarget()
		if above >= before {
			break
		}
		st.Passes++
		moved, err := db.relocateAll(ctx, above, func(n int) { st.Moved += n; report() })
		if err != nil {
			return st, err
		}
		if err := db.shrink(ctx); err != nil {
			return st, err
		}
		report()
		if moved == 0 && db.pager.PageCount() >= before {
			break
		}
	}
	report()
	return st, nil
}

const (
	maxCompactPasses = 4
	compactBudget    = 256
)

func (db *DB) dropping() bool {
	db.lockWriter()
	defer db.unlockWriter()
	return db.latest.Load().dropping // held commits never change it (mayHold)
}

// compactTarget returns the page id from which extents are moved: the live pages plus an eighth
// (and 64 pages) of room, so that moved extents and the paths rewritten above them find free
// runs below it.
func (db *DB) compactTarget() uint64 {
	reusable, pending, freelist := db.pager.Accounting()
	count := db.pager.PageCount()
	unused := uint64(len(reusable) + len(pending) + len(freelist))
	if unused+2 > count {
		return count // inconsistent counts (Check would say why): move nothing
	}
	live := count - 2 - unused
	return 2 + live + live/8 + 64
}

// relocateAll moves every extent at or above page id above, in steps, and returns how many.
func (db *DB) relocateAll(ctx context.Context, above uint64, stepped func(int)) (int, error) {
	names, err := db.bucketNames()
	if err != nil {
		return 0, err
	}
	total := 0
	// nil: the default key space; catalogTree: the catalog; others: buckets.
	for _, name := range append([][]byte{nil, catalogTree}, names...) {
		var from []byte
		for first := true; first || from != nil; first = false {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			moved := 0
			err := db.commitStep(func(tx *Tx) error {
				t, err := tx.treeFor(name)
				if t == nil || err != nil {
					return err
				}
				from, moved, err = t.Relocate(above, from, compactBudget)
				return err
			})
			if err != nil {
				return total, err
			}
			total += moved
			stepped(moved)
		}
	}
	return total, nil
}

// catalogTree names the catalog in relocateAll (no bucket name is empty).
var catalogTree = []byte{}

// treeFor returns the tree of the default key space (name nil), of the catalog (name empty) or
// of a bucket (nil if it was deleted meanwhile).
func (tx *Tx) treeFor(name []byte) (*btree.Tree, error) {
	switch {
	case name == nil:
		return &tx.main.tree, nil
	case len(name) == 0:
		return tx.openCatalog(), nil
	}
	b, err := tx.Bucket(name)
	if err != nil {
		return nil, nil
	}
	return &b.tree, nil
}

func (db *DB) bucketNames() ([][]byte, error) {
	var names [][]byte
	err := db.View(func(tx *Tx) error {
		return tx.ForEachBucket(func(name []byte) error {
			names = append(names, slices.Clone(name))
			return nil
		})
	})
	return names, err
}

// commitStep commits a write transaction that changes pages but no key (relocation, or a step
// of freeing a deleted bucket's pages): its WAL record holds no operation, as replay needs none
// (the pages it writes become durable at the next checkpoint).
func (db *DB) commitStep(fn func(tx *Tx) error) error {
	tx, err := db.Begin(true)
	if err != nil {
		return err
	}
	// Start on pages: a step's changes are not in its record, so a rebase (after a copy
	// materialization of held commits, commit.go) would lose them.
	if err := tx.materializeHeld(); err != nil {
		tx.Rollback()
		return fmt.Errorf("cairn: compact: %w", err)
	}
	if fn != nil {
		if err := fn(tx); err != nil {
			tx.Rollback()
			return fmt.Errorf("cairn: compact: %w", err)
		}
	}
	tx.redo = append(tx.redo[:0], ondisk.RedoTxn)
	return tx.Commit()
}

// shrink checkpoints (so the pages freed by relocation may be reused), drops the free pages at
// the end of the file, records the smaller page count with a checkpoint and truncates the file.
func (db *DB) shrink(ctx context.Context) error {
	if err := db.Checkpoint(ctx); err != nil {
		return err
	}
	// No checkpoint may run from here to the truncation: its plan's page count would be stale.
	db.checkpointMu.Lock()
	defer db.checkpointMu.Unlock()
	db.lockWriter()
	db.stateMu.Lock()
	db.pager.Reclaim(db.readerSet())
	dropped := db.pager.Shrink()
	db.stateMu.Unlock()
	db.unlockWriter()
	if dropped == 0 {
		return nil
	}
	// A new meta page needs a newer version: commit an empty step, then checkpoint.
	if err := db.commitStep(nil); err != nil {
		return err
	}
	if err := db.checkpointLocked(ctx); err != nil {
		return err
	}
	_, err := db.pager.Truncate()
	return err
}

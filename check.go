package cairn

import (
	"fmt"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/pager"
)

// check verifies the newest version: the tree's invariants (btree.Check) and that every page id
// of the file is used exactly once, by the tree, the free list or the meta page's free-list extent
// (no page both free and used, none lost). It holds the writer slot while it runs.
// Issue 6 grows this into the public DB.Check.
func (db *DB) check() error {
	db.writer.Lock()
	defer db.writer.Unlock()
	if t := db.lastTicket; t != nil {
		if err := t.Wait(); err != nil {
			return err
		}
	}
	owner := make(map[uint64]string)
	var problem error
	claim := func(id uint64, who string) {
		if prev, dup := owner[id]; dup && problem == nil {
			problem = fmt.Errorf("cairn: check: page %d used by %s and %s", id, prev, who)
		}
		owner[id] = who
	}
	err := btree.Check(db.pager, db.latest.root, func(id uint64, pages int) {
		for i := range uint64(pages) {
			claim(id+i, "the tree")
		}
	})
	if err != nil {
		return fmt.Errorf("cairn: check: %w", err)
	}
	reusable, pending, freelist := db.pager.Accounting()
	for who, ids := range map[string][]uint64{"the free list": reusable, "the pending free list": pending, "the free-list extent": freelist} {
		for _, id := range ids {
			claim(id, who)
		}
	}
	if problem != nil {
		return problem
	}
	for id := uint64(pager.MetaPages); id < db.pager.PageCount(); id++ {
		if _, ok := owner[id]; !ok {
			return fmt.Errorf("cairn: check: page %d is neither used nor free (leaked)", id)
		}
	}
	if n := uint64(len(owner)); n != db.pager.PageCount()-pager.MetaPages {
		return fmt.Errorf("cairn: check: %d pages accounted for, file has %d", n, db.pager.PageCount()-pager.MetaPages)
	}
	return nil
}

package main

// The trees .pages walks beside the default key space: the bucket catalog
// whose root is in the meta page, the tree of every bucket the catalog lists, and the extents of
// deleted buckets on the catalog's drop stack, which later commits free in bounded steps. The
// catalog's keys and values are those of package internal/ondisk, which the library writes with.

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/pager"
)

// treeWalk adds the extents of the trees of one meta page to a layout.
type treeWalk struct {
	pf    *pageFile
	ctx   context.Context
	l     *layout
	types map[uint64]byte // page type of every extent read
	// onRead, if set, is called with every extent read and verified.
	onRead func(id uint64, b []byte)
}

// read reads and verifies the extent at id for a tree walk.
func (w *treeWalk) read(id uint64) ([]byte, error) {
	if w.ctx.Err() != nil {
		return nil, errInterrupted
	}
	b, err := w.pf.extent(id)
	if err == nil {
		w.types[id] = pager.Type(b)
		if w.onRead != nil {
			w.onRead(id, b)
		}
	}
	return b, err
}

// addTree names a tree of the layout (a bucket's if bucket is set) and returns its index.
func (w *treeWalk) addTree(name string, bucket bool) int {
	w.l.trees = append(w.l.trees, treeName{name, bucket})
	return len(w.l.trees) - 1
}

// walk adds the extents of the tree (or subtree) at root as tree's, checking it as a read
// would.
func (w *treeWalk) walk(tree int, root uint64) {
	c := btree.Checker{PageSize: w.pf.pageSize(), Read: w.read}
	c.Visit = func(id uint64, pages int) {
		w.l.spans = append(w.l.spans, span{id, max(uint64(pages), 1), classOf(w.types[id], pages), tree})
	}
	w.l.problems = append(w.l.problems, c.Walk(root)...)
}

// catalogEntries is what the catalog lists.
type catalogEntries struct {
	names [][]byte
	roots []uint64
	drop  []uint64 // the drop stack, bottom first
}

// catalog walks the catalog tree at root, then every bucket's tree and the deleted buckets'
// extents.
func (w *treeWalk) catalog(root uint64) {
	var leaves [][]byte
	var ids []uint64
	w.onRead = func(id uint64, b []byte) {
		if pager.Type(b) == pager.PageLeaf {
			leaves, ids = append(leaves, b), append(ids, id)
		}
	}
	w.walk(w.addTree("catalog", false), root)
	w.onRead = nil
	var ce catalogEntries
	for i, b := range leaves {
		w.catalogLeaf(&ce, ids[i], b)
	}
	for i, name := range ce.names {
		w.walk(w.addTree("bucket "+shortName(name), true), ce.roots[i])
	}
	if len(ce.drop) > 0 {
		w.dropped(w.addTree("deleted buckets", false), ce.drop)
	}
}

// catalogLeaf adds the entries of catalog leaf b at id to ce.
func (w *treeWalk) catalogLeaf(ce *catalogEntries, id uint64, b []byte) {
	elems, err := btree.Elements(id, b)
	if err != nil {
		return // the walk reported it
	}
	for _, e := range elems {
		v, err := w.value(e)
		if err != nil {
			w.l.problems = append(w.l.problems, err)
		}
		if v == nil {
			continue
		}
		k := e.Key
		switch {
		case len(k) > 1 && k[0] == ondisk.CatalogBucket && len(v) == ondisk.BucketEntrySize && v[0] == ondisk.BucketKind:
			ce.names = append(ce.names, k[1:])
			ce.roots = append(ce.roots, binary.LittleEndian.Uint64(v[1:]))
		case len(k) == 1 && k[0] == ondisk.CatalogDropStack && len(v)%8 == 0:
			for i := 0; i < len(v); i += 8 {
				ce.drop = append(ce.drop, binary.LittleEndian.Uint64(v[i:]))
			}
		default:
			w.l.problems = append(w.l.problems, fmt.Errorf("bucket catalog: page %d: bad entry %s (%d bytes)",
				id, formatCut(k, maxInspectField), len(v)))
		}
	}
}

// value returns the value of leaf element e, reading it from its overflow extent if needed. It
// returns nil if the value cannot be read, with an error if the walk did not report why.
func (w *treeWalk) value(e btree.Element) ([]byte, error) {
	if e.Value != nil {
		return e.Value, nil
	}
	b, err := w.pf.extent(e.Overflow)
	if err != nil {
		return nil, nil // the walk reported it
	}
	end := pager.HeaderSize + int(e.ValueSize)
	if end > len(b) {
		return nil, fmt.Errorf("bucket catalog: overflow page %d: %d bytes, shorter than its value", e.Overflow, len(b))
	}
	return b[pager.HeaderSize:end], nil
}

// dropped adds the extents on the drop stack and everything they reference: each is the root of
// a subtree of a deleted bucket, or an overflow value of one.
func (w *treeWalk) dropped(tree int, ids []uint64) {
	for _, id := range ids {
		b, err := w.read(id)
		switch {
		case err != nil:
			w.l.problems = append(w.l.problems, fmt.Errorf("bucket catalog: drop stack: %w", err))
			w.l.spans = append(w.l.spans, span{id, 1, classUnreadable, tree})
		case pager.Type(b) == pager.PageOverflow:
			w.l.spans = append(w.l.spans, span{id, uint64(len(b) / w.pf.pageSize()), classOverflow, tree})
		default:
			w.walk(tree, id)
		}
	}
}

// maxShownBuckets is the number of buckets .pages lists one by one; the rest are summed on one
// line.
const maxShownBuckets = 20

// printTrees prints the pages, bytes and extents of each tree the layout walked (its extents as
// found, whether or not another tree claims them too).
func printTrees(out io.Writer, l *layout, pageSize uint64) {
	pages := make([]uint64, len(l.trees))
	extents := make([]uint64, len(l.trees))
	for _, s := range l.spans {
		if s.tree != noTree {
			pages[s.tree] += s.pages
			extents[s.tree]++
		}
	}
	row := func(name string, p, e uint64) []string {
		return []string{name, fmt.Sprint(p), fmt.Sprint(p * pageSize), fmt.Sprint(e)}
	}
	rows := [][]string{{"tree", "pages", "bytes", "extents"}}
	var buckets, hidden, hiddenPages, hiddenExtents uint64
	for i, t := range l.trees {
		switch {
		case t.bucket && buckets == maxShownBuckets:
			hidden, hiddenPages, hiddenExtents = hidden+1, hiddenPages+pages[i], hiddenExtents+extents[i]
			continue
		case t.bucket:
			buckets++
		case hidden > 0: // the first tree after the buckets
			rows = append(rows, row(fmt.Sprintf("… %d more buckets", hidden), hiddenPages, hiddenExtents))
			hidden = 0
		}
		rows = append(rows, row(t.name, pages[i], extents[i]))
	}
	if hidden > 0 {
		rows = append(rows, row(fmt.Sprintf("… %d more buckets", hidden), hiddenPages, hiddenExtents))
	}
	printTable(out, rows)
}

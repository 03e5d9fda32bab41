package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/pager"
)

// pageClass is what a page of the file holds, as .pages counts it.
type pageClass uint8

// The page classes, in the order .pages lists them.
const (
	classMeta pageClass = iota
	classBranch
	classLeaf
	classOverflow
	classFreelist
	classFree
	classUnreadable
	classUnaccounted // reached neither from the meta page's trees nor from its free list
	numClasses
)

// classNames are the names .pages prints for the classes.
var classNames = [numClasses]string{"meta", "branch", "leaf", "overflow", "free-list", "free", "unreadable", "unaccounted"}

// span is one extent (or one free page) the layout found.
type span struct {
	id, pages uint64
	class     pageClass
	tree      int // index of the tree holding it in layout.trees, or noTree
}

// noTree is the tree of the spans that belong to no tree: meta pages, the free list and the
// pages it lists.
const noTree = -1

// layout is the use of every page of the file, found from the current meta page: the trees
// (the default key space, the bucket catalog, the buckets it lists, the deleted buckets on its
// drop stack), the free-list extent and the ids it lists.
type layout struct {
	spans    []span     // sorted by id once built
	trees    []treeName // the trees walked, in order
	problems []error    // damage met on the way (unreadable extents, tree invariants)
}

// treeName names a tree of a layout.
type treeName struct {
	name   string
	bucket bool // a bucket's tree
}

// layout walks the trees and the free list of the current meta page. Ctrl-C stops it.
func (pf *pageFile) layout(ctx context.Context) (*layout, error) {
	l := &layout{spans: []span{{0, 1, classMeta, noTree}, {1, 1, classMeta, noTree}}}
	l.addFreelist(pf)
	w := &treeWalk{pf: pf, ctx: ctx, l: l, types: make(map[uint64]byte)}
	w.walk(w.addTree("default", false), pf.meta.Root)
	if pf.meta.Catalog != 0 {
		w.catalog(pf.meta.Catalog)
	}
	if ctx.Err() != nil {
		return nil, errInterrupted
	}
	slices.SortFunc(l.spans, func(a, b span) int { return compareIDs(a.id, b.id) })
	return l, nil
}

// addFreelist adds the free-list extent and the pages it lists.
func (l *layout) addFreelist(pf *pageFile) {
	m := pf.meta
	if m.FreelistID == 0 {
		return
	}
	ids, err := pf.freelist()
	if err != nil {
		l.problems = append(l.problems, err)
		l.spans = append(l.spans, span{m.FreelistID, 1, classUnreadable, noTree})
		return
	}
	l.spans = append(l.spans, span{m.FreelistID, m.FreelistPages, classFreelist, noTree})
	for _, id := range ids {
		l.spans = append(l.spans, span{id, 1, classFree, noTree})
	}
}

// classOf is the class of an extent of page type typ that the tree walk visited (pages 0: it
// could not be read).
func classOf(typ byte, pages int) pageClass {
	switch {
	case pages == 0:
		return classUnreadable
	case typ == pager.PageBranch:
		return classBranch
	case typ == pager.PageLeaf:
		return classLeaf
	case typ == pager.PageOverflow:
		return classOverflow
	case typ == pager.PageFreelist:
		return classFreelist
	}
	return classUnreadable
}

func compareIDs(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// owner returns the span that holds page id, if any.
func (l *layout) owner(id uint64) (span, bool) {
	// i is the first span starting after id: the one before it is the last starting at or before.
	i, _ := slices.BinarySearchFunc(l.spans, id+1, func(s span, x uint64) int { return compareIDs(s.id, x) })
	if i > 0 && id < l.spans[i-1].id+l.spans[i-1].pages {
		return l.spans[i-1], true
	}
	return span{}, false
}

// usage counts the pages and extents of each class among the first limit pages (a page two
// spans claim counts for the first, and in twice), and the pages no span claims.
func (l *layout) usage(limit uint64) (pages, extents [numClasses]uint64, twice uint64) {
	next := uint64(0) // every page below next is counted
	for _, s := range l.spans {
		extents[s.class]++
		start, end := min(s.id, limit), min(s.id+s.pages, limit)
		if start > next {
			pages[classUnaccounted] += start - next
			next = start
		}
		if o := min(next, end); o > start {
			twice += o - start
		}
		if end > next {
			pages[s.class] += end - next
			next = end
		}
	}
	if next < limit {
		pages[classUnaccounted] += limit - next
	}
	return pages, extents, twice
}

// cmdPages prints the page usage of the database file as of the last checkpoint.
func cmdPages(sh *shell, ctx context.Context, _ [][]byte) error {
	return sh.inspect(func(pf *pageFile) error {
		if err := pf.current(); err != nil {
			return err
		}
		l, err := pf.layout(ctx)
		if err != nil {
			return err
		}
		pf.printSummary(sh.out, l)
		printUsage(sh.out, l, pf)
		printTrees(sh.out, l, uint64(pf.meta.PageSize))
		printProblems(sh.out, l.problems)
		return nil
	})
}

// printSummary prints the file-level lines of .pages.
func (pf *pageFile) printSummary(out io.Writer, l *layout) {
	m, ps := pf.meta, uint64(pf.meta.PageSize)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "checkpoint\tLSN %d, sequence %d, meta page %d (later commits are in memory and the WAL only)\n",
		m.LSN, m.Seq, pf.metas.Current)
	fmt.Fprintf(tw, "page size\t%d bytes\n", ps)
	fmt.Fprintf(tw, "page count\t%d (%d bytes)\n", m.PageCount, m.PageCount*ps)
	filePages := uint64(pf.size) / ps
	switch {
	case filePages < m.PageCount:
		fmt.Fprintf(tw, "file size\t%d bytes (%d pages: %d short of the page count)\n", pf.size, filePages, m.PageCount-filePages)
	default:
		fmt.Fprintf(tw, "file size\t%d bytes (%d pages, %d past the page count)\n", pf.size, filePages, filePages-m.PageCount)
	}
	free := 0
	for _, s := range l.spans {
		if s.class == classFree {
			free++
		}
	}
	if m.FreelistID == 0 {
		fmt.Fprintf(tw, "free list\tnone\n")
	} else {
		fmt.Fprintf(tw, "free list\t%d ids in a %d-page extent at page %d\n", free, m.FreelistPages, m.FreelistID)
	}
	tw.Flush()
}

// printUsage prints the table of pages, bytes and extents per class.
func printUsage(out io.Writer, l *layout, pf *pageFile) {
	pages, extents, twice := l.usage(pf.limit)
	ps := uint64(pf.meta.PageSize)
	rows := [][]string{{"type", "pages", "bytes", "extents"}}
	for c := range numClasses {
		ext := fmt.Sprint(extents[c])
		if c == classFree || c == classUnaccounted {
			ext = "-"
		}
		rows = append(rows, []string{classNames[c], fmt.Sprint(pages[c]), fmt.Sprint(pages[c] * ps), ext})
	}
	printTable(out, rows)
	if twice > 0 {
		fmt.Fprintf(out, "%s claimed twice (counted once above)\n", plural(twice, "page"))
	}
}

// printTable prints rows as columns two spaces apart: the first left-aligned, the others
// (numbers) right-aligned.
func printTable(out io.Writer, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, cell := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len(cell))
		}
	}
	for _, r := range rows {
		line := fmt.Sprintf("%-*s", width[0], r[0])
		for i := 1; i < len(r); i++ {
			line += fmt.Sprintf("  %*s", width[i], r[i])
		}
		fmt.Fprintln(out, line)
	}
}

// maxShownProblems is the number of problems .pages lists.
const maxShownProblems = 10

// printProblems lists the first problems the walk met.
func printProblems(out io.Writer, problems []error) {
	for i, p := range problems {
		if i == maxShownProblems {
			fmt.Fprintf(out, "… and %d more problems (check lists them all)\n", len(problems)-i)
			break
		}
		fmt.Fprintf(out, "problem: %v\n", p)
	}
}

// cmdPage prints one page of the file, decoded.
func cmdPage(sh *shell, ctx context.Context, args [][]byte) error {
	id, err := parsePageID(args[0])
	if err != nil {
		return err
	}
	return sh.inspect(func(pf *pageFile) error {
		if id < pager.MetaPages {
			printMeta(sh.out, pf.metas, int(id))
			return nil
		}
		if err := pf.current(); err != nil {
			return err
		}
		return pf.printPage(ctx, sh.out, id)
	})
}

// parsePageID parses a decimal page id.
func parsePageID(arg []byte) (uint64, error) {
	var id uint64
	if len(arg) == 0 || len(arg) > 19 {
		return 0, fmt.Errorf("usage: .page N (N is a page number, not %s)", formatBytes(arg))
	}
	for _, c := range arg {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("usage: .page N (N is a page number, not %s)", formatBytes(arg))
		}
		id = id*10 + uint64(c-'0')
	}
	return id, nil
}

// printPage prints the extent whose first page is id: its header and its contents.
func (pf *pageFile) printPage(ctx context.Context, out io.Writer, id uint64) error {
	switch m := pf.meta; {
	case id >= m.PageCount:
		return fmt.Errorf("page %d is past the end: the checkpoint counts %d pages", id, m.PageCount)
	case id >= pf.limit:
		return fmt.Errorf("page %d is missing: the file ends after %d pages", id, pf.limit)
	}
	if free, err := pf.freelist(); err == nil && slices.Contains(free, id) {
		fmt.Fprintf(out, "page %d (offset %d): free (in the free list of the checkpoint at LSN %d); its bytes are not read\n",
			id, id*uint64(pf.pageSize()), pf.meta.LSN)
		return nil
	}
	b, err := pager.ReadExtentAt(pf.f, pf.pageSize(), pf.limit, id)
	if err == nil {
		err = pager.VerifyExtent(id, b, pf.pageSize())
	}
	if err != nil && pf.printInside(ctx, out, id) {
		return nil
	}
	if b != nil {
		pf.printHeader(out, id, b)
	}
	if err != nil {
		return err
	}
	return pf.printBody(out, id, b)
}

// printInside reports whether page id lies inside an extent that starts before it, and if so
// says which. It walks the whole tree.
func (pf *pageFile) printInside(ctx context.Context, out io.Writer, id uint64) bool {
	l, err := pf.layout(ctx)
	if err != nil {
		return false
	}
	s, ok := l.owner(id)
	if !ok || s.id == id {
		return false
	}
	fmt.Fprintf(out, "page %d is page %d of %d of the %s extent at page %d (.page %d shows it)\n",
		id, id-s.id+1, s.pages, classNames[s.class], s.id, s.id)
	return true
}

// printHeader prints the page header of extent b at id.
func (pf *pageFile) printHeader(out io.Writer, id uint64, b []byte) {
	h, _ := pager.DecodeHeader(b) // b holds at least one page
	fmt.Fprintf(out, "page %d (offset %d, checkpoint LSN %d)\n", id, id*uint64(pf.pageSize()), pf.meta.LSN)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  type\t%d (%s)\n", h.Type, pager.TypeName(h.Type))
	fmt.Fprintf(tw, "  elements\t%d\n", h.Count)
	fmt.Fprintf(tw, "  extent\t%s (%d bytes)\n", plural(h.Pages, "page"), h.Pages*uint64(pf.pageSize()))
	fmt.Fprintf(tw, "  alloc LSN\t%d\n", h.AllocLSN)
	fmt.Fprintf(tw, "  flags\t%s\n", describeFlags(h.Flags))
	fmt.Fprintf(tw, "  reserved\t%d\n", h.Reserved)
	fmt.Fprintf(tw, "  checksum\t%s\n", describeChecksum(h.Checksum, pager.ExtentChecksum(id, b)))
	tw.Flush()
}

// describeFlags names the header flags: bit 0 marks tree-page elements with key prefixes; a page
// that is not a tree page has 0.
func describeFlags(f byte) string {
	if f == pager.FlagKeyPrefix {
		return "1 (elements with key prefixes)"
	}
	return fmt.Sprint(f)
}

// printBody prints the contents of verified extent b at id by its type.
func (pf *pageFile) printBody(out io.Writer, id uint64, b []byte) error {
	switch typ := pager.Type(b); typ {
	case pager.PageBranch, pager.PageLeaf:
		return printElements(out, id, b)
	case pager.PageOverflow:
		// The value's size is in the leaf that refers to the extent; the rest of the extent is zero.
		fmt.Fprintf(out, "  data: %s\n", formatCut(b[pager.HeaderSize:], maxInspectField))
	case pager.PageFreelist:
		m := pf.meta
		m.FreelistID, m.FreelistPages = id, uint64(len(b)/pf.pageSize())
		ids, err := pager.DecodeFreelist(b, m)
		if err != nil {
			return err
		}
		printIDs(out, ids)
	default:
		return fmt.Errorf("page %d: unknown page type %d", id, typ)
	}
	return nil
}

// printElements prints the elements of tree page b at id, one per line.
func printElements(out io.Writer, id uint64, b []byte) error {
	elems, err := btree.Elements(id, b)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	leaf := pager.Type(b) == pager.PageLeaf
	if leaf {
		fmt.Fprintf(tw, "  #\tkey\tvalue\n")
	} else {
		fmt.Fprintf(tw, "  #\tchild\tkey\n")
	}
	for i, e := range elems {
		key := formatCut(e.Key, maxInspectField)
		switch {
		case !leaf:
			fmt.Fprintf(tw, "  %d\t%d\t%s\n", i, e.Child, key)
		case e.Value == nil:
			fmt.Fprintf(tw, "  %d\t%s\toverflow page %d (%d bytes)\n", i, key, e.Overflow, e.ValueSize)
		default:
			fmt.Fprintf(tw, "  %d\t%s\t%s\n", i, key, describeValue(e.Value))
		}
	}
	return tw.Flush()
}

// idsPerLine is the number of ids or id ranges per line of a free-list listing.
const idsPerLine = 12

// printIDs prints the ids of a free list, ranges compacted, a dozen per line.
func printIDs(out io.Writer, ids []uint64) {
	fmt.Fprintf(out, "  ids: %d\n", len(ids))
	words := idRanges(ids)
	for len(words) > 0 {
		n := min(idsPerLine, len(words))
		fmt.Fprintf(out, "    %s\n", strings.Join(words[:n], " "))
		words = words[n:]
	}
}

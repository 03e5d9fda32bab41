package main

// Inspection commands (.meta, .pages, .page, .wal) read the database's files on disk, opened
// read-only beside the descriptors the open database holds. The page file holds the state of
// the last checkpoint; commits since then live in memory and in the WAL. The decoding is done
// by read-only helpers of the library packages (pager, btree, wal); this file and the other
// inspect*.go files only choose what to read and format it.

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/pager"
)

// maxInspectField is the number of bytes of a key or value that .page and .wal show.
const maxInspectField = 64

// pageFile is the database file opened read-only for inspection, with its meta pages.
type pageFile struct {
	f     *os.File
	size  int64
	metas pager.MetaSlots
	// meta is the current meta page and limit the number of pages that may be read (the
	// smaller of its page count and the whole pages in the file); both are zero if no meta page
	// is valid.
	meta  pager.Meta
	limit uint64
}

// openSized opens the file at path for reading and returns it with its size in bytes.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// inspect opens the database file read-only and runs fn on it. Unless the shell's own
// transaction holds it already, it holds the database's writer slot meanwhile (an empty write
// transaction, rolled back), so that no checkpoint starts while fn reads the files. A background
// checkpoint that began before may still be writing its pages, meta page and WAL header (that
// part runs beside writers since the WAL has two segments): fn may then see them half written.
func (sh *shell) inspect(fn func(pf *pageFile) error) error {
	if sh.tx == nil || !sh.tx.Writable() {
		if tx, err := sh.db.Begin(true); err == nil { // if it fails (a failed database), read anyway
			defer tx.Rollback()
		}
	}
	f, size, err := openSized(sh.filePath())
	if err != nil {
		return err
	}
	defer f.Close()
	pf := &pageFile{f: f, size: size}
	if pf.metas, err = pager.ReadMetaPages(f, pf.size); err != nil {
		return err
	}
	if c := pf.metas.Current; c >= 0 {
		pf.meta = pf.metas.Pages[c].Meta
		pf.limit = min(pf.meta.PageCount, uint64(pf.size)/uint64(pf.meta.PageSize))
	}
	return fn(pf)
}

// current fails if the file has no valid meta page, so pages cannot be located.
func (pf *pageFile) current() error {
	if pf.metas.Current >= 0 {
		return nil
	}
	return fmt.Errorf("no valid meta page: %v (see .meta)", pf.metas.Pages[0].Err)
}

// pageSize is the current meta page's page size in bytes.
func (pf *pageFile) pageSize() int { return int(pf.meta.PageSize) }

// extent reads the extent at id and verifies it as the database does: range, length,
// checksum, and the structure of tree pages.
func (pf *pageFile) extent(id uint64) ([]byte, error) {
	b, err := pager.ReadExtentAt(pf.f, pf.pageSize(), pf.limit, id)
	if err != nil {
		return nil, err
	}
	if err := pager.VerifyExtent(id, b, pf.pageSize()); err != nil {
		return nil, err
	}
	return b, btree.Validate(id, b)
}

// freelist returns the ids of the current meta page's free list (nil if it has none).
func (pf *pageFile) freelist() ([]uint64, error) {
	if pf.meta.FreelistID == 0 {
		return nil, nil
	}
	b, err := pf.extent(pf.meta.FreelistID)
	if err != nil {
		return nil, err
	}
	return pager.DecodeFreelist(b, pf.meta)
}

// cmdMeta prints both meta pages, decoded field by field, with which one is current.
func cmdMeta(sh *shell, _ context.Context, _ [][]byte) error {
	return sh.inspect(func(pf *pageFile) error {
		for slot := range pager.MetaPages {
			printMeta(sh.out, pf.metas, slot)
		}
		return nil
	})
}

// printMeta prints meta page slot of mp: a status line, then one "label value" line per field.
func printMeta(out io.Writer, mp pager.MetaSlots, slot int) {
	mi := mp.Pages[slot]
	status := "valid"
	switch {
	case mi.Err != nil:
		status = "invalid: " + mi.Err.Error()
	case slot == mp.Current:
		status = "valid, current"
	}
	fmt.Fprintf(out, "meta page %d (offset %d): %s\n", slot, mp.Offsets[slot], status)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(label, format string, a ...any) { fmt.Fprintf(tw, "  %s\t%s\n", label, fmt.Sprintf(format, a...)) }
	row("magic", "%s", formatBytes(mi.Magic[:]))
	row("version", "%d", mi.Version)
	row("page size", "%d", mi.PageSize)
	row("database id", "%#016x", mi.DBID)
	row("sequence", "%d", mi.Seq)
	row("LSN", "%d", mi.LSN)
	row("root", "%d", mi.Root)
	row("page count", "%d", mi.PageCount)
	row("free list", "%s", describeFreelistField(mi.FreelistID, mi.FreelistPages))
	row("catalog root", "%d", mi.Catalog)
	row("checksum", "%s", describeChecksum(mi.CRC, mi.WantCRC))
	tw.Flush()
}

// describeFreelistField renders the free-list fields of a meta page.
func describeFreelistField(id, pages uint64) string {
	switch {
	case id == 0 && pages == 0:
		return "none"
	case id == 0:
		return fmt.Sprintf("none (length field %d)", pages)
	}
	return fmt.Sprintf("page %d, %s", id, plural(pages, "page"))
}

// describeChecksum renders a stored checksum and whether it matches the computed one.
func describeChecksum(stored, want uint32) string {
	if stored == want {
		return fmt.Sprintf("%#08x (ok)", stored)
	}
	return fmt.Sprintf("%#08x (mismatch: the bytes give %#08x)", stored, want)
}

// plural renders "1 page", "3 pages".
func plural(n uint64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// idRanges renders ascending ids compactly, runs of consecutive ids as ranges: 3-5, 9, 12-13.
func idRanges(ids []uint64) []string {
	var out []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			out = append(out, fmt.Sprint(ids[i]))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return out
}

// describeValue renders a value for .page: its first bytes and its size.
func describeValue(v []byte) string {
	if len(v) > maxInspectField {
		return formatCut(v, maxInspectField) // ends with the size
	}
	if len(v) == 0 {
		return `"" (0 bytes)`
	}
	return fmt.Sprintf("%s (%d bytes)", formatBytes(v), len(v))
}

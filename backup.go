package cairn

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairndb/cairn/pager"
)

// Backup writes a consistent copy of the newest durable version to w, as a database file that
// Open opens (with no WAL: the copy is checkpointed) and returns the bytes written. Writers and
// readers go on meanwhile: Backup pins the version like a read transaction, so its pages are not
// reused until it returns (the file may grow meanwhile, as with any long reader).
//
// The copy keeps every page at its id, so it is about as large as the database file: pages free
// in the version are written as zeros and listed in a free list at the end. It has a new database
// id, so a WAL left beside it from another database is refused rather than replayed. Backup first
// walks the version's trees as Check does and returns an error wrapping ErrCorrupt, writing
// nothing, if it finds damage; write errors of w are returned as they are. Errors: ErrClosed.
func (db *DB) Backup(w io.Writer) (int64, error) {
	slot, v, err := db.pinRead()
	if err != nil {
		return 0, err
	}
	defer db.readers.Unpin(slot)
	pageCount := db.pager.PageCount() // every page of v is below it: the count only grows
	used, err := db.usedPages(v, pageCount)
	if err != nil {
		return 0, fmt.Errorf("cairn: backup: %w", err)
	}
	var free []uint64
	for id := uint64(pager.MetaPages); id < pageCount; id++ {
		if !used[id] {
			free = append(free, id)
		}
	}
	ps := db.pager.PageSize()
	dbID, err := pager.NewDBID()
	if err != nil {
		return 0, fmt.Errorf("cairn: backup: %w", err)
	}
	flPages := pager.FreelistPages(len(free), ps)
	m := pager.Meta{PageSize: uint32(ps), DBID: dbID, LSN: v.lsn, Root: v.root, Catalog: v.catalog,
		PageCount: pageCount + uint64(flPages)}
	if flPages > 0 {
		m.FreelistID, m.FreelistPages = pageCount, uint64(flPages)
	}
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	if err := db.writeImage(bw, m, used, free); err != nil {
		return cw.n, fmt.Errorf("cairn: backup: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("cairn: backup: %w", err)
	}
	return cw.n, nil
}

// usedPages walks every tree of v as Check does and returns which page ids they use.
func (db *DB) usedPages(v *version, pageCount uint64) ([]bool, error) {
	c := checker{pg: db.pager, seen: make(map[string]bool), ledgerProblems: make(map[string]int),
		read: func(id uint64, _ bool) ([]byte, error) { return db.pager.Page(id) }}
	l := newLedger(&c, "backup", pageCount)
	c.walkVersion(v.root, v.catalog, false, l)
	l.reportConflicts()
	if err := c.result(); err != nil {
		return nil, err
	}
	used := make([]bool, pageCount)
	for id, o := range l.pages {
		used[id] = o == ownerTree
	}
	return used, nil
}

// writeImage writes the meta pages of m, every page below m.FreelistID (used ones from the
// pinned version, free ones as zeros) and the free list.
func (db *DB) writeImage(w io.Writer, m pager.Meta, used []bool, free []uint64) error {
	if _, err := w.Write(pager.MetaPagesImage(m)); err != nil {
		return err
	}
	ps := db.pager.PageSize()
	zero := make([]byte, ps)
	for id := uint64(pager.MetaPages); id < uint64(len(used)); {
		if !used[id] {
			if _, err := w.Write(zero); err != nil {
				return err
			}
			id++
			continue
		}
		p, err := db.pager.Page(id)
		if err != nil {
			return err
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
		id += uint64(len(p) / ps)
	}
	if m.FreelistPages == 0 {
		return nil
	}
	_, err := w.Write(pager.FreelistImage(m.FreelistID, int(m.FreelistPages), free, ps, m.LSN))
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// BackupFile writes a backup (see Backup) to a new file at path, which must not exist, and
// fdatasyncs it and its directory before returning, so the copy survives a crash once BackupFile
// returns. On error the partial file is removed.
func (db *DB) BackupFile(path string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("cairn: backup: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("cairn: backup: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err := db.Backup(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cairn: backup: %w", err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("cairn: backup: %w", err)
	}
	return nil
}

// RestoreFile makes the backup image at image (a file BackupFile or Backup wrote, on the same
// file system as path) the database at path, which must not be open: it removes path's WAL
// segments, which belong to the database it replaces (the image has its own database id, so
// Open would refuse them), renames image to path and fdatasyncs the directory. A crash midway
// leaves path as it was or the image in its place, possibly without its old WAL; Open of path
// checks the image as it checks any database file.
func RestoreFile(path, image string) error {
	for i := range 2 {
		if err := os.Remove(walPath(path, i)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cairn: restore: %w", err)
		}
	}
	if err := os.Rename(image, path); err != nil {
		return fmt.Errorf("cairn: restore: %w", err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("cairn: restore: %w", err)
	}
	return nil
}

// syncDir fdatasyncs directory dir, so that a file created or renamed in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

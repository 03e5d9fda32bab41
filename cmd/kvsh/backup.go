package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairndb/cairn"
)

// cmdBackup writes a backup of the database (cairn.DB.Backup: the newest committed version, as a
// database file with no WAL) to a new file, with a progress bar on a terminal. It does what
// DB.BackupFile does (exclusive create, fdatasync of the file and its directory, removal of a
// partial file) itself, because BackupFile reports no progress and cannot be cancelled: here
// Ctrl-C fails the next write and the partial file is removed.
func cmdBackup(sh *shell, ctx context.Context, args [][]byte) error {
	path := string(args[0])
	st := sh.db.Stats()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	start := time.Now()
	// The copy is about the page count times the page size (plus its free list).
	total := int64(st.PageCount) * int64(st.PageSize)
	w := &backupWriter{f: f, ctx: ctx, pageSize: int64(st.PageSize),
		prog: newProgress(sh, "backup", "pages", total, false)}
	err = w.write(sh.db)
	w.prog.finish()
	if err != nil {
		os.Remove(path)
		if ctx.Err() != nil {
			return fmt.Errorf("%w (the partial %s was removed)", errInterrupted, formatBytes(args[0]))
		}
		return err
	}
	fmt.Fprintf(sh.out, "backup %s: %d bytes, %s in %.2f s\n", formatBytes(args[0]), w.n,
		plural(uint64(w.n/w.pageSize), "page"), time.Since(start).Seconds())
	return nil
}

// backupWriter is the io.Writer DB.Backup writes to: the backup file, with a count of the bytes
// for the progress bar, failing once ctx is cancelled.
type backupWriter struct {
	f        *os.File
	ctx      context.Context
	prog     *progress
	pageSize int64
	n        int64 // bytes written
}

// Write implements io.Writer.
func (w *backupWriter) Write(p []byte) (int, error) {
	if w.ctx.Err() != nil {
		return 0, errInterrupted
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	w.prog.update(w.n/w.pageSize, w.n)
	return n, err
}

// write runs the backup, then makes the file durable: fdatasync of the file, close, fsync of its
// directory (so the new name survives a crash too). It closes the file in every case.
func (w *backupWriter) write(db *cairn.DB) error {
	_, err := db.Backup(w)
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(filepath.Dir(w.f.Name()))
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("backup: %w", err)
	}
	return err // the library's errors name the operation already
}

// syncDir fsyncs directory dir.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// cmdCompact shrinks the database file (cairn.DB.Compact), showing its passes on a terminal,
// and prints the page count and file size before and after. Ctrl-C stops it between two steps;
// what it did so far stays done, and the line says how far it got.
func cmdCompact(sh *shell, ctx context.Context, _ [][]byte) error {
	if sh.tx != nil {
		// Compact's steps are write transactions and its checkpoints take the writer slot.
		return errors.New("compact cannot run inside a transaction: commit or rollback first")
	}
	start := time.Now()
	prog := newProgress(sh, "compact", "", 0, false)
	st, err := sh.db.Compact(ctx, func(s cairn.CompactStats) {
		prog.status(fmt.Sprintf("pass %d: %d extents moved, %d pages, %.1f MiB", s.Passes, s.Moved, s.PagesAfter,
			float64(s.FileAfter)/(1<<20)))
	})
	prog.finish()
	sh.printCompact(st, time.Since(start))
	if err != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// printCompact prints the result line of compact.
func (sh *shell) printCompact(st cairn.CompactStats, took time.Duration) {
	if st.PagesAfter == 0 { // stopped before its first step
		st.PagesAfter, st.FileAfter = sh.db.Stats().PageCount, st.FileBefore
		if fi, err := os.Stat(sh.db.Path()); err == nil {
			st.FileAfter = fi.Size()
		}
	}
	passes := "passes"
	if st.Passes == 1 {
		passes = "pass"
	}
	fmt.Fprintf(sh.out, "compact: %d → %d pages, %d → %d bytes (%d %s, %d extents moved) in %.2f s\n",
		st.PagesBefore, st.PagesAfter, st.FileBefore, st.FileAfter, st.Passes, passes, st.Moved, took.Seconds())
}

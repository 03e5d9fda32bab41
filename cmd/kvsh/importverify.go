package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairndb/cairn"
)

// Batch limits of import and verify: a batch is committed (or checked) in one transaction.
const (
	batchMaxFiles = 1000
	batchMaxBytes = 64 << 20
)

// maxReported is the number of offending keys verify lists.
const maxReported = 20

// fileItem is one regular file read from the tree.
type fileItem struct {
	key  []byte
	data []byte
}

// treeWalker reads the regular files under root and hands them to flush in batches.
type treeWalker struct {
	sh    *shell
	root  string
	verb  string // names the command in progress lines
	flush func([]fileItem) error

	batch      []fileItem
	batchBytes int64
	files      int64 // files handed to flush without error
	bytes      int64 // bytes of those files
	skipped    skipCounts
	start      time.Time
	prog       *progress
	dbBase     string      // base name of the database file
	dbDir      os.FileInfo // directory of the database, nil if unknown
}

// newTreeWalker prepares a walk of root that hands batches to flush.
func newTreeWalker(sh *shell, root, verb string, flush func([]fileItem) error) *treeWalker {
	w := &treeWalker{sh: sh, root: root, verb: verb, flush: flush}
	w.dbBase = filepath.Base(sh.db.Path())
	w.dbDir, _ = os.Stat(filepath.Dir(sh.db.Path()))
	return w
}

// run walks the tree. On Ctrl-C it stops after the current batch and returns errInterrupted.
func (w *treeWalker) run(ctx context.Context) error {
	st, err := os.Stat(w.root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		if w.verb == "import" {
			return fmt.Errorf("%s is not a directory (import takes a directory, a .json, .jsonl or .csv file)", w.root)
		}
		return fmt.Errorf("%s is not a directory", w.root)
	}
	var total int64
	if w.sh.progress {
		total = treeSize(ctx, w.root) // for the bar's percentage and ETA
	}
	w.start = time.Now()
	w.prog = newProgress(w.sh, w.verb, "files", total, false)
	defer w.prog.finish()
	err = filepath.WalkDir(w.root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return w.visit(path, d, err)
	})
	if ferr := w.flushBatch(); err == nil {
		err = ferr
	}
	return err
}

// visit handles one WalkDir entry. Entries that are not regular files are skipped by their type
// (symlinks are not followed), and a file larger than cairn.MaxValueSize by the size the walk
// read with lstat, before it is opened.
func (w *treeWalker) visit(path string, d fs.DirEntry, err error) error {
	switch {
	case err != nil && path == w.root:
		return err
	case err != nil:
		w.skip(path, skipUnreadable, describeFileError(err))
		return nil
	case d.IsDir():
		return nil
	case !d.Type().IsRegular():
		w.skip(path, typeReason(d.Type()), "")
		return nil
	case w.isDatabaseFile(path):
		w.skip(path, skipDatabase, "")
		return nil
	}
	if info, err := d.Info(); err == nil && info.Size() > cairn.MaxValueSize {
		w.skip(path, skipTooLarge, fmt.Sprintf("%d bytes", info.Size()))
		return nil
	}
	rel, err := filepath.Rel(w.root, path)
	if err != nil {
		w.skip(path, skipUnreadable, err.Error())
		return nil
	}
	key := []byte(filepath.ToSlash(rel))
	if len(key) > cairn.MaxKeySize {
		w.skip(path, skipLongPath, fmt.Sprintf("%d bytes", len(key)))
		return nil
	}
	data, err := readLimited(path, cairn.MaxValueSize)
	if errors.Is(err, errTooLarge) {
		w.skip(path, skipTooLarge, "")
		return nil
	}
	if err != nil {
		w.skip(path, skipUnreadable, describeFileError(err))
		return nil
	}
	return w.add(fileItem{key: key, data: data})
}

// skipReason is why import or verify leaves a file out. The summary counts files per reason.
type skipReason int

// The reasons, in the order the summary lists equal counts.
const (
	skipSymlink skipReason = iota
	skipDevice
	skipSocket
	skipNamedPipe
	skipIrregular
	skipTooLarge
	skipLongPath
	skipUnreadable
	skipDatabase
	numSkipReasons
)

// skipNames are the reasons as warnings say them (one file) and as the summary counts them
// (several).
var skipNames = [numSkipReasons][2]string{
	skipSymlink:    {"symlink", "symlinks"},
	skipDevice:     {"device", "devices"},
	skipSocket:     {"socket", "sockets"},
	skipNamedPipe:  {"named pipe", "named pipes"},
	skipIrregular:  {"not a regular file", "other non-regular files"},
	skipTooLarge:   {"larger than " + formatSize(cairn.MaxValueSize), "larger than " + formatSize(cairn.MaxValueSize)},
	skipLongPath:   {fmt.Sprintf("path longer than the %d-byte key limit", cairn.MaxKeySize), fmt.Sprintf("paths longer than the %d-byte key limit", cairn.MaxKeySize)},
	skipUnreadable: {"unreadable", "unreadable"},
	skipDatabase:   {"file of the open database", "files of the open database"},
}

// typeReason names the type of a file that is not regular (a directory is never skipped).
func typeReason(m fs.FileMode) skipReason {
	switch {
	case m&fs.ModeSymlink != 0:
		return skipSymlink
	case m&fs.ModeDevice != 0: // character devices too
		return skipDevice
	case m&fs.ModeSocket != 0:
		return skipSocket
	case m&fs.ModeNamedPipe != 0:
		return skipNamedPipe
	}
	return skipIrregular
}

// formatSize renders a byte count in the largest binary unit that divides it: 256 MiB, 16 KiB,
// 1000 bytes.
func formatSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// describeFileError is the cause of a failure to read a file, without the path the warning
// names already.
func describeFileError(err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Op + ": " + pathErr.Err.Error()
	}
	return err.Error()
}

// skipCounts counts the files left out, per reason.
type skipCounts [numSkipReasons]int64

// total is the number of files left out.
func (c *skipCounts) total() int64 {
	var n int64
	for _, k := range c {
		n += k
	}
	return n
}

// summary is " (skipped N: A symlinks, B sockets)", the reasons by descending count; empty when
// nothing was skipped.
func (c *skipCounts) summary() string {
	n := c.total()
	if n == 0 {
		return ""
	}
	order := make([]skipReason, 0, numSkipReasons)
	for r := range numSkipReasons {
		if c[r] > 0 {
			order = append(order, r)
		}
	}
	slices.SortStableFunc(order, func(a, b skipReason) int { return cmp.Compare(c[b], c[a]) })
	parts := make([]string, len(order))
	for i, r := range order {
		name := skipNames[r][1]
		if c[r] == 1 {
			name = skipNames[r][0]
		}
		parts[i] = fmt.Sprintf("%d %s", c[r], name)
	}
	return fmt.Sprintf(" (skipped %d: %s)", n, strings.Join(parts, ", "))
}

// isDatabaseFile reports whether path looks like a file of the open database (the database
// itself, its log or lock file), which must not be imported while it changes.
func (w *treeWalker) isDatabaseFile(path string) bool {
	if w.dbDir == nil || !strings.HasPrefix(filepath.Base(path), w.dbBase) {
		return false
	}
	dir, err := os.Stat(filepath.Dir(path))
	return err == nil && os.SameFile(dir, w.dbDir)
}

// errTooLarge reports a file that holds more than the value limit.
var errTooLarge = errors.New("file is larger than the value limit")

// readLimited reads the file at path, failing with errTooLarge if it holds more than limit
// bytes: from its size when it is opened (it may have grown since the walk saw it), or from the
// bytes read, never reading more than limit+1 of them.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// skip counts and reports a file left out: "warning: skipping PATH: symlink", with detail after
// the reason if any ("larger than 256 MiB (300000000 bytes)").
func (w *treeWalker) skip(path string, why skipReason, detail string) {
	w.skipped[why]++
	msg := skipNames[why][0]
	switch {
	case detail == "":
	case why == skipUnreadable:
		msg += ": " + detail
	default:
		msg += " (" + detail + ")"
	}
	w.sh.skipWarn("skipping %s: %s", formatBytes([]byte(path)), msg)
}

// add queues one file, flushing the batch when it is full.
func (w *treeWalker) add(it fileItem) error {
	w.batch = append(w.batch, it)
	w.batchBytes += int64(len(it.data))
	w.progress()
	if len(w.batch) >= batchMaxFiles || w.batchBytes >= batchMaxBytes {
		return w.flushBatch()
	}
	return nil
}

// flushBatch hands the queued files to flush and empties the queue.
func (w *treeWalker) flushBatch() error {
	if len(w.batch) == 0 {
		return nil
	}
	err := w.flush(w.batch)
	if err == nil {
		w.files += int64(len(w.batch))
		w.bytes += w.batchBytes
	}
	w.batch, w.batchBytes = nil, 0
	return err
}

// progress reports the files read so far.
func (w *treeWalker) progress() {
	w.prog.update(w.files+int64(len(w.batch)), w.bytes+w.batchBytes)
}

// treeSize is the total size of the regular files under root (0 if interrupted).
func treeSize(ctx context.Context, root string) int64 {
	var total int64
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// elapsed is the time since the walk started, in seconds.
func (w *treeWalker) elapsed() float64 { return time.Since(w.start).Seconds() }

// cmdImport stores every regular file under a directory, committing in batches.
func cmdImport(sh *shell, ctx context.Context, args [][]byte) error {
	path := string(args[0])
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".json":
			return sh.importPairs(ctx, path, readJSON)
		case ".jsonl":
			return sh.importPairs(ctx, path, readJSONL)
		case ".csv":
			return sh.importPairs(ctx, path, readCSV)
		}
	}
	w := newTreeWalker(sh, string(args[0]), "import", sh.putBatch)
	err := w.run(ctx)
	if w.start.IsZero() {
		return err // nothing started: bad directory
	}
	fmt.Fprintf(sh.out, "imported %d files, %d bytes in %.2f s%s\n",
		w.files, w.bytes, w.elapsed(), w.skipped.summary())
	return wrapWalkError("import", err)
}

// wrapWalkError names the command in an import or verify failure.
func wrapWalkError(verb string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", verb, err)
}

// putBatch stores items in one read-write transaction.
func (sh *shell) putBatch(items []fileItem) error {
	return sh.updateSpace(func(ks keySpace) error {
		for _, it := range items {
			if err := ks.Put(it.key, it.data); err != nil {
				return fmt.Errorf("put %s: %w", formatBytes(it.key), err)
			}
		}
		return nil
	})
}

// verifier tallies the files compared and those whose stored value differs or is absent.
type verifier struct {
	sh         *shell
	ctx        context.Context
	checked    int64 // files compared, one by one
	mismatches int64
	missing    int64
	offenders  []string // "mismatch: KEY" or "missing: KEY", at most maxReported
}

// check compares items with the stored values in one read transaction, counting each file
// compared; it stops at the first read error or at Ctrl-C.
func (v *verifier) check(items []fileItem) error {
	return v.sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		for _, it := range items {
			if v.ctx.Err() != nil {
				return errInterrupted
			}
			got, err := ks.Get(it.key)
			switch {
			case errors.Is(err, cairn.ErrNotFound):
				v.missing++
				v.note("missing", it.key)
			case err != nil:
				return fmt.Errorf("get %s: %w", formatBytes(it.key), err)
			case !bytes.Equal(got, it.data):
				v.mismatches++
				v.note("mismatch", it.key)
			}
			v.checked++
		}
		return nil
	})
}

// note remembers an offending key if the list is not full.
func (v *verifier) note(kind string, key []byte) {
	if len(v.offenders) < maxReported {
		v.offenders = append(v.offenders, kind+": "+formatBytes(key))
	}
}

// cmdVerify compares every regular file under a directory with its stored value. It prints
// "verified N files: M mismatches, K missing" when it went through the whole tree, or "verify
// stopped after N files: …" before the error that stopped it (Ctrl-C, a read error): never a
// summary that reads as a pass before an error.
func cmdVerify(sh *shell, ctx context.Context, args [][]byte) error {
	v := &verifier{sh: sh, ctx: ctx}
	w := newTreeWalker(sh, string(args[0]), "verify", v.check)
	err := w.run(ctx)
	if w.start.IsZero() {
		return err
	}
	head := "verified"
	if err != nil {
		head = "verify stopped after"
	}
	fmt.Fprintf(sh.out, "%s %d files: %d mismatches, %d missing%s\n", head, v.checked, v.mismatches, v.missing,
		w.skipped.summary())
	for _, o := range v.offenders {
		fmt.Fprintf(sh.out, "  %s\n", o)
	}
	if more := v.mismatches + v.missing - int64(len(v.offenders)); more > 0 {
		fmt.Fprintf(sh.out, "  … and %d more\n", more)
	}
	if err == nil && v.mismatches+v.missing > 0 {
		err = fmt.Errorf("%d mismatches, %d missing", v.mismatches, v.missing)
	}
	return wrapWalkError("verify", err)
}

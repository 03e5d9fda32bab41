package main

// Salvage mode (kvsh -salvage DAMAGED.db): cairn.Salvage reads every key it can of a damaged
// database, without writing to its files, into a database in a new temporary directory; the
// shell then runs on that database opened read-only, so that count, scan, get, buckets, export
// and backup work on the salvaged keys, and removes the directory at exit. The inspection
// commands (.meta, .pages, .page, .wal) read the damaged files themselves. The salvage report
// is printed on stderr at the start, and again by .salvage; recover writes the salvaged keys to
// a new database file.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairndb/cairn"
)

// salvageState is the shell's state in salvage mode.
type salvageState struct {
	source string // the damaged database
	dir    string // the temporary directory holding the salvaged database
	report *cairn.SalvageReport
	// skipped counts the keys the salvaged database refused (their size is outside the limits).
	skipped int
}

// filePath returns the database file the inspection commands read: the damaged one in salvage
// mode, else the open database's.
func (sh *shell) filePath() string {
	if sh.salvage != nil {
		return sh.salvage.source
	}
	return sh.db.Path()
}

// openShellDB opens the database the command line names: as it is, or, with -salvage, what Salvage
// reads of it (then the report has been printed on stderr, and state is not nil).
func openShellDB(cfg config, stderr io.Writer) (*cairn.DB, *salvageState, error) {
	if !cfg.salvage {
		db, err := cairn.Open(cfg.path, &cairn.Options{ReadOnly: cfg.readonly})
		return db, nil, err
	}
	st, db, err := salvageInto(cfg.path)
	if err != nil {
		return nil, nil, err
	}
	printSalvageReport(stderr, st)
	return db, st, nil
}

// remove deletes the temporary database of salvage mode (nothing if st is nil).
func (st *salvageState) remove() {
	if st != nil {
		os.RemoveAll(st.dir)
	}
}

// salvageBatchBytes bounds the keys and values one transaction of the loading writes.
const salvageBatchBytes = 32 << 20

// salvageInto salvages the database at path into a new database in a temporary directory and
// returns it opened read-only.
func salvageInto(path string) (st *salvageState, db *cairn.DB, err error) {
	dir, err := os.MkdirTemp("", "kvsh-salvage-")
	if err != nil {
		return nil, nil, err
	}
	st = &salvageState{source: path, dir: dir}
	defer func() {
		if err != nil {
			if db != nil {
				db.Close()
			}
			st.remove()
		}
	}()
	tmp := filepath.Join(dir, "salvaged.db")
	if db, err = cairn.Open(tmp, &cairn.Options{Sync: cairn.SyncNone}); err != nil {
		return nil, nil, err
	}
	l := &salvageLoader{db: db, st: st}
	st.report, err = cairn.Salvage(path, nil, l.add)
	if err == nil {
		err = l.commit()
	}
	if err != nil {
		l.rollback()
		return nil, db, err // Salvage's errors name the path
	}
	err = db.Update(func(tx *cairn.Tx) error { // the key spaces that kept no key
		for _, b := range st.report.Buckets {
			if b.Name != nil {
				if _, err := tx.CreateBucketIfNotExists(b.Name); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, fmt.Errorf("salvage %s: %w", path, err)
	}
	db, err = cairn.Open(tmp, &cairn.Options{ReadOnly: true})
	return st, db, err
}

// salvageLoader writes the keys Salvage emits into the temporary database, in transactions of about
// salvageBatchBytes.
type salvageLoader struct {
	db     *cairn.DB
	st     *salvageState
	tx     *cairn.Tx
	bucket []byte        // the name of b
	b      *cairn.Bucket // nil: the default key space
	bytes  int
}

// add stores one salvaged key (the slices are valid only during the call: Put copies them).
func (l *salvageLoader) add(bucket, key, value []byte) error {
	if l.tx == nil {
		tx, err := l.db.Begin(true)
		if err != nil {
			return err
		}
		l.tx, l.b, l.bucket = tx, nil, nil
	}
	if bucket != nil && (l.b == nil || string(bucket) != string(l.bucket)) {
		b, err := l.tx.CreateBucketIfNotExists(bucket)
		if err != nil {
			return err
		}
		l.b, l.bucket = b, append(l.bucket[:0], bucket...)
	}
	var err error
	if bucket == nil {
		err = l.tx.Put(key, value)
	} else {
		err = l.b.Put(key, value)
	}
	switch {
	case errors.Is(err, cairn.ErrKeyRequired), errors.Is(err, cairn.ErrKeyTooLarge), errors.Is(err, cairn.ErrValueTooLarge):
		l.st.skipped++
		return nil
	case err != nil:
		return err
	}
	if l.bytes += len(key) + len(value); l.bytes >= salvageBatchBytes {
		return l.commit()
	}
	return nil
}

// commit commits the open transaction, if any.
func (l *salvageLoader) commit() error {
	if l.tx == nil {
		return nil
	}
	tx := l.tx
	l.tx, l.bytes = nil, 0
	return tx.Commit()
}

// rollback drops the open transaction, if any.
func (l *salvageLoader) rollback() {
	if l.tx != nil {
		l.tx.Rollback()
		l.tx = nil
	}
}

// maxSalvageLines is the number of entries printed per list of the report.
const maxSalvageLines = 20

// maxSalvageKey is the number of bytes of a key or bucket name the report shows.
const maxSalvageKey = 64

// printSalvageReport prints what Salvage found: the keys per key space, the meta pages, the
// pages, the unreadable ones, the lost key ranges and values, and the WAL.
func printSalvageReport(w io.Writer, st *salvageState) {
	r := st.report
	fmt.Fprintf(w, "salvage %s: %s", st.source, plural(uint64(r.Keys), "key"))
	sep := ": "
	for _, b := range r.Buckets {
		fmt.Fprintf(w, "%s%d in %s", sep, b.Keys, salvageSpaceName(b.Name, b.LostAndFound))
		sep = ", "
	}
	fmt.Fprintln(w)
	if r.KeySpacesUnknown {
		fmt.Fprintln(w, "  no valid meta page and no catalog page: key spaces cannot be told apart; the default key space holds the newest keys of any of them, lost+found the others")
	}
	for slot, m := range r.Meta {
		switch {
		case !m.Valid:
			fmt.Fprintf(w, "  meta page %d: damaged: %v\n", slot, m.Err)
		default:
			used := ""
			if slot == r.MetaUsed {
				used = " (used)"
			}
			fmt.Fprintf(w, "  meta page %d: sequence %d, LSN %d%s\n", slot, m.Seq, m.LSN, used)
		}
	}
	guessed := ""
	if r.PageSizeGuessed {
		guessed = ", guessed"
	}
	unreadable := uint64(0)
	for _, p := range r.Unreadable {
		unreadable += p.Last - p.First + 1
	}
	fmt.Fprintf(w, "  pages: %d of %d bytes%s: %d leaves, %d branches, %d overflow, %d free-list, %d zero, %d unreadable\n",
		r.Pages, r.PageSize, guessed, r.Leaves, r.Branches, r.Overflows, r.Freelists, r.ZeroPages, unreadable)
	if r.OrphanPages+r.StalePages > 0 {
		fmt.Fprintf(w, "  pages no root reaches: %d attached to a key space, %d left out\n", r.OrphanPages, r.StalePages)
	}
	salvageList(w, len(r.Unreadable), func(i int) string {
		p := r.Unreadable[i]
		ids := fmt.Sprint(p.First)
		if p.Last != p.First {
			ids = fmt.Sprintf("%d-%d", p.First, p.Last)
		}
		return fmt.Sprintf("unreadable page %s: %v", ids, p.Err)
	})
	salvageList(w, len(r.Lost), func(i int) string {
		l := r.Lost[i]
		space := salvageSpaceName(l.Bucket, false)
		low, high := "first", "last"
		if l.Catalog {
			space, low, high = "bucket catalog", "first name", "last name"
		}
		if l.Low != nil {
			low = formatCut(l.Low, maxSalvageKey)
		}
		if l.High != nil {
			high = formatCut(l.High, maxSalvageKey) + ")"
		} else {
			high += "]"
		}
		keys := ""
		switch {
		case l.Older > 0:
			keys = fmt.Sprintf("; %s from other pages, %d of them from older versions (maybe stale)", plural(uint64(l.Keys), "key"), l.Older)
		case l.Keys > 0:
			keys = fmt.Sprintf("; %s from other pages", plural(uint64(l.Keys), "key"))
		}
		return fmt.Sprintf("lost: %s [%s, %s: %v%s", space, low, high, l.Err, keys)
	})
	salvageList(w, len(r.LostValues), func(i int) string {
		v := r.LostValues[i]
		return fmt.Sprintf("lost value: %s %s: %v", salvageSpaceName(v.Bucket, false), formatCut(v.Key, maxSalvageKey), v.Err)
	})
	if r.Malformed > 0 || st.skipped > 0 {
		fmt.Fprintf(w, "  skipped: %s of a size outside the limits\n", plural(uint64(r.Malformed+st.skipped), "key"))
	}
	printSalvageWAL(w, r.WAL)
}

// printSalvageWAL prints the WAL part of the report.
func printSalvageWAL(w io.Writer, r cairn.SalvageWAL) {
	if r.Segments[0].Missing && r.Segments[1].Missing {
		fmt.Fprintf(w, "  wal: no file (%s, %s)\n", r.Segments[0].Path, r.Segments[1].Path)
	}
	for _, s := range r.Segments {
		if s.Err != nil {
			fmt.Fprintf(w, "  wal %s: %s: %v\n", s.Path, plural(uint64(s.Records), "valid record"), s.Err)
		}
	}
	applied := fmt.Sprintf("%s applied", plural(uint64(r.Applied), "record"))
	if r.Applied > 0 {
		applied += fmt.Sprintf(" (LSN %d-%d)", r.First, r.Last)
	}
	fmt.Fprintf(w, "  wal: %s after LSN %d\n", applied, r.After)
	if r.MissingFrom != 0 {
		fmt.Fprintf(w, "  wal: commits LSN %d-%d are in neither the meta page's version nor the WAL: keys they changed may be stale or missing\n",
			r.MissingFrom, r.MissingTo)
	}
	if r.Stopped != nil {
		fmt.Fprintf(w, "  wal: stopped: %v\n", r.Stopped)
	}
}

// salvageList prints n entries of a report list, at most maxSalvageLines of them.
func salvageList(w io.Writer, n int, entry func(int) string) {
	for i := range min(n, maxSalvageLines) {
		fmt.Fprintf(w, "  %s\n", entry(i))
	}
	if n > maxSalvageLines {
		fmt.Fprintf(w, "  ... and %d more\n", n-maxSalvageLines)
	}
}

// salvageSpaceName names a key space in the report.
func salvageSpaceName(name []byte, lostAndFound bool) string {
	switch {
	case name == nil:
		return "the default key space"
	case lostAndFound:
		return "bucket " + formatCut(name, maxSalvageKey) + " (keys whose key space is unknown)"
	}
	return "bucket " + formatCut(name, maxSalvageKey)
}

// errNotSalvaging is returned by the salvage commands outside salvage mode.
var errNotSalvaging = errors.New("only in salvage mode: kvsh -salvage DAMAGED.db")

// cmdSalvageReport prints the salvage report again.
func cmdSalvageReport(sh *shell, _ context.Context, _ [][]byte) error {
	if sh.salvage == nil {
		return errNotSalvaging
	}
	printSalvageReport(sh.out, sh.salvage)
	return nil
}

// cmdRecover writes the salvaged keys to a new database file (a backup of the salvaged
// database: one file, no WAL), which opens as any database.
func cmdRecover(sh *shell, ctx context.Context, args [][]byte) error {
	if sh.salvage == nil {
		return errNotSalvaging
	}
	return cmdBackup(sh, ctx, args)
}

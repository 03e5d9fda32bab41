package cairn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/wal"
)

// Read-only open (Options.ReadOnly): both files are opened O_RDONLY under a shared lock and
// nothing is ever written to them. The WAL records after the last checkpoint are replayed into
// memory (wal.ScanLog, which validates both segments as RecoverLog does, without truncating a torn tail), and the
// version they make is the only one the database ever has. There is no committer: write
// transactions, Checkpoint and Compact return ErrReadOnly; Close writes nothing.

// openReadOnly is open for Options.ReadOnly.
func (db *DB) openReadOnly() (err error) {
	fsys := db.opts.fs
	if db.lock, err = db.lockFile(); err != nil {
		return err
	}
	if db.pageFile, err = fsys.OpenFile(db.path, os.O_RDONLY, 0); err != nil {
		return err
	}
	if size, err := db.pageFile.Size(); err != nil || size == 0 {
		return errors.Join(err, fmt.Errorf("empty file: no database to open read-only: %w", fs.ErrNotExist))
	}
	pg, _, err := pager.Open(db.pageFile, pager.Options{CacheBytes: db.opts.CacheBytes, Validate: btree.Validate})
	if err != nil {
		return err
	}
	db.pager = pg
	v, err := db.replayReadOnly(pg.Durable())
	if err != nil {
		return err
	}
	db.published.Store(v)
	db.setLatest(v)
	return nil
}

// replayReadOnly replays the WAL, if there is one, into memory and returns the version it makes.
func (db *DB) replayReadOnly(meta pager.Meta) (*version, error) {
	tx := newWriteTx(db, &version{root: meta.Root, catalog: meta.Catalog, lsn: meta.LSN, dropping: true})
	tx.replaying = true
	var segs [2]wal.Segment
	var missing [2]bool
	for i := range segs {
		f, err := db.opts.fs.OpenFile(walPath(db.path, i), os.O_RDONLY, 0)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing[i] = true // reads as an empty segment, unless checkSegmentPair refuses it
			continue
		case err != nil:
			return nil, err
		}
		db.walFiles[i] = f
		if segs[i].Size, err = f.Size(); err != nil {
			return nil, err
		}
		segs[i].R = f
	}
	if err := checkSegmentPair(db.walFiles, missing, db.path); err != nil {
		return nil, err
	}
	info, err := wal.ScanLog(segs, meta.LSN, func(r wal.RecordInfo) error { return tx.replay(r.Payload) })
	if err != nil {
		return nil, err
	}
	last := meta.LSN
	for _, in := range info {
		if !in.Fresh && in.DBID != meta.DBID {
			return nil, fmt.Errorf("wal: belongs to another database (id %#x, the page file's is %#x): %w", in.DBID, meta.DBID, ErrCorrupt)
		}
		last = max(last, in.Last)
	}
	return db.finishReplay(tx, meta, last)
}

package cairn

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/txn"
	"github.com/cairndb/cairn/wal"
)

// version is one committed state of the database: the root pages of its default key space and
// of its bucket catalog, and the LSN of the WAL record that produced it. Versions are immutable.
type version struct {
	root    uint64
	catalog uint64
	lsn     uint64
	// dropping is set while the catalog's drop stack holds pages of deleted buckets to free (or
	// may: a version read from a meta page), so that commits without buckets skip the catalog.
	dropping bool
	// ticket is the WAL ticket of the record at lsn, for a commit whose record is durable before
	// this version is published (awaitPublished); nil for versions made at open.
	ticket *wal.Ticket
}

// DB is an open database. It is safe for concurrent use by many goroutines: any number of read
// transactions run at once with one write transaction; readers never wait for writers.
//
// Version markers. A commit at LSN n makes the version at n; three markers say how far commits
// have got, and published.lsn <= latest.lsn <= headLSN always holds:
//   - published: the newest durable version, the one a new read transaction pins. It moves in
//     onDurable, once the batch holding its record is synced.
//   - latest: the newest materialized version, whose trees are pages (durable or not): the base
//     of the next write transaction, together with the held commits after it.
//   - headLSN: the LSN of the newest commit. The held commits are those in (latest.lsn, headLSN],
//     their changes decoded trees in held (commit.go); none when headLSN == latest.lsn.
//
// The durable checkpoint (pager.Durable, the newest valid meta page) is at most published.
//
// Lock order (a goroutine holding one takes only those after it):
//
//	checkpointMu -> writer -> treeMu -> stateMu -> pendingMu -> wal.Committer.mu
//	                                    stateMu -> wal.Committer.wmu -> wal.Log.mu -> wal.Writer.growMu, syncMu
//
// The pager's, the page table's and the reader registry's locks are taken inside their calls and
// never held across another lock's acquisition. "REQUIRES:" on a function names the locks its
// caller holds.
type DB struct {
	path string
	opts Options

	lock      io.Closer
	pageFile  vfs.File
	walFiles  [2]vfs.File // the WAL segments (walPath)
	pager     *pager.Pager
	committer *wal.Committer
	walLog    *wal.Log // written by the committer; the checkpoint calls PrepareSpare directly
	readers   *txn.Registry[Tx]

	// published is the newest durable version (see Version markers).
	published atomic.Pointer[version]

	// checkpointMu serializes checkpoints (and Close's last one).
	checkpointMu sync.Mutex
	// writer is the single writer slot, held from Begin(true) until the commit is handed to the
	// committer (or rolled back). Writers queue on it; the held trees have a lock of their own,
	// treeMu, so that the batch writer's materialization does not queue behind them.
	writer sync.Mutex
	// treeMu is the ownership of the held trees and the workspace: taken right after the writer
	// slot by whoever holds it (a write transaction for its whole life, Checkpoint, Check, Close,
	// compaction), or by the batch writer when it finds it free (materializeForBatch).
	treeMu sync.Mutex
	// stateMu guards the write state below (but workspace), held for short steps only, never
	// while waiting for a batch.
	stateMu sync.Mutex
	// latest is the newest materialized version (see Version markers). Written under stateMu;
	// prepareBatch reads it without.
	latest atomic.Pointer[version]
	// held holds the commits after latest whose trees are still decoded (commit.go).
	held heldCommits
	// lastTicket is the WAL ticket of the newest commit, nil once durable at open (written under
	// treeMu and stateMu).
	lastTicket *wal.Ticket
	// workspace is the memory of the write transactions' decoded nodes (guarded by treeMu),
	// reset when no tree holds any: at a materialization, or when a write transaction ends with
	// nothing held. replayTx is the transaction that replays held records (guarded by stateMu),
	// copyWorkspace materializeCopy's memory.
	workspace     btree.Workspace
	replayTx      Tx
	copyWorkspace btree.Workspace
	// headLSN is the LSN of the newest commit (see Version markers; written under stateMu, read
	// without it by prepareBatch).
	headLSN atomic.Uint64
	// materializeFn is materializeForBatch as a func value, made once (prepareBatch returns it
	// per batch).
	materializeFn func() error

	// pending holds committed versions waiting for their batch's fdatasync, in LSN order.
	pendingMu sync.Mutex
	pending   []*version
	// publishLog records when recent versions were published (guarded by pendingMu).
	publishLog publishLog

	closed   atomic.Bool
	failure  atomic.Pointer[error]
	walBytes atomic.Int64
	counters counters

	checkpointWake chan struct{}
	stop           chan struct{}
	loopDone       sync.WaitGroup
}

// Open opens the database at path, creating it with mode 0600 if it does not exist. The database
// is three files: path itself and its two WAL segments, path+"-wal" and path+"-wal2" (created
// beside it when missing); copy or remove them together. An empty file at path is made a new
// database, as a missing one is (with Options.ReadOnly both are an error wrapping
// fs.ErrNotExist). Open takes an exclusive lock: a second Open of the same path, from another
// process or from this one, returns an error wrapping ErrLocked (with Options.ReadOnly: a shared
// lock that excludes only writers). Opening replays the WAL written since the last checkpoint; a
// damaged database or WAL file gives an error wrapping ErrCorrupt (nothing is repaired silently),
// and a file that is not a cairn database one wrapping ErrNotDatabase. opts may be nil for the
// defaults.
//
// Errors name the path once and the cause once, as in "cairn: open /tmp/x.db: no such file or
// directory"; they wrap the cause, so errors.Is(err, fs.ErrNotExist) and the like hold. A
// permission error on a file that can be read suggests Options.ReadOnly.
func Open(path string, opts *Options) (*DB, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	db := &DB{path: path, opts: o, readers: txn.NewRegistry[Tx](),
		checkpointWake: make(chan struct{}, 1), stop: make(chan struct{})}
	open := db.open
	if o.ReadOnly {
		open = db.openReadOnly
	}
	if err := open(); err != nil {
		db.closeFiles()
		return nil, openError(o.fs, path, o.ReadOnly, err)
	}
	if !o.ReadOnly {
		db.loopDone.Add(1)
		go db.checkpointLoop()
	}
	return db, nil
}

func (db *DB) open() (err error) {
	fs := db.opts.fs
	if db.lock, err = db.lockFile(); err != nil {
		return err
	}
	if db.pageFile, err = fs.OpenFile(db.path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return err
	}
	pg, created, err := pager.Open(db.pageFile, pager.Options{
		PageSize: db.opts.PageSize, CacheBytes: db.opts.CacheBytes, Validate: btree.Validate,
		Poison: db.opts.PoisonFreedPages,
	})
	if created {
		// A failed creation leaves both files empty, as a new database is, so that the next Open
		// creates it again; a half-written meta page or WAL header would read as damage forever.
		defer func() {
			if err != nil {
				db.emptyFiles()
			}
		}()
	}
	if err != nil {
		return err
	}
	db.pager = pg
	meta := pg.Durable()
	if err := db.openWALFiles(!created); err != nil {
		return err
	}
	var w *wal.Log
	v := &version{root: meta.Root, catalog: meta.Catalog, lsn: meta.LSN}
	if created {
		w, err = wal.CreateLog(db.walFiles[0], db.walFiles[1], meta.DBID)
	} else {
		w, v, err = db.recover(meta)
	}
	if err != nil {
		return err
	}
	if w.NeedsReset() {
		// Both segments hold records the page file lacks, so neither can become the spare: make
		// what the WAL holds durable in the page file (a meta page only for a newer version:
		// recovery's damaged-meta rule relies on it) and start both segments afresh.
		if v.lsn != db.pager.Durable().LSN {
			if err := db.pager.Checkpoint(v.root, v.catalog, v.lsn); err != nil {
				return err
			}
		}
		if err := w.Reset(); err != nil {
			return err
		}
	}
	db.published.Store(v)
	db.setLatest(v)
	db.walBytes.Store(w.Size())
	w.SetSync(db.opts.Sync == SyncFull)
	db.materializeFn = db.materializeForBatch
	db.walLog = w
	db.committer = wal.NewCommitter(w, db.opts.MaxBatchBytes, db.onDurable, db.prepareBatch)
	if db.opts.Replicate != nil {
		db.committer.SetReplicate(db.opts.Replicate)
	}
	return nil
}

// openWALFiles opens both WAL segment files, creating a missing one, and makes their names
// durable (SyncDir) before anything is written to them. With check, a missing file is first
// judged by checkSegmentPair, and nothing is created if it refuses.
func (db *DB) openWALFiles(check bool) error {
	fsys := db.opts.fs
	var missing [2]bool
	for i := range db.walFiles {
		f, err := fsys.OpenFile(walPath(db.path, i), os.O_RDWR, 0)
		switch {
		case errors.Is(err, iofs.ErrNotExist):
			missing[i] = true
		case err != nil:
			return err
		}
		db.walFiles[i] = f
	}
	if check {
		if err := checkSegmentPair(db.walFiles, missing, db.path); err != nil {
			return err
		}
	}
	for i := range db.walFiles {
		if !missing[i] {
			continue
		}
		f, err := fsys.OpenFile(walPath(db.path, i), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		db.walFiles[i] = f
	}
	// A name created without it could vanish in a crash after the other segment's header says
	// the log has two segments (checkSegmentPair would then refuse the database).
	return fsys.SyncDir(filepath.Dir(db.path))
}

// checkSegmentPair refuses a database one of whose WAL segment files did not exist while the
// other was written after its creation (generation 2 or more): the missing file may have held
// the newest commits (a copy of the database that missed it, say), and replaying the other alone
// would lose them silently. A missing file beside a segment of generation 1 (a crash while the
// database was created) is an empty segment. A segment of an older format version (WAL versions 1
// and 2 were one file) is refused with its *errs.VersionError before the missing file is created.
// Errors wrap ErrCorrupt.
func checkSegmentPair(files [2]vfs.File, missing [2]bool, path string) error {
	if missing[0] == missing[1] {
		return nil
	}
	other := 0
	if missing[0] {
		other = 1
	}
	size, err := files[other].Size()
	if err != nil {
		return err
	}
	info, err := wal.Scan(files[other], size, ^uint64(0), func(wal.RecordInfo) error { return nil })
	var ve *errs.VersionError
	if errors.As(err, &ve) {
		return fmt.Errorf("%s: %w", walPath(path, other), err)
	}
	if err != nil || info.Fresh || info.Generation < 2 {
		return nil // RecoverLog reports damage; a fresh segment is fine
	}
	return fmt.Errorf("wal: segment %s is missing, but %s (generation %d) belongs to a log of two segments: the missing one may hold commits: %w",
		walPath(path, 1-other), walPath(path, other), info.Generation, ErrCorrupt)
}

// recover replays the WAL records after the checkpoint of meta into one write transaction and
// returns the version they produce.
func (db *DB) recover(meta pager.Meta) (*wal.Log, *version, error) {
	tx := newWriteTx(db, &version{root: meta.Root, catalog: meta.Catalog, lsn: meta.LSN, dropping: true})
	tx.replaying = true
	w, last, err := wal.RecoverLog(db.walFiles[0], db.walFiles[1], meta.DBID, meta.LSN, func(lsn uint64, payload []byte) error {
		return tx.replay(payload) // payload is a fresh slice: the trees may keep it
	})
	if err != nil {
		return nil, nil, err
	}
	v, err := db.finishReplay(tx, meta, last)
	if err != nil {
		return nil, nil, err
	}
	return w, v, nil
}

// finishReplay ends the replay of the WAL records after meta's checkpoint, up to LSN last, into
// tx (recovery and read-only open): it refuses an empty replay over a damaged meta page, writes
// the replayed trees as the version at last, and empties the workspace.
func (db *DB) finishReplay(tx *Tx, meta pager.Meta, last uint64) (*version, error) {
	// A checkpoint writes its meta page only when the WAL holds records after the previous
	// checkpoint, and resets the WAL only after that write is durable. So a torn meta write leaves
	// records after the surviving meta page's LSN. With none, the damaged page may have been the
	// newest (its checkpoint lost after the WAL was reset) or the older one: refuse rather than
	// risk a silent rollback.
	if db.pager.MetaDamaged() && last == meta.LSN {
		return nil, fmt.Errorf("cairn: one meta page is damaged and the WAL holds nothing after the other one (LSN %d); if the damaged page was the newer, commits after LSN %d are lost: %w", meta.LSN, meta.LSN, ErrCorrupt)
	}
	v, err := tx.commitTrees(last)
	db.workspace.Reset() // the replayed trees are written or dropped: keep none of their memory
	return v, err
}

// Close waits for open transactions to end, checkpoints, and closes the files. It must not be
// called from inside a transaction of this DB (it would wait for itself). A failed database
// (ErrFailed) is closed without a checkpoint, and Close returns the failure (an error wrapping
// ErrFailed and its cause): it may have come from a checkpoint no caller waited for, in the
// background or in this Close. The files are closed in every case, and reopening recovers every
// acknowledged commit. Later calls return ErrClosed.
func (db *DB) Close() error {
	if !db.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	close(db.stop)
	db.loopDone.Wait()
	for db.readers.Active() > 0 {
		time.Sleep(time.Millisecond)
	}
	db.checkpointMu.Lock()
	defer db.checkpointMu.Unlock()
	db.lockWriter()
	defer db.unlockWriter()
	if db.opts.ReadOnly {
		return db.closeFiles()
	}
	err := db.failed() // no checkpoint on a failed database
	if err == nil {
		err = db.checkpointNoPreflush(context.Background())
	}
	if err == nil {
		// Everything is in the page file now: give back the space the WAL grew to.
		err = db.committer.Do(func(l *wal.Log) error { return l.Shrink() })
	}
	if err != nil {
		err = fmt.Errorf("cairn: close: %w", err)
	}
	if cerr := db.committer.Close(); err == nil && cerr != nil && db.failed() == nil {
		err = cerr
	}
	if cerr := db.closeFiles(); err == nil {
		err = cerr
	}
	return err
}

// emptyFiles truncates the page file and the WAL to size 0 and syncs them, as far as it can: an
// Open that was creating the database failed.
func (db *DB) emptyFiles() {
	for _, f := range []vfs.File{db.walFiles[0], db.walFiles[1], db.pageFile} {
		if f != nil && f.Truncate(0) == nil {
			_ = f.Sync()
		}
	}
}

func (db *DB) closeFiles() error {
	if db.walLog != nil {
		db.walLog.WaitGrowth() // a segment grown ahead of the writer is written to until then
	}
	var first error
	for _, c := range []io.Closer{db.walFiles[0], db.walFiles[1], db.pageFile, db.lock} {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// fail puts the database into the failed state (see ErrFailed).
func (db *DB) fail(err error) error {
	wrapped := fmt.Errorf("%w: %w", ErrFailed, err)
	db.failure.CompareAndSwap(nil, &wrapped)
	return wrapped
}

// failed returns the error that failed the database, or nil.
func (db *DB) failed() error {
	if p := db.failure.Load(); p != nil {
		return *p
	}
	if db.committer == nil {
		return nil // read-only
	}
	if err := db.committer.Err(); err != nil {
		return err
	}
	return nil
}

// walPath returns the path of WAL segment i (0 or 1) of the database at path: path+"-wal" and
// path+"-wal2" (the names of SQLite's two-file "wal2" mode, which has the same aim).
func walPath(path string, i int) string {
	if i == 0 {
		return path + "-wal"
	}
	return path + "-wal2"
}

// Path returns the path of the database file.
func (db *DB) Path() string { return db.path }

// lockWriter takes the writer slot and treeMu, for a caller that neither commits nor rolls back
// a transaction (Checkpoint, Check, Close, compaction's steps).
func (db *DB) lockWriter() {
	db.writer.Lock()
	db.treeMu.Lock()
}

// unlockWriter releases what lockWriter took.
func (db *DB) unlockWriter() {
	db.treeMu.Unlock()
	db.writer.Unlock()
}

// Options returns the options the database was opened with, defaults filled in (CacheBytes,
// CheckpointBytes and PageSize as in use; PageSize is the one asked for: an existing database
// keeps its own, which Stats reports).
func (db *DB) Options() Options {
	o := db.opts
	o.fs = nil
	return o
}

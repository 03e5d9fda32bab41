package engine

// A hosted engine (NewHosted) runs on a database that its Host may replace while it runs: a
// replicated node (package cluster) reopens its cairn.DB after a refused replication and replaces
// it when it installs a snapshot, and refuses writes while it is not the leader. Invariants:
//   - Every transaction begins on the database the Host returns at that moment; a begin that
//     meets a closed database retries on the Host's current one when it is another (a swap), and
//     returns cairn.ErrClosed when it is the same (the Host closed it for good).
//   - A write transaction (and a write outside one: TEMP table cleanup) begins only after
//     Host.WriteAllowed returned nil; its error is the statement's, unwrapped, and nothing ran.
//   - The schema caches stay valid across a swap: a Host's databases name the same commit by
//     the same LSN (cluster's invariant), so a cookie or an LSN names the same schema on each.
//     A schema is remembered only after its transaction committed.
// A plain engine (New) has no Host: its hot paths test e.host == nil once and use e.db.

import (
	"context"
	"errors"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// Host supplies the database of an engine made by NewHosted. Its methods are called
// concurrently, on every transaction's begin: they must be fast.
type Host interface {
	// DB returns the current database.
	DB() *cairn.DB
	// WriteAllowed returns nil if a write transaction may begin now, else the error that the
	// statement needing one returns (package cluster: a *cluster.NotLeaderError on a follower).
	WriteAllowed() error
}

// NewHosted returns an engine over the databases of h (see Host). The databases stay the Host's
// to close. Like New, it deletes the buckets of TEMP tables a process that died left, if h
// allows a write now.
func NewHosted(h Host) *Engine {
	if h.WriteAllowed() == nil {
		_ = deleteBuckets(h.DB(), tempBucketPrefix)
	}
	return &Engine{host: h, schemas: map[int64]*Schema{}}
}

// database returns the database transactions begin on now.
func (e *Engine) database() *cairn.DB {
	if e.host == nil {
		return e.db
	}
	return e.host.DB()
}

// beginRead begins a read transaction.
func (e *Engine) beginRead() (*cairn.Tx, error) {
	if e.host != nil {
		return e.hostedBeginRead(nil)
	}
	return e.db.Begin(false)
}

// hostedBeginRead begins a read transaction (in mem's memory if not nil, as
// cairn.DB.BeginReadInto) on the Host's current database, again on the next one if the database
// was closed by a swap.
func (e *Engine) hostedBeginRead(mem *cairn.Tx) (*cairn.Tx, error) {
	for {
		db := e.host.DB()
		var tx *cairn.Tx
		var err error
		if mem != nil {
			tx, err = db.BeginReadInto(mem)
		} else {
			tx, err = db.Begin(false)
		}
		if err == nil || !errors.Is(err, cairn.ErrClosed) || e.host.DB() == db {
			return tx, err
		}
	}
}

// beginWriteContext begins a write transaction, waiting for the writer slot until ctx is done.
func (e *Engine) beginWriteContext(ctx context.Context) (*cairn.Tx, error) {
	if e.host == nil {
		return e.db.BeginContext(ctx, true)
	}
	if err := e.host.WriteAllowed(); err != nil {
		return nil, err
	}
	return e.hostedBegin(ctx, true)
}

// hostedBegin begins a transaction on the Host's current database, again on the next one if the
// database was closed by a swap.
func (e *Engine) hostedBegin(ctx context.Context, writable bool) (*cairn.Tx, error) {
	for {
		db := e.host.DB()
		tx, err := db.BeginContext(ctx, writable)
		if err == nil || !errors.Is(err, cairn.ErrClosed) || e.host.DB() == db {
			return tx, err
		}
	}
}

// writeAllowed returns the Host's verdict on a write now (nil without a Host).
func (e *Engine) writeAllowed() error {
	if e.host == nil {
		return nil
	}
	return e.host.WriteAllowed()
}

// NewRows returns rows that yield the given rows, with the given column names and declared
// types: the rows of a statement that ran elsewhere (package cluster forwards a follower's
// writes to the leader, RETURNING rows included). The rows are not copied.
func NewRows(names, declTypes []string, rows [][]value.Value) *Rows {
	return &Rows{it: &sliceIter{rows: rows}, names: names, decl: declTypes}
}

// ForeignKeys reports the session's PRAGMA foreign_keys.
func (s *Session) ForeignKeys() bool { return s.foreignKeys }

// SetForeignKeys sets the session's PRAGMA foreign_keys (outside a transaction, as the pragma).
func (s *Session) SetForeignKeys(on bool) {
	if !s.inTx {
		s.foreignKeys = on
	}
}

// BusyTimeout returns the session's busy timeout (SetBusyTimeout, PRAGMA busy_timeout).
func (s *Session) BusyTimeout() time.Duration { return s.busyTimeout }

// SessionBound reports whether the statement acts on its session's own state, so that running
// it in another session (a forwarded statement's) would be wrong: a transaction statement
// (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE) or CREATE TEMP TABLE, VIEW or TRIGGER.
func (st *Stmt) SessionBound() bool {
	switch s := st.parsed.Stmt.(type) {
	case *ast.Begin, *ast.Commit, *ast.Rollback, *ast.Savepoint, *ast.Release:
		return true
	case *ast.CreateTable:
		return s.Temp
	case *ast.CreateView:
		return s.Temp
	case *ast.CreateTrigger:
		return s.Temp
	}
	return false
}

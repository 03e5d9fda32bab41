package engine

// Transactions. Outside BEGIN each statement is its own transaction: a query reads a snapshot, a
// write runs in a write transaction committed at its end, so that concurrent autocommit writers
// share group commits. BEGIN (DEFERRED) starts nothing until the first statement: a read takes a
// snapshot, a write takes the writer slot; a write after a read upgrades, and fails with
// ErrBusySnapshot if another connection committed since the snapshot (SQLite's
// SQLITE_BUSY_SNAPSHOT). BEGIN IMMEDIATE and EXCLUSIVE take the writer slot at once. Every wait
// for the writer slot ends when the statement's context is done (its error) or after the
// session's busy timeout (ErrBusy). A read-only transaction (BeginTx) refuses writes with
// ErrReadOnlyTx. A statement that fails inside a transaction undoes its own changes only (a
// savepoint around each write statement).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// exec runs a statement that is not a query.
func (s *Session) exec(ctx context.Context, st *Stmt, args []value.Value) (Result, error) {
	return s.execTo(ctx, st, args, nil)
}

// execTo runs a statement that is not a query; the rows of its RETURNING clause go to sink
// (nil: dropped).
func (s *Session) execTo(ctx context.Context, st *Stmt, args []value.Value, sink *returnSink) (Result, error) {
	switch st.parsed.Stmt.(type) {
	case *ast.Begin, *ast.Commit, *ast.Rollback, *ast.Savepoint, *ast.Release:
		if s.attached {
			return Result{}, ErrAttached
		}
	}
	// A statement that changes no rows leaves changes() as it was, and database/sql drivers of
	// SQLite report that count (sqlite3_changes) as its RowsAffected.
	var err error
	switch stmt := st.parsed.Stmt.(type) {
	case *ast.Begin:
		err = s.begin(ctx, stmt.Mode, false)
	case *ast.Commit:
		err = s.commit()
	case *ast.Rollback:
		if stmt.Savepoint != "" {
			err = s.rollbackTo(stmt.Savepoint)
		} else {
			err = s.rollback()
		}
	case *ast.Savepoint:
		err = s.savepoint(ctx, stmt.Name)
	case *ast.Release:
		err = s.release(stmt.Name)
	case *ast.Vacuum:
		err = s.vacuum(ctx, stmt, args)
	case *ast.Insert, *ast.Update, *ast.Delete:
		return s.execDML(ctx, st, args, sink)
	default:
		_, err = s.write(ctx, func(cx *execCtx) (Result, error) { return cx.run(st, args) })
	}
	if err != nil {
		return Result{}, err
	}
	return s.unchanged(), nil
}

// unchanged is the Result of a statement that changed no rows: SQLite's drivers report
// sqlite3_changes, the count of the last INSERT, UPDATE or DELETE.
func (s *Session) unchanged() Result {
	return Result{LastInsertID: s.lastInsertID, RowsAffected: s.changes}
}

// execDML runs an INSERT, UPDATE or DELETE; the rows of its RETURNING clause go to sink (nil:
// dropped).
func (s *Session) execDML(ctx context.Context, st *Stmt, args []value.Value, sink *returnSink) (Result, error) {
	ran := false // cx.ran when the statement ended (its execCtx is the session's again then)
	res, err := s.write(ctx, func(cx *execCtx) (Result, error) {
		cx.ret = sink
		res, err := cx.run(st, args)
		ran = cx.ran
		return res, err
	})
	if err == nil {
		s.changes = res.RowsAffected
		s.totalChanges += res.RowsAffected
		res.LastInsertID = s.lastInsertID
		return res, nil
	}
	// A statement that failed while it ran counts the rows it kept (FAIL) or none (it was
	// undone), as SQLite does; one that failed before (a name that does not resolve, which
	// SQLite finds when it prepares the statement) leaves changes() alone.
	if ran {
		var ce *conflictError
		if errors.As(err, &ce) && ce.algo == ast.ConflictFail {
			s.changes = res.RowsAffected
			s.totalChanges += res.RowsAffected
		} else {
			s.changes = 0
		}
	}
	return res, err
}

// run executes a write statement in the context's transaction, with the foreign key check at
// its end (fkey.go).
func (x *execCtx) run(stmt *Stmt, args []value.Value) (Result, error) {
	res, err := x.runStmt(stmt, args)
	if err == nil && (x.fk != nil || x.sess.fkDeferred+x.sess.fkDeferredImm > 0) {
		err = x.fkEnd()
	}
	return res, err
}

func (x *execCtx) runStmt(stmt *Stmt, args []value.Value) (Result, error) {
	switch st := stmt.parsed.Stmt.(type) {
	case *ast.Insert:
		return x.insert(st, args, stmt)
	case *ast.Update:
		return x.update(st, args, stmt)
	case *ast.Delete:
		return x.delete(st, args, stmt)
	case *ast.CreateTable:
		return Result{}, x.createTable(st, args)
	case *ast.CreateIndex:
		return Result{}, x.createIndex(st)
	case *ast.CreateView:
		return Result{}, x.createView(st)
	case *ast.Drop:
		return Result{}, x.drop(st)
	case *ast.Reindex:
		return Result{}, x.reindex(st)
	case *ast.Analyze:
		return Result{}, x.analyze(st)
	case *ast.AlterTable:
		return Result{}, x.alterTable(st)
	case *ast.CreateTrigger:
		return Result{}, x.createTrigger(st)
	case *ast.DropTrigger:
		return Result{}, x.dropTrigger(st)
	}
	return Result{}, fmt.Errorf("unsupported statement %T", stmt.parsed.Stmt)
}

// write runs fn in a write transaction: its own (autocommit) or the session's.
func (s *Session) write(ctx context.Context, fn func(cx *execCtx) (Result, error)) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if !s.inTx {
		return s.autocommit(ctx, fn)
	}
	tx, err := s.writeTx(ctx)
	if err != nil {
		return Result{}, err
	}
	sp, err := tx.Savepoint()
	if err != nil {
		return Result{}, err
	}
	cx := s.takeWriteCx()
	defer s.putWriteCx(cx)
	*cx = execCtx{ctx: ctx, tx: tx, schema: s.schema, sess: s}
	temp, fkd, fki := s.temp, s.fkDeferred, s.fkDeferredImm
	res, err := fn(cx)
	if err != nil {
		var ce *conflictError
		switch {
		case errors.As(err, &ce) && ce.algo == ast.ConflictFail:
			s.schema = cx.schema // FAIL keeps what the statement did before the failing row
			_ = tx.Release(sp)
		case errors.As(err, &ce) && ce.algo == ast.ConflictRollback:
			s.endTx(false)
		default:
			s.temp = temp // the statement's TEMP table changes are undone with it
			s.fkDeferred, s.fkDeferredImm = fkd, fki
			if rerr := tx.RollbackTo(sp); rerr != nil {
				s.endTx(false)
				return res, fmt.Errorf("%w (and the statement could not be undone: %v; the transaction was rolled back)", err, rerr)
			}
			_ = tx.Release(sp)
		}
		return res, err
	}
	s.schema = cx.schema
	return res, tx.Release(sp)
}

// takeWriteCx returns memory for a write statement's execCtx: the session's own, unless a write
// statement of the session is running in it (then a new one).
func (s *Session) takeWriteCx() *execCtx {
	if s.writeCxBusy {
		return &execCtx{}
	}
	s.writeCxBusy = true
	return &s.writeCx
}

// putWriteCx ends the use of cx, taken with takeWriteCx: nothing of a statement keeps its
// execCtx after it ends.
func (s *Session) putWriteCx(cx *execCtx) {
	if cx == &s.writeCx {
		*cx = execCtx{}
		s.writeCxBusy = false
	}
}

// autocommit runs fn in a transaction of its own, committed when fn succeeds (and, for a FAIL
// conflict, with the rows written before it). The transaction is rolled back if fn fails
// otherwise or panics.
func (s *Session) autocommit(ctx context.Context, fn func(cx *execCtx) (Result, error)) (Result, error) {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return Result{}, err
	}
	committing := false
	defer func() {
		if !committing {
			tx.Rollback()
		}
		// The statement's end is its transaction's: deferred foreign key violations were
		// checked (fkEnd) and defer_foreign_keys ends.
		s.fkDeferred, s.fkDeferredImm, s.deferFK = 0, 0, false
	}()
	sc, err := s.eng.schemaFor(tx)
	if err != nil {
		return Result{}, err
	}
	cx := s.takeWriteCx()
	defer s.putWriteCx(cx)
	*cx = execCtx{ctx: ctx, tx: tx, schema: sc, sess: s}
	temp := s.temp
	res, fnErr := fn(cx)
	var ce *conflictError
	if fnErr != nil && !(errors.As(fnErr, &ce) && ce.algo == ast.ConflictFail) {
		s.temp = temp // rolled back with the transaction
		return res, fnErr
	}
	committing = true
	if err := tx.Commit(); err != nil {
		return res, err
	}
	s.eng.remember(cx.schema)
	return res, fnErr
}

// beginWrite begins a write transaction, waiting for the writer slot until ctx is done (its
// error) or the busy timeout passes (ErrBusy).
func (s *Session) beginWrite(ctx context.Context) (*cairn.Tx, error) {
	if s.busyTimeout <= 0 {
		return s.eng.beginWriteContext(ctx)
	}
	wctx, cancel := context.WithTimeoutCause(ctx, s.busyTimeout, ErrBusy)
	defer cancel()
	tx, err := s.eng.beginWriteContext(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(wctx), ErrBusy) {
		return nil, ErrBusy
	}
	return tx, err
}

// writeTx returns the explicit transaction's write transaction, taking the writer slot if it does
// not have it yet (and checking that a deferred transaction's snapshot is still the newest).
func (s *Session) writeTx(ctx context.Context) (*cairn.Tx, error) {
	if s.readOnly {
		return nil, ErrReadOnlyTx
	}
	if s.attached {
		return s.attachedWriteTx()
	}
	if s.tx != nil && s.tx.Writable() {
		return s.tx, nil
	}
	w, err := s.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	if s.tx != nil {
		if w.LSN() != s.snapshot {
			w.Rollback()
			return nil, ErrBusySnapshot
		}
		s.tx.Rollback()
	}
	s.tx = w
	if s.schema == nil {
		sc, err := s.eng.schemaFor(w)
		if err != nil {
			return nil, err
		}
		s.schema = sc
	}
	return w, nil
}

// begin begins an explicit transaction: read-only, or in mode (IMMEDIATE and EXCLUSIVE take the
// writer slot now, waiting under ctx and the busy timeout).
func (s *Session) begin(ctx context.Context, mode ast.TxMode, readOnly bool) error {
	if s.inTx {
		return errors.New("cannot start a transaction within a transaction")
	}
	s.inTx, s.mode, s.schema, s.readOnly = true, mode, nil, readOnly
	s.deferFK = false
	s.tempAtBegin = s.temp
	if mode != ast.Deferred && !readOnly {
		if _, err := s.writeTx(ctx); err != nil {
			s.reset()
			return err
		}
	}
	return nil
}

// BeginTx begins an explicit transaction for database/sql: a read-only one reads one snapshot
// (taken by its first statement) and refuses writes with ErrReadOnlyTx; an immediate one takes
// the writer slot at once, waiting until ctx is done or the busy timeout passes; others are
// deferred.
func (s *Session) BeginTx(ctx context.Context, readOnly, immediate bool) error {
	mode := ast.Deferred
	if immediate && !readOnly {
		mode = ast.Immediate
	}
	return s.begin(ctx, mode, readOnly)
}

// Commit commits the explicit transaction (COMMIT).
func (s *Session) Commit() error {
	if s.attached {
		return ErrAttached
	}
	return s.commit()
}

// Rollback rolls the explicit transaction back (ROLLBACK).
func (s *Session) Rollback() error {
	if s.attached {
		return ErrAttached
	}
	return s.rollback()
}

func (s *Session) commit() error {
	if !s.inTx {
		return ErrNoTransaction
	}
	if s.fkDeferred+s.fkDeferredImm > 0 {
		return errFK // the transaction stays open, as in SQLite
	}
	tx, schema := s.tx, s.schema
	s.reset()
	if tx == nil {
		return nil
	}
	if !tx.Writable() {
		return tx.Rollback()
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if schema != nil {
		s.eng.remember(schema)
	}
	return nil
}

func (s *Session) rollback() error {
	if !s.inTx {
		return errors.New("cannot rollback - no transaction is active")
	}
	s.endTx(false)
	return nil
}

// endTx ends the explicit transaction, rolling it back.
func (s *Session) endTx(bool) {
	if s.tx != nil {
		s.tx.Rollback()
	}
	if s.inTx {
		s.temp = s.tempAtBegin
	}
	s.reset()
}

func (s *Session) reset() {
	s.tx, s.inTx, s.schema, s.savepoints, s.snapshot, s.readOnly = nil, false, nil, nil, 0, false
	s.attached = false
	s.fkDeferred, s.fkDeferredImm, s.deferFK = 0, 0, false
}

// savepoint is SAVEPOINT name: outside a transaction it begins one, which its RELEASE commits.
func (s *Session) savepoint(ctx context.Context, name string) error {
	begins := false
	if !s.inTx {
		if err := s.begin(ctx, ast.Deferred, false); err != nil {
			return err
		}
		begins = true
	}
	tx, err := s.writeTx(ctx)
	if err != nil {
		if begins {
			s.reset()
		}
		return err
	}
	sp, err := tx.Savepoint()
	if err != nil {
		return err
	}
	s.savepoints = append(s.savepoints, namedSavepoint{name: name, sp: sp, begins: begins, schema: s.schema, temp: s.temp,
		fkDeferred: s.fkDeferred, fkDeferredImm: s.fkDeferredImm})
	return nil
}

// findSavepoint returns the index of the newest savepoint called name.
func (s *Session) findSavepoint(name string) (int, error) {
	for i := len(s.savepoints) - 1; i >= 0; i-- {
		if strings.EqualFold(s.savepoints[i].name, name) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no such savepoint: %s", name)
}

// release is RELEASE name: it forgets the savepoint and the newer ones, committing if it began
// the transaction.
func (s *Session) release(name string) error {
	i, err := s.findSavepoint(name)
	if err != nil {
		return err
	}
	sp := s.savepoints[i]
	if err := s.tx.Release(sp.sp); err != nil {
		return err
	}
	s.savepoints = s.savepoints[:i]
	if sp.begins {
		return s.commit()
	}
	return nil
}

// rollbackTo is ROLLBACK TO name: it undoes everything since the savepoint, which stays.
func (s *Session) rollbackTo(name string) error {
	i, err := s.findSavepoint(name)
	if err != nil {
		return err
	}
	sp := s.savepoints[i]
	if err := s.tx.RollbackTo(sp.sp); err != nil {
		s.reset()
		return err
	}
	s.savepoints = s.savepoints[:i+1]
	s.schema, s.temp = sp.schema, sp.temp
	s.fkDeferred, s.fkDeferredImm = sp.fkDeferred, sp.fkDeferredImm
	return nil
}

// Close ends the session, rolling back an open transaction (an attached one is left to its
// caller: the session only detaches).
func (s *Session) Close() {
	if s.attached {
		s.Detach()
		return
	}
	if s.inTx {
		s.endTx(false)
	}
	_ = s.dropTempBuckets() // best effort: the next Engine on the database deletes what is left
}

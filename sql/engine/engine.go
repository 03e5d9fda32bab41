// Package engine runs SQL in SQLite's dialect over a cairn database: statements are parsed
// (package parse), bound and planned (bind.go, select.go, join.go, choose.go), and run by pull
// iterators (exec.go) inside cairn transactions. Tables and indexes are cairn buckets, their keys
// and rows in package codec's formats, the schema in a bucket of its own (schema.go).
//
// An Engine serves one cairn.DB; each connection has a Session, which holds its transaction
// state. A Session is used by one goroutine at a time; an Engine by any number.
package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/parse"
	"github.com/cairndb/cairn/sql/value"
)

// Engine runs SQL over one database. It is safe for concurrent use.
type Engine struct {
	db   *cairn.DB
	host Host // NewHosted: db is nil, transactions begin on host.DB() (host.go)

	mu      sync.Mutex
	schemas map[int64]*Schema // recent schemas by cookie
	latest  *Schema

	// atLSN is the schema of the committed version a read transaction last looked it up in:
	// every read transaction at that LSN sees the same data, so the same schema, without reading
	// the cookie again (a point query otherwise opens the schema bucket for it).
	atLSN atomic.Pointer[lsnSchema]
}

// lsnSchema is the schema of the committed version lsn.
type lsnSchema struct {
	lsn    uint64
	schema *Schema
}

// New returns an engine over db. db stays the caller's to close. An Engine takes itself to be the
// only one on db: it deletes the buckets of TEMP tables it finds, which a process that died left.
func New(db *cairn.DB) *Engine {
	// The TEMP tables a process that died left (temp.go): best effort, as a read-only
	// database cannot lose them.
	_ = deleteBuckets(db, tempBucketPrefix)
	return &Engine{db: db, schemas: map[int64]*Schema{}}
}

// DB returns the database the engine runs on (a hosted engine's: its Host's current one).
func (e *Engine) DB() *cairn.DB { return e.database() }

// NewSession returns a session: a connection's state (its transaction, savepoints, TEMP views,
// last insert rowid).
func (e *Engine) NewSession() *Session {
	return &Session{eng: e}
}

// schemaFor returns the schema of tx's snapshot, loading it if the cached ones are of another
// cookie. A read transaction at the LSN of the previous read transaction's lookup gets that
// schema without reading the cookie (a read-write transaction may have changed the schema
// itself, so it always reads it).
func (e *Engine) schemaFor(tx *cairn.Tx) (*Schema, error) {
	readOnly := !tx.Writable()
	if readOnly {
		if at := e.atLSN.Load(); at != nil && at.lsn == tx.LSN() {
			return at.schema, nil
		}
	}
	s, err := e.schemaByCookie(tx)
	if err == nil && readOnly {
		e.atLSN.Store(&lsnSchema{lsn: tx.LSN(), schema: s})
	}
	return s, err
}

// schemaByCookie returns the schema of tx's snapshot by its cookie.
func (e *Engine) schemaByCookie(tx *cairn.Tx) (*Schema, error) {
	cookie, err := readCookie(tx)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	s := e.schemas[cookie]
	e.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err = loadSchema(tx, cookie)
	if err != nil {
		return nil, err
	}
	e.remember(s)
	return s, nil
}

// remember caches s, keeping the few newest schemas.
func (e *Engine) remember(s *Schema) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.schemas[s.cookie] = s
	if e.latest == nil || s.cookie > e.latest.cookie {
		e.latest = s
	}
	for c := range e.schemas {
		if len(e.schemas) <= 8 {
			break
		}
		if c < e.latest.cookie-4 {
			delete(e.schemas, c)
		}
	}
}

// Session is one connection's state. Its methods are for one goroutine at a time.
type Session struct {
	eng *Engine
	// tx is the cairn transaction of an explicit transaction (BEGIN ... COMMIT), nil before its
	// first statement (deferred) or outside one.
	tx       *cairn.Tx
	inTx     bool
	attached bool // tx is the caller's (Attach): attach.go
	readOnly bool // the explicit transaction refuses writes (BeginTx with readOnly)
	mode     ast.TxMode
	snapshot uint64 // the LSN a deferred transaction's first read saw
	// schema is the schema an explicit transaction sees (its own DDL included).
	schema     *Schema
	savepoints []namedSavepoint
	tempViews  map[string]*View
	// temp holds the session's TEMP tables (temp.go); tempAtBegin is temp when the explicit
	// transaction began, which its rollback puts back; tempID names their buckets.
	temp, tempAtBegin *tempState
	tempID            string

	// rowBuf is writeRow's reused buffer for the keys and records it puts (Put copies them).
	rowBuf []byte

	// writeCx is the execCtx of the running write statement (takeWriteCx), in the
	// session's allocation.
	writeCx     execCtx
	writeCxBusy bool

	lastInsertID int64
	changes      int64
	totalChanges int64

	// busyTimeout bounds the wait for the writer slot (0: the statement's context alone).
	busyTimeout time.Duration

	// PRAGMA values of the connection (pragma.go): foreign_keys (fkey.go), cache_size
	// as set (nil: cairn's cache), temp_store.
	foreignKeys bool
	// deferFK is PRAGMA defer_foreign_keys; fkDeferred and fkDeferredImm count the deferred
	// foreign key violations of the transaction (fkey.go).
	deferFK                   bool
	fkDeferred, fkDeferredImm int64
	fkCache                   fkCache
	cacheSize                 *int64
	tempStore                 int64
}

// SetBusyTimeout bounds how long a write of the session waits for the writer slot, held by a
// transaction of another session, before it fails with ErrBusy (SQLite's busy timeout); 0 (the
// default) waits as long as the statement's context allows. The context ends the wait too, with
// its own error.
func (s *Session) SetBusyTimeout(d time.Duration) { s.busyTimeout = max(d, 0) }

type namedSavepoint struct {
	name string
	sp   cairn.Savepoint
	// begins is set for a SAVEPOINT outside a transaction, which begins one (RELEASE of it
	// commits).
	begins bool
	// schema is the transaction's schema when the savepoint was made (ROLLBACK TO restores it),
	// temp the session's TEMP tables.
	schema *Schema
	temp   *tempState
	// fkDeferred and fkDeferredImm are the session's deferred foreign key counters then.
	fkDeferred, fkDeferredImm int64
}

// Errors of sessions.
var (
	// ErrBusySnapshot is returned when a deferred transaction that read an older snapshot tries to
	// write after another connection committed: retry the transaction (SQLite's SQLITE_BUSY_SNAPSHOT).
	ErrBusySnapshot = errors.New("database is locked: the transaction read a snapshot another connection has since written past (SQLITE_BUSY_SNAPSHOT); retry it")
	// ErrNoTransaction is returned by COMMIT or ROLLBACK outside a transaction.
	ErrNoTransaction = errors.New("cannot commit - no transaction is active")
	// ErrBusy is returned when a write waited for the writer slot, held by another session's
	// transaction, for the whole busy timeout (SQLite's SQLITE_BUSY): retry it later.
	ErrBusy = errors.New("database is locked: another connection holds the write transaction (SQLITE_BUSY); retry later")
	// ErrReadOnlyTx is returned by a statement that writes (or SAVEPOINT) in a read-only
	// transaction: one begun read-only, or the caller's read-only transaction a session is
	// attached to.
	ErrReadOnlyTx = errors.New("attempt to write in a read-only transaction")
)

// InTransaction reports whether an explicit transaction is open.
func (s *Session) InTransaction() bool { return s.inTx }

// LastInsertID is the rowid of the last row an INSERT of this session added.
func (s *Session) LastInsertID() int64 { return s.lastInsertID }

// Stmt is a prepared statement: parsed once, planned when first run and again when the schema
// changed. A Stmt belongs to its Session.
type Stmt struct {
	sess   *Session
	parsed parse.Statement
	// plan is the select plan of a query, for the schema of cookie planCookie.
	plan       *selectPlan
	planSchema *Schema
	planTemp   *tempState
	// ins is the plan of an INSERT, dml of an UPDATE or DELETE, each for the schema it names.
	ins *insertPlan
	dml *targetPlan
}

// Prepare parses one statement.
func (s *Session) Prepare(sql string) (*Stmt, error) {
	stmts, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, errors.New("empty statement")
	case 1:
		return &Stmt{sess: s, parsed: stmts[0]}, nil
	}
	return nil, fmt.Errorf("%d statements in one: prepare them one by one", len(stmts))
}

// PrepareAll parses every statement of sql.
func (s *Session) PrepareAll(sql string) ([]*Stmt, error) {
	stmts, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	out := make([]*Stmt, len(stmts))
	for i := range stmts {
		out[i] = &Stmt{sess: s, parsed: stmts[i]}
	}
	return out, nil
}

// NumInput returns the number of parameters (the highest parameter number).
func (st *Stmt) NumInput() int { return st.parsed.Params }

// ParamIndex returns the number of the named parameter name (with its sigil), or 0.
func (st *Stmt) ParamIndex(name string) int { return st.parsed.Names[name] }

// ReadOnly reports whether the statement only reads (a SELECT or EXPLAIN).
func (st *Stmt) ReadOnly() bool {
	switch p := st.parsed.Stmt.(type) {
	case *ast.Select, *ast.Explain:
		return true
	case *ast.Pragma:
		return !pragmaWrites(p)
	}
	return false
}

// Returns reports whether the statement is an INSERT, UPDATE or DELETE with a RETURNING clause:
// Query runs it to its end and returns its rows; Exec runs it and drops them.
func (st *Stmt) Returns() bool {
	switch s := st.parsed.Stmt.(type) {
	case *ast.Insert:
		return len(s.Returning) > 0
	case *ast.Update:
		return len(s.Returning) > 0
	case *ast.Delete:
		return len(s.Returning) > 0
	}
	return false
}

// Text returns the statement's SQL text.
func (st *Stmt) Text() string { return st.parsed.Text }

// Result is what a statement that is not a query did: the rows an INSERT, UPDATE or DELETE
// changed; after any other statement, those of the session's last INSERT, UPDATE or DELETE (as
// SQLite's changes() and its drivers' RowsAffected report them). LastInsertID is the session's
// last_insert_rowid() after the statement.
type Result struct {
	LastInsertID int64
	RowsAffected int64
}

// Exec runs a statement that returns no rows (a query's rows, and those of RETURNING, are read
// and dropped).
func (st *Stmt) Exec(ctx context.Context, args []value.Value) (Result, error) {
	if _, ok := st.parsed.Stmt.(*ast.Pragma); ok || st.ReadOnly() {
		rows, err := st.Query(ctx, args)
		if err != nil {
			return Result{}, err
		}
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
		return st.sess.unchanged(), err
	}
	return st.sess.exec(ctx, st, args)
}

// Rows is the result of a query. Values of a row are valid until the next call of Next (copy
// them to keep them).
type Rows struct {
	it    rowIter
	names []string
	decl  []string
	err   error
	done  bool
	read  readHandle // the query's transaction, ended with the rows
	row   []value.Value
	cx    *execCtx
	// q is a SELECT's execution state, in the Rows' own allocation (QueryInto reuses it).
	q queryState
}

// Columns returns the result's column names.
func (r *Rows) Columns() []string { return r.names }

// DeclTypes returns the declared types of the result columns ("" for expressions).
func (r *Rows) DeclTypes() []string { return r.decl }

// Next advances to the next row; false at the end or on an error (see Err).
func (r *Rows) Next() bool {
	if r.done {
		return false
	}
	ok, err := r.it.next()
	if err != nil || !ok {
		r.err = err
		r.Close()
		return false
	}
	r.row = r.it.row()
	return true
}

// Row returns the current row, valid until the next call of Next.
func (r *Rows) Row() []value.Value { return r.row }

// Err returns the error that ended the rows, if any.
func (r *Rows) Err() error { return r.err }

// Close ends the rows (and an autocommit query's read transaction). It may be called twice.
func (r *Rows) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	if r.it != nil {
		r.it.close()
	}
	r.read.end()
	return nil
}

// Query runs a query (SELECT or EXPLAIN QUERY PLAN) and returns its rows; Close them. An INSERT,
// UPDATE or DELETE with RETURNING runs to its end first and its rows follow; another statement
// runs and returns no rows.
func (st *Stmt) Query(ctx context.Context, args []value.Value) (*Rows, error) {
	return st.QueryInto(ctx, args, nil)
}

// QueryInto is Query that runs a SELECT in r's memory and returns r, so that a caller running
// queries one after another reuses one Rows and its execution state (a prepared point SELECT
// then allocates nothing of its own). r may be nil (a new Rows), and must otherwise be closed
// or never used: its previous rows, and values read from them, are invalid once QueryInto
// starts. Statements other than a SELECT return new Rows and leave r alone. args must stay
// unchanged until the rows are closed.
func (st *Stmt) QueryInto(ctx context.Context, args []value.Value, r *Rows) (*Rows, error) {
	if p, ok := st.parsed.Stmt.(*ast.Pragma); ok {
		return st.runPragma(ctx, p)
	}
	if !st.ReadOnly() {
		if st.Returns() {
			// RETURNING: the statement runs to its end, then its rows are read.
			sink := &returnSink{}
			if _, err := st.sess.execTo(ctx, st, args, sink); err != nil {
				return nil, err
			}
			return &Rows{it: &sliceIter{rows: sink.rows}, names: sink.names, decl: sink.decl}, nil
		}
		res, err := st.Exec(ctx, args)
		_ = res
		if err != nil {
			return nil, err
		}
		return &Rows{it: &sliceIter{}, done: false}, nil
	}
	s := st.sess
	if ex, ok := st.parsed.Stmt.(*ast.Explain); ok {
		read, err := s.readTx(nil)
		if err != nil {
			return nil, err
		}
		defer read.end()
		schema, err := s.schemaOf(read.tx)
		if err != nil {
			return nil, err
		}
		return st.explain(&execCtx{ctx: ctx, tx: read.tx, schema: schema, sess: s}, ex)
	}
	if r == nil {
		r = &Rows{}
	} else {
		r.reuse()
	}
	q := &r.q
	read, err := s.readTx(&q.tx)
	if err != nil {
		return nil, err
	}
	tx := read.tx
	schema, err := s.schemaOf(tx)
	if err != nil {
		read.end()
		return nil, err
	}
	q.cx = execCtx{ctx: ctx, tx: tx, schema: schema, sess: s}
	cx := &q.cx
	plan, err := st.selectPlan(cx)
	if err != nil {
		read.end()
		return nil, err
	}
	q.run = runState{cx: cx, params: args, scratch: &q.scratch}
	it, err := plan.open(&q.run, nil)
	if err != nil {
		read.end()
		return nil, err
	}
	r.it, r.names, r.decl, r.read, r.cx = it, plan.names, plan.decl, read, cx
	return r, nil
}

// reuse clears r for another query but for the large parts that are cleared when they are
// used: the read transaction's memory (BeginReadInto) and the scratch iterators (taken zeroed).
func (r *Rows) reuse() {
	q := &r.q
	r.it, r.names, r.decl, r.err, r.done, r.read, r.row, r.cx = nil, nil, nil, nil, false, readHandle{}, nil, nil
	q.cx, q.run = execCtx{}, runState{}
	q.scratch.coreTaken, q.scratch.rowidTaken, q.scratch.indexTaken = false, false, false
}

// queryState is what a query's execution keeps, in the Rows' allocation.
type queryState struct {
	tx      cairn.Tx // the memory of an autocommit query's read transaction
	cx      execCtx
	run     runState
	scratch openScratch
}

// openScratch is memory for the iterators a query opens first: its first core's state and its
// first rowid lookup or index scan, which are all a point query opens. Each is taken once per
// execution (the flags), and cleared when taken; later opens allocate their own.
type openScratch struct {
	coreTaken, rowidTaken, indexTaken bool

	core  coreState
	rowid rowidIter
	index indexScanIter
}

// selectPlan returns the statement's plan for cx's schema, planning it again (with the table
// sizes of cx's transaction) after a schema change.
func (st *Stmt) selectPlan(cx *execCtx) (*selectPlan, error) {
	schema := cx.schema
	if st.plan != nil && st.planSchema == schema && st.planTemp == cx.sess.temp {
		return st.plan, nil
	}
	sel, ok := st.parsed.Stmt.(*ast.Select)
	if !ok {
		return nil, fmt.Errorf("not a query")
	}
	pc := &planCtx{schema: schema, sess: st.sess, cx: cx}
	plan, err := planSelect(pc, sel, &scope{})
	if err != nil {
		return nil, err
	}
	st.plan, st.planSchema, st.planTemp = plan, schema, cx.sess.temp
	return plan, nil
}

// readTx returns the transaction a query reads in: the explicit transaction's (begun now if
// deferred), or a read transaction of its own, which the handle's end rolls back, begun in mem
// when mem is not nil (an ended transaction's memory, or a zero Tx).
func (s *Session) readTx(mem *cairn.Tx) (readHandle, error) {
	if s.inTx {
		if s.tx == nil {
			tx, err := s.eng.beginRead()
			if err != nil {
				return readHandle{}, err
			}
			s.tx, s.snapshot = tx, tx.LSN()
		}
		return readHandle{tx: s.tx}, nil
	}
	var tx *cairn.Tx
	var err error
	switch db := s.eng.db; {
	case s.eng.host != nil:
		tx, err = s.eng.hostedBeginRead(mem)
	case mem != nil:
		tx, err = db.BeginReadInto(mem)
	default:
		tx, err = db.Begin(false)
	}
	if err != nil {
		return readHandle{}, err
	}
	return readHandle{tx: tx, own: true}, nil
}

// readHandle is the transaction a query reads in, and whether the query owns it (a read
// transaction of its own, rolled back when the query ends) or not (the session's).
type readHandle struct {
	tx  *cairn.Tx
	own bool
}

// end ends the transaction if the query owns it; a zero handle does nothing.
func (h readHandle) end() {
	if h.own {
		h.tx.Rollback()
	}
}

// schemaOf returns the schema a statement of this session sees in tx.
func (s *Session) schemaOf(tx *cairn.Tx) (*Schema, error) {
	if s.inTx && s.schema != nil {
		return s.schema, nil
	}
	schema, err := s.eng.schemaFor(tx)
	if err != nil {
		return nil, err
	}
	if s.inTx {
		s.schema = schema
	}
	return schema, nil
}

// Exec parses and runs every statement of sql (parameters go to each).
func (s *Session) Exec(ctx context.Context, sql string, args []value.Value) (Result, error) {
	stmts, err := s.PrepareAll(sql)
	if err != nil {
		return Result{}, err
	}
	var res Result
	for _, st := range stmts {
		if res, err = st.Exec(ctx, args); err != nil {
			return res, err
		}
	}
	return res, nil
}

// view returns the view called name: a TEMP view of the session, else the schema's.
func (pc *planCtx) view(name string) *View {
	if pc.sess != nil {
		if v := pc.sess.tempViews[fold(name)]; v != nil {
			return v
		}
	}
	return pc.schema.view(name)
}

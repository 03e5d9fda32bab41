package cairnsql

// Connectors on an engine that another package hosts (package cluster: a replicated node).
// Invariants:
//   - A Router sees every statement of such a connector that reads (BeforeRead, before it runs)
//     and every autocommit statement that the engine's Host refused to write (Forward, after the
//     refusal, when nothing of it ran): it may run the statement elsewhere and return its result.
//   - A statement inside a transaction is never forwarded, nor one bound to its session (a
//     transaction statement, CREATE TEMP ...: engine.Stmt.SessionBound): its refusal is its
//     error.
//   - A connector without a Router runs as the plain one: one nil test per statement.

import (
	"context"
	"database/sql/driver"
	"errors"
	"time"

	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

// Router decides where the statements of a hosted connector run (NewHostedConnector). Its
// methods are called concurrently by the connector's connections.
type Router interface {
	// BeforeRead is called before a statement that only reads (a query, or a PRAGMA that reads)
	// runs: it returns once this node may serve the read with the consistency the Router
	// promises, or the error the statement returns.
	BeforeRead(ctx context.Context) error
	// Forward is called after an autocommit statement failed with refused before it changed
	// anything, because the engine's Host refused to begin a write. It returns handled false to
	// make refused the statement's error, else the statement's result as it ran elsewhere, or
	// the error it failed with there.
	Forward(ctx context.Context, refused error, req ForwardRequest) (res ForwardResult, handled bool, err error)
}

// ForwardRequest is a statement to run elsewhere, in an autocommit transaction of its own, with
// the settings of the session it comes from.
type ForwardRequest struct {
	SQL  string        // one statement
	Args []value.Value // its parameters, by number (named ones resolved)
	// Rows asks for the rows of a RETURNING clause (database/sql Query); else they are dropped.
	Rows        bool
	ForeignKeys bool          // the session's PRAGMA foreign_keys
	BusyTimeout time.Duration // the session's busy timeout
}

// ForwardResult is what a forwarded statement did.
type ForwardResult struct {
	LastInsertID int64
	RowsAffected int64
	// Columns, DeclTypes and Rows are the RETURNING rows (ForwardRequest.Rows).
	Columns   []string
	DeclTypes []string
	Rows      [][]value.Value
}

// NewHostedConnector returns a connector whose connections are sessions of eng, an engine on a
// database another package owns (engine.NewHosted): Close leaves the database open. r, if not
// nil, routes statements (Router). opts.Sync, CacheBytes and InMemory are ignored: the database
// is eng's; BusyTimeout, TxLock and Pragmas apply as for NewConnector.
func NewHostedConnector(eng *engine.Engine, opts *Options, r Router) (driver.Connector, error) {
	if eng == nil {
		return nil, errors.New("cairnsql: nil engine")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Connector{opts: o, driver: &Driver{}, router: r, hosted: true}
	c.db = &database{eng: eng, refs: 1}
	return c, nil
}

// exec runs a statement that is not read as rows.
func (c *conn) exec(ctx context.Context, st *engine.Stmt, vals []value.Value) (engine.Result, error) {
	r := c.c.router
	if r == nil {
		return st.Exec(ctx, vals)
	}
	if st.ReadOnly() {
		if err := r.BeforeRead(ctx); err != nil {
			return engine.Result{}, err
		}
		return st.Exec(ctx, vals)
	}
	inTx := c.sess.InTransaction()
	res, err := st.Exec(ctx, vals)
	if err == nil || inTx || c.sess.InTransaction() || st.SessionBound() {
		return res, err
	}
	fr, handled, ferr := r.Forward(ctx, err, c.forwardRequest(st, vals, false))
	if !handled {
		return res, err
	}
	if ferr != nil {
		return engine.Result{}, ferr
	}
	return engine.Result{LastInsertID: fr.LastInsertID, RowsAffected: fr.RowsAffected}, nil
}

// query runs a statement read as rows, a SELECT's in mem (engine.Stmt.QueryInto).
func (c *conn) query(ctx context.Context, st *engine.Stmt, vals []value.Value, mem *engine.Rows) (*engine.Rows, error) {
	r := c.c.router
	if r == nil {
		return st.QueryInto(ctx, vals, mem)
	}
	if st.ReadOnly() {
		if err := r.BeforeRead(ctx); err != nil {
			return nil, err
		}
		return st.QueryInto(ctx, vals, mem)
	}
	inTx := c.sess.InTransaction()
	rows, err := st.QueryInto(ctx, vals, mem)
	if err == nil || inTx || c.sess.InTransaction() || st.SessionBound() {
		return rows, err
	}
	fr, handled, ferr := r.Forward(ctx, err, c.forwardRequest(st, vals, true))
	if !handled {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	return engine.NewRows(fr.Columns, fr.DeclTypes, fr.Rows), nil
}

func (c *conn) forwardRequest(st *engine.Stmt, vals []value.Value, rows bool) ForwardRequest {
	return ForwardRequest{SQL: st.Text(), Args: vals, Rows: rows && st.Returns(),
		ForeignKeys: c.sess.ForeignKeys(), BusyTimeout: c.sess.BusyTimeout()}
}

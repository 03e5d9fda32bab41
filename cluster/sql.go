package cluster

// SQL on a cluster node: one engine per node (engine.NewHosted) over the node's current database,
// shared by every SQLConnector of the node and by the requests it serves as the leader.
// Invariants:
//   - The engine begins every transaction on the database the node holds at that moment
//     (currentDB), so a database reopened after a refused replication or replaced by a snapshot
//     is used from the next transaction on; a transaction that began on the old one fails.
//   - The engine begins a write transaction only while the node is the writable leader
//     (WriteAllowed); elsewhere the statement fails with a *NotLeaderError before it ran, and an
//     autocommit one is forwarded (unless Config.DisableForwarding).
//   - Schema changes replicated to a follower reach its engine by the database itself: the engine
//     reads the schema cookie of every snapshot at a new LSN (engine.schemaFor).

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cairnsql"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/engine"
)

// sqlState is the node's SQL engine, made at the first SQLConnector or forwarded statement.
type sqlState struct {
	once sync.Once
	eng  *engine.Engine
}

// sqlEngine returns the node's SQL engine.
func (n *Node) sqlEngine() *engine.Engine {
	n.sql.once.Do(func() { n.sql.eng = engine.NewHosted(nodeHost{n}) })
	return n.sql.eng
}

// nodeHost is the engine's Host: the node's current database, writable on the leader only.
type nodeHost struct{ n *Node }

func (h nodeHost) DB() *cairn.DB {
	db, _ := h.n.currentDB()
	return db
}

func (h nodeHost) WriteAllowed() error {
	if h.n.writable.Load() {
		return nil
	}
	return h.n.notLeader()
}

// SQLOptions configure a connector of SQLConnector. The zero value gives linearizable reads.
type SQLOptions struct {
	// Consistency of the statements that only read (SELECT, reading PRAGMAs), each checked
	// before it runs: Linearizable (the default) confirms the leader's role with a quorum (on a
	// follower: asks the leader for its LSN, then waits until this node has applied it and reads
	// here); LeaderLocal skips that confirmation; Follower reads this node's state, at most
	// MaxStaleness behind (0: no bound; ErrStale), and never before the writes this connector
	// forwarded (read-your-writes).
	Consistency  Consistency
	MaxStaleness time.Duration
	// BusyTimeout, TxLock and Pragmas are cairnsql.Options'.
	BusyTimeout time.Duration
	TxLock      cairnsql.TxLock
	Pragmas     []string
}

// SQLConnector returns a database/sql connector to the node's SQL tables (sql.OpenDB): SQL in
// SQLite's dialect as cairnsql runs it, on the node's database. Its Close (which
// (*sql.DB).Close calls) leaves the node open; the connections fail once the node is closed.
//
// On the leader every statement runs here, and its commits replicate like any other. On another
// node, reads run here with the consistency of opts, and an autocommit statement that writes
// (INSERT, UPDATE, DELETE, with RETURNING too, DDL, a PRAGMA that writes) is forwarded to the
// leader, which runs it in a session of its own with this session's foreign_keys and busy
// timeout; its rows affected, last insert ID and RETURNING rows come back. A write inside an
// explicit transaction on a follower fails with a *NotLeaderError (roll back and run the
// transaction on the leader's connector), and so does every write when Config.DisableForwarding
// is set; so do transaction statements that take the writer slot (BEGIN IMMEDIATE, a SAVEPOINT
// outside a transaction) and CREATE TEMP TABLE, VIEW or TRIGGER, which are never forwarded. A
// forwarded write whose answer is lost fails with an error wrapping cairn.ErrFailed: its outcome
// is unknown. docs/CLUSTER.md, "SQL on a cluster".
func (n *Node) SQLConnector(opts *SQLOptions) (driver.Connector, error) {
	var o SQLOptions
	if opts != nil {
		o = *opts
	}
	if o.Consistency < Linearizable || o.Consistency > Follower {
		return nil, errors.New("cluster: SQLOptions: unknown consistency")
	}
	return cairnsql.NewHostedConnector(n.sqlEngine(),
		&cairnsql.Options{BusyTimeout: o.BusyTimeout, TxLock: o.TxLock, Pragmas: o.Pragmas},
		&sqlRouter{n: n, opts: o})
}

// sqlRouter is a connector's cairnsql.Router.
type sqlRouter struct {
	n    *Node
	opts SQLOptions
	// minLSN is the LSN of the connector's last forwarded write: Follower reads wait for it.
	minLSN atomic.Uint64
}

// minLSNKey is the context key of WithMinLSN.
type minLSNKey struct{}

// WithMinLSN returns a context whose SQL reads through a SQLConnector wait until the node has
// applied the commit at lsn (ReadOptions.MinLSN: read-your-writes with a leader's LastLSN or
// Write's LSN), whatever the connector's consistency.
func WithMinLSN(ctx context.Context, lsn uint64) context.Context {
	return context.WithValue(ctx, minLSNKey{}, lsn)
}

// BeforeRead checks (or waits) that this node may serve a read now.
func (r *sqlRouter) BeforeRead(ctx context.Context) error {
	if err := r.consistent(ctx); err != nil {
		return err
	}
	if lsn, _ := ctx.Value(minLSNKey{}).(uint64); lsn > 0 {
		return r.n.awaitLSN(ctx, lsn)
	}
	return nil
}

func (r *sqlRouter) consistent(ctx context.Context) error {
	n := r.n
	switch r.opts.Consistency {
	case Follower:
		if err := n.readCheck(ReadOptions{Consistency: Follower, MaxStaleness: r.opts.MaxStaleness}); err != nil {
			return err
		}
		if lsn := r.minLSN.Load(); lsn > 0 {
			return n.awaitLSN(ctx, lsn)
		}
		return nil
	default:
		err := n.readCheck(ReadOptions{Consistency: r.opts.Consistency})
		if err == nil || n.cfg.DisableForwarding || !errors.Is(err, ErrNotLeader) {
			return err
		}
		// A follower: the leader's LSN (after it confirmed its role), then read here once it
		// is applied (a read index).
		verify := byte(0)
		if r.opts.Consistency == Linearizable {
			verify = 1
		}
		_, lsn, err := n.forward(ctx, []byte{reqReadIndex, verify}, true)
		if errors.Is(err, errLocal) {
			return n.readCheck(ReadOptions{Consistency: r.opts.Consistency})
		}
		if err != nil {
			return err
		}
		return n.awaitLSN(ctx, lsn)
	}
}

// Forward sends a statement the node refused to write to the leader.
func (r *sqlRouter) Forward(ctx context.Context, refused error, req cairnsql.ForwardRequest) (cairnsql.ForwardResult, bool, error) {
	n := r.n
	if n.cfg.DisableForwarding || !errors.Is(refused, ErrNotLeader) {
		return cairnsql.ForwardResult{}, false, nil
	}
	sr := sqlRequest{ForwardRequest: req}
	body, lsn, err := n.forward(ctx, sr.encode([]byte{reqSQL}), false)
	if errors.Is(err, errLocal) { // the leader now: run it here, in a session of its own
		res, err := n.runSQL(ctx, sr)
		if err != nil {
			return cairnsql.ForwardResult{}, true, err
		}
		for _, rec := range res.records {
			vals, err := codec.DecodeRecord(rec, nil)
			if err != nil {
				return cairnsql.ForwardResult{}, true, err
			}
			res.Rows = append(res.Rows, vals)
		}
		return res.ForwardResult, true, nil
	}
	if err != nil {
		return cairnsql.ForwardResult{}, true, err
	}
	var res sqlResult
	d := decoder{b: body}
	res.decode(&d)
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return cairnsql.ForwardResult{}, true, d.err
	}
	for {
		old := r.minLSN.Load()
		if lsn <= old || r.minLSN.CompareAndSwap(old, lsn) {
			break
		}
	}
	return res.ForwardResult, true, nil
}

// runSQL runs a forwarded statement on this node, the leader, in a session of its own.
func (n *Node) runSQL(ctx context.Context, r sqlRequest) (sqlResult, error) {
	if !n.writable.Load() {
		return sqlResult{}, n.notLeader()
	}
	sess := n.sqlEngine().NewSession()
	defer sess.Close()
	sess.SetBusyTimeout(r.BusyTimeout)
	sess.SetForeignKeys(r.ForeignKeys)
	st, err := sess.Prepare(r.SQL)
	if err != nil {
		return sqlResult{}, err
	}
	var res sqlResult
	if !r.Rows {
		er, err := st.Exec(ctx, r.Args)
		if err != nil {
			return sqlResult{}, err
		}
		res.LastInsertID, res.RowsAffected = er.LastInsertID, er.RowsAffected
		return res, nil
	}
	rows, err := st.Query(ctx, r.Args)
	if err != nil {
		return sqlResult{}, err
	}
	defer rows.Close()
	res.Columns, res.DeclTypes = rows.Columns(), rows.DeclTypes()
	for rows.Next() {
		res.records = append(res.records, codec.AppendRecord(nil, rows.Row()))
	}
	if err := rows.Err(); err != nil {
		return sqlResult{}, err
	}
	res.LastInsertID = sess.LastInsertID()
	res.RowsAffected = int64(len(res.records))
	return res, nil
}

// sqlRequest is a forwarded statement. Body: flags (1 byte: 1 rows, 2 foreign keys) | busy
// timeout in ms | SQL text | arguments (a record).
type sqlRequest struct{ cairnsql.ForwardRequest }

func (r sqlRequest) encode(b []byte) []byte {
	var flags byte
	if r.Rows {
		flags |= 1
	}
	if r.ForeignKeys {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(r.BusyTimeout.Milliseconds()))
	b = appendString(b, r.SQL)
	return appendBytes(b, codec.AppendRecord(nil, r.Args))
}

func (r *sqlRequest) decode(d *decoder) {
	flags := d.byte()
	r.Rows, r.ForeignKeys = flags&1 != 0, flags&2 != 0
	r.BusyTimeout = durationMS(d.uvarint())
	r.SQL = d.string()
	r.Args = d.record()
}

// sqlResult is a forwarded statement's result. Body: last insert ID | rows affected (varints) |
// column count | names | declared types | row count | rows (records).
type sqlResult struct {
	cairnsql.ForwardResult
	records [][]byte // the rows, encoded (server side)
}

func (r sqlResult) encode(b []byte) []byte {
	b = binary.AppendVarint(b, r.LastInsertID)
	b = binary.AppendVarint(b, r.RowsAffected)
	b = binary.AppendUvarint(b, uint64(len(r.Columns)))
	for i, c := range r.Columns {
		b = appendString(b, c)
		b = appendString(b, r.DeclTypes[i])
	}
	b = binary.AppendUvarint(b, uint64(len(r.records)))
	for _, rec := range r.records {
		b = appendBytes(b, rec)
	}
	return b
}

func (r *sqlResult) decode(d *decoder) {
	r.LastInsertID, r.RowsAffected = d.varint(), d.varint()
	ncol := d.count(2)
	for range ncol {
		r.Columns = append(r.Columns, d.string())
		r.DeclTypes = append(r.DeclTypes, d.string())
	}
	nrow := d.count(1)
	for range nrow {
		vals := d.record()
		if d.err != nil {
			return
		}
		if len(vals) != ncol {
			d.fail("row of the wrong width")
			return
		}
		r.Rows = append(r.Rows, vals)
	}
}

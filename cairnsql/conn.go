package cairnsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

// conn is one connection: an engine session. database/sql uses it from one goroutine at a time.
type conn struct {
	c      *Connector
	eng    *engine.Engine
	sess   *engine.Session
	closed bool
	cache  stmtCache
	// spare is the rows of the connection's last closed query, which the next query reuses
	// (database/sql calls nothing of a driver.Rows after its Close).
	spare *rows
	// lastResult is the result of the connection's last Exec.
	lastResult *execResult
	// execArgs holds the parameters of an Exec with few (the engine keeps none after it).
	execArgs [8]value.Value
}

// stmtCacheSize is how many statements a connection keeps parsed, by their SQL text.
const stmtCacheSize = 64

// stmtCache keeps the parsed statements of the SQL texts a connection ran last, so that
// db.Exec and db.Query of a repeated text skip parsing; a statement plans again by itself after a
// schema change. The oldest text goes first when it is full.
type stmtCache struct {
	stmts map[string][]*engine.Stmt
	order []string // the texts, oldest first
}

// prepared returns the parsed statements of query, from the cache or parsed now.
func (c *conn) prepared(query string) ([]*engine.Stmt, error) {
	if sts, ok := c.cache.stmts[query]; ok {
		return sts, nil
	}
	sts, err := c.sess.PrepareAll(query)
	if err != nil {
		return nil, err
	}
	if c.cache.stmts == nil {
		c.cache.stmts = make(map[string][]*engine.Stmt, stmtCacheSize)
	}
	if len(c.cache.order) == stmtCacheSize {
		delete(c.cache.stmts, c.cache.order[0])
		c.cache.order = append(c.cache.order[:0], c.cache.order[1:]...)
	}
	c.cache.stmts[query] = sts
	c.cache.order = append(c.cache.order, query)
	return sts, nil
}

// preparedOne returns the one statement of query (the cache's, or parsed now).
func (c *conn) preparedOne(query string) (*engine.Stmt, error) {
	sts, err := c.prepared(query)
	if err != nil {
		return nil, err
	}
	if len(sts) != 1 {
		return c.sess.Prepare(query) // its error: no statement, or several
	}
	return sts[0], nil
}

var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares one statement.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.preparedOne(query)
	if err != nil {
		return nil, err
	}
	return &stmt{c: c, st: st}, nil
}

// Close ends the connection, rolling back an open transaction.
func (c *conn) Close() error {
	c.sess.Close()
	c.closed = true
	return nil
}

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction: read-only ones read one snapshot and refuse writes
// (engine.ErrReadOnlyTx); others are deferred or immediate as the DSN's _txlock says (an
// immediate one waits for the writer slot until ctx is done or the busy timeout passes,
// engine.ErrBusy). Isolation levels: the default and serializable (what cairn gives: one writer,
// snapshot readers, stale snapshots refused at their first write with engine.ErrBusySnapshot),
// and snapshot for read-only transactions; others are refused.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault, sql.LevelSerializable:
	case sql.LevelSnapshot:
		if !opts.ReadOnly {
			return nil, errors.New("cairnsql: isolation level Snapshot is given to read-only transactions only; read-write ones are Serializable")
		}
	default:
		return nil, fmt.Errorf("cairnsql: isolation level %v is not supported (cairn gives serializable transactions)", sql.IsolationLevel(opts.Isolation))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.sess.BeginTx(ctx, opts.ReadOnly, c.c.opts.TxLock == TxImmediate); err != nil {
		return nil, err
	}
	return &tx{c: c, readOnly: opts.ReadOnly}, nil
}

// tx is a database/sql transaction.
type tx struct {
	c        *conn
	readOnly bool
}

// Commit commits the transaction. A COMMIT that fails and leaves the transaction open (a
// deferred foreign key violation) rolls it back: database/sql counts the transaction as ended
// once Commit returns, and the connection must not go back to the pool inside it (SQLite's
// drivers do the same).
func (t *tx) Commit() error {
	err := t.c.sess.Commit()
	if err != nil && t.c.sess.InTransaction() {
		_ = t.c.sess.Rollback()
	}
	return err
}

func (t *tx) Rollback() error { return t.c.sess.Rollback() }

// ExecContext runs the statements of query.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	stmts, err := c.prepared(query)
	if err != nil {
		return nil, err
	}
	var res engine.Result
	for _, st := range stmts {
		vals, err := bindArgsInto(st, args, c.execArgs[:0])
		if err != nil {
			return nil, err
		}
		if res, err = c.exec(ctx, st, vals); err != nil {
			return nil, err
		}
	}
	return c.result(res), nil
}

// QueryContext runs query, which must be one statement.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.preparedOne(query)
	if err != nil {
		return nil, err
	}
	return (&stmt{c: c, st: st}).QueryContext(ctx, args)
}

func (c *conn) Ping(ctx context.Context) error {
	if c.closed {
		return driver.ErrBadConn
	}
	return ctx.Err()
}

// ResetSession is called before a connection is reused; a closed connection is reported bad.
// A transaction begun by Exec("BEGIN") on a *sql.DB stays open on its connection when the
// connection goes back to the pool, as with SQLite's drivers, and holds the writer slot if it
// wrote: use BeginTx, or a *sql.Conn, for transactions.
func (c *conn) ResetSession(ctx context.Context) error {
	if c.closed {
		return driver.ErrBadConn
	}
	return nil
}

func (c *conn) IsValid() bool { return !c.closed }

// CheckNamedValue accepts the Go values the driver stores: nil, the integer kinds (unsigned ones
// up to 2^63-1), float32 and float64, bool (as 1 or 0), string, []byte, time.Time (as text,
// the way modernc.org/sqlite stores it by default: Time.String(), which includes the monotonic
// clock reading of a time from time.Now, " m=+0.001234"; call Round(0) or UTC() on a time to
// store it without one, as to compare it with = later).
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case nil, int64, float64, string, []byte:
		return nil
	case bool:
		if v {
			nv.Value = int64(1)
		} else {
			nv.Value = int64(0)
		}
		return nil
	case time.Time:
		nv.Value = v.String()
		return nil
	case int:
		nv.Value = int64(v)
	case int8:
		nv.Value = int64(v)
	case int16:
		nv.Value = int64(v)
	case int32:
		nv.Value = int64(v)
	case uint8:
		nv.Value = int64(v)
	case uint16:
		nv.Value = int64(v)
	case uint32:
		nv.Value = int64(v)
	case uint:
		if uint64(v) > math.MaxInt64 {
			return fmt.Errorf("cairnsql: uint %d is larger than the largest INTEGER", v)
		}
		nv.Value = int64(v)
	case uint64:
		if v > math.MaxInt64 {
			return fmt.Errorf("cairnsql: uint64 %d is larger than the largest INTEGER", v)
		}
		nv.Value = int64(v)
	case float32:
		nv.Value = float64(v)
	default:
		// Valuers and named types of the kinds above go through the default converter.
		dv, err := driver.DefaultParameterConverter.ConvertValue(v)
		if err != nil {
			return err
		}
		nv.Value = dv
		if _, ok := dv.(time.Time); ok {
			return c.CheckNamedValue(nv)
		}
	}
	return nil
}

// bindArgs turns database/sql arguments into the statement's parameter values: by position, or
// by name (":name", "@name" and "$name" all match sql.Named("name", ...)).
func bindArgs(st *engine.Stmt, args []driver.NamedValue) ([]value.Value, error) {
	return bindArgsInto(st, args, nil)
}

// bindArgsInto is bindArgs into dst's array when it has room for them.
func bindArgsInto(st *engine.Stmt, args []driver.NamedValue, dst []value.Value) ([]value.Value, error) {
	n := st.NumInput()
	var vals []value.Value
	if cap(dst) >= n {
		vals = dst[:n]
		clear(vals)
	} else {
		vals = make([]value.Value, n)
	}
	for _, a := range args {
		i := a.Ordinal
		if a.Name != "" {
			i = 0
			for _, sigil := range []string{":", "@", "$"} {
				if j := st.ParamIndex(sigil + a.Name); j > 0 {
					i = j
					break
				}
			}
			if i == 0 {
				return nil, fmt.Errorf("cairnsql: no parameter named %q", a.Name)
			}
		}
		if i < 1 || i > n {
			if n == 0 {
				return nil, fmt.Errorf("cairnsql: %d arguments for a statement without parameters", len(args))
			}
			continue
		}
		v, err := toValue(a.Value)
		if err != nil {
			return nil, err
		}
		vals[i-1] = v
	}
	return vals, nil
}

func toValue(v driver.Value) (value.Value, error) {
	switch v := v.(type) {
	case nil:
		return value.NullValue(), nil
	case int64:
		return value.Int(v), nil
	case float64:
		return value.Float(v), nil
	case bool:
		return value.Bool(v), nil
	case string:
		return value.TextString(v), nil
	case []byte:
		if v == nil {
			return value.NullValue(), nil
		}
		return value.BlobBytes(append([]byte{}, v...)), nil
	case time.Time:
		return value.TextString(v.String()), nil
	}
	return value.Value{}, fmt.Errorf("cairnsql: unsupported argument type %T", v)
}

// result returns r as a driver.Result: the connection's last one when it holds the same numbers
// (an execResult never changes, so sharing it is safe), as it does after SAVEPOINT, RELEASE,
// BEGIN and COMMIT, which report the last INSERT's numbers again.
func (c *conn) result(r engine.Result) driver.Result {
	if c.lastResult == nil || c.lastResult.r != r {
		c.lastResult = &execResult{r}
	}
	return c.lastResult
}

// execResult is a statement's result; it never changes once made.
type execResult struct{ r engine.Result }

func (r *execResult) LastInsertId() (int64, error) { return r.r.LastInsertID, nil }
func (r *execResult) RowsAffected() (int64, error) { return r.r.RowsAffected, nil }

// stmt is a prepared statement.
type stmt struct {
	c  *conn
	st *engine.Stmt
}

var (
	_ driver.Stmt             = (*stmt)(nil)
	_ driver.StmtExecContext  = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
)

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 } // named and numbered parameters: checked by bindArgs

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	vals, err := bindArgsInto(s.st, args, s.c.execArgs[:0])
	if err != nil {
		return nil, err
	}
	res, err := s.c.exec(ctx, s.st, vals)
	if err != nil {
		return nil, err
	}
	return s.c.result(res), nil
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	c := s.c
	out := c.spare
	if out != nil {
		c.spare = nil
	} else {
		out = &rows{c: c}
	}
	vals, err := bindArgsInto(s.st, args, out.args[:0])
	if err != nil {
		c.spare = out
		return nil, err
	}
	out.r, err = c.query(ctx, s.st, vals, &out.mem)
	if err != nil {
		out.r, c.spare = nil, out
		return nil, err
	}
	return out, nil
}

// rows adapts engine.Rows. A connection reuses the rows of its last closed query, so that a
// prepared query allocates none of its own.
type rows struct {
	c *conn
	r *engine.Rows
	// mem is the engine's rows of a SELECT (r points to it).
	mem engine.Rows
	// args holds the parameters of a query with few, for as long as its rows are read.
	args [4]value.Value
}

var (
	_ driver.Rows                           = (*rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*rows)(nil)
)

func (r *rows) Columns() []string { return r.r.Columns() }

// Close ends the rows and keeps them for the connection's next query.
func (r *rows) Close() error {
	err := r.r.Close()
	r.r = nil
	if r.c.spare == nil {
		r.c.spare = r
	}
	return err
}

// Next converts a row: INTEGER to int64, REAL to float64, TEXT to string, BLOB to []byte, NULL to
// nil; TEXT of a column declared DATE, DATETIME or TIMESTAMP to time.Time when it parses.
func (r *rows) Next(dest []driver.Value) error {
	if !r.r.Next() {
		if err := r.r.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	decl := r.r.DeclTypes()
	for i, v := range r.r.Row() {
		switch v.Kind() {
		case value.Null:
			dest[i] = nil
		case value.Integer:
			dest[i] = v.Int()
		case value.Real:
			dest[i] = v.Float()
		case value.Text:
			s := string(v.Bytes())
			dest[i] = s
			if isTimeType(decl[i]) {
				if t, ok := parseTime(s); ok {
					dest[i] = t
				}
			}
		case value.Blob:
			dest[i] = v.Bytes()
		}
	}
	return nil
}

func isTimeType(decl string) bool {
	switch strings.ToUpper(decl) {
	case "DATE", "DATETIME", "TIMESTAMP":
		return true
	}
	return false
}

// timeFormats are the texts read back as time.Time (those modernc.org/sqlite reads).
var timeFormats = []string{
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

func parseTime(s string) (time.Time, bool) {
	if i := strings.Index(s, " m="); i > 0 {
		s = s[:i]
	}
	ts := strings.TrimSuffix(s, "Z")
	for _, f := range timeFormats {
		if t, err := time.Parse(f, ts); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	return strings.ToUpper(r.r.DeclTypes()[i])
}

// ColumnTypeScanType is the Go type a column's declared type suggests: int64 for INTEGER
// affinity, float64 for REAL, string for TEXT, []byte for BLOB, time.Time for DATE/DATETIME/
// TIMESTAMP, and any (interface{}) where a column may hold any class.
func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	decl := r.r.DeclTypes()[i]
	switch {
	case isTimeType(decl):
		return reflect.TypeOf(time.Time{})
	case decl == "":
		return reflect.TypeOf((*any)(nil)).Elem()
	}
	switch value.AffinityOf(decl) {
	case value.AffinityInteger:
		return reflect.TypeOf(int64(0))
	case value.AffinityReal:
		return reflect.TypeOf(float64(0))
	case value.AffinityText:
		return reflect.TypeOf("")
	case value.AffinityBlob:
		return reflect.TypeOf([]byte(nil))
	}
	return reflect.TypeOf((*any)(nil)).Elem()
}

// ColumnTypeNullable reports that any column may be NULL (a NOT NULL constraint is not tracked
// through expressions).
func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) { return true, false }

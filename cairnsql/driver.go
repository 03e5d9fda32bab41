// Package cairnsql is the database/sql driver of cairn's SQL engine: SQL in SQLite's dialect over
// a cairn database. It registers the driver "cairn":
//
//	db, err := sql.Open("cairn", "path/to/my.db?_sync=full")
//
// The DSN is a file path, or ":memory:" for a private in-memory database, with options in a query
// string (see ParseDSN). Every connection of one *sql.DB shares one cairn.DB (and the connections
// of every *sql.DB opened on the same path share it too, reference-counted: _sync and
// _cache_bytes are those of the first, _busy_timeout and _txlock each *sql.DB's own), so
// autocommit writes of many goroutines share group commits and readers never wait for writers. DB returns the underlying cairn.DB for backups, statistics and checkpoints; SQL
// tables and cairn buckets live in the same file. docs/SQL.md describes the SQL supported.
//
// One transaction writes at a time. A write waits for the writer slot until its context is done
// (the context's error) or the busy timeout passes (engine.ErrBusy); a deferred transaction that
// read, then writes after another connection committed, fails with engine.ErrBusySnapshot: roll
// it back and run it again. A statement stops, with its context's error, when its context is
// done, and a statement that fails undoes its own changes only.
package cairnsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
)

func init() {
	sql.Register("cairn", &Driver{})
}

// Driver is the database/sql driver. Its zero value is ready to use.
type Driver struct{}

var (
	_ driver.Driver        = (*Driver)(nil)
	_ driver.DriverContext = (*Driver)(nil)
)

// Open opens a connection to the database of dsn (database/sql calls OpenConnector instead).
func (d *Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector returns a connector for dsn. A malformed DSN is reported by the first Connect.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	path, opts, err := ParseDSN(dsn)
	c := &Connector{path: path, opts: opts, dsnErr: err, driver: d, shared: path != ":memory:"}
	return c, nil
}

// TxLock is how a database/sql transaction begins.
type TxLock string

// Transaction locking modes.
const (
	// TxDeferred begins a transaction without the writer slot: it reads a snapshot until its
	// first write, which takes the slot then (and fails with engine.ErrBusySnapshot if another
	// connection committed since the snapshot: retry the transaction). The default.
	TxDeferred TxLock = "deferred"
	// TxImmediate takes the writer slot at BeginTx, so that the transaction's writes never fail
	// that way; writers wait for each other at BeginTx instead.
	TxImmediate TxLock = "immediate"
)

// Options configure a database opened by the driver. The zero value gives the defaults.
type Options struct {
	// Sync is the durability of commits (default cairn.SyncFull: durable when Exec returns).
	Sync cairn.SyncMode
	// CacheBytes caps the page cache (0: cairn's default; negative: no cap).
	CacheBytes int64
	// BusyTimeout bounds how long a write waits for the writer slot (0: as long as its context
	// allows).
	BusyTimeout time.Duration
	// TxLock is how BeginTx begins a read-write transaction (default TxDeferred).
	TxLock TxLock
	// InMemory keeps the database in memory (the DSN ":memory:").
	InMemory bool
	// Pragmas run on every new connection, in order, each as "PRAGMA " + the text
	// ("foreign_keys(1)", "busy_timeout = 5000"): the DSN's _pragma options, as
	// modernc.org/sqlite takes them. A failing one fails the connection.
	Pragmas []string
}

// ParseDSN splits a DSN into the database path and options: PATH[?OPTIONS], where OPTIONS are
// _sync=full|none, _cache_bytes=N (0: cairn's default; negative: no cap),
// _busy_timeout=MILLISECONDS, _txlock=deferred|immediate (or exclusive, which is immediate) and
// _pragma=NAME(VALUE), which may be repeated (Options.Pragmas).
// An unknown or malformed option is an error. The path ":memory:" is a private in-memory
// database.
func ParseDSN(dsn string) (string, Options, error) {
	var o Options
	path, query, _ := strings.Cut(dsn, "?")
	if path == "" {
		return "", o, errors.New("cairnsql: empty database path in DSN")
	}
	if path == ":memory:" {
		o.InMemory = true
	}
	if query == "" {
		return path, o, nil
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return path, o, fmt.Errorf("cairnsql: malformed options in DSN %q: %w", dsn, err)
	}
	for k, vs := range vals {
		v := vs[len(vs)-1]
		switch k {
		case "_sync":
			switch strings.ToLower(v) {
			case "full":
				o.Sync = cairn.SyncFull
			case "none", "off":
				o.Sync = cairn.SyncNone
			default:
				return path, o, fmt.Errorf("cairnsql: _sync=%q: want full or none", v)
			}
		case "_cache_bytes":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return path, o, fmt.Errorf("cairnsql: _cache_bytes=%q: not an integer", v)
			}
			o.CacheBytes = n
		case "_busy_timeout":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return path, o, fmt.Errorf("cairnsql: _busy_timeout=%q: want milliseconds", v)
			}
			o.BusyTimeout = time.Duration(n) * time.Millisecond
		case "_txlock":
			switch TxLock(strings.ToLower(v)) {
			case TxDeferred, TxImmediate:
				o.TxLock = TxLock(strings.ToLower(v))
			case "exclusive":
				o.TxLock = TxImmediate
			default:
				return path, o, fmt.Errorf("cairnsql: _txlock=%q: want deferred or immediate", v)
			}
		case "_pragma":
			o.Pragmas = append(o.Pragmas, vs...)
		default:
			return path, o, fmt.Errorf("cairnsql: unknown DSN option %q", k)
		}
	}
	return path, o, nil
}

// NewConnector returns a connector for sql.OpenDB: every connection it makes shares one cairn.DB,
// opened at the first connection and closed by Close (which (*sql.DB).Close calls). opts may be
// nil.
func NewConnector(path string, opts *Options) (driver.Connector, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if path == "" {
		return nil, errors.New("cairnsql: empty database path")
	}
	if path == ":memory:" {
		o.InMemory = true
	}
	return &Connector{path: path, opts: o, driver: &Driver{}}, nil
}

// Connector makes connections to one database. It implements io.Closer.
type Connector struct {
	path   string
	opts   Options
	dsnErr error
	driver *Driver
	// shared connectors of sql.Open share one database per path with other *sql.DB.
	shared bool
	// hosted connectors (NewHostedConnector) run on an engine whose database they do not own;
	// router, if set, routes their statements (hosted.go).
	hosted bool
	router Router

	mu     sync.Mutex
	db     *database
	closed bool
}

var (
	_ driver.Connector = (*Connector)(nil)
	_ io.Closer        = (*Connector)(nil)
)

// database is an open cairn.DB and its SQL engine, with the number of connectors using it.
type database struct {
	key  string
	db   *cairn.DB
	eng  *engine.Engine
	refs int
}

// openDatabases are the databases of shared connectors, by absolute path.
var (
	openMu        sync.Mutex
	openDatabases = map[string]*database{}
)

// Connect returns a new connection, opening the database first if needed.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if c.dsnErr != nil {
		return nil, c.dsnErr
	}
	d, err := c.database()
	if err != nil {
		return nil, err
	}
	sess := d.eng.NewSession()
	sess.SetBusyTimeout(c.opts.BusyTimeout)
	for _, p := range c.opts.Pragmas {
		if _, err := sess.Exec(ctx, "PRAGMA "+p, nil); err != nil {
			sess.Close()
			return nil, fmt.Errorf("cairnsql: _pragma %q: %w", p, err)
		}
	}
	return &conn{c: c, sess: sess, eng: d.eng}, nil
}

func (c *Connector) database() (*database, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("cairnsql: connector is closed")
	}
	if c.db != nil {
		return c.db, nil
	}
	open := func() (*cairn.DB, error) {
		return cairn.Open(c.path, &cairn.Options{Sync: c.opts.Sync, CacheBytes: c.opts.CacheBytes, InMemory: c.opts.InMemory})
	}
	if !c.shared || c.opts.InMemory {
		db, err := open()
		if err != nil {
			return nil, err
		}
		c.db = &database{db: db, eng: engine.New(db), refs: 1}
		return c.db, nil
	}
	key, err := filepath.Abs(c.path)
	if err != nil {
		return nil, err
	}
	openMu.Lock()
	defer openMu.Unlock()
	d := openDatabases[key]
	if d == nil {
		db, err := open()
		if err != nil {
			return nil, err
		}
		d = &database{key: key, db: db, eng: engine.New(db)}
		openDatabases[key] = d
	}
	d.refs++
	c.db = d
	return d, nil
}

// Driver returns the driver.
func (c *Connector) Driver() driver.Driver { return c.driver }

// Close closes the database when no other connector uses it. Connections still open fail
// afterwards.
func (c *Connector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	d := c.db
	if d == nil || c.hosted {
		return nil
	}
	if d.key == "" {
		return d.db.Close()
	}
	openMu.Lock()
	defer openMu.Unlock()
	d.refs--
	if d.refs > 0 {
		return nil
	}
	delete(openDatabases, d.key)
	return d.db.Close()
}

// DB returns the cairn database under a *sql.DB opened by this driver (for backups, statistics,
// checkpoints, or buckets next to the SQL tables), opening it if no connection did yet. It is
// valid until the *sql.DB is closed.
func DB(sqlDB *sql.DB) (*cairn.DB, error) {
	c, ok := sqlDB.Driver().(*Driver)
	if !ok || c == nil {
		return nil, errors.New("cairnsql: not a cairn database")
	}
	sc, err := sqlDB.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var db *cairn.DB
	err = sc.Raw(func(dc any) error {
		cc, ok := dc.(*conn)
		if !ok {
			return errors.New("cairnsql: not a cairn connection")
		}
		db = cc.eng.DB()
		return nil
	})
	return db, err
}

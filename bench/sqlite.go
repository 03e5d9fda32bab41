package bench

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3" // driver "sqlite3" (cgo)
	_ "modernc.org/sqlite"          // driver "sqlite" (pure Go)
)

// sqlDriver names a database/sql SQLite driver and how its DSN sets pragmas.
type sqlDriver struct {
	name string
	dsn  func(path, sync string, cacheKiB int64) string
}

// modernc is the pure-Go SQLite (modernc.org/sqlite): pragmas as _pragma=name(value).
var modernc = sqlDriver{"sqlite", func(path, sync string, kib int64) string {
	return fmt.Sprintf("file:%s?_pragma=journal_mode(WAL)&_pragma=synchronous(%s)"+
		"&_pragma=busy_timeout(10000)&_pragma=cache_size(-%d)", path, sync, kib)
}}

// mattn is the cgo SQLite (github.com/mattn/go-sqlite3): pragmas as _name=value.
var mattn = sqlDriver{"sqlite3", func(path, sync string, kib int64) string {
	return fmt.Sprintf("file:%s?_journal_mode=WAL&_synchronous=%s&_busy_timeout=10000&_cache_size=-%d",
		path, sync, kib)
}}

const (
	sqlSchema  = `CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`
	sqlPut     = `INSERT INTO kv(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v`
	sqlGet     = `SELECT v FROM kv WHERE k = ?`
	sqlScan    = `SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT ?`
	sqlScanAll = `SELECT k, v FROM kv ORDER BY k LIMIT ?`
)

// sqlEngine is SQLite in WAL mode with synchronous=FULL (NORMAL with Config.NoSync) through
// database/sql: one writer connection (writers queue for it, as SQLite allows one writer), a
// pool of reader connections, prepared statements on both.
type sqlEngine struct {
	dir                string
	wdb, rdb           *sql.DB
	put                *sql.Stmt
	get, scan, scanAll *sql.Stmt
}

func openSQLite(drv sqlDriver, dir string, cfg Config) (Engine, error) {
	sync := "FULL"
	if cfg.NoSync {
		sync = "NORMAL"
	}
	dsn := drv.dsn(filepath.Join(dir, "sqlite.db"), sync, cfg.CacheBytes>>10)
	e := &sqlEngine{dir: dir}
	if err := e.open(drv.name, dsn); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *sqlEngine) open(driver, dsn string) error {
	var err error
	if e.wdb, err = sql.Open(driver, dsn); err != nil {
		return err
	}
	e.wdb.SetMaxOpenConns(1)
	if _, err = e.wdb.Exec(sqlSchema); err != nil {
		return err
	}
	if e.put, err = e.wdb.Prepare(sqlPut); err != nil {
		return err
	}
	if e.rdb, err = sql.Open(driver, dsn); err != nil {
		return err
	}
	e.rdb.SetMaxIdleConns(256)
	return e.prepareReads()
}

func (e *sqlEngine) prepareReads() error {
	var err error
	if e.get, err = e.rdb.Prepare(sqlGet); err != nil {
		return err
	}
	if e.scan, err = e.rdb.Prepare(sqlScan); err != nil {
		return err
	}
	e.scanAll, err = e.rdb.Prepare(sqlScanAll)
	return err
}

// Write commits one pair in autocommit mode (one implicit transaction), more in BEGIN..COMMIT.
func (e *sqlEngine) Write(kvs []KV) error {
	if len(kvs) == 1 {
		_, err := e.put.Exec(kvs[0].Key, kvs[0].Value)
		return err
	}
	tx, err := e.wdb.Begin()
	if err != nil {
		return err
	}
	put := tx.Stmt(e.put)
	for _, kv := range kvs {
		if _, err := put.Exec(kv.Key, kv.Value); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// Get runs the prepared SELECT in autocommit mode: SQLite's implicit read transaction.
func (e *sqlEngine) Get(dst, key []byte) ([]byte, error) { return sqlGetValue(e.get, dst, key) }

func (e *sqlEngine) Begin() (ReadTx, error) {
	tx, err := e.rdb.Begin()
	if err != nil {
		return nil, err
	}
	return &sqlTx{e: e, tx: tx}, nil
}

func (e *sqlEngine) Size() (int64, error) { return dirSize(e.dir) }

func (e *sqlEngine) Close() error {
	var errs []error
	for _, s := range []*sql.Stmt{e.put, e.get, e.scan, e.scanAll} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	for _, db := range []*sql.DB{e.rdb, e.wdb} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

func sqlGetValue(stmt *sql.Stmt, dst, key []byte) ([]byte, error) {
	rows, err := stmt.Query(key)
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return dst, err
		}
		return dst, ErrNotFound
	}
	var v sql.RawBytes
	if err := rows.Scan(&v); err != nil {
		return dst, err
	}
	return append(dst, v...), rows.Close()
}

// sqlTx is a read transaction of SQLite: BEGIN (deferred) .. COMMIT on one reader connection.
type sqlTx struct {
	e   *sqlEngine
	tx  *sql.Tx
	get *sql.Stmt
}

func (t *sqlTx) End() error { return t.tx.Commit() }

func (t *sqlTx) Get(dst, key []byte) ([]byte, error) {
	if t.get == nil {
		t.get = t.tx.Stmt(t.e.get)
	}
	return sqlGetValue(t.get, dst, key)
}

func (t *sqlTx) Scan(start []byte, limit int, fn func(k, v []byte)) (int, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	var rows *sql.Rows
	var err error
	if start == nil {
		rows, err = t.tx.Stmt(t.e.scanAll).Query(limit)
	} else {
		rows, err = t.tx.Stmt(t.e.scan).Query(start, limit)
	}
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var k, v sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&k, &v); err != nil {
			return n, err
		}
		fn(k, v)
		n++
	}
	return n, rows.Err()
}

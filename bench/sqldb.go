package bench

// The SQL engines of the SQL workloads: cairn's SQL engine through its database/sql driver
// (cairnsql, driver "cairn") beside SQLite through its two drivers, all with every commit
// durable (cairn SyncFull; SQLite WAL with synchronous=FULL) and a 1 GiB cache.

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/cairndb/cairn/cairnsql" // driver "cairn"
)

// SQLEngines lists the engines of the SQL workloads, in table order.
var SQLEngines = []string{"cairn", "sqlite", "sqlite-cgo"}

// OpenSQL opens a *sql.DB of engine name on a new database in the directory dir, with durable
// commits and cacheBytes of cache (DefaultCacheBytes if 0). The pool keeps up to 64 idle
// connections, so that parallel readers do not reopen connections between operations.
func OpenSQL(name, dir string, cacheBytes int64) (*sql.DB, error) {
	if cacheBytes <= 0 {
		cacheBytes = DefaultCacheBytes
	}
	var driver, dsn string
	switch name {
	case "cairn":
		driver = "cairn"
		dsn = fmt.Sprintf("%s?_sync=full&_cache_bytes=%d", filepath.Join(dir, "cairn.db"), cacheBytes)
	case "sqlite":
		driver, dsn = modernc.name, modernc.dsn(filepath.Join(dir, "sqlite.db"), "FULL", cacheBytes>>10)
	case "sqlite-cgo":
		driver, dsn = mattn.name, mattn.dsn(filepath.Join(dir, "sqlite.db"), "FULL", cacheBytes>>10)
	default:
		return nil, fmt.Errorf("bench: unknown SQL engine %q", name)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(64)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// SettleSQL checkpoints the WAL of engine name's database db (cairn: DB.Checkpoint; SQLite:
// PRAGMA wal_checkpoint(TRUNCATE)) and collects garbage, so that the work a load left behind
// does not run during the measurements that follow it.
func SettleSQL(name string, db *sql.DB) error {
	var err error
	if name == "cairn" {
		var cdb interface{ Checkpoint(context.Context) error }
		if cdb, err = cairnsql.DB(db); err == nil {
			err = cdb.Checkpoint(context.Background())
		}
	} else {
		_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	runtime.GC()
	return err
}

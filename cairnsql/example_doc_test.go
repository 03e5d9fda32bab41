package cairnsql_test

// The examples docs/SQL.md quotes: change them together.

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cairnsql"
)

// A database/sql program: open a file, create a table, insert with parameters, query.
func Example() {
	dir, err := os.MkdirTemp("", "cairnsql-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := sql.Open("cairn", filepath.Join(dir, "shop.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE fruit(id INTEGER PRIMARY KEY, name TEXT UNIQUE, price REAL)`); err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO fruit(name, price) VALUES (?, ?), (?, ?)`, "kiwi", 0.25, "apple", 0.5); err != nil {
		log.Fatal(err)
	}
	rows, err := db.Query(`SELECT name, price FROM fruit WHERE price < ? ORDER BY name`, 1.0)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var price float64
		if err := rows.Scan(&name, &price); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, price)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// apple 0.5
	// kiwi 0.25
}

// NewConnector takes the options a DSN's query string gives, for sql.OpenDB; DB reaches the
// cairn database under the *sql.DB (for backups, statistics, checkpoints).
func ExampleNewConnector() {
	dir, err := os.MkdirTemp("", "cairnsql-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The same as sql.Open("cairn", PATH+"?_txlock=immediate&_sync=full").
	c, err := cairnsql.NewConnector(filepath.Join(dir, "app.db"), &cairnsql.Options{
		TxLock: cairnsql.TxImmediate,
		Sync:   cairn.SyncFull,
	})
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close() // closes the connector, and with it the files

	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil) // immediate: holds the writer slot until Commit
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tx.Exec(`CREATE TABLE log(at DATETIME, msg TEXT)`); err != nil {
		log.Fatal(err)
	}
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := tx.Exec(`INSERT INTO log VALUES (?, ?)`, at, "started"); err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}

	var got time.Time // a DATETIME column's text scans back into a time.Time
	var text string
	if err := db.QueryRow(`SELECT at, CAST(at AS TEXT) FROM log`).Scan(&got, &text); err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Equal(at), text)

	cdb, err := cairnsql.DB(db)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cdb.Stats().Commits > 0)
	// Output:
	// true 2024-05-01 12:00:00 +0000 UTC
	// true
}

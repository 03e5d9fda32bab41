package cairnsql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cairnsql"
	"github.com/cairndb/cairn/sql/engine"
)

// Transactions: a transfer that commits, one that a CHECK constraint refuses (its transaction is
// rolled back, nothing changes), and the retry loop that a deferred transaction needs when
// another connection wrote after it read (engine.ErrBusySnapshot).
func Example_transactions() {
	dir, _ := os.MkdirTemp("", "cairnsql-example")
	defer os.RemoveAll(dir)
	db, err := sql.Open("cairn", filepath.Join(dir, "bank.db")+"?_busy_timeout=5000")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE acct(name TEXT PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));
		INSERT INTO acct VALUES ('ada', 100), ('bob', 20)`)
	if err != nil {
		log.Fatal(err)
	}

	// transfer moves amount from one account to another in one transaction, retrying it when
	// another connection committed between its read and its write.
	transfer := func(ctx context.Context, from, to string, amount int64, between func()) error {
		for {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			var balance int64
			err = tx.QueryRow("SELECT balance FROM acct WHERE name = ?", from).Scan(&balance)
			if err == nil {
				between()
				_, err = tx.Exec("UPDATE acct SET balance = ? WHERE name = ?", balance-amount, from)
			}
			if err == nil {
				_, err = tx.Exec("UPDATE acct SET balance = balance + ? WHERE name = ?", amount, to)
			}
			if err == nil {
				return tx.Commit()
			}
			tx.Rollback()
			if !errors.Is(err, engine.ErrBusySnapshot) {
				return err
			}
			fmt.Println("retry:", from, "->", to)
			between = func() {}
		}
	}
	ctx := context.Background()
	show := func() {
		var s string
		db.QueryRow("SELECT group_concat(name || '=' || balance, ' ') FROM (SELECT * FROM acct ORDER BY name)").Scan(&s)
		fmt.Println(s)
	}

	fmt.Println(transfer(ctx, "ada", "bob", 30, func() {}))
	show()
	fmt.Println(transfer(ctx, "bob", "ada", 500, func() {}))
	show()
	// Another connection pays bob 5 after the transfer read ada's balance: the transfer's first
	// write fails with ErrBusySnapshot, and its retry reads the new balances.
	fmt.Println(transfer(ctx, "ada", "bob", 10, func() {
		if _, err := db.Exec("UPDATE acct SET balance = balance + 5 WHERE name = 'ada'"); err != nil {
			log.Fatal(err)
		}
	}))
	show()
	// Output:
	// <nil>
	// ada=70 bob=50
	// CHECK constraint failed: balance >= 0
	// ada=70 bob=50
	// retry: ada -> bob
	// <nil>
	// ada=65 bob=60
}

// DB reaches the cairn database under a *sql.DB: its statistics, checkpoints and backups, and
// buckets of keys and values in the same file as the SQL tables.
func ExampleDB() {
	dir, _ := os.MkdirTemp("", "cairnsql-example")
	defer os.RemoveAll(dir)
	db, err := sql.Open("cairn", filepath.Join(dir, "app.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE events(id INTEGER PRIMARY KEY, what TEXT); INSERT INTO events(what) VALUES ('start')"); err != nil {
		log.Fatal(err)
	}

	kv, err := cairnsql.DB(db)
	if err != nil {
		log.Fatal(err)
	}
	err = kv.Update(func(tx *cairn.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("settings"))
		if err != nil {
			return err
		}
		return b.Put([]byte("theme"), []byte("dark"))
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := kv.Checkpoint(context.Background()); err != nil {
		log.Fatal(err)
	}
	if err := kv.BackupFile(filepath.Join(dir, "app-backup.db")); err != nil {
		log.Fatal(err)
	}
	fmt.Println("commits:", kv.Stats().Commits)

	// The backup holds both: the SQL table and the bucket.
	backup, err := sql.Open("cairn", filepath.Join(dir, "app-backup.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer backup.Close()
	var what string
	if err := backup.QueryRow("SELECT what FROM events").Scan(&what); err != nil {
		log.Fatal(err)
	}
	bkv, err := cairnsql.DB(backup)
	if err != nil {
		log.Fatal(err)
	}
	err = bkv.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket([]byte("settings"))
		if err != nil {
			return err
		}
		theme, err := b.Get([]byte("theme"))
		fmt.Printf("%s, theme %s\n", what, theme)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// commits: 3
	// start, theme dark
}

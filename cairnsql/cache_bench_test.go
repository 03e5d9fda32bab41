package cairnsql_test

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// BenchmarkUnprepared measures statements run through *sql.DB without Prepare, the way most
// programs write them: db.QueryRow of a point SELECT by rowid on 10,000 rows, and db.Exec of an
// autocommit INSERT (_sync=none: the CPU path, not the fdatasync). One goroutine.
//
//	go test -run '^$' -bench Unprepared -benchmem -count 6 ./cairnsql
func BenchmarkUnprepared(b *testing.B) {
	db, err := sql.Open("cairn", filepath.Join(b.TempDir(), "b.db")+"?_sync=none")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, c REAL)"); err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 10_000; i++ {
		if _, err := tx.Exec("INSERT INTO t VALUES (?, 'some text', 2.5)", i); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Run("stmt=point-select", func(b *testing.B) {
		var s string
		for i := range b.N {
			if err := db.QueryRow("SELECT b FROM t WHERE id = ?", 1+i%10_000).Scan(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stmt=insert", func(b *testing.B) {
		for range b.N {
			if _, err := db.Exec("INSERT INTO t(b, c) VALUES (?, ?)", "inserted", 1.5); err != nil {
				b.Fatal(err)
			}
		}
	})
}

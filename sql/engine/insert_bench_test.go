package engine_test

import (
	"context"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

// BenchmarkInsertInTx measures one prepared INSERT of a row (an INTEGER PRIMARY KEY, an indexed
// INTEGER, a TEXT) inside a transaction of 10,000 rows: the per-row cost of a bulk load without
// its commits. In memory, SyncNone.
//
//	go test -run '^$' -bench InsertInTx -benchmem -count 6 ./sql/engine
func BenchmarkInsertInTx(b *testing.B) {
	db, err := cairn.Open("bench.db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := engine.New(db).NewSession()
	defer s.Close()
	ctx := context.Background()
	run := func(q string) {
		if _, err := s.Exec(ctx, q, nil); err != nil {
			b.Fatal(err, q)
		}
	}
	run("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
	run("CREATE INDEX t_a ON t(a)")
	st, err := s.Prepare("INSERT INTO t(id, a, b) VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	args := make([]value.Value, 3)
	text := []byte("a row of the bulk load table")
	run("BEGIN")
	b.ResetTimer()
	for i := range b.N {
		if i%10_000 == 9_999 {
			run("COMMIT")
			run("BEGIN")
		}
		args[0], args[1], args[2] = value.Int(int64(i+1)), value.Int(int64(i*7919%1_000_003)), value.TextBytes(text)
		if _, err := st.Exec(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	run("COMMIT")
}

// BenchmarkUpdateInTx measures one prepared UPDATE of a row by its INTEGER PRIMARY KEY inside a
// transaction of 10,000 statements, on a table of 100,000 rows with an index: the statement's
// cost without its commit. In memory, SyncNone.
//
//	go test -run '^$' -bench UpdateInTx -benchmem -count 6 ./sql/engine
func BenchmarkUpdateInTx(b *testing.B) {
	db, err := cairn.Open("bench.db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := engine.New(db).NewSession()
	defer s.Close()
	ctx := context.Background()
	run := func(q string, args ...value.Value) {
		if _, err := s.Exec(ctx, q, args); err != nil {
			b.Fatal(err, q)
		}
	}
	const rows = 100_000
	run("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
	run("CREATE INDEX t_a ON t(a)")
	run("BEGIN")
	for i := int64(1); i <= rows; i++ {
		run("INSERT INTO t VALUES (?, ?, 'a row')", value.Int(i), value.Int(i*7919%1_000_003))
	}
	run("COMMIT")
	st, err := s.Prepare("UPDATE t SET b = ? WHERE id = ?")
	if err != nil {
		b.Fatal(err)
	}
	args := make([]value.Value, 2)
	text := []byte("an updated row")
	run("BEGIN")
	b.ResetTimer()
	for i := range b.N {
		if i%10_000 == 9_999 {
			run("COMMIT")
			run("BEGIN")
		}
		args[0], args[1] = value.TextBytes(text), value.Int(int64(i*7919%rows+1))
		if _, err := st.Exec(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	run("COMMIT")
}

package engine_test

import (
	"context"
	"testing"

	"github.com/cairndb/cairn/sql/value"
)

// BenchmarkInsertInTx measures one prepared INSERT of a row (an INTEGER PRIMARY KEY, an indexed
// INTEGER, a TEXT) inside a transaction of 10,000 rows: the per-row cost of a bulk load without
// its commits. In memory, SyncNone.
//
//	go test -run '^$' -bench InsertInTx -benchmem -count 6 ./sql/engine
func BenchmarkInsertInTx(b *testing.B) {
	s, run := benchSession(b)
	run("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
	run("CREATE INDEX t_a ON t(a)")
	st, err := s.Prepare("INSERT INTO t(id, a, b) VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	args := make([]value.Value, 3)
	text := []byte("a row of the bulk load table")
	inTransactions(b, run, func(i int) {
		args[0], args[1], args[2] = value.Int(int64(i+1)), value.Int(int64(i*7919%1_000_003)), value.TextBytes(text)
		if _, err := st.Exec(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	})
}

// inTransactions times op(i) for i in [0, b.N) inside transactions of 10,000 calls.
func inTransactions(b *testing.B, run func(q string, args ...value.Value), op func(i int)) {
	run("BEGIN")
	b.ResetTimer()
	for i := range b.N {
		if i%10_000 == 9_999 {
			run("COMMIT")
			run("BEGIN")
		}
		op(i)
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
	s, run := benchSession(b)
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
	inTransactions(b, run, func(i int) {
		args[0], args[1] = value.TextBytes(text), value.Int(int64(i*7919%rows+1))
		if _, err := st.Exec(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	})
}

package engine_test

// Benchmarks of the storage layout decision (SQL-DESIGN.md, "Why tables and indexes are
// buckets"; EXPERIMENTS.md, `sql-tables-as-buckets`): a table or index in a bucket of its own
// costs every statement a lookup in the bucket catalog (Tx.Bucket), where a layout of one key
// space with a table-id prefix on every key would not; in exchange DROP TABLE is O(1). Run:
//
//	go test -run '^$' -bench 'StorageLayout|PointSelect' -count 6 ./sql/engine | tee layout.txt
//	benchstat -col /layout layout.txt
//	go test -run '^$' -bench DropTable -benchtime 20x -count 6 ./sql/engine | tee drop.txt
//	benchstat -col /layout drop.txt

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
)

const (
	layoutRows  = 10_000 // rows of the table read
	layoutOther = 10     // rows of each other table
)

var (
	schemaName = []byte("\x00sql/schema")
	cookieName = []byte("\x00cookie")
	rowValue   = codec.AppendRecord(nil, []value.Value{value.NullValue(), value.TextString("a name of some length"), value.Float(2.5)})
)

// cpuClock measures the CPU time the process spends on b's iterations, reported as cpu-ns/op
// beside the wall time: on a machine shared with other processes the wall time of an iteration
// includes the time it waited for a CPU, its CPU time does not.
type cpuClock struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) *cpuClock {
	b.ReportAllocs()
	b.ResetTimer()
	return &cpuClock{start: processCPU()}
}

func (c *cpuClock) stop(b *testing.B) {
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
}

func tableName(id int) []byte { return fmt.Appendf(nil, "\x00sql/t/%d", id) }

// prefixKey is the key of a row in the prefix layout: the table id, then the rowid key.
func prefixKey(table, rowid int) []byte {
	return codec.AppendRowid(binary.BigEndian.AppendUint64(nil, uint64(table)), int64(rowid))
}

func openBench(b *testing.B) *cairn.DB {
	b.Helper()
	db, err := cairn.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// settle checkpoints, so that no checkpoint of the setup's writes runs during the measurement.
func settle(b *testing.B, db *cairn.DB) {
	if err := db.Checkpoint(context.Background()); err != nil {
		b.Fatal(err)
	}
}

func rowsOf(table int) int {
	if table == 0 {
		return layoutRows
	}
	return layoutOther
}

// fillBuckets writes tables tables as the engine does: a bucket each, and the schema bucket
// with the cookie. Table 0 is the one read.
func fillBuckets(b *testing.B, db *cairn.DB, tables int) {
	err := db.Update(func(tx *cairn.Tx) error {
		s, err := tx.CreateBucket(schemaName)
		if err != nil {
			return err
		}
		if err := s.Put(cookieName, binary.BigEndian.AppendUint64(nil, uint64(tables))); err != nil {
			return err
		}
		for t := 0; t < tables; t++ {
			bk, err := tx.CreateBucket(tableName(t))
			if err != nil {
				return err
			}
			for r := 1; r <= rowsOf(t); r++ {
				if err := bk.Put(codec.AppendRowid(nil, int64(r)), rowValue); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// fillPrefix writes the same rows in the default key space, each key prefixed by its table id,
// and the cookie under a key of its own.
func fillPrefix(b *testing.B, db *cairn.DB, tables int) {
	err := db.Update(func(tx *cairn.Tx) error {
		if err := tx.Put(cookieName, binary.BigEndian.AppendUint64(nil, uint64(tables))); err != nil {
			return err
		}
		for t := 0; t < tables; t++ {
			for r := 1; r <= rowsOf(t); r++ {
				if err := tx.Put(prefixKey(t+1, r), rowValue); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStorageLayout measures the storage reads of a point SELECT by rowid, each in a read
// transaction of its own, as an autocommit query runs: read the schema cookie, then the row.
// layout=bucket is what the engine does (two Tx.Bucket lookups: the schema bucket's, the
// table's); layout=prefix is the alternative of one key space with table-id prefixes (two Gets).
// tables is the number of tables (buckets in the catalog, prefixes in the key space).
func BenchmarkStorageLayout(b *testing.B) {
	for _, tables := range []int{4, 1000} {
		b.Run(fmt.Sprintf("tables=%d", tables), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			b.Run("layout=bucket", func(b *testing.B) {
				db := openBench(b)
				fillBuckets(b, db, tables)
				settle(b, db)
				name := tableName(0)
				clock := startCPU(b)
				for range b.N {
					err := db.View(func(tx *cairn.Tx) error {
						s, err := tx.Bucket(schemaName)
						if err != nil {
							return err
						}
						if _, err := s.Get(cookieName); err != nil {
							return err
						}
						t, err := tx.Bucket(name)
						if err != nil {
							return err
						}
						_, err = t.Get(codec.AppendRowid(nil, int64(1+rng.IntN(layoutRows))))
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				clock.stop(b)
			})
			b.Run("layout=prefix", func(b *testing.B) {
				db := openBench(b)
				fillPrefix(b, db, tables)
				settle(b, db)
				clock := startCPU(b)
				for range b.N {
					err := db.View(func(tx *cairn.Tx) error {
						if _, err := tx.Get(cookieName); err != nil {
							return err
						}
						_, err := tx.Get(prefixKey(1, 1+rng.IntN(layoutRows)))
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				clock.stop(b)
			})
		})
	}
}

// BenchmarkPointSelect measures the whole statement that BenchmarkStorageLayout's reads belong
// to: a prepared SELECT by rowid through an engine session (parse once; the schema lookup, plan
// reuse, the read, the row's decoding and the result), on a table of 10,000 rows.
func BenchmarkPointSelect(b *testing.B) {
	db := openBench(b)
	s := engine.New(db).NewSession()
	defer s.Close()
	ctx := context.Background()
	mustExec := func(q string, args ...value.Value) {
		if _, err := s.Exec(ctx, q, args); err != nil {
			b.Fatal(err)
		}
	}
	mustExec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, price REAL)")
	mustExec("BEGIN")
	for r := 1; r <= layoutRows; r++ {
		mustExec("INSERT INTO t VALUES (?, 'a name of some length', 2.5)", value.Int(int64(r)))
	}
	mustExec("COMMIT")
	settle(b, db)
	st, err := s.Prepare("SELECT * FROM t WHERE id = ?")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	args := make([]value.Value, 1)
	clock := startCPU(b)
	for range b.N {
		args[0] = value.Int(int64(1 + rng.IntN(layoutRows)))
		rows, err := st.Query(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n != 1 {
			b.Fatal(err, n)
		}
		rows.Close()
	}
	clock.stop(b)
}

// BenchmarkDropTable measures what the bucket layout buys: DROP TABLE of a table of 10,000 rows
// is a DeleteBucket (its pages are freed by later commits, 256 extents each), where the prefix
// layout deletes every key. Each iteration fills the table again with the timer stopped; one
// commit (SyncFull) per drop. Run with -benchtime 20x.
func BenchmarkDropTable(b *testing.B) {
	b.Run("layout=bucket", func(b *testing.B) {
		db := openBench(b)
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			fillBuckets(b, db, 1)
			b.StartTimer()
			start := processCPU()
			err := db.Update(func(tx *cairn.Tx) error {
				if err := tx.DeleteBucket(tableName(0)); err != nil {
					return err
				}
				return tx.DeleteBucket(schemaName)
			})
			cpu += processCPU() - start
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("layout=prefix", func(b *testing.B) {
		db := openBench(b)
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			fillPrefix(b, db, 1)
			b.StartTimer()
			start := processCPU()
			err := db.Update(func(tx *cairn.Tx) error {
				if err := tx.Delete(cookieName); err != nil {
					return err
				}
				prefix := binary.BigEndian.AppendUint64(nil, 1)
				var keys [][]byte
				for k := range tx.Prefix(prefix) {
					keys = append(keys, append([]byte(nil), k...))
				}
				if err := tx.Err(); err != nil {
					return err
				}
				for _, k := range keys {
					if err := tx.Delete(k); err != nil {
						return err
					}
				}
				return nil
			})
			cpu += processCPU() - start
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	})
}

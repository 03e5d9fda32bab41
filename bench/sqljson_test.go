package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairndb/cairn/cairnsql"
)

// The query-to-JSON workloads of issue 23 (after resqlite's experiment 199): a query's rows as a
// JSON array of objects keyed by column name. cairn writes them with cairnsql.AppendJSON into a
// reused buffer, with no interface per cell; SQLite's side is what a Go program does with
// database/sql: Rows.Scan into one `any` per column, a map per row, encoding/json.
const (
	jsonRowCount = 10_000
	jsonSchema   = `CREATE TABLE jt(id INTEGER PRIMARY KEY, ` +
		`i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, ` +
		`i8 INTEGER, i9 INTEGER, i10 INTEGER, i11 INTEGER, i12 INTEGER, i13 INTEGER, i14 INTEGER, ` +
		`i15 INTEGER, i16 INTEGER, i17 INTEGER, i18 INTEGER, i19 INTEGER, i20 INTEGER, ` +
		`t1 TEXT, t2 TEXT, r1 REAL, r2 REAL)`
)

// jsonShapes are the shapes of the workload: rows × columns of a query on jt.
var jsonShapes = []struct {
	name  string
	query string
	args  func(i uint64) []any
	rows  int
}{
	{"rows=10000/cols=8-int", "SELECT i1, i2, i3, i4, i5, i6, i7, i8 FROM jt", noArgs, jsonRowCount},
	{"rows=10000/cols=20-int", "SELECT " + intColumns(20) + " FROM jt", noArgs, jsonRowCount},
	{"rows=10000/cols=8-mixed", "SELECT i1, i2, i3, i4, t1, t2, r1, r2 FROM jt", noArgs, jsonRowCount},
	{"rows=1/cols=5-mixed", "SELECT i1, t1, r1, i2, t2 FROM jt WHERE id = ?", func(i uint64) []any {
		return []any{int(mix(i)%jsonRowCount) + 1}
	}, 1},
	{"rows=100/cols=5-mixed", "SELECT i1, t1, r1, i2, t2 FROM jt WHERE id BETWEEN ? AND ?", func(i uint64) []any {
		first := int(mix(i)%(jsonRowCount-99)) + 1
		return []any{first, first + 99}
	}, 100},
}

func noArgs(uint64) []any { return nil }

func intColumns(n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("i%d", i+1)
	}
	return strings.Join(cols, ", ")
}

// sharedJSONDB returns engine name's jt table of jsonRowCount rows.
func sharedJSONDB(tb testing.TB, name string) *sql.DB {
	return sharedSQLDB(tb, name, "json table", func(tb testing.TB, db *sql.DB) {
		if _, err := db.Exec(jsonSchema); err != nil {
			tb.Fatal(err)
		}
		insert := "INSERT INTO jt VALUES (?" + strings.Repeat(", ?", 24) + ")"
		sqlLoad(tb, db, insert, jsonRowCount, func(i int) []any {
			row := []any{i}
			for c := range 20 {
				row = append(row, int64(mix(uint64(i*20+c))>>(12+c)))
			}
			return append(row, fmt.Sprintf("text %d of the row", i), fmt.Sprintf("τ-%x", mix(uint64(i))>>40),
				float64(i)/7, float64(mix(uint64(i))>>20)*1e-3)
		})
	})
}

// queryJSON returns the rows of query as a JSON array of objects, as the engine's side of the
// workload makes it (dst reused by cairn).
func queryJSON(tb testing.TB, name string, db *sql.DB, dst []byte, query string, args ...any) []byte {
	if name == "cairn" {
		out, err := cairnsql.AppendJSON(context.Background(), db, dst[:0], query, args...)
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
	rows, err := db.Query(query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var objs []map[string]any
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		obj := make(map[string]any, len(cols))
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok { // TEXT through modernc arrives as string, through mattn as []byte
				vals[i] = string(b)
			}
			obj[c] = vals[i]
		}
		objs = append(objs, obj)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	if objs == nil {
		objs = []map[string]any{}
	}
	out, err := json.Marshal(objs)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkSQLJSON measures a query's rows turned into JSON bytes, per shape of issue 23's table.
// An op is one query; rows/s counts its rows.
func BenchmarkSQLJSON(b *testing.B) {
	for _, shape := range jsonShapes {
		for _, name := range SQLEngines {
			b.Run(fmt.Sprintf("engine=%s/%s", name, shape.name), func(b *testing.B) {
				db := sharedJSONDB(b, name)
				var dst []byte
				for i := range uint64(3) { // warm the cache and the buffer
					dst = queryJSON(b, name, db, dst, shape.query, shape.args(i)...)
				}
				settle(b, name, db)
				b.ReportAllocs()
				cpu := cpuTime(b)
				for i := uint64(0); b.Loop(); i++ {
					dst = queryJSON(b, name, db, dst, shape.query, shape.args(i)...)
				}
				reportCPU(b, cpu)
				b.ReportMetric(float64(b.N*shape.rows)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// TestSameJSON checks that every engine's JSON of every shape decodes to the same rows (numbers
// as float64, as encoding/json reads them), so that the benchmark compares the same work.
func TestSameJSON(t *testing.T) {
	var want []string
	for k, name := range SQLEngines {
		t.Run(name, func(t *testing.T) {
			db := sharedJSONDB(t, name)
			for i, shape := range jsonShapes {
				out := queryJSON(t, name, db, nil, shape.query, shape.args(uint64(i))...)
				var rows []map[string]any
				if err := json.Unmarshal(out, &rows); err != nil {
					t.Fatalf("%s: %v in %.200s", shape.name, err, out)
				}
				if len(rows) != shape.rows {
					t.Fatalf("%s: %d rows, want %d", shape.name, len(rows), shape.rows)
				}
				canon, err := json.Marshal(rows) // map keys sorted: one text per set of rows
				if err != nil {
					t.Fatal(err)
				}
				if k == 0 {
					want = append(want, string(canon))
				} else if string(canon) != want[i] {
					t.Errorf("%s: %s differs from %s's:\n%.300s\n%.300s", shape.name, name, SQLEngines[0], canon, want[i])
				}
			}
		})
	}
}

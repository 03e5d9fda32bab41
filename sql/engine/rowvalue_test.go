package engine

import (
	"fmt"
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestKeysetPagination walks a table by (created_at, id) pages with a row-value range: the plan
// seeks the index at the row value and reads it in ORDER BY's order (no sort), and the pages
// together are the whole table in that order, with many rows sharing a created_at.
func TestKeysetPagination(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE ev(id INTEGER PRIMARY KEY, created_at TEXT, title TEXT);
		CREATE INDEX ev_created ON ev(created_at, id);
		CREATE TABLE kv(k TEXT, n INTEGER, v TEXT);
		CREATE INDEX kv_kn ON kv(k, n DESC);
		BEGIN`)
	for i := 1; i <= 1000; i++ {
		day := fmt.Sprintf("2024-01-%02d", (i*7)%23+1) // 23 days, ~43 rows each, ids interleaved
		mustExec(t, s, "INSERT INTO ev VALUES (?, ?, ?)", value.Int(int64(i)), value.TextString(day), value.TextString("t"))
	}
	mustExec(t, s, "COMMIT")

	const page = `SELECT id, created_at FROM ev WHERE (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT 20`
	require.Equal(t, []string{"SEARCH ev USING COVERING INDEX ev_created ((created_at,id)>(?,?))"}, explainPlan(t, s, page))
	require.Equal(t, []string{"SEARCH ev USING INDEX ev_created ((created_at,id)<(?,?))"},
		explainPlan(t, s, `SELECT * FROM ev WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT 20`))
	require.Equal(t, []string{"SEARCH ev USING INDEX ev_created ((created_at,id)>(?,?) AND (created_at,id)<(?,?))"},
		explainPlan(t, s, `SELECT * FROM ev WHERE (created_at, id) BETWEEN (?, ?) AND (?, ?)`))
	require.Equal(t, []string{"SEARCH ev USING INTEGER PRIMARY KEY (rowid=?)"},
		explainPlan(t, s, `SELECT * FROM ev WHERE (created_at, id) = (?, ?)`))
	// A direction that differs from the index's keeps the bound on the first column only.
	require.Equal(t, []string{"SEARCH kv USING INDEX kv_kn (k>?)"},
		explainPlan(t, s, `SELECT * FROM kv WHERE (k, n) > (?, ?)`))

	want := query(t, s, "SELECT id, created_at FROM ev ORDER BY created_at, id")
	var got [][]value.Value
	last := []value.Value{value.TextString(""), value.Int(0)}
	for {
		rows := query(t, s, page, last...)
		if len(rows) == 0 {
			break
		}
		require.LessOrEqual(t, len(rows), 20)
		got = append(got, rows...)
		r := rows[len(rows)-1]
		last = []value.Value{r[1], r[0]}
	}
	require.Equal(t, want, got)

	// Backward, from the end.
	got = got[:0]
	last = []value.Value{value.TextString("9"), value.Int(0)}
	for {
		rows := query(t, s, `SELECT id, created_at FROM ev WHERE (created_at, id) < (?, ?)
			ORDER BY created_at DESC, id DESC LIMIT 20`, last...)
		if len(rows) == 0 {
			break
		}
		got = append(got, rows...)
		r := rows[len(rows)-1]
		last = []value.Value{r[1], r[0]}
	}
	require.Len(t, got, len(want))
	for i := range got {
		require.Equal(t, want[len(want)-1-i], got[i])
	}
}

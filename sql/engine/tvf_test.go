package engine

import (
	"context"
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestTableFuncOrder: a table-valued function whose argument reads another source of FROM runs
// inside that source's loop, wherever it stands in FROM.
func TestTableFuncOrder(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE docs(id INTEGER PRIMARY KEY, doc TEXT);
		INSERT INTO docs(doc) VALUES ('[1,2]'), ('{"a":3}')`)
	for _, q := range []string{
		`SELECT d.id, j.value FROM docs AS d, json_each(d.doc) AS j`,
		`SELECT d.id, j.value FROM json_each(d.doc) AS j, docs AS d`,
	} {
		require.Equal(t, []string{"SCAN d", "SCAN j VIRTUAL TABLE"}, explainPlan(t, s, q), q)
		rows := query(t, s, q+" ORDER BY 1, 2")
		require.Equal(t, [][]value.Value{
			{value.Int(1), value.Int(1)}, {value.Int(1), value.Int(2)}, {value.Int(2), value.Int(3)},
		}, rows, q)
	}
	// An argument that reads the function's own columns has no order to run in.
	st, err := s.Prepare(`SELECT * FROM json_each(json_each.value)`)
	require.NoError(t, err)
	_, err = st.Query(context.Background(), nil)
	require.EqualError(t, err, "no query solution")
}

// TestTableFuncPrepared: a prepared statement evaluates the arguments anew on each run.
func TestTableFuncPrepared(t *testing.T) {
	s := newTestSession(t)
	st, err := s.Prepare(`SELECT count(*), sum(value) FROM json_each(?)`)
	require.NoError(t, err)
	for _, c := range []struct {
		doc      string
		n, total int64
	}{{"[1,2,3]", 3, 6}, {"[10]", 1, 10}} {
		rows, err := st.Query(context.Background(), []value.Value{value.TextString(c.doc)})
		require.NoError(t, err)
		require.True(t, rows.Next())
		require.Equal(t, []value.Value{value.Int(c.n), value.Int(c.total)}, cloneRow(rows.Row()))
		require.NoError(t, rows.Close())
	}
}

// TestJSONSubtype: a JSON function's result is JSON to another JSON function; a copy that
// outlives the expression (a subquery's row) is text again.
func TestJSONSubtype(t *testing.T) {
	s := newTestSession(t)
	rows := query(t, s, `SELECT json_array(json('[1]'), '[1]'), json_array(x) FROM (SELECT json('[1]') AS x)`)
	require.Equal(t, `[[1],"[1]"]`, string(rows[0][0].Bytes()))
	require.Equal(t, `["[1]"]`, string(rows[0][1].Bytes()))
}

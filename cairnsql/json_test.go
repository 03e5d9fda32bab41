package cairnsql_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/cairndb/cairn/cairnsql"
	"github.com/stretchr/testify/require"
)

func TestAppendJSON(t *testing.T) {
	db := openMemory(t)
	ctx := context.Background()
	_, err := db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
		INSERT INTO t VALUES (1, 'Ada', 9.5, x'cafe'), (2, 'Bo "B"', NULL, NULL)`)
	require.NoError(t, err)
	out, err := cairnsql.AppendJSON(ctx, db, []byte("prefix:"), "SELECT * FROM t WHERE id >= ? ORDER BY id", 1)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(out, []byte("prefix:")))
	var got []map[string]any
	require.NoError(t, json.Unmarshal(out[len("prefix:"):], &got))
	require.Equal(t, []map[string]any{
		{"id": 1.0, "name": "Ada", "score": 9.5, "data": map[string]any{"base64": "yv4="}},
		{"id": 2.0, "name": `Bo "B"`, "score": nil, "data": nil},
	}, got)

	empty, err := cairnsql.AppendJSON(ctx, db, nil, "SELECT * FROM t WHERE id = :id", sql.Named("id", 99))
	require.NoError(t, err)
	require.Equal(t, "[]", string(empty))

	var buf bytes.Buffer
	require.NoError(t, cairnsql.WriteJSON(ctx, db, &buf, "SELECT name FROM t ORDER BY id"))
	require.JSONEq(t, `[{"name":"Ada"},{"name":"Bo \"B\""}]`, buf.String())

	_, err = cairnsql.AppendJSON(ctx, db, nil, "SELECT * FROM missing")
	require.ErrorContains(t, err, "no such table: missing")
}

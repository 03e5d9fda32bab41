package engine

import (
	"context"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// newTestSession opens an in-memory database and returns a session of a new engine on it.
func newTestSession(t *testing.T) *Session {
	t.Helper()
	db, err := cairn.Open(t.Name()+".db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return New(db).NewSession()
}

// mustExec runs sql (one or more statements) with args.
func mustExec(t *testing.T, s *Session, sql string, args ...value.Value) Result {
	t.Helper()
	res, err := s.Exec(context.Background(), sql, args)
	require.NoError(t, err, sql)
	return res
}

// query runs one query and returns its rows, values copied.
func query(t *testing.T, s *Session, sql string, args ...value.Value) [][]value.Value {
	t.Helper()
	st, err := s.Prepare(sql)
	require.NoError(t, err, sql)
	rows, err := st.Query(context.Background(), args)
	require.NoError(t, err, sql)
	defer rows.Close()
	var out [][]value.Value
	for rows.Next() {
		out = append(out, cloneRow(rows.Row()))
	}
	require.NoError(t, rows.Err(), sql)
	return out
}

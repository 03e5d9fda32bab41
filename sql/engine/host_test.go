package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
)

// swapHost is an engine.Host whose database the test replaces, and which refuses writes while
// refuse is set. stale, if set, is handed out once before db (a database closed by a swap that
// a transaction's begin meets).
type swapHost struct {
	mu     sync.Mutex
	db     *cairn.DB
	stale  *cairn.DB
	refuse error
}

func (h *swapHost) DB() *cairn.DB {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stale != nil {
		db := h.stale
		h.stale = nil
		return db
	}
	return h.db
}

func (h *swapHost) WriteAllowed() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refuse
}

// TestHostedEngine: a hosted engine begins on its Host's current database (retrying past one
// closed by a swap), sees a schema changed behind its back by the next statement, and runs no
// write while the Host refuses, with the Host's error.
func TestHostedEngine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	open := func() *cairn.DB {
		db, err := cairn.Open(path, &cairn.Options{Sync: cairn.SyncNone})
		require.NoError(t, err)
		return db
	}
	h := &swapHost{db: open()}
	eng := engine.NewHosted(h)
	s := eng.NewSession()
	defer s.Close()
	exec(t, s, "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
	sel, err := s.Prepare("SELECT * FROM t")
	require.NoError(t, err)

	// The database is closed and opened again (a reopen after a refused replication); a
	// transaction that meets the closed one begins on the new one.
	old := h.DB()
	require.NoError(t, old.Close())
	h.mu.Lock()
	h.db, h.stale = open(), old
	h.mu.Unlock()
	require.Equal(t, [][]string{{"1"}}, hostedRows(t, sel))
	require.Equal(t, h.DB(), eng.DB())

	// A schema change that reaches the database without the engine (replication) is seen by
	// the next statement, and the prepared one plans again.
	other := engine.New(h.DB()).NewSession()
	exec(t, other, "ALTER TABLE t ADD COLUMN b DEFAULT 'x'; CREATE TABLE u(c)")
	other.Close()
	require.Equal(t, [][]string{{"1", "x"}}, hostedRows(t, sel))
	exec(t, s, "INSERT INTO u VALUES (2)")

	// Refused writes: the Host's error, nothing ran; reads go on.
	refused := errors.New("not the leader")
	h.mu.Lock()
	h.refuse = refused
	h.mu.Unlock()
	_, err = s.Exec(context.Background(), "INSERT INTO u VALUES (3)", nil)
	require.ErrorIs(t, err, refused)
	_, err = s.Exec(context.Background(), "CREATE TABLE v(x)", nil)
	require.ErrorIs(t, err, refused)
	_, err = s.Exec(context.Background(), "VACUUM", nil)
	require.ErrorIs(t, err, refused)
	exec(t, s, "BEGIN")
	require.Equal(t, 1, countRows(t, s, "SELECT * FROM u"))
	_, err = s.Exec(context.Background(), "DELETE FROM u", nil)
	require.ErrorIs(t, err, refused, "in a transaction too")
	exec(t, s, "ROLLBACK")
	require.Equal(t, 1, countRows(t, s, "SELECT * FROM u"))
	require.NoError(t, h.DB().Close())
}

// hostedRows runs a prepared query and returns its rows as text.
func hostedRows(t *testing.T, st *engine.Stmt) [][]string {
	t.Helper()
	rows, err := queryStmt(t, st)
	require.NoError(t, err)
	return rows
}

// count runs a query through s and returns how many rows it gave.
func countRows(t *testing.T, s *engine.Session, sql string) int {
	t.Helper()
	rows, err := query(t, s, sql)
	require.NoError(t, err)
	return len(rows)
}

package cairnsql_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cairnsql"
	"github.com/cairndb/cairn/sql/engine"
)

var errRefused = errors.New("writes go elsewhere")

// refusingHost is a read-only replica's Host: its database, and no writes.
type refusingHost struct{ db *cairn.DB }

func (h refusingHost) DB() *cairn.DB       { return h.db }
func (h refusingHost) WriteAllowed() error { return errRefused }

// testRouter forwards refused statements to another engine (the "leader"), in a session of its
// own, and counts the reads it was asked about.
type testRouter struct {
	leader *engine.Engine
	reads  atomic.Int64
}

func (r *testRouter) BeforeRead(ctx context.Context) error {
	r.reads.Add(1)
	return nil
}

func (r *testRouter) Forward(ctx context.Context, refused error, req cairnsql.ForwardRequest) (cairnsql.ForwardResult, bool, error) {
	if !errors.Is(refused, errRefused) {
		return cairnsql.ForwardResult{}, false, nil
	}
	s := r.leader.NewSession()
	defer s.Close()
	s.SetForeignKeys(req.ForeignKeys)
	st, err := s.Prepare(req.SQL)
	if err != nil {
		return cairnsql.ForwardResult{}, true, err
	}
	if !req.Rows {
		res, err := st.Exec(ctx, req.Args)
		return cairnsql.ForwardResult{LastInsertID: res.LastInsertID, RowsAffected: res.RowsAffected}, true, err
	}
	rows, err := st.Query(ctx, req.Args)
	if err != nil {
		return cairnsql.ForwardResult{}, true, err
	}
	defer rows.Close()
	out := cairnsql.ForwardResult{Columns: rows.Columns(), DeclTypes: rows.DeclTypes()}
	for rows.Next() {
		row := append(rows.Row()[:0:0], rows.Row()...)
		for i := range row {
			row[i] = row[i].Clone()
		}
		out.Rows = append(out.Rows, row)
	}
	return out, true, rows.Err()
}

// TestHostedConnector: on a hosted engine whose Host refuses writes, reads run here after the
// Router's BeforeRead, autocommit writes go through Router.Forward with their results, writes in
// a transaction and TEMP tables get the Host's refusal, and Close leaves the database open.
func TestHostedConnector(t *testing.T) {
	dir := t.TempDir()
	leaderDB, err := cairn.Open(filepath.Join(dir, "leader.db"), nil)
	require.NoError(t, err)
	defer leaderDB.Close()
	leader := engine.New(leaderDB)
	// The replica reads the leader's database itself: what it sees is what was forwarded.
	r := &testRouter{leader: leader}
	c, err := cairnsql.NewHostedConnector(engine.NewHosted(refusingHost{leaderDB}), nil, r)
	require.NoError(t, err)
	db := sql.OpenDB(c)

	_, err = db.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	require.NoError(t, err)
	res, err := db.Exec("INSERT INTO t(v) VALUES ('a'), ('b')")
	require.NoError(t, err)
	id, _ := res.LastInsertId()
	n, _ := res.RowsAffected()
	require.Equal(t, []int64{2, 2}, []int64{id, n})
	var v string
	require.NoError(t, db.QueryRow("UPDATE t SET v = 'B' WHERE id = 2 RETURNING v").Scan(&v))
	require.Equal(t, "B", v)
	reads := r.reads.Load()
	require.NoError(t, db.QueryRow("SELECT v FROM t WHERE id = 1").Scan(&v))
	require.Equal(t, "a", v)
	require.Equal(t, reads+1, r.reads.Load(), "one BeforeRead per read")

	tx, err := db.Begin()
	require.NoError(t, err)
	_, err = tx.Exec("DELETE FROM t")
	require.ErrorIs(t, err, errRefused, "not forwarded inside a transaction")
	require.NoError(t, tx.Rollback())
	_, err = db.Exec("CREATE TEMP TABLE x(a)")
	require.ErrorIs(t, err, errRefused, "TEMP tables are not forwarded")

	require.NoError(t, db.Close())
	require.NoError(t, leaderDB.View(func(tx *cairn.Tx) error { return nil }), "the database stays open")
}

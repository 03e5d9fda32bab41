package engine

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
)

// tempBuckets counts the buckets of TEMP tables in db.
func tempBuckets(t *testing.T, db *cairn.DB) int {
	t.Helper()
	n := 0
	require.NoError(t, db.View(func(tx *cairn.Tx) error {
		return tx.ForEachBucket(func(name []byte) error {
			if bytes.HasPrefix(name, tempBucketPrefix) {
				n++
			}
			return nil
		})
	}))
	return n
}

// TestTempTablesBelongToTheirSession: a TEMP table is seen by its session only, shadows a table
// of the schema, keeps prepared statements apart from the schema's table, and goes (its
// buckets deleted) when the session closes; buckets a dead process left go with the next Engine.
func TestTempTablesBelongToTheirSession(t *testing.T) {
	db, err := cairn.Open(t.Name()+".db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	require.NoError(t, err)
	defer db.Close()
	eng := New(db)
	a, b := eng.NewSession(), eng.NewSession()
	mustExec(t, a, "CREATE TABLE t(x); INSERT INTO t VALUES ('main')")
	st, err := a.Prepare("SELECT x FROM t")
	require.NoError(t, err)
	read := func() []string {
		rows, err := st.Query(t.Context(), nil)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			out = append(out, rows.Row()[0].String())
		}
		require.NoError(t, rows.Err())
		return out
	}
	require.Equal(t, []string{"'main'"}, read())
	mustExec(t, a, "CREATE TEMP TABLE t(x UNIQUE); INSERT INTO t VALUES ('temp')")
	require.Equal(t, []string{"'temp'"}, read(), "the prepared statement plans again for the TEMP table")
	require.Equal(t, []string{"'main'"}, textRows(query(t, b, "SELECT x FROM t")))
	_, err = b.Exec(t.Context(), "CREATE TEMP TABLE u(y); SELECT * FROM u", nil)
	require.NoError(t, err)
	_, err = a.Exec(t.Context(), "SELECT * FROM u", nil)
	require.EqualError(t, err, "no such table: u")
	require.Equal(t, 3, tempBuckets(t, db)) // a's t and its UNIQUE index, b's u
	a.Close()
	require.Equal(t, 1, tempBuckets(t, db))
	// b's bucket stays as a dead process would leave it: the next Engine deletes it.
	New(db)
	require.Equal(t, 0, tempBuckets(t, db))
	c := eng.NewSession()
	require.Equal(t, []string{"'main'"}, textRows(query(t, c, "SELECT x FROM t")))
}

package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestRangeOverCutKeys checks range scans of an index whose values are longer than a key holds
// (codec.MaxKeyPart): values that share their first 2048 bytes are ordered in the index by hash,
// not by value, so a range bound on such a value must take all of them and leave the rest to the
// WHERE terms. Every query must count what a scan without the index counts.
func TestRangeOverCutKeys(t *testing.T) {
	s := engine.New(openMemory(t)).NewSession()
	defer s.Close()
	ctx := context.Background()
	exec := func(q string, args ...value.Value) {
		t.Helper()
		_, err := s.Exec(ctx, q, args)
		require.NoError(t, err, q)
	}
	exec("CREATE TABLE t(x TEXT, y BLOB)")
	exec("CREATE INDEX tx ON t(x)")
	exec("CREATE INDEX txd ON t(x DESC)")
	exec("CREATE INDEX ty ON t(y)")
	long := strings.Repeat("x", 3000)
	for c := 'a'; c <= 'j'; c++ {
		exec("INSERT INTO t VALUES (?, ?)", value.TextString(long+string(c)), value.BlobBytes([]byte(long+string(c))))
	}
	exec("INSERT INTO t VALUES ('a', x'01'), ('z', x'ff')")
	count := func(q string, arg value.Value) string {
		t.Helper()
		st, err := s.Prepare(q)
		require.NoError(t, err)
		rows, err := st.Query(ctx, []value.Value{arg})
		require.NoError(t, err, q)
		defer rows.Close()
		require.True(t, rows.Next(), q)
		return rows.Row()[0].String()
	}
	for _, col := range []string{"x", "y"} {
		for _, op := range []string{"<", "<=", ">", ">=", "="} {
			for _, ix := range map[string][]string{"x": {"tx", "txd"}, "y": {"ty"}}[col] {
				arg := value.TextString(long + "e")
				if col == "y" {
					arg = value.BlobBytes([]byte(long + "e"))
				}
				where := fmt.Sprintf("WHERE %s %s ?", col, op)
				want := count("SELECT count(*) FROM t NOT INDEXED "+where, arg)
				got := count(fmt.Sprintf("SELECT count(*) FROM t INDEXED BY %s %s", ix, where), arg)
				require.Equal(t, want, got, "%s %s (index %s)", col, op, ix)
			}
		}
	}
	got := count("SELECT count(*) FROM t INDEXED BY tx WHERE x BETWEEN ? AND x", value.TextString(long+"c"))
	require.Equal(t, "9", got) // long+c .. long+j and 'z'
}

// TestMebibyteKeys checks that values of 1 MiB, far beyond cairn's key limit, work as a WITHOUT
// ROWID primary key and in a UNIQUE index: they insert, are found, and UNIQUE compares them whole.
func TestMebibyteKeys(t *testing.T) {
	s := engine.New(openMemory(t)).NewSession()
	defer s.Close()
	ctx := context.Background()
	_, err := s.Exec(ctx, "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID; CREATE TABLE u(k BLOB UNIQUE)", nil)
	require.NoError(t, err)
	mib := strings.Repeat("k", 1<<20)
	for _, k := range []string{mib + "1", mib + "2"} {
		_, err = s.Exec(ctx, "INSERT INTO w VALUES (?, 1)", []value.Value{value.TextString(k)})
		require.NoError(t, err)
		_, err = s.Exec(ctx, "INSERT INTO u VALUES (?)", []value.Value{value.BlobBytes([]byte(k))})
		require.NoError(t, err)
	}
	_, err = s.Exec(ctx, "INSERT INTO w VALUES (?, 2)", []value.Value{value.TextString(mib + "2")})
	require.EqualError(t, err, "UNIQUE constraint failed: w.k")
	_, err = s.Exec(ctx, "INSERT INTO u VALUES (?)", []value.Value{value.BlobBytes([]byte(mib + "1"))})
	require.EqualError(t, err, "UNIQUE constraint failed: u.k")
	st, err := s.Prepare("SELECT length(k), substr(k, -1) FROM w WHERE k = ?")
	require.NoError(t, err)
	rows, err := st.Query(ctx, []value.Value{value.TextString(mib + "2")})
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.Equal(t, "1048577 '2'", rows.Row()[0].String()+" "+rows.Row()[1].String())
	require.False(t, rows.Next())
	require.NoError(t, rows.Err())
}

package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestLongValuesInKeys checks TEXT and BLOB values longer than a key can hold (1 MiB, against
// cairn's 16 KiB key limit) as a rowid table's UNIQUE column, a WITHOUT ROWID primary key and an
// indexed column: they insert, are found by equality and by ranges, and UNIQUE is enforced
// exactly (values sharing a long prefix are distinct; equal values conflict).
func TestLongValuesInKeys(t *testing.T) {
	const mib = 1 << 20
	base := strings.Repeat("x", mib)
	a, b, c := base+"a", base+"b", base+"c"
	for _, ddl := range []string{
		"CREATE TABLE t(k TEXT UNIQUE, v INTEGER)",
		"CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID",
		"CREATE TABLE t(k TEXT, v INTEGER); CREATE INDEX tk ON t(k)",
		"CREATE TABLE t(k TEXT COLLATE NOCASE UNIQUE, v INTEGER)",
		"CREATE TABLE t(k TEXT, v INTEGER); CREATE UNIQUE INDEX tk ON t(k DESC)",
	} {
		t.Run(ddl, func(t *testing.T) {
			s := newTestSession(t)
			mustExec(t, s, ddl)
			for i, k := range []string{b, a, c} {
				mustExec(t, s, "INSERT INTO t VALUES(?, ?)", value.TextString(k), value.Int(int64(i)))
			}
			require.Equal(t, [][]value.Value{{value.Int(0)}},
				query(t, s, "SELECT v FROM t WHERE k = ?", value.TextString(b)))
			got := query(t, s, "SELECT v FROM t WHERE k > ? ORDER BY k", value.TextString(a))
			require.Equal(t, [][]value.Value{{value.Int(0)}, {value.Int(2)}}, got, "k > a")
			got = query(t, s, "SELECT v FROM t WHERE k <= ? ORDER BY k", value.TextString(b))
			require.Equal(t, [][]value.Value{{value.Int(1)}, {value.Int(0)}}, got, "k <= b")
			got = query(t, s, "SELECT v FROM t WHERE k BETWEEN ? AND ? ORDER BY k DESC", value.TextString(a), value.TextString(b))
			require.Equal(t, [][]value.Value{{value.Int(0)}, {value.Int(1)}}, got, "between")
			if strings.Contains(ddl, "CREATE INDEX") {
				return // not unique
			}
			_, err := s.Exec(context.Background(), "INSERT INTO t VALUES(?, 9)", []value.Value{value.TextString(c)})
			require.ErrorContains(t, err, "UNIQUE constraint failed: t.k")
			require.Len(t, query(t, s, "SELECT k FROM t"), 3, "the failed insert changed nothing")
			mustExec(t, s, "INSERT INTO t VALUES(?, 9)", value.TextString(base+"d"))
			require.Len(t, query(t, s, "SELECT k FROM t"), 4)
		})
	}
}

func TestLongValueUniqueNoCase(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t(k TEXT COLLATE NOCASE UNIQUE)")
	long := strings.Repeat("ab", 1<<19)
	mustExec(t, s, "INSERT INTO t VALUES(?)", value.TextString(long+"z"))
	_, err := s.Exec(context.Background(), "INSERT INTO t VALUES(?)", []value.Value{value.TextString(strings.ToUpper(long) + "Z")})
	require.ErrorContains(t, err, "UNIQUE constraint failed", "NOCASE: the same text in another case conflicts")
}

package difftest

import (
	"database/sql"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	_ "github.com/cairndb/cairn/cairnsql"
)

// TestDriverValuesLikeModernc passes the same Go values through the cairn driver and through
// modernc.org/sqlite with its default DSN, into columns of several declared types, and requires
// the same stored value (typeof and text) and the same Go value read back into an any, a time.Time
// included: cairnsql stores and reads times as modernc does by default. (One difference: an empty
// BLOB reads as []byte{} from cairn, as from mattn/go-sqlite3, and as a nil []byte from modernc.)
func TestDriverValuesLikeModernc(t *testing.T) {
	now := time.Now()
	require.Contains(t, now.String(), " m=", "time.Now has a monotonic clock reading")
	values := []any{
		nil, int(-7), int8(8), int32(-32), int64(math.MaxInt64), uint8(255), uint32(math.MaxUint32),
		uint64(math.MaxInt64), float32(1.5), -2.25, 1e300, true, false, "text", "", "12", " 12 ", "1e3",
		[]byte{0, 1}, []byte{},
		now, now.Round(0), now.UTC(),
		time.Date(2021, 1, 2, 16, 39, 17, 123456789, time.UTC),
		time.Date(2021, 1, 2, 16, 39, 17, 0, time.FixedZone("CET", 3600)),
		time.Date(1999, 12, 31, 23, 59, 59, 999, time.FixedZone("", -7*3600)),
		time.Time{},
		"2024-02-29", "2024-02-29 13:14:15", "2024-02-29T13:14:15.5Z", "2024-02-29 13:14:15.25-03:00",
		"2024-02-29T13:14", "soon",
	}
	const schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, d DATE, dt DATETIME, ts timestamp, tm TIME, txt TEXT, i INTEGER, v)"
	type got struct {
		types, texts string
		scanned      []any
	}
	run := func(driverName, dsn string) []got {
		db, err := sql.Open(driverName, dsn)
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Exec(schema)
		require.NoError(t, err)
		var out []got
		for i, v := range values {
			_, err := db.Exec("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", i, v, v, v, v, v, v, v)
			require.NoError(t, err, "%s: %T %v", driverName, v, v)
			var g got
			require.NoError(t, db.QueryRow(`SELECT typeof(d)||typeof(dt)||typeof(ts)||typeof(tm)||typeof(txt)||typeof(i)||typeof(v),
				quote(d)||quote(dt)||quote(ts)||quote(tm)||quote(txt)||quote(i)||quote(v) FROM t WHERE id = ?`, i).Scan(&g.types, &g.texts))
			g.scanned = make([]any, 7)
			ptrs := make([]any, 7)
			for j := range ptrs {
				ptrs[j] = &g.scanned[j]
			}
			require.NoError(t, db.QueryRow("SELECT d, dt, ts, tm, txt, i, v FROM t WHERE id = ?", i).Scan(ptrs...))
			out = append(out, g)
		}
		return out
	}
	cairn := run("cairn", ":memory:")
	sqlite := run("sqlite", ":memory:")
	for i, v := range values {
		what := fmt.Sprintf("value %d (%T) %v", i, v, v)
		require.Equal(t, sqlite[i].types, cairn[i].types, what)
		require.Equal(t, sqlite[i].texts, cairn[i].texts, what)
		for j := range sqlite[i].scanned {
			s, c := sqlite[i].scanned[j], cairn[i].scanned[j]
			if st, ok := s.(time.Time); ok {
				ct, ok := c.(time.Time)
				require.True(t, ok, "%s column %d: SQLite reads %v, cairn %T %v", what, j, st, c, c)
				require.True(t, st.Equal(ct), "%s column %d: SQLite reads %v, cairn %v", what, j, st, ct)
				require.Equal(t, st.Location().String(), ct.Location().String(), what)
				continue
			}
			if sb, ok := s.([]byte); ok && len(sb) == 0 {
				// modernc reads an empty BLOB as a nil []byte, cairn (as mattn/go-sqlite3) as an
				// empty one, which stays distinct from NULL.
				require.Equal(t, []byte{}, c, "%s column %d", what, j)
				continue
			}
			require.Equal(t, s, c, "%s column %d", what, j)
		}
	}
}

// TestColumnTypesLikeModernc requires the declared types of result columns
// (ColumnTypeDatabaseTypeName) that modernc.org/sqlite reports: the type as written, upper-cased.
func TestColumnTypesLikeModernc(t *testing.T) {
	const schema = `CREATE TABLE t(a INTEGER(10) PRIMARY KEY, b varchar( 10 ), c unsigned  big int, d "text",
		e DECIMAL(10, 5), f, g DOUBLE PRECISION, h datetime)`
	queries := []string{
		"SELECT * FROM t",
		"SELECT a, b AS x, c + 1, (SELECT g FROM t), h FROM t",
		"SELECT v.b, v.e FROM (SELECT * FROM t) AS v",
	}
	types := func(driverName string) [][]string {
		db, err := sql.Open(driverName, ":memory:")
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Exec(schema)
		require.NoError(t, err)
		var out [][]string
		for _, q := range queries {
			rows, err := db.Query(q)
			require.NoError(t, err, "%s: %s", driverName, q)
			cts, err := rows.ColumnTypes()
			require.NoError(t, err)
			var names []string
			for _, ct := range cts {
				names = append(names, ct.DatabaseTypeName())
			}
			require.NoError(t, rows.Close())
			out = append(out, names)
		}
		return out
	}
	require.Equal(t, types("sqlite"), types("cairn"))
}

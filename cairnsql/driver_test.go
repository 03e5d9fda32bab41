package cairnsql_test

// The driver's contract, through database/sql as a program uses it: DSNs and their options,
// :memory:, connectors, sharing one cairn.DB between *sql.DB, parameters, Go values in and out,
// column types.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cairnsql"
)

// openFile opens the database file name in a fresh temporary directory with the DSN options
// opts ("" for none) and closes it when the test ends.
func openFile(t *testing.T, opts string) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	dsn := path
	if opts != "" {
		dsn += "?" + opts
	}
	db, err := sql.Open("cairn", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db, path
}

// mustExec runs statements that must succeed.
func mustExec(t *testing.T, db interface {
	Exec(string, ...any) (sql.Result, error)
}, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		_, err := db.Exec(s)
		require.NoError(t, err, "%s", s)
	}
}

// count returns SELECT count(*) FROM table.
func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM "+table).Scan(&n))
	return n
}

func TestDSNOptions(t *testing.T) {
	tests := []struct {
		opts string
		err  string // "" for success
	}{
		{"", ""},
		{"_sync=full", ""},
		{"_sync=none", ""},
		{"_sync=NONE&_cache_bytes=1048576", ""},
		{"_busy_timeout=250", ""},
		{"_txlock=deferred", ""},
		{"_txlock=immediate", ""},
		{"_txlock=exclusive", ""},
		{"_sync=full&_cache_bytes=4194304&_busy_timeout=0&_txlock=immediate", ""},
		{"_sync=sometimes", `_sync="sometimes"`},
		{"_sync=", `_sync=""`},
		{"_cache_bytes=lots", `_cache_bytes="lots"`},
		{"_cache_bytes=-1", ""}, // no cap, as cairn.Options.CacheBytes
		{"_cache_bytes=1.5", `_cache_bytes="1.5"`},
		{"_busy_timeout=-5", `_busy_timeout="-5"`},
		{"_busy_timeout=1s", `_busy_timeout="1s"`},
		{"_txlock=eventually", `_txlock="eventually"`},
		{"_journal_mode=wal", `unknown DSN option "_journal_mode"`},
		{"cache=shared", `unknown DSN option "cache"`},
		{"_sync=full;_txlock=immediate", "malformed options"},
		{"_sync=%zz", "malformed options"},
	}
	for _, tc := range tests {
		t.Run(tc.opts, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dsn.db")
			dsn := path
			if tc.opts != "" {
				dsn += "?" + tc.opts
			}
			db, err := sql.Open("cairn", dsn)
			require.NoError(t, err, "sql.Open only records the DSN")
			defer db.Close()
			err = db.Ping() // the first connect
			if tc.err == "" {
				require.NoError(t, err)
				mustExec(t, db, "CREATE TABLE t(a)", "INSERT INTO t VALUES (1)")
				require.Equal(t, 1, count(t, db, "t"))
				return
			}
			require.ErrorContains(t, err, tc.err)
			_, err = db.Exec("CREATE TABLE t(a)")
			require.ErrorContains(t, err, tc.err, "every connect fails the same way")
			_, statErr := os.Stat(path)
			require.True(t, errors.Is(statErr, os.ErrNotExist), "a rejected DSN creates no file")
		})
	}
}

func TestDSNEmptyPath(t *testing.T) {
	for _, dsn := range []string{"", "?_sync=full"} {
		db, err := sql.Open("cairn", dsn)
		require.NoError(t, err)
		require.ErrorContains(t, db.Ping(), "empty database path")
		require.NoError(t, db.Close())
	}
}

func TestDSNSyncNoneStillWorks(t *testing.T) {
	db, path := openFile(t, "_sync=none&_cache_bytes=65536")
	mustExec(t, db, "CREATE TABLE t(a)")
	for i := range 50 {
		_, err := db.Exec("INSERT INTO t VALUES (?)", i)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
	db2, err := sql.Open("cairn", path)
	require.NoError(t, err)
	defer db2.Close()
	require.Equal(t, 50, count(t, db2, "t"), "a clean Close makes _sync=none commits durable")
}

func TestMemoryIsPrivateAndLeavesNoFile(t *testing.T) {
	t.Chdir(t.TempDir())
	a, err := sql.Open("cairn", ":memory:")
	require.NoError(t, err)
	b, err := sql.Open("cairn", ":memory:?_sync=full")
	require.NoError(t, err)
	mustExec(t, a, "CREATE TABLE t(x)", "INSERT INTO t VALUES (1), (2)")

	// Every connection of a shares its database: hold three at once.
	ctx := context.Background()
	var conns []*sql.Conn
	for range 3 {
		c, err := a.Conn(ctx)
		require.NoError(t, err)
		conns = append(conns, c)
	}
	for i, c := range conns {
		var n int
		require.NoError(t, c.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n), "conn %d", i)
		require.Equal(t, 2, n, "conn %d", i)
	}
	_, err = conns[0].ExecContext(ctx, "INSERT INTO t VALUES (3)")
	require.NoError(t, err)
	var n int
	require.NoError(t, conns[2].QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, 3, n, "a write of one connection is seen by another")
	for _, c := range conns {
		require.NoError(t, c.Close())
	}

	// b is another database.
	_, err = b.Exec("SELECT * FROM t")
	require.ErrorContains(t, err, "no such table: t")
	mustExec(t, b, "CREATE TABLE t(y)")

	ca, err := cairnsql.DB(a)
	require.NoError(t, err)
	cb, err := cairnsql.DB(b)
	require.NoError(t, err)
	require.NotSame(t, ca, cb)

	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	require.Empty(t, entries, ":memory: writes no file")

	// A new :memory: database starts empty.
	c, err := sql.Open("cairn", ":memory:")
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Exec("SELECT * FROM t")
	require.ErrorContains(t, err, "no such table: t")
}

func TestConnectorOpenDBAndClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	conn, err := cairnsql.NewConnector(path, &cairnsql.Options{Sync: cairn.SyncFull, BusyTimeout: time.Second})
	require.NoError(t, err)
	_, ok := conn.(interface{ Close() error })
	require.True(t, ok, "the connector is an io.Closer")
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	mustExec(t, db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
	for i := range 20 {
		_, err := db.Exec("INSERT INTO t(b) VALUES (?)", strings.Repeat("x", i))
		require.NoError(t, err)
	}

	// While the *sql.DB is open, the file is locked: another cairn.Open fails.
	_, err = cairn.Open(path, nil)
	require.ErrorIs(t, err, cairn.ErrLocked)

	require.NoError(t, db.Close())
	// (*sql.DB).Close closed the files: the database opens again.
	kv, err := cairn.Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, kv.Close())

	// A closed connector connects no more.
	_, err = conn.Connect(context.Background())
	require.Error(t, err)

	// nil options and :memory:.
	mc, err := cairnsql.NewConnector(":memory:", nil)
	require.NoError(t, err)
	mdb := sql.OpenDB(mc)
	mustExec(t, mdb, "CREATE TABLE t(a)", "INSERT INTO t VALUES (1)")
	require.Equal(t, 1, count(t, mdb, "t"))
	require.NoError(t, mdb.Close())

	_, err = cairnsql.NewConnector("", nil)
	require.Error(t, err)
}

func TestSamePathSharesOneDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := sql.Open("cairn", path)
	require.NoError(t, err)
	// The same file through a path spelled differently.
	b, err := sql.Open("cairn", filepath.Join(filepath.Dir(path), ".", filepath.Base(path)))
	require.NoError(t, err)

	mustExec(t, a, "CREATE TABLE t(a)", "INSERT INTO t VALUES (1)")
	require.Equal(t, 1, count(t, b, "t"), "b sees a's commit")
	mustExec(t, b, "INSERT INTO t VALUES (2)")
	require.Equal(t, 2, count(t, a, "t"))

	ka, err := cairnsql.DB(a)
	require.NoError(t, err)
	kb, err := cairnsql.DB(b)
	require.NoError(t, err)
	require.Same(t, ka, kb, "one cairn.DB under both")

	// The first Close leaves the database open for the other.
	require.NoError(t, a.Close())
	mustExec(t, b, "INSERT INTO t VALUES (3)")
	require.Equal(t, 3, count(t, b, "t"))
	_, err = cairn.Open(path, nil)
	require.ErrorIs(t, err, cairn.ErrLocked, "still open through b")

	// A third open shares it again, and the last Close closes the file.
	c, err := sql.Open("cairn", path)
	require.NoError(t, err)
	require.Equal(t, 3, count(t, c, "t"))
	require.NoError(t, b.Close())
	require.Equal(t, 3, count(t, c, "t"))
	require.NoError(t, c.Close())
	kv, err := cairn.Open(path, nil)
	require.NoError(t, err, "the last Close closed the file")
	require.NoError(t, kv.Close())

	// And it opens again through the driver afterwards.
	d, err := sql.Open("cairn", path)
	require.NoError(t, err)
	require.Equal(t, 3, count(t, d, "t"))
	require.NoError(t, d.Close())
}

func TestDBReachesTheCairnDatabase(t *testing.T) {
	db, path := openFile(t, "")
	mustExec(t, db, "CREATE TABLE t(a TEXT)", "INSERT INTO t VALUES ('sql row')")
	kv, err := cairnsql.DB(db)
	require.NoError(t, err)
	require.Equal(t, path, kv.Path())
	require.NoError(t, kv.Update(func(tx *cairn.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("kv"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("bucket value"))
	}))
	require.Positive(t, kv.Stats().Commits)
	require.NoError(t, kv.Check())
	require.NoError(t, db.Close())

	// Both live in the one file.
	db2, err := sql.Open("cairn", path)
	require.NoError(t, err)
	defer db2.Close()
	var s string
	require.NoError(t, db2.QueryRow("SELECT a FROM t").Scan(&s))
	require.Equal(t, "sql row", s)
	kv2, err := cairnsql.DB(db2)
	require.NoError(t, err)
	require.NoError(t, kv2.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket([]byte("kv"))
		if err != nil {
			return err
		}
		v, err := b.Get([]byte("k"))
		require.Equal(t, "bucket value", string(v))
		return err
	}))

	// Not a cairn *sql.DB.
	other := sql.OpenDB(fakeConnector{})
	_, err = cairnsql.DB(other)
	require.Error(t, err)
}

// fakeConnector is a connector of another driver.
type fakeConnector struct{}

func (fakeConnector) Connect(context.Context) (driver.Conn, error) { return nil, errors.New("fake") }
func (fakeConnector) Driver() driver.Driver                        { return fakeDriver{} }

type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) { return nil, errors.New("fake") }

func TestParameters(t *testing.T) {
	db := openMemory(t)
	tests := []struct {
		query string
		args  []any
		want  []any
	}{
		{"SELECT ?, ?, ?", []any{1, "two", 3.5}, []any{int64(1), "two", 3.5}},
		{"SELECT ?2, ?1, ?2", []any{"a", "b"}, []any{"b", "a", "b"}},
		// SQLite numbers ? after the highest number so far: ?5 then ? is 6.
		{"SELECT ?5, ?, ?1", []any{1, 2, 3, 4, 5, 6}, []any{int64(5), int64(6), int64(1)}},
		{"SELECT :a, @b, $c, :a", []any{sql.Named("a", 1), sql.Named("b", 2), sql.Named("c", 3)},
			[]any{int64(1), int64(2), int64(3), int64(1)}},
		// Named parameters take numbers too, and positional arguments bind them.
		{"SELECT :a, ?, :a, ?", []any{10, 20, 30}, []any{int64(10), int64(20), int64(10), int64(30)}},
		{"SELECT $x + 1", []any{sql.Named("x", 41)}, []any{int64(42)}},
		{"SELECT ?, :n", []any{7, sql.Named("n", "named")}, []any{int64(7), "named"}},
		// An unbound parameter is NULL.
		{"SELECT ?3 IS NULL", []any{1}, []any{int64(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got := make([]any, len(tc.want))
			ptrs := make([]any, len(got))
			for i := range got {
				ptrs[i] = &got[i]
			}
			require.NoError(t, db.QueryRow(tc.query, tc.args...).Scan(ptrs...))
			require.Equal(t, tc.want, got)

			// The same through a prepared statement.
			st, err := db.Prepare(tc.query)
			require.NoError(t, err)
			defer st.Close()
			require.NoError(t, st.QueryRow(tc.args...).Scan(ptrs...))
			require.Equal(t, tc.want, got)
		})
	}

	_, err := db.Query("SELECT :a", sql.Named("b", 1))
	require.ErrorContains(t, err, `no parameter named "b"`)
}

func TestParametersInWrites(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL)")
	res, err := db.Exec("INSERT INTO t(b, c) VALUES (:b, @c), ($b || '2', ?3 * 2)", sql.Named("b", "x"), sql.Named("c", 1.25))
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	require.EqualValues(t, 2, id)
	st, err := db.Prepare("UPDATE t SET c = c + ? WHERE b = ?")
	require.NoError(t, err)
	defer st.Close()
	res, err = st.Exec(1, "x")
	require.NoError(t, err)
	n, _ = res.RowsAffected()
	require.EqualValues(t, 1, n)
	var c float64
	require.NoError(t, db.QueryRow("SELECT c FROM t WHERE b = $1", "x").Scan(&c))
	require.Equal(t, 2.25, c)
}

type myInt int32
type myString string

// valuer is a driver.Valuer.
type valuer struct{ s string }

func (v valuer) Value() (driver.Value, error) { return "valued:" + v.s, nil }

func TestGoValuesIn(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(v)")
	tests := []struct {
		in       any
		typeName string // typeof() of the stored value
		out      any    // the value read back into any
	}{
		{nil, "null", nil},
		{int(-7), "integer", int64(-7)},
		{int8(-8), "integer", int64(-8)},
		{int16(16), "integer", int64(16)},
		{int32(-32), "integer", int64(-32)},
		{int64(math.MinInt64), "integer", int64(math.MinInt64)},
		{uint(7), "integer", int64(7)},
		{uint8(255), "integer", int64(255)},
		{uint16(65535), "integer", int64(65535)},
		{uint32(math.MaxUint32), "integer", int64(math.MaxUint32)},
		{uint64(math.MaxInt64), "integer", int64(math.MaxInt64)},
		{float32(1.5), "real", 1.5},
		{float64(-2.25), "real", -2.25},
		{math.Inf(1), "real", math.Inf(1)},
		{true, "integer", int64(1)},
		{false, "integer", int64(0)},
		{"text", "text", "text"},
		{"", "text", ""},
		{[]byte{0, 1, 2}, "blob", []byte{0, 1, 2}},
		{[]byte{}, "blob", []byte{}},
		{[]byte(nil), "null", nil},
		{myInt(12), "integer", int64(12)},
		{myString("named string"), "text", "named string"},
		{valuer{"x"}, "text", "valued:x"},
		{sql.NullInt64{Int64: 3, Valid: true}, "integer", int64(3)},
		{sql.NullString{}, "null", nil},
		{ptrTo(int64(9)), "integer", int64(9)},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%T", tc.in), func(t *testing.T) {
			_, err := db.Exec("INSERT INTO t(rowid, v) VALUES (?, ?)", i+1, tc.in)
			require.NoError(t, err)
			var typ string
			var out any
			require.NoError(t, db.QueryRow("SELECT typeof(v), v FROM t WHERE rowid = ?", i+1).Scan(&typ, &out))
			require.Equal(t, tc.typeName, typ)
			require.Equal(t, tc.out, out)
		})
	}

	for _, bad := range []any{uint64(math.MaxInt64 + 1), uint(math.MaxUint64), struct{}{}, []int{1}, complex(1, 2)} {
		_, err := db.Exec("INSERT INTO t VALUES (?)", bad)
		require.Error(t, err, "%T", bad)
	}
}

func TestValuesOutKeepTheirClass(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n NUMERIC, a ANY, v)",
		"INSERT INTO t VALUES (1, 2, 3, x'04', '5.0', '6', 7.5)",
		"INSERT INTO t VALUES ('x', 'y', 'z', 'w', 'q', 1e300, x'')")
	rows, err := db.Query("SELECT * FROM t ORDER BY rowid")
	require.NoError(t, err)
	defer rows.Close()
	want := [][]any{
		{int64(1), 2.0, "3", []byte{4}, int64(5), int64(6), 7.5},
		{"x", "y", "z", "w", "q", 1e300, []byte{}},
	}
	for _, w := range want {
		require.True(t, rows.Next())
		got := make([]any, len(w))
		ptrs := make([]any, len(w))
		for i := range got {
			ptrs[i] = &got[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		require.Equal(t, w, got)
	}
	require.False(t, rows.Next())
	require.NoError(t, rows.Err())

	// Expressions keep the class SQLite gives them.
	var i, r, s, b, n any
	require.NoError(t, db.QueryRow("SELECT 1+1, 1/2.0, 'a'||1, x'ff', NULL").Scan(&i, &r, &s, &b, &n))
	require.Equal(t, []any{int64(2), 0.5, "a1", []byte{0xff}, nil}, []any{i, r, s, b, n})
}

func TestConnectionInterfaces(t *testing.T) {
	db := openMemory(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.PingContext(ctx))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, c.PingContext(cctx), context.Canceled)
	require.NoError(t, c.Raw(func(dc any) error {
		for _, iface := range []any{
			(*driver.ConnBeginTx)(nil), (*driver.ConnPrepareContext)(nil), (*driver.ExecerContext)(nil),
			(*driver.QueryerContext)(nil), (*driver.Pinger)(nil), (*driver.SessionResetter)(nil),
			(*driver.Validator)(nil), (*driver.NamedValueChecker)(nil),
		} {
			typ := reflect.TypeOf(iface).Elem()
			require.True(t, reflect.TypeOf(dc).Implements(typ), "conn implements %v", typ)
		}
		return nil
	}))

	// Several statements in one Exec.
	_, err = c.ExecContext(ctx, "CREATE TABLE t(a); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);")
	require.NoError(t, err)
	var n int
	require.NoError(t, c.QueryRowContext(ctx, "SELECT sum(a) FROM t").Scan(&n))
	require.Equal(t, 3, n)
	// A query of several statements is refused.
	_, err = c.QueryContext(ctx, "SELECT 1; SELECT 2")
	require.Error(t, err)
	// An Exec of a query runs it.
	_, err = c.ExecContext(ctx, "SELECT * FROM t")
	require.NoError(t, err)
	// A Query of a write runs it and returns no rows.
	rows, err := c.QueryContext(ctx, "INSERT INTO t VALUES (3)")
	require.NoError(t, err)
	require.False(t, rows.Next())
	require.NoError(t, rows.Close())
	require.NoError(t, c.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, 3, n)
}

func ptrTo[T any](v T) *T { return &v }
func TestTimeValues(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE ev(id INTEGER PRIMARY KEY, d DATE, dt datetime, ts TIMESTAMP, txt TEXT)")
	cet := time.FixedZone("CET", 3600)
	times := []struct {
		t        time.Time
		readBack bool // whether the text reads back as a time (as with modernc.org/sqlite)
	}{
		{time.Now(), true}, // with a monotonic clock reading
		{time.Date(2021, 1, 2, 16, 39, 17, 123456789, time.UTC), true},
		{time.Date(2021, 1, 2, 16, 39, 17, 0, cet), true},
		{time.Time{}, true},
		// A zone without a name prints its offset twice, "-0700 -0700", which neither driver
		// parses: the column reads back as the text.
		{time.Date(1999, 12, 31, 23, 59, 59, 999, time.FixedZone("", -7*3600)), false},
	}
	for i, tc := range times {
		tm := tc.t
		_, err := db.Exec("INSERT INTO ev VALUES (?, ?, ?, ?, ?)", i, tm, tm, tm, tm)
		require.NoError(t, err)
		// Stored as text, as modernc.org/sqlite stores it by default: Time.String(), the
		// monotonic clock reading included.
		var typ, d, txt string
		require.NoError(t, db.QueryRow("SELECT typeof(d), CAST(d AS TEXT), txt FROM ev WHERE id = ?", i).Scan(&typ, &d, &txt))
		require.Equal(t, "text", typ)
		require.Equal(t, tm.String(), d)
		require.Equal(t, tm.String(), txt)

		// Read back into time.Time from DATE, DATETIME and TIMESTAMP columns.
		var gd, gdt, gts any
		require.NoError(t, db.QueryRow("SELECT d, dt, ts FROM ev WHERE id = ?", i).Scan(&gd, &gdt, &gts))
		for _, g := range []any{gd, gdt, gts} {
			if !tc.readBack {
				require.Equal(t, tm.String(), g)
				continue
			}
			gt, ok := g.(time.Time)
			require.True(t, ok, "%v read back as %T %v", tm, g, g)
			require.True(t, tm.Equal(gt), "%v read back as %v", tm, gt)
			_, off := gt.Zone()
			_, wantOff := tm.Zone()
			require.Equal(t, wantOff, off)
		}
		// A TEXT column gives the text back.
		var anyTxt any
		require.NoError(t, db.QueryRow("SELECT txt FROM ev WHERE id = ?", i).Scan(&anyTxt))
		require.Equal(t, tm.String(), anyTxt)
	}
	// A time without its monotonic reading is stored without it.
	now := time.Now()
	var stored string
	require.NoError(t, db.QueryRow("SELECT CAST(? AS TEXT)", now.Round(0)).Scan(&stored))
	require.Equal(t, now.Round(0).String(), stored)
	require.NotContains(t, stored, "m=")

	// The texts SQLite's date functions write are read as times too.
	mustExec(t, db, "INSERT INTO ev(id, d, dt, ts) VALUES (100, '2024-02-29', '2024-02-29 13:14:15', '2024-02-29T13:14:15.5Z')")
	var d, dt, ts time.Time
	require.NoError(t, db.QueryRow("SELECT d, dt, ts FROM ev WHERE id = 100").Scan(&d, &dt, &ts))
	require.Equal(t, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), d)
	require.Equal(t, time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC), dt)
	require.Equal(t, time.Date(2024, 2, 29, 13, 14, 15, 5e8, time.UTC), ts)

	// A text that is no time stays a string.
	mustExec(t, db, "INSERT INTO ev(id, d) VALUES (101, 'soon')")
	var soon any
	require.NoError(t, db.QueryRow("SELECT d FROM ev WHERE id = 101").Scan(&soon))
	require.Equal(t, "soon", soon)
}

func TestColumnTypes(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE t(i integer NOT NULL, r DOUBLE, s varchar(10), b BLOB, n NUMERIC, d DATETIME, v)",
		"INSERT INTO t VALUES (1, 2, 3, x'04', 5, '2020-01-01', NULL)")
	rows, err := db.Query("SELECT i, r, s, b, n, d, v, i + 1 AS e, (SELECT d FROM t) AS sd FROM t")
	require.NoError(t, err)
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	require.NoError(t, err)
	want := []struct {
		name, db string
		scan     reflect.Type
	}{
		{"i", "INTEGER", reflect.TypeOf(int64(0))},
		{"r", "DOUBLE", reflect.TypeOf(float64(0))},
		{"s", "VARCHAR(10)", reflect.TypeOf("")},
		{"b", "BLOB", reflect.TypeOf([]byte(nil))},
		{"n", "NUMERIC", reflect.TypeOf((*any)(nil)).Elem()},
		{"d", "DATETIME", reflect.TypeOf(time.Time{})},
		{"v", "", reflect.TypeOf((*any)(nil)).Elem()},
		{"e", "", reflect.TypeOf((*any)(nil)).Elem()},
		// A scalar subquery has its column's declared type, as in SQLite.
		{"sd", "DATETIME", reflect.TypeOf(time.Time{})},
	}
	require.Len(t, cts, len(want))
	for i, w := range want {
		require.Equal(t, w.name, cts[i].Name())
		require.Equal(t, w.db, cts[i].DatabaseTypeName(), "column %s", w.name)
		require.Equal(t, w.scan, cts[i].ScanType(), "column %s", w.name)
		nullable, ok := cts[i].Nullable()
		require.False(t, ok && !nullable && w.name != "i", "column %s", w.name)
	}
	// Scanning into the scan types works.
	require.True(t, rows.Next())
	dest := make([]any, len(cts))
	for i, ct := range cts {
		dest[i] = reflect.New(ct.ScanType()).Interface()
	}
	require.NoError(t, rows.Scan(dest...))
	require.Equal(t, int64(1), *dest[0].(*int64))
	require.Equal(t, 2.0, *dest[1].(*float64))
	require.Equal(t, "3", *dest[2].(*string))
	require.Equal(t, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), *dest[5].(*time.Time))
	require.Equal(t, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), *dest[8].(*time.Time))
}

// TestDeclaredTypeAsWritten: a column's declared type is its text as written, as SQLite keeps it;
// only a column declared exactly INTEGER PRIMARY KEY is the rowid.
func TestDeclaredTypeAsWritten(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, "CREATE TABLE a(id INTEGER PRIMARY KEY, v)", "CREATE TABLE b(id INTEGER(10) PRIMARY KEY, v)")
	_, err := db.Exec("INSERT INTO a VALUES ('x', 1)")
	require.ErrorContains(t, err, "datatype mismatch")
	mustExec(t, db, "INSERT INTO b VALUES ('x', 1)", "INSERT INTO b VALUES (7, 2)")
	var id any
	var rowid int64
	require.NoError(t, db.QueryRow("SELECT id, rowid FROM b WHERE v = 2").Scan(&id, &rowid))
	require.Equal(t, int64(7), id)
	require.Equal(t, int64(2), rowid, "INTEGER(10) PRIMARY KEY is no alias of the rowid")
	_, err = db.Exec("INSERT INTO b VALUES ('x', 3)")
	require.ErrorContains(t, err, "UNIQUE constraint failed: b.id")
}

package engine

// Tests of the date and time functions that SQLite cannot check for us (difftest/testdata/
// features/datetime.sql compares the rest with SQLite): 'now' held for a statement, and
// 'localtime' and 'utc' in given zones rather than the machine's.

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the machine has

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
)

// fakeClock makes the date functions read a clock that starts at start and moves on by step
// at every reading, until the test ends.
func fakeClock(t *testing.T, start time.Time, step time.Duration) *atomic.Int64 {
	var reads atomic.Int64
	old := clock
	clock = func() time.Time {
		n := reads.Add(1) - 1
		return start.Add(time.Duration(n) * step)
	}
	t.Cleanup(func() { clock = old })
	return &reads
}

// fakeZone makes 'localtime' and 'utc' use zone until the test ends.
func fakeZone(t *testing.T, name string) {
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	old := localZone
	localZone = func() *time.Location { return loc }
	t.Cleanup(func() { localZone = old })
}

func texts(rows [][]value.Value) []string {
	var out []string
	for _, r := range rows {
		for _, v := range r {
			out = append(out, string(v.AppendText(nil)))
		}
	}
	return out
}

// TestDateNowOncePerStatement: every row and call of one statement sees one time, read once;
// the next statement (or the next run of a prepared one) reads the clock again.
func TestDateNowOncePerStatement(t *testing.T) {
	s := newTestSession(t)
	start := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	reads := fakeClock(t, start, 1500*time.Millisecond)
	mustExec(t, s, `CREATE TABLE ev(id INTEGER PRIMARY KEY, n INTEGER,
		at TEXT DEFAULT CURRENT_TIMESTAMP, x TEXT DEFAULT (datetime('now', 'subsec')))`)
	mustExec(t, s, `INSERT INTO ev(n) VALUES (1), (2), (3)`)
	require.Equal(t, int64(1), reads.Load(), "one reading for the whole INSERT")
	for range 5 {
		mustExec(t, s, `INSERT INTO ev(n, x) SELECT n + 10, strftime('%Y-%m-%d %H:%M:%f', 'now') FROM ev`)
	}
	require.Equal(t, int64(6), reads.Load())
	require.Equal(t, []string{"96", "6", "6"},
		texts(query(t, s, `SELECT count(*), count(DISTINCT at), count(DISTINCT x) FROM ev`)))
	require.Equal(t, []string{"2024-07-01 12:00:00", "2024-07-01 12:00:00.000"},
		texts(query(t, s, `SELECT at, x FROM ev WHERE n = 1`)))
	require.Equal(t, []string{"2024-07-01 12:00:01", "2024-07-01 12:00:01.500"},
		texts(query(t, s, `SELECT at, x FROM ev WHERE n = 11 ORDER BY id LIMIT 1`)))

	// A query: one time for all its rows and calls, read at the first call.
	before := reads.Load()
	got := texts(query(t, s, `SELECT DISTINCT datetime('now', 'subsec') || ' ' || CURRENT_TIME || ' ' ||
		julianday() || ' ' || unixepoch('now', 'subsec') FROM ev`))
	require.Len(t, got, 1)
	require.Equal(t, before+1, reads.Load())
	require.Equal(t, "2024-07-01 12:00:09.000 12:00:09 2460493.0001041666 1719835209.0", got[0])

	// A prepared statement reads the clock at each run.
	st, err := s.Prepare(`SELECT datetime('now', 'subsec')`)
	require.NoError(t, err)
	var runs []string
	for range 2 {
		rows, err := st.Query(context.Background(), nil)
		require.NoError(t, err)
		require.True(t, rows.Next())
		runs = append(runs, string(rows.Row()[0].AppendText(nil)))
		require.NoError(t, rows.Close())
	}
	require.Equal(t, []string{"2024-07-01 12:00:10.500", "2024-07-01 12:00:12.000"}, runs)
}

// TestDateLocaltime checks 'localtime' and 'utc' against zones with summer time.
func TestDateLocaltime(t *testing.T) {
	s := newTestSession(t)
	fakeZone(t, "America/New_York")
	fakeClock(t, time.Date(2024, 7, 1, 2, 0, 0, 0, time.UTC), 0)
	for _, c := range []struct{ sql, want string }{
		{`SELECT datetime('2024-07-01 12:00:00', 'localtime')`, "2024-07-01 08:00:00"}, // EDT
		{`SELECT datetime('2024-01-01 12:00:00', 'localtime')`, "2024-01-01 07:00:00"}, // EST
		{`SELECT datetime('2024-07-01 08:00:00', 'utc')`, "2024-07-01 12:00:00"},
		{`SELECT datetime('2024-01-01 07:00:00', 'utc')`, "2024-01-01 12:00:00"},
		{`SELECT datetime('2024-07-01 12:00:00', 'localtime', 'localtime')`, "2024-07-01 08:00:00"},
		{`SELECT datetime('2024-07-01 12:00:00', 'localtime', 'utc')`, "2024-07-01 12:00:00"},
		{`SELECT datetime('2024-07-01 12:00:00Z', 'utc')`, "2024-07-01 12:00:00"},      // already UTC
		{`SELECT datetime('2024-07-01 12:00:00+02:00', 'utc')`, "2024-07-01 10:00:00"}, // idem
		{`SELECT datetime('now', 'localtime')`, "2024-06-30 22:00:00"},                 // now is UTC
		{`SELECT datetime('now', 'utc')`, "2024-07-01 02:00:00"},                       // so utc does nothing
		{`SELECT date('now', 'localtime', 'start of day', 'utc')`, "2024-06-30"},       // 04:00 UTC
		{`SELECT datetime('now', 'localtime', 'start of day', 'utc')`, "2024-06-30 04:00:00"},
		{`SELECT strftime('%H:%M', '2024-03-10 07:30', 'localtime')`, "03:30"}, // summer time begins
		{`SELECT strftime('%H:%M', '2024-11-03 05:30', 'localtime')`, "01:30"}, // first 01:30 (EDT)
		{`SELECT strftime('%H:%M', '2024-11-03 06:30', 'localtime')`, "01:30"}, // second (EST)
		{`SELECT datetime('2024-03-10 02:30', 'utc')`, "2024-03-10 07:30:00"},  // a local time that does not exist
		{`SELECT datetime('2024-07-01 12:00:00.250', 'localtime', 'subsec')`, "2024-07-01 08:00:00.250"},
		{`SELECT datetime(1719835200, 'unixepoch', 'localtime')`, "2024-07-01 08:00:00"},
		{`SELECT unixepoch('2024-07-01 08:00:00', 'utc')`, "1719835200"},
		// Outside 1970-2037 the year is moved to one of 2000-2003 for the zone's rules, as SQLite does.
		{`SELECT datetime('1850-07-01 12:00:00', 'localtime')`, "1850-07-01 08:00:00"},
		{`SELECT datetime('2100-01-01 12:00:00', 'localtime')`, "2100-01-01 07:00:00"},
		{`SELECT datetime('1850-07-01 08:00:00', 'utc')`, "1850-07-01 12:00:00"},
	} {
		require.Equal(t, []string{c.want}, texts(query(t, s, c.sql)), c.sql)
	}

	fakeZone(t, "Asia/Kolkata") // +05:30, no summer time
	require.Equal(t, []string{"2024-07-01 17:30:00", "2024-07-01 06:30:00"},
		texts(query(t, s, `SELECT datetime('2024-07-01 12:00', 'localtime'), datetime('2024-07-01 12:00', 'utc')`)))
}

// TestDateCheckPure: in a CHECK constraint a date function may not read the clock or the zone
// (SQLite's "non-deterministic use"), but the CURRENT_* keywords may, and so may every call that
// does not.
func TestDateCheckPure(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE a(x CHECK (x < datetime('now')))
		; CREATE TABLE b(x CHECK (datetime(x, '+1 day') IS NOT NULL), CHECK (x <= CURRENT_TIMESTAMP))
		; CREATE TABLE c(x CHECK (strftime('%Y', x) > '1999' OR julianday(x, 'utc') > 0))`)
	_, err := s.Exec(context.Background(), `INSERT INTO a VALUES ('2000-01-01')`, nil)
	require.EqualError(t, err, "non-deterministic use of datetime() in a CHECK constraint")
	mustExec(t, s, `INSERT INTO b VALUES ('2000-01-01')`)
	_, err = s.Exec(context.Background(), `INSERT INTO b VALUES ('now')`, nil)
	require.EqualError(t, err, "non-deterministic use of datetime() in a CHECK constraint")
	mustExec(t, s, `INSERT INTO c VALUES ('2000-01-01')`)
	_, err = s.Exec(context.Background(), `INSERT INTO c VALUES ('1990-01-01')`, nil)
	require.EqualError(t, err, "non-deterministic use of julianday() in a CHECK constraint")
	// Outside CHECK the same calls run.
	require.Len(t, query(t, s, `SELECT datetime('now'), julianday('2000-01-01', 'utc')`), 1)
}

// TestDatePlanAndReopen: a date range on an indexed column is searched through the index, and a
// DEFAULT CURRENT_TIMESTAMP is kept in the schema, so an engine that loads the schema again
// (another process) fills it in.
func TestDatePlanAndReopen(t *testing.T) {
	db, err := cairn.Open(t.Name()+".db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	fakeClock(t, time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC), time.Hour)
	s := New(db).NewSession()
	mustExec(t, s, `CREATE TABLE ev(id INTEGER PRIMARY KEY, note TEXT, at TEXT DEFAULT CURRENT_TIMESTAMP,
		d TEXT DEFAULT CURRENT_DATE); CREATE INDEX ev_at ON ev(at)`)
	require.Equal(t, []string{"SEARCH ev USING INDEX ev_at (at>?)"},
		explainPlan(t, s, `SELECT note FROM ev WHERE at >= datetime('now', '-1 day')`))
	require.Equal(t, []string{"SEARCH ev USING INDEX ev_at (at>? AND at<?)"},
		explainPlan(t, s, `SELECT note FROM ev WHERE at BETWEEN date('2024-06-01') AND date('2024-06-01', '+1 month')`))
	s.Close()

	s2 := New(db).NewSession()
	defer s2.Close()
	mustExec(t, s2, `INSERT INTO ev(note) VALUES ('a')`)
	require.Equal(t, []string{"a", "2024-07-01 12:00:00", "2024-07-01"},
		texts(query(t, s2, `SELECT note, at, d FROM ev WHERE at >= datetime('now', '-1 day')`)))
}

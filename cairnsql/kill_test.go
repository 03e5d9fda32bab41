package cairnsql_test

// Durability through SQL with a real process crash, as the root's crash_process_test.go does for
// the key-value layer: the test binary runs itself as a child (TestSQLKillDashNineChild) that
// writes through database/sql from 8 goroutines (single-row and multi-row autocommit INSERTs,
// transactions of several INSERTs, multi-row UPDATEs) and reports each acknowledged write on its
// stdout, a pipe. The parent kills it with SIGKILL at a random moment, reopens the database
// through the driver and checks that every acknowledged write is there, that no statement or
// transaction is partly visible, and that cairn's Check finds nothing; the next child goes on with
// the same database. go test runs a few rounds (one with -short); more with
//
//	go test -run TestSQLKillDashNine -sqlkill.rounds=100 ./cairnsql

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/killtest"

	"github.com/cairndb/cairn/cairnsql"
)

var (
	sqlKillRounds = flag.Int("sqlkill.rounds", 4, "SIGKILLs of TestSQLKillDashNine (1 with -short)")
	sqlKillSeed   = flag.Uint64("sqlkill.seed", 0, "seed of TestSQLKillDashNine (0: from the clock)")
)

// sqlKillChildEnv carries "path seed firstID" to the child process.
const sqlKillChildEnv = "CAIRNSQL_KILL_CHILD"

// The child's table. A group is what one acknowledgement covers: the rows of one INSERT
// statement, or of every INSERT of one transaction; grp is the group's first id, n its size, pos
// a row's place in it. u counts the UPDATE statements applied to the group (each UPDATE changes
// every row of one group).
const sqlKillSchema = `CREATE TABLE IF NOT EXISTS k(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL,
	pos INTEGER NOT NULL, n INTEGER NOT NULL, u INTEGER NOT NULL DEFAULT 0, v TEXT NOT NULL);
	CREATE UNIQUE INDEX IF NOT EXISTS k_grp ON k(grp, pos)`

// sqlKillValue is the text of row id: the id, then letters derived from it; one row in 25 is 4 to
// 20 KB long.
func sqlKillValue(id int64) string {
	rng := rand.New(rand.NewPCG(uint64(id), 77))
	n := 20 + rng.IntN(120)
	if id%25 == 0 {
		n = 4000 + rng.IntN(16000)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%020d:", id)
	for b.Len() < n {
		b.WriteByte(byte('a' + rng.IntN(26)))
	}
	return b.String()
}

// sqlKillLedger is what the parent learned from the children's reports.
type sqlKillLedger struct {
	groups  map[int64]int64 // acknowledged (or found complete after a kill) group -> size
	updTry  map[int64]int   // UPDATEs attempted per group
	updAck  map[int64]int   // UPDATEs acknowledged per group
	maxID   int64           // the highest id reported or found
	acks    int             // acknowledgements received, all rounds
	updates int
}

func TestSQLKillDashNine(t *testing.T) {
	rounds := *sqlKillRounds
	if testing.Short() {
		rounds = 1
	}
	seed := *sqlKillSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay the workload with -sqlkill.seed=%d; kill times differ)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x51))
	path := filepath.Join(t.TempDir(), "kill.db")
	l := &sqlKillLedger{groups: map[int64]int64{}, updTry: map[int64]int{}, updAck: map[int64]int{}}
	unreported, rows := 0, 0
	for round := range rounds {
		runSQLKillChild(t, path, seed+uint64(round), l.maxID+1, rng, l)
		u, r := verifySQLKilled(t, path, l, round)
		unreported += u
		rows = r
	}
	t.Logf("%d SIGKILLs: %d acknowledged writes (%d groups of INSERTs, %d UPDATEs), %d rows at the end, "+
		"%d unreported groups found: 0 acknowledged lost, 0 partial", rounds, l.acks, len(l.groups), l.updates, rows, unreported)
}

// runSQLKillChild runs one child and kills it 0-500 ms after its first acknowledgement, while
// writes flow (one round in eight 0-100 ms after the start: during Open and recovery, or the
// first writes).
func runSQLKillChild(t *testing.T, path string, seed uint64, first int64, rng *rand.Rand, l *sqlKillLedger) {
	t.Helper()
	killtest.Run(t, rng, killtest.Child{
		Test:       "TestSQLKillDashNineChild",
		Env:        fmt.Sprintf("%s=%s %d %d", sqlKillChildEnv, path, seed, first),
		EarlyOneIn: 8, EarlyMax: 100 * time.Millisecond, LateMax: 500 * time.Millisecond,
		Deadline: 60 * time.Second,
	}, func(line string) { l.record(t, line) })
}

// record parses one report of the child: "ack GRP N" (a group of N rows inserted), "try-upd GRP"
// (an UPDATE of the group is about to run), "upd GRP" (it returned).
func (l *sqlKillLedger) record(t *testing.T, line string) {
	f := strings.Fields(line)
	require.True(t, len(f) >= 2, "bad report %q", line)
	grp, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err, "bad report %q", line)
	switch {
	case f[0] == "ack" && len(f) == 3:
		n, err := strconv.ParseInt(f[2], 10, 64)
		require.NoError(t, err, "bad report %q", line)
		l.groups[grp] = n
		l.maxID = max(l.maxID, grp+n-1)
		l.acks++
	case f[0] == "try-upd":
		l.updTry[grp]++
	case f[0] == "upd":
		l.updAck[grp]++
		l.acks++
		l.updates++
	default:
		require.Failf(t, "bad report", "%q", line)
	}
}

// verifySQLKilled reopens path through the driver and checks it against l: every row has the
// value of its id; every group is complete (n rows) or absent, with one u for all its rows;
// every acknowledged group is there, its u at least its acknowledged UPDATEs and at most its
// attempted ones; Check is clean. It returns the number of complete groups never acknowledged
// (durable, but the child died before reporting them) and the number of rows.
func verifySQLKilled(t *testing.T, path string, l *sqlKillLedger, round int) (int, int) {
	t.Helper()
	db, err := sql.Open("cairn", path)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	kv, err := cairnsql.DB(db)
	require.NoError(t, err, "round %d: reopen after SIGKILL", round)
	require.NoError(t, kv.Check(), "round %d", round)
	type group struct{ n, rows, u int64 }
	groups := map[int64]*group{}
	rows, err := db.Query("SELECT id, grp, pos, n, u, v FROM k ORDER BY id")
	if err != nil && strings.Contains(err.Error(), "no such table") {
		require.Empty(t, l.groups, "round %d: the table is gone", round)
		return 0, 0
	}
	require.NoError(t, err)
	nrows := 0
	for rows.Next() {
		var id, grp, pos, n, u int64
		var v string
		require.NoError(t, rows.Scan(&id, &grp, &pos, &n, &u, &v))
		require.Equal(t, sqlKillValue(id), v, "round %d: row %d: wrong value", round, id)
		require.Equal(t, id, grp+pos, "round %d: row %d: wrong place in its group", round, id)
		g := groups[grp]
		if g == nil {
			g = &group{n: n, u: u}
			groups[grp] = g
		}
		require.Equal(t, g.n, n, "round %d: group %d: sizes differ", round, grp)
		require.Equal(t, g.u, u, "round %d: group %d: an UPDATE applied to some rows only", round, grp)
		g.rows++
		nrows++
		l.maxID = max(l.maxID, id)
	}
	require.NoError(t, rows.Err())
	unreported := 0
	for grp, g := range groups {
		require.Equal(t, g.n, g.rows, "round %d: group %d partly visible (%d of %d rows)", round, grp, g.rows, g.n)
		if _, ok := l.groups[grp]; !ok {
			unreported++
			l.groups[grp] = g.n // settled: it must stay from now on
		}
		require.GreaterOrEqual(t, g.u, int64(l.updAck[grp]), "round %d: group %d: acknowledged UPDATE lost", round, grp)
		require.LessOrEqual(t, g.u, int64(l.updTry[grp]), "round %d: group %d: UPDATE applied that never ran", round, grp)
		l.updTry[grp] = int(g.u) // an UPDATE that ran but was not reported is settled too
		l.updAck[grp] = int(g.u)
	}
	for grp, n := range l.groups {
		g := groups[grp]
		require.NotNil(t, g, "round %d: acknowledged group %d (%d rows) lost", round, grp, n)
		require.Equal(t, n, g.n, "round %d: group %d", round, grp)
	}
	// The index agrees with the table.
	var viaIndex int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM k WHERE grp >= 0").Scan(&viaIndex))
	require.Equal(t, nrows, viaIndex, "round %d", round)
	return unreported, nrows
}

// TestSQLKillDashNineChild is the child process of TestSQLKillDashNine; run alone, it skips.
func TestSQLKillDashNineChild(t *testing.T) {
	spec := os.Getenv(sqlKillChildEnv)
	if spec == "" {
		t.Skip("the child process of TestSQLKillDashNine")
	}
	var path string
	var seed uint64
	var first int64
	_, err := fmt.Sscanf(spec, "%s %d %d", &path, &seed, &first)
	require.NoError(t, err)
	go func() { // the parent went away: stop
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	time.AfterFunc(2*time.Minute, func() { os.Exit(4) })
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	db, err := sql.Open("cairn", path+"?_sync=full")
	if err != nil {
		fail(err)
	}
	db.SetMaxOpenConns(8)
	if _, err := db.Exec(sqlKillSchema); err != nil {
		fail(err)
	}
	var out sync.Mutex
	report := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...) // one write(2) on the pipe
	}
	var nextID atomic.Int64
	nextID.Store(first)
	acked := &sqlKillGroups{}
	for w := range 8 {
		go sqlKillWriter(db, rand.New(rand.NewPCG(seed, uint64(w))), w, &nextID, acked, report, fail)
	}
	select {} // until killed
}

// sqlKillGroups holds the groups a child inserted, for its UPDATEs.
type sqlKillGroups struct {
	mu  sync.Mutex
	ids []int64
}

func (g *sqlKillGroups) add(id int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ids = append(g.ids, id)
}

func (g *sqlKillGroups) pick(rng *rand.Rand) (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.ids) == 0 {
		return 0, false
	}
	return g.ids[rng.IntN(len(g.ids))], true
}

// sqlKillInsert returns a multi-row INSERT of rows [from, from+count) of the group grp of n rows,
// and its arguments.
func sqlKillInsert(grp, n, from, count int64) (string, []any) {
	var q strings.Builder
	q.WriteString("INSERT INTO k(id, grp, pos, n, v) VALUES ")
	var args []any
	for id := from; id < from+count; id++ {
		if id > from {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, id, grp, id-grp, n, sqlKillValue(id))
	}
	return q.String(), args
}

// sqlKillWriter writes forever; any error ends the process. Each report is written after the
// call returned (an UPDATE is also announced before it starts).
func sqlKillWriter(db *sql.DB, rng *rand.Rand, w int, nextID *atomic.Int64, acked *sqlKillGroups,
	report func(string, ...any), fail func(error)) {
	ctx := context.Background()
	for {
		switch k := rng.IntN(100); {
		case k < 2 && w == 0:
			kv, err := cairnsql.DB(db)
			if err == nil {
				err = kv.Checkpoint(ctx)
			}
			if err != nil {
				fail(err)
			}
		case k < 40: // one row, autocommit
			id := nextID.Add(1) - 1
			q, args := sqlKillInsert(id, 1, id, 1)
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				fail(err)
			}
			report("ack %d 1", id)
			acked.add(id)
		case k < 65: // one multi-row INSERT, autocommit
			n := int64(2 + rng.IntN(30))
			grp := nextID.Add(n) - n
			q, args := sqlKillInsert(grp, n, grp, n)
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				fail(err)
			}
			report("ack %d %d", grp, n)
			acked.add(grp)
		case k < 85: // a transaction of several INSERTs
			n := int64(2 + rng.IntN(40))
			grp := nextID.Add(n) - n
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				fail(err)
			}
			for from := grp; from < grp+n; {
				count := min(int64(1+rng.IntN(8)), grp+n-from)
				q, args := sqlKillInsert(grp, n, from, count)
				if _, err := tx.ExecContext(ctx, q, args...); err != nil {
					fail(err)
				}
				from += count
			}
			if err := tx.Commit(); err != nil {
				fail(err)
			}
			report("ack %d %d", grp, n)
			acked.add(grp)
		default: // an UPDATE of every row of one group
			grp, ok := acked.pick(rng)
			if !ok {
				continue
			}
			report("try-upd %d", grp)
			if _, err := db.ExecContext(ctx, "UPDATE k SET u = u + 1 WHERE grp = ?", grp); err != nil {
				fail(err)
			}
			report("upd %d", grp)
		}
	}
}

package difftest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	_ "github.com/cairndb/cairn/cairnsql"
)

var (
	queriesFlag = flag.Int("difftest.queries", 1500, "number of queries TestDifferential compares")
	roundFlag   = flag.Int("difftest.round", -1, "run only this round of -seed (a failure report names it)")
	maxFailFlag = flag.Int("difftest.maxfail", 10, "TestDifferential stops after this many mismatches")
	verboseFlag = flag.Bool("difftest.v", false, "log every statement TestDifferential runs")
	reduceFlag  = flag.Bool("difftest.reduce", true, "reduce a mismatch before reporting it")
)

// statementsPerRound is how many queries and data changes a round runs after its setup.
const statementsPerRound = 60

// TestDifferential runs random schemas, rows, queries and data changes (grammar_test.go) on cairn
// (sql.Open("cairn", ":memory:")) and on SQLite (modernc.org/sqlite) side by side and compares
// every outcome (compare_test.go): query results, errors, the rows a change affected, and the
// changed table's contents afterwards.
//
// The test runs in rounds: each a fresh pair of databases, a schema, rows, then queries and data
// changes. Round r of seed s is generated from a random source seeded with (s, r) alone, so
// `-seed s -difftest.round r` runs it again. A mismatch reports the statements that built the
// databases (the schema and the data changes; queries change nothing) and the statement whose
// outcomes differ. -difftest.queries sets the length of the run (1,500 queries by default, a few
// seconds; 100000 for a long run).
func TestDifferential(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-seed %d to repeat)", seed, seed)
	st := &runStats{errs: map[string]int{}}
	start := time.Now()
	if *roundFlag >= 0 {
		runRound(t, seed, *roundFlag, st)
	} else {
		for round := 0; st.queries < *queriesFlag && st.failures < *maxFailFlag; round++ {
			runRound(t, seed, round, st)
		}
	}
	t.Logf("compared %d queries (%d with rows, %d failing on both engines) and %d data changes (%d failing on both) in %d rounds (%d ended early at a known difference), %v",
		st.queries, st.withRows, st.queryErrs, st.changes, st.changeErrs, st.rounds, st.known, time.Since(start).Round(time.Millisecond))
	t.Logf("time in cairn %v, in SQLite %v", st.cairnTime.Round(time.Millisecond), st.sqliteTime.Round(time.Millisecond))
	if testing.Verbose() {
		for _, s := range st.slowest {
			t.Logf("slow in cairn: %v (SQLite %v), round %d: %.400s", s.cairn.Round(time.Millisecond), s.sqlite.Round(time.Millisecond), s.round, s.sql)
		}
		var msgs []string
		for m, n := range st.errs {
			msgs = append(msgs, fmt.Sprintf("%6d %s", n, m))
		}
		sort.Sort(sort.Reverse(sort.StringSlice(msgs)))
		if len(msgs) > 12 {
			msgs = msgs[:12]
		}
		t.Logf("most frequent errors of both engines (SQLite's words):\n%s", strings.Join(msgs, "\n"))
	}
	if *roundFlag < 0 && st.failures == 0 {
		require.GreaterOrEqual(t, st.queries, min(*queriesFlag, 1000), "queries compared")
	}
}

// runStats counts what a run compared.
type runStats struct {
	rounds, queries, withRows, queryErrs, changes, changeErrs, failures int
	known                                                               int            // rounds ended at a known difference
	errs                                                                map[string]int // SQLite's error messages
	cairnTime, sqliteTime                                               time.Duration
	slowest                                                             []timed // cairn's slowest statements
}

// timed is a statement and the time each engine took.
type timed struct {
	sql           string
	round         int
	cairn, sqlite time.Duration
}

// time runs f on both engines, adding up their times and keeping cairn's slowest statements.
func (st *runStats) time(sql string, round int, cairn, sqlite func()) {
	t0 := time.Now()
	cairn()
	t1 := time.Now()
	sqlite()
	t2 := time.Now()
	st.cairnTime += t1.Sub(t0)
	st.sqliteTime += t2.Sub(t1)
	st.slowest = append(st.slowest, timed{sql, round, t1.Sub(t0), t2.Sub(t1)})
	sort.Slice(st.slowest, func(i, j int) bool { return st.slowest[i].cairn > st.slowest[j].cairn })
	if len(st.slowest) > 5 {
		st.slowest = st.slowest[:5]
	}
}

// round is one round: the two databases and the statements that built them.
type round struct {
	t      *testing.T
	header string
	cairn  *sql.DB
	sqlite *sql.DB
	script []string // the statements that changed the databases, for a report
	st     *runStats
	n      int // the round's number
}

// openDB opens a private in-memory database of driver (t nil: panic on an error).
func openDB(t *testing.T, driver string) *sql.DB {
	db, err := sql.Open(driver, ":memory:")
	if t == nil {
		if err != nil {
			panic(err)
		}
	} else {
		require.NoError(t, err)
	}
	db.SetMaxOpenConns(1) // one connection: one database, for both drivers
	return db
}

// runRound runs round number n of seed.
func runRound(t *testing.T, seed uint64, n int, st *runStats) {
	g := newGen(rand.New(rand.NewPCG(seed, uint64(n))))
	r := &round{t: t, header: fmt.Sprintf("seed %d round %d (-seed %d -difftest.round %d)", seed, n, seed, n),
		cairn: openDB(t, "cairn"), sqlite: openDB(t, "sqlite"), st: st, n: n}
	st.rounds++
	defer func() {
		r.cairn.Close()
		r.sqlite.Close()
	}()
	for _, s := range g.schema() {
		if !r.ddl(s) {
			return
		}
	}
	for _, c := range g.rows() {
		if !r.change(c) {
			return
		}
	}
	for i := 0; i < statementsPerRound && st.failures < *maxFailFlag; i++ {
		if g.oneIn(5) {
			if !r.change(g.change()) {
				return
			}
			continue
		}
		r.query(g.query())
	}
}

func (r *round) log(sql string) {
	if *verboseFlag {
		r.t.Log(sql)
	}
}

// fail reports a mismatch of statement sql (of case fc, reduced first).
func (r *round) fail(sql, diff string, got, want outcome, fc failCase) {
	r.st.failures++
	reduced := ""
	if *reduceFlag && fc.stmt != "" {
		reduced = "\n" + reduce(fc).report()
	}
	r.t.Errorf("%s: cairn and SQLite differ: %s\nstatements so far:\n  %s;\nstatement:\n  %s;\ncairn:  %s\nSQLite: %s%s",
		r.header, diff, strings.Join(r.script, ";\n  "), sql, describe(got), describe(want), reduced)
}

func statementContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}

// ddl runs a CREATE statement on both; false if they differ.
func (r *round) ddl(sql string) bool {
	r.log(sql)
	ctx, cancel := statementContext()
	defer cancel()
	got, want := runExec(ctx, r.cairn, sql), runExec(ctx, r.sqlite, sql)
	if d := compareErrors(got.err, want.err, false); d != "" {
		r.fail(sql, d, got, want, failCase{})
		return false
	}
	r.script = append(r.script, sql)
	return want.err == nil
}

// query runs a query on both and compares the results.
func (r *round) query(q query) {
	r.log(q.sql)
	ctx, cancel := statementContext()
	defer cancel()
	var got, want outcome
	r.st.time(q.sql, r.n, func() { got = runQuery(ctx, r.cairn, q.sql) }, func() { want = runQuery(ctx, r.sqlite, q.sql) })
	r.st.queries++
	switch {
	case want.err != nil:
		r.st.queryErrs++
		r.st.errs[sqliteMessage.FindStringSubmatch(want.err.Error())[1]]++
	case len(want.rows) > 0:
		r.st.withRows++
	}
	if d := compareQuery(q, got, want); d != "" {
		r.fail(q.sql, d, got, want, failCase{setup: r.script, stmt: q.sql, q: q})
	}
}

// change runs a data change on both and compares its outcome and the table's contents after;
// false if they differ (the databases are no longer the same).
func (r *round) change(c change) bool {
	r.log(c.sql)
	ctx, cancel := statementContext()
	defer cancel()
	var got, want outcome
	r.st.time(c.sql, r.n, func() { got = runExec(ctx, r.cairn, c.sql) }, func() { want = runExec(ctx, r.sqlite, c.sql) })
	r.st.changes++
	if want.err != nil {
		r.st.changeErrs++
		r.st.errs[sqliteMessage.FindStringSubmatch(want.err.Error())[1]]++
	}
	fc := failCase{setup: append([]string(nil), r.script...), stmt: c.sql, c: c}
	if got.err != nil && strings.Contains(got.err.Error(), "the largest rowid is taken") {
		// A known difference: SQLite picks a random free rowid when the largest is taken
		// (autoinc.html); cairn refuses the row. The tables differ from here on.
		r.st.known++
		return false
	}
	if d := compareChange(c, got, want); d != "" {
		r.fail(c.sql, d, got, want, fc)
		return false
	}
	r.script = append(r.script, c.sql)
	q := c.table.contents()
	got, want = runQuery(ctx, r.cairn, q), runQuery(ctx, r.sqlite, q)
	if d := compareQuery(query{sql: q}, got, want); d != "" {
		r.fail(q, "after the change: "+d, got, want, fc)
		return false
	}
	return true
}

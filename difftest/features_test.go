package difftest

// Feature scripts: hand-written SQL run on cairn and on SQLite, statement by statement, where
// every outcome must agree. A script is a file in testdata/features; its statements are
// separated by blank lines (so a statement may span lines and hold semicolons, as a CREATE
// TRIGGER body does). Lines starting with "--" are comments; a comment line right above a
// statement may give a directive:
//
//	-- query            rows compared as a list, in order (the default for SELECT, VALUES,
//	                    WITH ... SELECT, PRAGMA, EXPLAIN and statements with RETURNING; of
//	                    EXPLAIN QUERY PLAN, only the detail column)
//	-- unordered        rows compared as a multiset
//	-- exec             an Exec: error, rows affected and last insert rowid compared (the default
//	                    for everything else)
//
// Every error must be an error on both engines with the same text: SQLite's message without
// modernc.org/sqlite's additions (its result-code name before, the code number after), cairn's
// without the position it puts before a syntax error. Values
// must be equal in storage class and value, a REAL bit for bit. Both engines run the script on
// one connection each (per-connection state such as last_insert_rowid and PRAGMA foreign_keys
// carries from statement to statement, as in one program).

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scriptStatement is one statement of a feature script.
type scriptStatement struct {
	line      int // of its first line, 1-based
	sql       string
	query     bool
	unordered bool
}

// parseScript splits a feature script into statements.
func parseScript(text string) ([]scriptStatement, error) {
	var out []scriptStatement
	var cur []string
	var directive string
	start := 0
	flush := func() error {
		if len(cur) == 0 {
			directive = ""
			return nil
		}
		st := scriptStatement{line: start, sql: strings.Join(cur, "\n")}
		switch directive {
		case "":
			st.query = isQuery(st.sql)
		case "query":
			st.query = true
		case "unordered":
			st.query, st.unordered = true, true
		case "exec":
		default:
			return fmt.Errorf("line %d: unknown directive %q", start, directive)
		}
		out = append(out, st)
		cur, directive = nil, ""
		return nil
	}
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(trimmed, "--"):
			if len(cur) == 0 {
				directive = strings.TrimSpace(strings.TrimPrefix(trimmed, "--"))
				if strings.ContainsAny(directive, " :") || len(directive) > 9 {
					directive = "" // a prose comment, not a directive
				}
			}
		default:
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, line)
		}
	}
	return out, flush()
}

var (
	queryStart  = regexp.MustCompile(`(?is)^\s*(SELECT|VALUES|PRAGMA|EXPLAIN)\b`)
	withStart   = regexp.MustCompile(`(?is)^\s*WITH\b`)
	writeWord   = regexp.MustCompile(`(?is)\b(INSERT|UPDATE|DELETE|REPLACE)\b`)
	returningKw = regexp.MustCompile(`(?is)\bRETURNING\b`)
)

// isQuery reports whether a statement returns rows by default.
func isQuery(s string) bool {
	switch {
	case queryStart.MatchString(s), returningKw.MatchString(s):
		return true
	case withStart.MatchString(s):
		return !writeWord.MatchString(s)
	}
	return false
}

// moderncMessage strips modernc.org/sqlite's additions from an error: the text of the result
// code before SQLite's message ("SQL logic error: ", "constraint failed: ", ...) and the code
// number after it (" (1)").
var moderncMessage = regexp.MustCompile(`^(?:SQL logic error|constraint failed|datatype mismatch|` +
	`string or blob too big|abort due to constraint violation|unknown error|out of memory|` +
	`too many levels of trigger recursion|interrupted|query aborted|generic error): (.*?)(?: \(\d+\))?$`)

// sqliteText returns SQLite's own message for an error of modernc.org/sqlite.
func sqliteText(err error) string {
	msg := err.Error()
	if m := moderncMessage.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return regexp.MustCompile(` \(\d+\)$`).ReplaceAllString(msg, "")
}

// cairnPosition is the LINE:COL: that cairn puts before a syntax error, which SQLite's message
// does not have.
var cairnPosition = regexp.MustCompile(`^\d+:\d+: `)

// compareScriptOutcomes returns "" if the outcomes of st agree, else what differs.
func compareScriptOutcomes(st scriptStatement, got, want outcome) string {
	if d := compareErrors(got.err, want.err, false); d != "" {
		return d
	}
	if want.err != nil {
		if g, w := cairnPosition.ReplaceAllString(got.err.Error(), ""), sqliteText(want.err); g != w {
			return fmt.Sprintf("error %q, SQLite %q", g, w)
		}
		return ""
	}
	if !st.query {
		if got.affected != want.affected {
			return fmt.Sprintf("%d rows affected, SQLite %d", got.affected, want.affected)
		}
		if got.lastID != want.lastID {
			return fmt.Sprintf("last insert rowid %d, SQLite %d", got.lastID, want.lastID)
		}
		return ""
	}
	if got.cols != want.cols {
		return fmt.Sprintf("%d columns, SQLite %d", got.cols, want.cols)
	}
	if st.unordered {
		return compareMultisets(got.rows, want.rows, nil)
	}
	for i := range min(len(got.rows), len(want.rows)) {
		if g, w := rowKey(got.rows[i], nil), rowKey(want.rows[i], nil); g != w {
			return fmt.Sprintf("row %d is %s, SQLite's %s", i+1, g, w)
		}
	}
	if len(got.rows) != len(want.rows) {
		return fmt.Sprintf("%d rows, SQLite %d", len(got.rows), len(want.rows))
	}
	return ""
}

// runScript runs one feature script on both engines and reports every statement whose
// outcomes differ.
func runScript(t *testing.T, path string) {
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	stmts, err := parseScript(string(text))
	require.NoError(t, err)
	require.NotEmpty(t, stmts, "a script without statements")
	cairn, sqlite := openDB(t, "cairn"), openDB(t, "sqlite")
	defer cairn.Close()
	defer sqlite.Close()
	for _, st := range stmts {
		got, want := runScriptStatement(cairn, st), runScriptStatement(sqlite, st)
		if explainQueryPlan.MatchString(st.sql) {
			got, want = planDetails(got), planDetails(want)
		}
		if d := compareScriptOutcomes(st, got, want); d != "" {
			t.Errorf("%s:%d: %s\n%s\n    cairn:  %s\n    SQLite: %s",
				filepath.Base(path), st.line, d, st.sql, describe(got), describe(want))
		}
	}
}

// explainQueryPlan matches EXPLAIN QUERY PLAN, whose rows are compared by their detail column
// alone (planDetails).
var explainQueryPlan = regexp.MustCompile(`(?is)^\s*EXPLAIN\s+QUERY\s+PLAN\b`)

// planDetails keeps the detail column of EXPLAIN QUERY PLAN rows: their id and parent are
// SQLite's bytecode addresses, which cairn has no equivalent of.
func planDetails(o outcome) outcome {
	if o.err != nil || o.cols < 1 {
		return o
	}
	out := outcome{cols: 1, affected: o.affected, lastID: o.lastID}
	for _, r := range o.rows {
		out.rows = append(out.rows, []any{r[len(r)-1]})
	}
	return out
}

func runScriptStatement(db *sql.DB, st scriptStatement) outcome {
	ctx, cancel := statementContext()
	defer cancel()
	if st.query {
		return runQuery(ctx, db, st.sql)
	}
	return runExec(ctx, db, st.sql)
}

// TestFeatures runs every script of testdata/features (features_test.go's header says how).
func TestFeatures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "features", "*.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".sql"), func(t *testing.T) { runScript(t, p) })
	}
}

// TestFeatureScriptsCanFail checks the comparison itself: a script whose statements differ
// between the engines must be reported, one whose statements agree must not.
func TestFeatureScriptsCanFail(t *testing.T) {
	stmts, err := parseScript("-- exec\nCREATE TABLE t(a)\n\nINSERT INTO t VALUES (1)\n\n" +
		"-- unordered\nSELECT a FROM t\n\nSELECT a\n  FROM t -- one statement\n")
	require.NoError(t, err)
	require.Len(t, stmts, 4)
	require.False(t, stmts[0].query)
	require.False(t, stmts[1].query)
	require.True(t, stmts[2].query && stmts[2].unordered)
	require.True(t, stmts[3].query && !stmts[3].unordered)
	require.Equal(t, 9, stmts[3].line)

	rows := func(vals ...any) outcome {
		o := outcome{cols: 1}
		for _, v := range vals {
			o.rows = append(o.rows, []any{v})
		}
		return o
	}
	q := scriptStatement{query: true}
	require.Empty(t, compareScriptOutcomes(q, rows(int64(1), "a"), rows(int64(1), "a")))
	require.NotEmpty(t, compareScriptOutcomes(q, rows("a", int64(1)), rows(int64(1), "a")), "order")
	require.NotEmpty(t, compareScriptOutcomes(q, rows(1.0), rows(int64(1))), "storage class")
	require.NotEmpty(t, compareScriptOutcomes(q, rows(int64(1)), rows(int64(1), int64(1))), "row count")
	q.unordered = true
	require.Empty(t, compareScriptOutcomes(q, rows("a", int64(1)), rows(int64(1), "a")))
	e := scriptStatement{}
	require.NotEmpty(t, compareScriptOutcomes(e, outcome{affected: 1}, outcome{affected: 2}))
	require.NotEmpty(t, compareScriptOutcomes(e, outcome{lastID: 1}, outcome{lastID: 2}))
	require.NotEmpty(t, compareScriptOutcomes(e, outcome{err: fmt.Errorf("no such table: u")},
		outcome{err: fmt.Errorf("SQL logic error: no such table: t (1)")}), "error text")
	require.Empty(t, compareScriptOutcomes(e, outcome{err: fmt.Errorf(`1:8: near "FROM": syntax error`)},
		outcome{err: fmt.Errorf(`SQL logic error: near "FROM": syntax error (1)`)}))
	require.Empty(t, compareScriptOutcomes(e, outcome{err: fmt.Errorf("CHECK constraint failed: c")},
		outcome{err: fmt.Errorf("constraint failed: CHECK constraint failed: c (275)")}))
}

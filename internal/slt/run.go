package slt

// Judging follows SQLite's harness in verify mode (sqllogictest.c -verify):
//   - A record whose conditions exclude Options.Engine (skipif ENGINE, or onlyif another engine)
//     is skipped, whatever its kind: a skipped halt does not halt, a skipped hash-threshold sets
//     nothing.
//   - statement ok passes when the SQL runs without error, statement error when it fails.
//   - query: the SQL must prepare and return one column per type letter. An error while it runs
//     ends its result, which is judged on the rows read before it (the harness stops at the first
//     step that is not a row and never looks at the error; Result.ExecErrors counts these). The
//     values are rendered (render.go) and sorted by the sort mode. A result of more values than the hash threshold (8;
//     "hash-threshold N" sets it, 0 turns hashing off) is expected as the single line "N values
//     hashing to H"; a smaller one value by value, and the number of values must agree too.
//   - Labels: every query with the same label in a file must hash alike. A run query stores or
//     checks the hash of its rendered values; a skipped one the hash its expected text gives (H of
//     a hash line, else the MD5 of its expected lines), unless it expects nothing. A mismatch fails
//     the run query; on a skipped query it is a failure of its own (Result.LabelErrors).
//   - halt ends the file. An unknown record kind is reported and ends the file; so does a query
//     without a type string. A bad type letter or sort mode fails that record.
// Each file runs on one connection taken from the pool (sql.DB.Conn), so transactions and
// connection state span records as they do in the harness's single connection.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Options configures a run. The zero value is SQLite's harness's defaults.
type Options struct {
	// Engine is the name skipif and onlyif lines are matched against, ignoring case; "" means
	// "sqlite", the engine cairn imitates.
	Engine string
	// MaxFailures is the number of failures Result.Failures keeps; 0 means 10, < 0 means all.
	MaxFailures int
	// Allowed maps a file (its path relative to the directory RunDir runs, with forward slashes)
	// to the number of failures tolerated in it before the test fails: a floor for landing an
	// engine step by step. Files not listed tolerate none. RunFile ignores it.
	Allowed map[string]int
}

// Tally counts the records of one kind.
type Tally struct {
	Run     int // records executed (Passed + Failed)
	Passed  int
	Failed  int
	Skipped int // records excluded by skipif/onlyif
}

// Failure describes one failed record.
type Failure struct {
	File     string
	Line     int // line of the record's command
	Kind     Kind
	SQL      string
	Expected []string // statement: "ok" or "error"; query: the expected lines
	Got      []string // statement: "ok" or "error"; query: the rendered, sorted values, or nil
	Err      error    // the error of the statement or query, if any
	Message  string   // what went wrong
}

func (f Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s: %s", f.File, f.Line, f.Kind, f.Message)
	if f.Err != nil {
		fmt.Fprintf(&b, ": %v", f.Err)
	}
	fmt.Fprintf(&b, "\n    sql: %s", strings.ReplaceAll(f.SQL, "\n", "\n         "))
	if f.Expected != nil || f.Got != nil {
		fmt.Fprintf(&b, "\n    expected: %s\n    got:      %s", clip(f.Expected), clip(f.Got))
	}
	return b.String()
}

// clip shows the first values of a result.
func clip(vals []string) string {
	const show = 12
	if len(vals) <= show {
		return strings.Join(vals, " | ")
	}
	return fmt.Sprintf("%s | ... (%d values)", strings.Join(vals[:show], " | "), len(vals))
}

// Result is the outcome of one file.
type Result struct {
	File        string
	Statements  Tally
	Queries     Tally
	Controls    Tally     // hash-threshold and halt records
	LabelErrors int       // skipped queries whose expected hash disagrees with their label
	ExecErrors  int       // queries ended by an error after they were prepared (judged, not failed)
	Failures    []Failure // the first Options.MaxFailures failures, in file order
	Halted      bool      // the file ended at a halt record
}

// Total sums the three kinds.
func (r Result) Total() Tally {
	var t Tally
	for _, k := range []Tally{r.Statements, r.Queries, r.Controls} {
		t.Run, t.Passed, t.Failed, t.Skipped = t.Run+k.Run, t.Passed+k.Passed, t.Failed+k.Failed, t.Skipped+k.Skipped
	}
	return t
}

// Failed is the number of failures: failed records plus label errors.
func (r Result) Failed() int { return r.Total().Failed + r.LabelErrors }

// String is the one-line summary "file: N records, P passed, F failed, S skipped": N counts run
// and skipped records; F counts failed records and label errors (which skipped records can have).
func (r Result) String() string {
	t := r.Total()
	s := fmt.Sprintf("%s: %d records, %d passed, %d failed, %d skipped (statements %d/%d, queries %d/%d passed",
		r.File, t.Run+t.Skipped, t.Passed, r.Failed(), t.Skipped,
		r.Statements.Passed, r.Statements.Run, r.Queries.Passed, r.Queries.Run)
	if r.ExecErrors > 0 {
		s += fmt.Sprintf(", %d ended by an error while running", r.ExecErrors)
	}
	return s + ")"
}

// RunFile runs the .test file at path against db on one connection and reports every record.
// The error is for what stops the run itself: an unreadable file, no connection, a cancelled ctx.
// The database should be empty: the files create their own tables.
func RunFile(ctx context.Context, db *sql.DB, path string, opts Options) (Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Result{}, fmt.Errorf("slt: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("slt: %s: %w", path, err)
	}
	defer conn.Close()
	r := &runner{ctx: ctx, conn: conn, opts: opts, threshold: 8, labels: map[string]string{},
		res: &Result{File: path}}
	if r.opts.Engine == "" {
		r.opts.Engine = "sqlite"
	}
	if r.opts.MaxFailures == 0 {
		r.opts.MaxFailures = 10
	}
	for _, rec := range Parse(data) {
		if err := ctx.Err(); err != nil {
			return *r.res, fmt.Errorf("slt: %s:%d: %w", path, rec.Line, err)
		}
		if !r.record(&rec) {
			break
		}
	}
	return *r.res, nil
}

type runner struct {
	ctx       context.Context
	conn      *sql.Conn
	opts      Options
	threshold int
	labels    map[string]string // label -> hash
	res       *Result
}

func (r *runner) tally(k Kind) *Tally {
	switch k {
	case Statement:
		return &r.res.Statements
	case Query:
		return &r.res.Queries
	}
	return &r.res.Controls
}

// fail records a failure of rec.
func (r *runner) fail(rec *Record, f Failure) {
	f.File, f.Line, f.Kind, f.SQL = r.res.File, rec.Line, rec.Kind, rec.SQL
	if r.opts.MaxFailures < 0 || len(r.res.Failures) < r.opts.MaxFailures {
		r.res.Failures = append(r.res.Failures, f)
	}
}

// skipped reports whether rec's conditions exclude the engine.
func (r *runner) skipped(rec *Record) bool {
	skip := false
	for _, c := range rec.Conditions {
		if strings.EqualFold(c.Engine, r.opts.Engine) == c.Skip {
			skip = true
		}
	}
	return skip
}

// record runs one record and reports whether the file goes on.
func (r *runner) record(rec *Record) bool {
	t := r.tally(rec.Kind)
	if r.skipped(rec) {
		t.Skipped++
		if rec.Kind == Query && rec.Fields[3] != "" && len(rec.Expected) > 0 {
			h := expectedHash(rec.Expected)
			if !r.label(rec.Fields[3], h) {
				r.res.LabelErrors++
				r.fail(rec, Failure{Expected: rec.Expected,
					Message: fmt.Sprintf("skipped query: labeled result [%s] does not agree with previous values", rec.Fields[3])})
			}
		}
		return true
	}
	var msg string
	var f Failure
	goOn := true
	switch rec.Kind {
	case Statement:
		msg, f = r.statement(rec)
	case Query:
		if rec.Fields[1] == "" {
			msg, goOn = "missing type string", false
			break
		}
		msg, f = r.query(rec)
	case HashThreshold:
		r.threshold, _ = strconv.Atoi(rec.Fields[1]) // C's atoi: 0 when not a number
	case Halt:
		r.res.Halted, goOn = true, false
	default:
		msg, goOn = fmt.Sprintf("unknown record type: '%s'", rec.Fields[0]), false
	}
	t.Run++
	if msg == "" {
		t.Passed++
		return goOn
	}
	t.Failed++
	f.Message = msg
	r.fail(rec, f)
	return goOn
}

// label stores hash under name, or checks it against the hash stored; false on a mismatch.
func (r *runner) label(name, hash string) bool {
	if old, ok := r.labels[name]; ok {
		return old == hash
	}
	r.labels[name] = hash
	return true
}

// expectedHash is the hash a query's expected lines stand for: H of "N values hashing to H", else
// the MD5 of the lines.
func expectedHash(expected []string) string {
	var n int
	var h string
	if _, err := fmt.Sscanf(expected[0], "%d values hashing to %s", &n, &h); err == nil {
		return h
	}
	return Hash(expected)
}

func (r *runner) statement(rec *Record) (string, Failure) {
	_, err := r.conn.ExecContext(r.ctx, rec.SQL)
	got := "ok"
	if err != nil {
		got = "error"
	}
	switch want := rec.Fields[1]; {
	case want != "ok" && want != "error":
		return "statement argument should be 'ok' or 'error'", Failure{}
	case got != want:
		return "statement " + got, Failure{Expected: []string{want}, Got: []string{got}, Err: err}
	}
	return "", Failure{}
}

func (r *runner) query(rec *Record) (string, Failure) {
	types := rec.Fields[1]
	for _, c := range []byte(types) {
		if c != 'T' && c != 'I' && c != 'R' {
			return fmt.Sprintf("unknown type character '%c' in type string", c), Failure{}
		}
	}
	vals, execErr, err := r.rows(rec.SQL, types)
	if err != nil {
		return "query failed", Failure{Expected: rec.Expected, Err: err}
	}
	if execErr != nil {
		r.res.ExecErrors++
	}
	if err := SortValues(vals, len(types), rec.Fields[2]); err != nil {
		return err.Error(), Failure{}
	}
	fail := Failure{Expected: rec.Expected, Got: vals}
	if label := rec.Fields[3]; label != "" && !r.label(label, Hash(vals)) {
		return fmt.Sprintf("labeled result [%s] does not agree with previous values", label), fail
	}
	if r.threshold > 0 && len(vals) > r.threshold {
		fail.Got = []string{HashLine(vals)}
		if len(rec.Expected) != 1 || rec.Expected[0] != fail.Got[0] {
			return "wrong result hash", fail
		}
		return "", Failure{}
	}
	if len(vals) != len(rec.Expected) {
		return fmt.Sprintf("wrong result: %d values, expected %d", len(vals), len(rec.Expected)), fail
	}
	for i, v := range vals {
		if v != rec.Expected[i] {
			return fmt.Sprintf("wrong result: value %d is %q, expected %q", i+1, v, rec.Expected[i]), fail
		}
	}
	return "", Failure{}
}

// rows prepares and runs a query and renders its values in row-major order. As in the harness,
// only a failure to prepare (or a wrong column count) fails the query: an error while it runs
// ends the result, which keeps the values read before it (execErr reports it). SQLite's corpus
// depends on this: "SELECT sum(x)" over an integer overflow expects no rows.
func (r *runner) rows(query, types string) (vals []string, execErr, err error) {
	stmt, err := r.conn.PrepareContext(r.ctx, query)
	if err != nil {
		return nil, nil, err
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(r.ctx)
	if err != nil {
		return []string{}, err, r.ctx.Err()
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	if len(cols) != len(types) {
		return nil, nil, fmt.Errorf("wrong number of result columns: expected %d but got %d", len(types), len(cols))
	}
	vals = []string{}
	raw := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, v := range raw {
			s, err := Render(v, types[i])
			if err != nil {
				return nil, nil, err
			}
			vals = append(vals, s)
		}
	}
	return vals, rows.Err(), r.ctx.Err()
}

package difftest

// Comparing what cairn and SQLite did with one statement. Values must be equal in class and value
// (a REAL bit for bit), except in a result column the generator marked fuzzy (grammar_test.go),
// where a value may be any of a set of values SQLite itself treats as equal: there numbers compare
// by value (1 = 1.0) and texts with letters folded to lower case and trailing spaces dropped,
// which no collation distinguishes.
//
// Rows compare as a multiset, or, when the query's ORDER BY gives the order, as a list of runs:
// the sequence of ORDER BY keys (each compared as its collation compares, or folded as above when
// the generator does not know the collation) must be the same, and the rows of each run of equal
// keys the same multiset. A LIMIT may cut a run at either end of the result: those two runs are
// compared by their keys only.

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// outcome is what one engine did with a statement.
type outcome struct {
	err      error
	cols     int
	rows     [][]any
	affected int64
	lastID   int64
}

// panicError is a panic of an engine, recovered.
type panicError struct {
	value any
	stack string
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v\n%s", p.value, p.stack) }

// runQuery runs a query and reads all its rows.
func runQuery(ctx context.Context, db *sql.DB, q string) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: &panicError{r, string(debug.Stack())}}
		}
	}()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return outcome{err: err}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return outcome{err: err}
	}
	o.cols = len(cols)
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return outcome{err: err}
		}
		o.rows = append(o.rows, vals)
	}
	if err := rows.Err(); err != nil {
		return outcome{err: err}
	}
	return o
}

// runExec runs a statement that changes the database.
func runExec(ctx context.Context, db *sql.DB, q string) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: &panicError{r, string(debug.Stack())}}
		}
	}()
	res, err := db.ExecContext(ctx, q)
	if err != nil {
		return outcome{err: err}
	}
	o.affected, _ = res.RowsAffected()
	o.lastID, _ = res.LastInsertId()
	return o
}

// exactKey renders a value with its class: equal keys, equal values.
func exactKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "i:" + strconv.FormatInt(x, 10)
	case float64:
		return "r:" + strconv.FormatFloat(x, 'g', -1, 64) + "/" + strconv.FormatUint(math.Float64bits(x), 16)
	case string:
		return "t:" + strconv.Quote(x)
	case []byte:
		return "b:" + hex.EncodeToString(x)
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

// foldKey renders a value so that values SQLite finds equal under coll have equal keys: numbers by
// value, texts by the collation (or, when known is false, folded as no collation distinguishes).
func foldKey(v any, coll string, known bool) string {
	switch x := v.(type) {
	case int64:
		return "n:" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && x >= -9223372036854775808.0 && x < 9223372036854775808.0 {
			return "n:" + strconv.FormatInt(int64(x), 10)
		}
		return "n:" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		switch {
		case !known:
			return "t:" + strings.TrimRight(lowerASCII(x), " ")
		case coll == "NOCASE":
			return "t:" + lowerASCII(x)
		case coll == "RTRIM":
			return "t:" + strings.TrimRight(x, " ")
		}
		return "t:" + x
	}
	return exactKey(v)
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// rowKey renders a row: fuzzy columns folded, the others exact.
func rowKey(row []any, cols []ex) string {
	parts := make([]string, len(row))
	for i, v := range row {
		if i < len(cols) && cols[i].fuzzy {
			parts[i] = foldKey(v, "", false)
		} else {
			parts[i] = exactKey(v)
		}
	}
	return strings.Join(parts, " | ")
}

// orderKeyOf renders a row's ORDER BY keys.
func orderKeyOf(row []any, keys []orderKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = foldKey(row[k.col], k.coll, k.collKnown)
	}
	return strings.Join(parts, " | ")
}

// compareQuery returns "" if the two outcomes of q agree, else what differs.
func compareQuery(q query, got, want outcome) string {
	if d := compareErrors(got.err, want.err, false); d != "" || want.err != nil {
		return d
	}
	if got.cols != want.cols {
		return fmt.Sprintf("%d columns, SQLite %d", got.cols, want.cols)
	}
	if len(got.rows) != len(want.rows) {
		return fmt.Sprintf("%d rows, SQLite %d", len(got.rows), len(want.rows))
	}
	if !q.ordered {
		return compareMultisets(got.rows, want.rows, q.cols)
	}
	// Ordered: the same keys in the same order, the same rows in each run of equal keys.
	runs := func(rows [][]any) (keys []string, bounds []int) {
		for i, r := range rows {
			k := orderKeyOf(r, q.keys)
			if i == 0 || k != keys[len(keys)-1] {
				keys = append(keys, k)
				bounds = append(bounds, i)
			}
		}
		return keys, append(bounds, len(rows))
	}
	gk, gb := runs(got.rows)
	wk, wb := runs(want.rows)
	if !slices.Equal(gk, wk) {
		for i := range min(len(gk), len(wk)) {
			if gk[i] != wk[i] {
				return fmt.Sprintf("order differs: run %d has keys %s, SQLite's %s", i, gk[i], wk[i])
			}
		}
		return fmt.Sprintf("order differs: %d runs of keys, SQLite %d", len(gk), len(wk))
	}
	for i := range gk {
		if q.limited && (i == 0 || i == len(gk)-1) {
			if gb[i+1]-gb[i] != wb[i+1]-wb[i] {
				return fmt.Sprintf("run %d (keys %s) has %d rows, SQLite's %d", i, gk[i], gb[i+1]-gb[i], wb[i+1]-wb[i])
			}
			continue
		}
		if d := compareMultisets(got.rows[gb[i]:gb[i+1]], want.rows[wb[i]:wb[i+1]], q.cols); d != "" {
			return fmt.Sprintf("run %d (keys %s): %s", i, gk[i], d)
		}
	}
	return ""
}

// compareMultisets returns "" if the rows are the same multiset, else the first row that differs.
func compareMultisets(got, want [][]any, cols []ex) string {
	gk, wk := make([]string, len(got)), make([]string, len(want))
	for i, r := range got {
		gk[i] = rowKey(r, cols)
	}
	for i, r := range want {
		wk[i] = rowKey(r, cols)
	}
	slices.Sort(gk)
	slices.Sort(wk)
	for i := range min(len(gk), len(wk)) {
		if gk[i] != wk[i] {
			return fmt.Sprintf("row %s, SQLite's %s", gk[i], wk[i])
		}
	}
	if len(gk) != len(wk) {
		return fmt.Sprintf("%d rows, SQLite %d", len(gk), len(wk))
	}
	return ""
}

// sqliteMessage is the shape of modernc.org/sqlite's error texts: "constraint failed: " before
// a constraint's message, the result code after.
var sqliteMessage = regexp.MustCompile(`^(?:constraint failed: )?(.*?)(?: \(\d+\))?$`)

// constraintMessage returns the message of a constraint violation (without modernc's additions),
// or false for another error.
func constraintMessage(err error) (string, bool) {
	msg := sqliteMessage.FindStringSubmatch(err.Error())[1]
	for _, p := range []string{"UNIQUE constraint failed", "NOT NULL constraint failed", "CHECK constraint failed"} {
		if strings.HasPrefix(msg, p) {
			return msg, true
		}
	}
	return "", false
}

// compareErrors compares the errors of two outcomes: whether there is one, and, for constraint
// violations of a data change (messages), the message.
func compareErrors(got, want error, messages bool) string {
	var p *panicError
	switch {
	case errors.As(got, &p):
		return "cairn panicked: " + p.Error()
	case got == nil && want == nil:
		return ""
	case got == nil:
		return "no error, SQLite: " + want.Error()
	case want == nil:
		return "error " + got.Error() + ", SQLite none"
	}
	if messages {
		if w, ok := constraintMessage(want); ok && got.Error() != w {
			return fmt.Sprintf("error %q, SQLite %q", got.Error(), w)
		}
	}
	return ""
}

// compareChange returns "" if the two outcomes of a data change agree (error, rows affected, last
// insert rowid of an INSERT), else what differs. The tables' contents are compared after.
func compareChange(c change, got, want outcome) string {
	if d := compareErrors(got.err, want.err, true); d != "" || want.err != nil {
		return d
	}
	if got.affected != want.affected {
		return fmt.Sprintf("%d rows affected, SQLite %d", got.affected, want.affected)
	}
	if c.insert && got.lastID != want.lastID {
		return fmt.Sprintf("last insert rowid %d, SQLite %d", got.lastID, want.lastID)
	}
	return ""
}

// describe renders an outcome for a report (the first rows of a result).
func describe(o outcome) string {
	if o.err != nil {
		return "error: " + o.err.Error()
	}
	var b strings.Builder
	if o.cols == 0 && o.rows == nil {
		fmt.Fprintf(&b, "%d rows affected, last insert rowid %d", o.affected, o.lastID)
		return b.String()
	}
	fmt.Fprintf(&b, "%d rows", len(o.rows))
	for i, r := range o.rows {
		if i == 40 {
			b.WriteString("\n    ...")
			break
		}
		parts := make([]string, len(r))
		for j, v := range r {
			parts[j] = exactKey(v)
		}
		b.WriteString("\n    " + strings.Join(parts, " | "))
	}
	return b.String()
}

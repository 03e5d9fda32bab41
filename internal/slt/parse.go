package slt

// The file format, as SQLite's harness reads it (testdata/slt/SOURCE.txt):
//   - A line loses one trailing CR. A line of only white space is blank.
//   - A line that starts with '#' is a comment wherever it is: it is dropped before records are
//     formed, so it never ends a record and never appears in SQL or expected values.
//   - A record is a run of non-blank lines. Its first lines may be conditions ("skipif ENGINE",
//     "onlyif ENGINE"); the next line is the command, of which only the first four
//     whitespace-separated tokens count (so "onlyif sqlite # why" names the engine "sqlite").
//   - statement: every further line is the SQL. query: the lines up to "----" are the SQL, the lines
//     after it the expected values, one per line.

import (
	"bytes"
	"strings"
)

// Kind is the type of a record, named by the first token of its command line.
type Kind int

// The record kinds.
const (
	Unknown       Kind = iota // any other first token: the harness reports it and stops the file
	Statement                 // "statement ok" or "statement error", then the SQL
	Query                     // "query TYPES [SORT [LABEL]]", the SQL, "----", the expected values
	HashThreshold             // "hash-threshold N"
	Halt                      // "halt": the file ends here
)

func (k Kind) String() string {
	switch k {
	case Statement:
		return "statement"
	case Query:
		return "query"
	case HashThreshold:
		return "hash-threshold"
	case Halt:
		return "halt"
	}
	return "unknown"
}

// Condition is one skipif or onlyif line in front of a record.
type Condition struct {
	Skip   bool   // true for skipif, false for onlyif
	Engine string // the engine named; compared with Options.Engine ignoring case
}

// Record is one record of a .test file.
type Record struct {
	Line       int // 1-based line number of the command line (after any conditions)
	Conditions []Condition
	Kind       Kind
	// Fields are the first four tokens of the command line, "" where absent. Statement: Fields[1]
	// is "ok" or "error". Query: Fields[1] the types (one of T, I, R per column), Fields[2] the
	// sort mode, Fields[3] the label. HashThreshold: Fields[1] the threshold.
	Fields   [4]string
	SQL      string   // statement and query: the SQL lines joined by "\n"
	Expected []string // query: the lines after "----"
	Dashes   bool     // query: the record has a "----" line
}

// Parse splits the text of a .test file into records. It never fails: a malformed record is
// returned as it stands (an Unknown kind, an empty type string) and judged when run.
func Parse(data []byte) []Record {
	var recs []Record
	var cur []numbered
	flush := func() {
		if len(cur) > 0 {
			recs = append(recs, parseRecord(cur))
			cur = nil
		}
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimLeftFunc(line, isSpace)) == 0 {
			flush()
			continue
		}
		if line[0] == '#' {
			continue
		}
		cur = append(cur, numbered{i + 1, string(line)})
	}
	flush()
	return recs
}

type numbered struct {
	n    int
	text string
}

func parseRecord(lines []numbered) Record {
	var r Record
	for {
		r.Line = lines[0].n
		r.Fields = tokens(lines[0].text)
		cond := r.Fields[0] == "skipif" || r.Fields[0] == "onlyif"
		if !cond {
			break
		}
		r.Conditions = append(r.Conditions, Condition{Skip: r.Fields[0] == "skipif", Engine: r.Fields[1]})
		lines = lines[1:]
		if len(lines) == 0 { // conditions and no command: an empty command line
			r.Fields = [4]string{}
			return r
		}
	}
	body := lines[1:]
	switch r.Fields[0] {
	case "statement":
		r.Kind = Statement
		r.SQL = join(body)
	case "query":
		r.Kind = Query
		sql := body
		for i, l := range body {
			if l.text == "----" {
				sql, r.Dashes = body[:i], true
				for _, e := range body[i+1:] {
					r.Expected = append(r.Expected, e.text)
				}
				break
			}
		}
		r.SQL = join(sql)
	case "hash-threshold":
		r.Kind = HashThreshold
	case "halt":
		r.Kind = Halt
	}
	return r
}

// tokens returns the first four whitespace-separated tokens of line.
func tokens(line string) [4]string {
	var t [4]string
	copy(t[:], strings.FieldsFunc(line, isSpace))
	return t
}

func join(lines []numbered) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
	}
	return b.String()
}

// isSpace is C's isspace in the "C" locale, which the harness uses.
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

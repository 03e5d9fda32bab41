// Command realdata loads a real data set that nobody here wrote, the #define lines of the C
// headers under a directory (/usr/include by default), into SQL tables of cairn (through
// cairnsql) and of SQLite (modernc.org/sqlite), runs the same queries on both, compares their
// results, and prints row counts, load times, database sizes and query times.
//
//	go run ./cmd/realdata [-src /usr/include] [-dir DIR] [-runs 5]
//
// The tables:
//
//	files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, dir TEXT NOT NULL, bytes, lines)
//	defines(id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, line INTEGER NOT NULL,
//	        name TEXT NOT NULL, params TEXT, value TEXT NOT NULL)
//	defines_name ON defines(name), defines_file ON defines(file_id)
//
// path is relative to -src, dir its first component ("." for files at the top); a define is
// one "#define NAME[(PARAMS)] [VALUE]" line (continuation lines joined, the value with comments
// kept as written, trimmed); params is NULL for an object-like macro. Both engines commit
// durably (cairn SyncFull; SQLite WAL with synchronous=FULL), in transactions of 10,000 rows.
// The exit status is 1 if any result differs.
package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	_ "github.com/cairndb/cairn/cairnsql" // driver "cairn"
	_ "modernc.org/sqlite"                // driver "sqlite"
)

// File is one header file.
type File struct {
	ID           int64
	Path, Dir    string
	Bytes, Lines int64
}

// Define is one #define line.
type Define struct {
	ID, FileID, Line int64
	Name             string
	Params           *string // nil for an object-like macro
	Value            string
}

// Data is the data set: every file and every define, with ids from 1.
type Data struct {
	Files   []File
	Defines []Define
}

// defineRE matches a #define line: the name, the parameter list of a function-like macro (the
// parenthesis right after the name), the rest.
var defineRE = regexp.MustCompile(`^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?((?s:.*))$`)

// Parse reads the defines of one file's text; lines ending in a backslash continue on the next.
func Parse(text []byte, add func(line int64, name string, params *string, value string)) int64 {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var n int64
	for sc.Scan() {
		n++
		first := n
		line := sc.Text()
		for strings.HasSuffix(line, "\\") && sc.Scan() {
			n++
			line = line[:len(line)-1] + "\n" + sc.Text()
		}
		m := defineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var params *string
		if m[2] != "" {
			p := m[2]
			params = &p
		}
		add(first, m[1], params, strings.TrimSpace(m[3]))
	}
	return n
}

// Collect walks src for regular files named *.h, in lexical order, and parses each.
func Collect(src string) (*Data, error) {
	d := &Data{}
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.Type().IsRegular() || !strings.HasSuffix(path, ".h") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		dir, _, found := strings.Cut(filepath.ToSlash(rel), "/")
		if !found {
			dir = "."
		}
		f := File{ID: int64(len(d.Files) + 1), Path: filepath.ToSlash(rel), Dir: dir, Bytes: int64(len(text))}
		f.Lines = Parse(text, func(line int64, name string, params *string, value string) {
			d.Defines = append(d.Defines, Define{ID: int64(len(d.Defines) + 1), FileID: f.ID, Line: line,
				Name: name, Params: params, Value: value})
		})
		d.Files = append(d.Files, f)
		return nil
	})
	return d, err
}

// Schema is the same on both engines.
var Schema = []string{
	`CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, dir TEXT NOT NULL,
		bytes INTEGER NOT NULL, lines INTEGER NOT NULL)`,
	`CREATE TABLE defines(id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, line INTEGER NOT NULL,
		name TEXT NOT NULL, params TEXT, value TEXT NOT NULL)`,
	`CREATE INDEX defines_name ON defines(name)`,
	`CREATE INDEX defines_file ON defines(file_id)`,
}

// Query is one of the queries run on both engines. Every ORDER BY is total, so the rows come in
// one order on both.
type Query struct {
	Name, SQL string
}

// Queries are the real queries: counts, groups, LIKE prefix searches, joins, ORDER BY ... LIMIT.
var Queries = []Query{
	{"count", `SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM defines),
		(SELECT count(DISTINCT name) FROM defines)`},
	{"per-dir", `SELECT f.dir, count(*) AS n, sum(d.params IS NOT NULL) AS functions
		FROM defines d JOIN files f ON f.id = d.file_id
		GROUP BY f.dir ORDER BY n DESC, f.dir LIMIT 15`},
	{"top-names", `SELECT name, count(*) AS n, count(DISTINCT value) AS values_
		FROM defines GROUP BY name ORDER BY n DESC, name LIMIT 10`},
	{"like-prefix", `SELECT name, value FROM defines WHERE name LIKE 'EPOLL%' ORDER BY name, id`},
	{"name-range", `SELECT count(*), min(name), max(name) FROM defines WHERE name >= 'PR_' AND name < 'PR_~'`},
	{"join-by-name", `SELECT f.path, d.line, d.value FROM defines d JOIN files f ON f.id = d.file_id
		WHERE d.name = 'EINVAL' ORDER BY f.path, d.line`},
	{"busiest-files", `SELECT f.path, count(*) AS n FROM files f JOIN defines d ON d.file_id = f.id
		GROUP BY f.id ORDER BY n DESC, f.path LIMIT 10`},
	{"longest-values", `SELECT d.name, length(d.value) AS len, f.path FROM defines d, files f
		WHERE f.id = d.file_id ORDER BY len DESC, d.id LIMIT 10`},
	{"numeric-values", `SELECT count(*), max(CAST(value AS INTEGER)), total(length(value)),
		sum(value LIKE '0x%') FROM defines WHERE value GLOB '[0-9]*' AND value NOT GLOB '*[^0-9a-fA-FxXuUlL]*'`},
	{"redefined", `SELECT a.name, count(*) FROM defines a JOIN defines b ON b.name = a.name AND b.id > a.id
		WHERE a.name LIKE 'SIG%' AND a.value <> b.value GROUP BY a.name ORDER BY count(*) DESC, a.name LIMIT 10`},
}

// Engine is one engine of the comparison.
type Engine struct {
	Name, Driver string
	DSN          func(dir string) string
	Checkpoint   string // the statement that checkpoints the WAL before Close, if any
}

// Engines are cairn and SQLite (modernc), both durable, both with a 1 GiB cache.
var Engines = []Engine{
	{"cairn", "cairn", func(dir string) string {
		return filepath.Join(dir, "defines.db") + "?_sync=full&_cache_bytes=1073741824"
	}, ""},
	{"sqlite", "sqlite", func(dir string) string {
		return "file:" + filepath.Join(dir, "defines.db") + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
			"&_pragma=cache_size(-1048576)&_pragma=busy_timeout(10000)"
	}, ""},
}

// Result is what one engine did.
type Result struct {
	Load      time.Duration
	Bytes     int64
	Files     []string // the database's files after Close, with sizes
	QueryTime []time.Duration
	Rows      [][]string // each query's rows, rendered
	Plans     [][]string // each query's EXPLAIN QUERY PLAN details
}

// Run loads d into engine e in the new directory dir, runs the queries (each runs times; the
// fastest run counts), and closes the database.
func Run(e Engine, dir string, d *Data, runs int) (*Result, error) {
	db, err := sql.Open(e.Driver, e.DSN(dir))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	r := &Result{}
	start := time.Now()
	if err := load(db, d); err != nil {
		return nil, fmt.Errorf("%s: load: %w", e.Name, err)
	}
	r.Load = time.Since(start)
	for _, q := range Queries {
		var best time.Duration
		var rows []string
		for i := range max(runs, 1) {
			t0 := time.Now()
			got, err := queryText(db, q.SQL)
			if err != nil {
				return nil, fmt.Errorf("%s: query %s: %w", e.Name, q.Name, err)
			}
			if t := time.Since(t0); i == 0 || t < best {
				best = t
			}
			rows = got
		}
		r.QueryTime = append(r.QueryTime, best)
		r.Rows = append(r.Rows, rows)
		plan, err := queryText(db, "EXPLAIN QUERY PLAN "+q.SQL)
		if err != nil {
			return nil, fmt.Errorf("%s: plan of %s: %w", e.Name, q.Name, err)
		}
		for i, p := range plan {
			plan[i] = p[strings.LastIndexByte(p, '|')+1:]
		}
		r.Plans = append(r.Plans, plan)
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, en := range entries {
		info, err := en.Info()
		if err != nil {
			return nil, err
		}
		r.Bytes += info.Size()
		r.Files = append(r.Files, fmt.Sprintf("%s %d", en.Name(), info.Size()))
	}
	return r, nil
}

// load creates the tables and inserts d with prepared statements, 10,000 rows per transaction.
func load(db *sql.DB, d *Data) error {
	for _, s := range Schema {
		if _, err := db.Exec(s); err != nil {
			return err
		}
	}
	const batch = 10_000
	insert := func(query string, n int, args func(i int) []any) error {
		for start := 0; start < n; start += batch {
			tx, err := db.Begin()
			if err != nil {
				return err
			}
			stmt, err := tx.Prepare(query)
			if err != nil {
				tx.Rollback()
				return err
			}
			for i := start; i < min(start+batch, n); i++ {
				if _, err := stmt.Exec(args(i)...); err != nil {
					tx.Rollback()
					return fmt.Errorf("row %d: %w", i, err)
				}
			}
			stmt.Close()
			if err := tx.Commit(); err != nil {
				return err
			}
		}
		return nil
	}
	err := insert(`INSERT INTO files(id, path, dir, bytes, lines) VALUES (?, ?, ?, ?, ?)`, len(d.Files),
		func(i int) []any {
			f := &d.Files[i]
			return []any{f.ID, f.Path, f.Dir, f.Bytes, f.Lines}
		})
	if err != nil {
		return err
	}
	return insert(`INSERT INTO defines(id, file_id, line, name, params, value) VALUES (?, ?, ?, ?, ?, ?)`,
		len(d.Defines), func(i int) []any {
			x := &d.Defines[i]
			var params any
			if x.Params != nil {
				params = *x.Params
			}
			return []any{x.ID, x.FileID, x.Line, x.Name, params, x.Value}
		})
}

// queryText runs query and renders each row as its values' text separated by "|" (NULL for
// NULL, each value prefixed by its Go type so that 1 and '1' differ).
func queryText(db *sql.DB, query string) ([]string, error) {
	rows, err := db.Query(query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			switch v := v.(type) {
			case nil:
				b.WriteString("NULL")
			case []byte:
				fmt.Fprintf(&b, "blob:%x", v)
			default:
				fmt.Fprintf(&b, "%T:%v", v, v)
			}
		}
		out = append(out, b.String())
	}
	return out, rows.Err()
}

// Diff returns the differences between two engines' rows of each query.
func Diff(a, b *Result, an, bn string) []string {
	var diffs []string
	for i, q := range Queries {
		if !slices.Equal(a.Rows[i], b.Rows[i]) {
			diffs = append(diffs, fmt.Sprintf("query %s: %s returned %d rows %q, %s %d rows %q", q.Name,
				an, len(a.Rows[i]), a.Rows[i], bn, len(b.Rows[i]), b.Rows[i]))
		}
	}
	return diffs
}

func main() {
	src := flag.String("src", "/usr/include", "directory of C headers")
	dir := flag.String("dir", "", "directory for the databases (default: a new temporary one, removed at the end)")
	runs := flag.Int("runs", 5, "runs of each query (the fastest counts)")
	verbose := flag.Bool("v", false, "print every query's rows and plans")
	flag.Parse()
	if err := run(*src, *dir, *runs, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "realdata:", err)
		os.Exit(1)
	}
}

func run(src, dir string, runs int, verbose bool) error {
	t0 := time.Now()
	d, err := Collect(src)
	if err != nil {
		return err
	}
	fmt.Printf("source: %s: %d header files, %d #define lines (parsed in %v)\n", src, len(d.Files),
		len(d.Defines), time.Since(t0).Round(time.Millisecond))
	if dir == "" {
		if dir, err = os.MkdirTemp("", "realdata-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	var results []*Result
	for _, e := range Engines {
		edir := filepath.Join(dir, e.Name)
		if err := os.MkdirAll(edir, 0o755); err != nil {
			return err
		}
		r, err := Run(e, edir, d, runs)
		if err != nil {
			return err
		}
		results = append(results, r)
		fmt.Printf("%s: load %v (%.0f rows/s), %d bytes after Close (%s)\n", e.Name, r.Load.Round(time.Millisecond),
			float64(len(d.Files)+len(d.Defines))/r.Load.Seconds(), r.Bytes, strings.Join(r.Files, ", "))
	}
	fmt.Printf("\n| query | rows | %s | equal |\n|---|---:|%s---|\n", strings.Join(names(), " | "), strings.Repeat("---:|", len(Engines)))
	var diffs []string
	for i := 1; i < len(results); i++ {
		diffs = append(diffs, Diff(results[0], results[i], Engines[0].Name, Engines[i].Name)...)
	}
	for i, q := range Queries {
		equal := "yes"
		for _, r := range results[1:] {
			if !slices.Equal(r.Rows[i], results[0].Rows[i]) {
				equal = "**no**"
			}
		}
		fmt.Printf("| %s | %d |", q.Name, len(results[0].Rows[i]))
		for _, r := range results {
			fmt.Printf(" %s |", fmtDuration(r.QueryTime[i]))
		}
		fmt.Printf(" %s |\n", equal)
	}
	if verbose {
		for i, q := range Queries {
			fmt.Printf("\n%s: %s\n", q.Name, strings.Join(strings.Fields(q.SQL), " "))
			for j, r := range results {
				fmt.Printf("  %s plan: %q\n", Engines[j].Name, r.Plans[i])
			}
			for _, row := range results[0].Rows[i] {
				fmt.Printf("  %s\n", row)
			}
		}
	}
	if len(diffs) > 0 {
		return errors.New("results differ:\n" + strings.Join(diffs, "\n"))
	}
	return nil
}

func names() []string {
	var out []string
	for _, e := range Engines {
		out = append(out, e.Name)
	}
	return out
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}

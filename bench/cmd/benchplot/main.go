// Command benchplot draws charts from the raw `go test -bench` output of the comparison suite.
//
// Usage:
//
//	go run ./cmd/benchplot [-o DIR] [-format svg|png] [-note TEXT] [-tables FILE.md] FILE...
//
// It reads the files with golang.org/x/perf/benchfmt (several files, or several -count runs
// in one, are pooled), takes the median of the runs of every sub-benchmark with benchstat's
// 95% confidence interval (golang.org/x/perf/benchmath), and writes into DIR, with
// gonum.org/v1/plot, whichever of these charts the input has data for:
//
//	commit-latency[-OP].svg  p50/p95/p99/p99.9 of CommitSync, grouped by engine
//	writers.svg              commits/s of ConcurrentWriters against the number of writers
//	ycsb.svg                 ops/s of YCSB workloads A-F, one bar per engine
//	get.svg                  time per Get, one bar per engine
//	scan.svg                 keys/s of Scan, one bar per engine
//	sql-read-ratio.svg       time per op of the SQL reads (SQLPointSelect .. SQLJoin3) of every
//	                         engine ÷ sqlite's, with a line at 1 and issue 23's goals for cairn
//	sql-insert-latency.svg   p50/p95/p99/p99.9 of SQLInsert, grouped by engine
//	sql-update-latency.svg   the same of SQLUpdate
//	sql-insert-parallel-latency-N.svg  the same of SQLInsertParallel, goroutines=N
//	sql-write-rate.svg       rows/s of SQLInsertParallel and SQLBulkLoad, one bar per engine
//	sql-savepoints.svg       time per transaction of SQLSavepoints, one bar per engine
//	sql-json.svg             time per query of SQLJSON, one bar per engine
//
// A suffix is added to a name when a benchmark has several variants (CommitSync op=insert and
// op=overwrite). Every chart names the input files and the machine in its caption (from the
// configuration lines bench/run.sh writes), with -note's text below. Benchmarks the input
// lacks are left out of the charts, and charts without data are not written. With -tables it
// also writes Markdown tables, one per unit (sec/op, p99-sec, commits/s, B/op...), a row per
// sub-benchmark and a column per engine: the same medians and intervals as the charts, with each
// engine's ratio to cairn. benchplot prints the paths of the files it wrote.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments and output streams, for tests.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchplot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("o", ".", "directory to write the charts into (created if missing)")
	format := fs.String("format", "svg", "image format: svg or png")
	note := fs.String("note", "", "a line to add to every caption, e.g. what the machine was doing")
	tables := fs.String("tables", "", "also write Markdown tables of every unit to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("usage: benchplot [-o DIR] [-format svg|png] [-note TEXT] [-tables FILE.md] FILE...")
	}
	if *format != "svg" && *format != "png" {
		return fmt.Errorf("unknown format %q (want svg or png)", *format)
	}
	s, err := loadFiles(fs.Args(), stderr)
	if err != nil {
		return err
	}
	source := describeSource(s)
	if *note != "" {
		source += "\n" + *note
	}
	if *tables != "" {
		if err := writeTablesFile(s, source, *tables, stdout); err != nil {
			return err
		}
	}
	return writeCharts(s, source, *dir, *format, stdout)
}

// writeTablesFile writes the Markdown tables of s to path and prints the path.
func writeTablesFile(s *store, source, path string, stdout io.Writer) error {
	var buf bytes.Buffer
	writeTables(s, source, &buf)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}

// writeCharts renders every chart of s, captioned with source, into dir and prints the paths.
func writeCharts(s *store, source, dir, format string, stdout io.Writer) error {
	figs := charts(s)
	if len(figs) == 0 {
		return errors.New("no benchmark in the input has data for a chart")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	useSansFont()
	for _, f := range figs {
		path := filepath.Join(dir, f.fileName()+"."+format)
		if err := render(f, source, path, format); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Fprintln(stdout, path)
	}
	return nil
}

// sourceFacts are the configuration lines run.sh writes above the results that a caption
// repeats, with the words put before their values.
var sourceFacts = []struct{ key, label string }{
	{"cpu-model", ""}, {"nproc", "nproc "}, {"date", ""}, {"go", ""},
	{"cairn-commit", "cairn "}, {"loadavg-start", "load average at start "},
}

// describeSource names the input files and, from their configuration lines, the machine,
// the date and the code measured.
func describeSource(s *store) string {
	var facts []string
	for _, f := range sourceFacts {
		if v, ok := s.config[f.key]; ok {
			facts = append(facts, f.label+v)
		}
	}
	if _, ok := s.config["cpu-model"]; !ok && s.config["cpu"] != "" { // go test's own line
		facts = append([]string{s.config["cpu"]}, facts...)
	}
	src := strings.Join(s.files, ", ")
	if len(facts) > 0 {
		src += " (" + strings.Join(facts, ", ") + ")"
	}
	return src
}

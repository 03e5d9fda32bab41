package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// A series names one sub-benchmark apart from its engine and GOMAXPROCS.
type series struct {
	base   string // "CommitSync"
	params string // the other name parameters in name order: "op=insert/value=100"
}

// A sampleKey names the runs of one series on one engine in one unit.
type sampleKey struct {
	series
	engine string
	unit   string // as benchfmt tidies it: "sec/op", "p99-sec", "ops/s"
}

// A store holds every measurement of the input files by series, engine and unit.
type store struct {
	files   []string            // base names of the input files
	config  map[string]string   // first value of each file configuration key ("cpu-model", "date")
	engines []string            // in order of first appearance
	bases   []string            // benchmark base names, in order of first appearance
	params  map[string][]string // base name -> distinct params, in order of first appearance
	runs    map[sampleKey][]float64
}

// newStore returns an empty store.
func newStore() *store {
	return &store{config: map[string]string{}, params: map[string][]string{}, runs: map[sampleKey][]float64{}}
}

// loadFiles reads raw `go test -bench` output from every named file. Lines benchfmt cannot
// parse are reported on warn and skipped.
func loadFiles(names []string, warn io.Writer) (*store, error) {
	s := newStore()
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		err = s.read(f, name, warn)
		f.Close()
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, filepath.Base(name))
	}
	return s, nil
}

// read adds the results of one file.
func (s *store) read(r io.Reader, name string, warn io.Writer) error {
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.Result:
			s.add(rec)
		case *benchfmt.SyntaxError:
			fmt.Fprintf(warn, "benchplot: skipping %v\n", rec)
		}
	}
	return br.Err()
}

// add records one result line. Results whose name has no engine= parameter are ignored:
// every chart compares engines.
func (s *store) add(res *benchfmt.Result) {
	for _, c := range res.Config {
		if _, ok := s.config[c.Key]; !ok && c.File {
			s.config[c.Key] = string(c.Value)
		}
	}
	sr, engine := splitName(res.Name)
	if engine == "" {
		return
	}
	s.noteEngine(engine)
	s.noteParams(sr)
	for _, v := range res.Values {
		k := sampleKey{sr, engine, v.Unit}
		s.runs[k] = append(s.runs[k], v.Value)
	}
}

// splitName splits "CommitSync/engine=cairn/op=insert/value=100-2" into its series
// (CommitSync, op=insert/value=100) and its engine (cairn).
func splitName(n benchfmt.Name) (series, string) {
	base, parts := n.Parts()
	var params []string
	engine := ""
	for _, p := range parts {
		switch {
		case p[0] == '-': // GOMAXPROCS
		case strings.HasPrefix(string(p[1:]), "engine="):
			engine = string(p[len("/engine="):])
		default:
			params = append(params, string(p[1:]))
		}
	}
	return series{string(base), strings.Join(params, "/")}, engine
}

// noteEngine adds engine to s.engines unless it is there.
func (s *store) noteEngine(engine string) {
	for _, e := range s.engines {
		if e == engine {
			return
		}
	}
	s.engines = append(s.engines, engine)
}

// noteParams adds sr.params to the parameters of sr.base unless they are there.
func (s *store) noteParams(sr series) {
	if _, ok := s.params[sr.base]; !ok {
		s.bases = append(s.bases, sr.base)
	}
	for _, p := range s.params[sr.base] {
		if p == sr.params {
			return
		}
	}
	s.params[sr.base] = append(s.params[sr.base], sr.params)
}

// summary returns the median of the runs of sr on engine in unit with benchstat's 95%
// confidence interval (infinite with too few runs), the number of runs, and whether
// there are any runs with positive values (a log axis shows no others).
func (s *store) summary(sr series, engine, unit string) (benchmath.Summary, int, bool) {
	vals := s.runs[sampleKey{sr, engine, unit}]
	if len(vals) == 0 {
		return benchmath.Summary{}, 0, false
	}
	sample := benchmath.NewSample(append([]float64(nil), vals...), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(sample, 0.95)
	return sum, len(vals), sum.Center > 0
}

// param returns the value of key in params ("op=insert/value=100") and whether it is there.
func param(params, key string) (string, bool) {
	for _, p := range strings.Split(params, "/") {
		if k, v, ok := strings.Cut(p, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// without returns params less the parameter key.
func without(params, key string) string {
	var kept []string
	for _, p := range strings.Split(params, "/") {
		if k, _, _ := strings.Cut(p, "="); k != key && p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

package main

// The SQL charts: issue 23's workloads (bench/sql*_test.go) on cairn and on SQLite through
// modernc.org/sqlite ("sqlite") and mattn/go-sqlite3 ("sqlite-cgo").

import (
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/plot/vg"
)

// ratioBase is the engine the SQL read chart divides by: SQLite through modernc.org/sqlite,
// to which issue 23 states its goals.
const ratioBase = "sqlite"

// ratioUnit is the unit of a chart of ratios, for its tick labels ("0.5×").
const ratioUnit = "ratio"

// goalEngine is the engine whose ratios the goals of sqlReads bound.
const goalEngine = "cairn"

// A workload is one benchmark of a chart whose groups are sub-benchmarks of several
// benchmarks: each sub-benchmark of base is one group.
type workload struct {
	base string // benchmark name: "SQLPointSelect"
	// label is the first line of the groups' labels; the parameters that differ between the
	// sub-benchmarks of base follow it, one a line ("goroutines=8").
	label string
	goal  float64  // issue 23's bound on cairn's time ÷ SQLite's (modernc); 0: none
	show  []string // parameters the labels name even where they do not differ ("txn")
}

// sqlReads are the read workloads of issue 23 with its goals (cairn's time at most goal times
// SQLite's through modernc.org/sqlite). SQLJoin is issue 22's row, without a goal.
var sqlReads = []workload{
	{"SQLPointSelect", "point by key", 0.5, nil},
	{"SQLIndexSelect", "point by index", 0.6, nil},
	{"SQLRange", "key range", 0.7, []string{"range"}},
	{"SQLScan", "full scan", 1.0, nil},
	{"SQLGroupBy", "GROUP BY", 1.0, []string{"groups"}},
	{"SQLJoin", "join", 0, nil},
	{"SQLJoin3", "3-table join", 0.8, nil},
}

// sqlLatencySpecs are the SQL benchmarks that report latency percentiles.
var sqlLatencySpecs = []latencySpec{
	{"SQLInsert", "sql-insert-latency", "Durable one-row INSERT, autocommit, latency", "latency of one INSERT"},
	{"SQLUpdate", "sql-update-latency", "Durable one-row UPDATE by key, latency", "latency of one UPDATE"},
	{"SQLInsertParallel", "sql-insert-parallel-latency", "Concurrent durable one-row INSERTs, latency", "latency of one INSERT"},
}

// A workloadSpec describes a chart with one group of bars per sub-benchmark of its workloads
// and one bar per engine in every group.
type workloadSpec struct {
	file      string
	title     string
	yLabel    string
	unit      string
	workloads []workload
}

// sqlBarSpecs are the SQL charts of one value per engine and sub-benchmark.
var sqlBarSpecs = []workloadSpec{
	{"sql-write-rate", "Durable INSERTs, rows per second", "rows/s", "rows/s", []workload{
		{"SQLInsertParallel", "INSERT, autocommit", 0, nil}, {"SQLBulkLoad", "bulk load", 0, []string{"txn"}},
	}},
	{"sql-savepoints", "Savepoints in one durable transaction, time per transaction", "time per transaction", "sec/op",
		[]workload{{"SQLSavepoints", "", 0, nil}}},
	{"sql-json", "A query's rows as JSON bytes, time per query", "time per query", "sec/op",
		[]workload{{"SQLJSON", "", 0, nil}}},
}

// A workloadGroup is one sub-benchmark of a workload, a group of bars.
type workloadGroup struct {
	sr    series
	label string
	goal  float64
}

// workloadGroups returns a group for every sub-benchmark of every workload the store has, in
// the order of ws and then of the input.
func workloadGroups(s *store, ws []workload) []workloadGroup {
	var out []workloadGroup
	for _, w := range ws {
		all := s.params[w.base]
		for _, params := range all {
			lines := labelParams(all, params, w.show)
			if w.label != "" {
				lines = append([]string{w.label}, lines...)
			}
			if len(lines) == 0 {
				lines = []string{w.base}
			}
			out = append(out, workloadGroup{series{w.base, params}, strings.Join(lines, "\n"), w.goal})
		}
	}
	return out
}

// labelParams returns the parameters of params that differ between the entries of all or
// whose key is in show, in the order of params.
func labelParams(all []string, params string, show []string) []string {
	var out []string
	vary := varying(all, params)
	for _, p := range strings.Split(params, "/") {
		k, _, _ := strings.Cut(p, "=")
		if slices.Contains(vary, p) || slices.Contains(show, k) {
			out = append(out, p)
		}
	}
	return out
}

// varying returns the parameters of params ("rows=1/cols=5-mixed") whose values differ
// between the entries of all.
func varying(all []string, params string) []string {
	var out []string
	for _, p := range strings.Split(params, "/") {
		k, v, _ := strings.Cut(p, "=")
		for _, other := range all {
			if ov, ok := param(other, k); !ok || ov != v {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// workloadBarChart draws spec: one group per sub-benchmark and one bar per engine. It returns
// nil if the store has none of spec's values.
func workloadBarChart(s *store, spec workloadSpec) *barChart {
	groups := workloadGroups(s, spec.workloads)
	c := &barChart{file: spec.file, title: spec.title, yLabel: spec.yLabel, unit: spec.unit}
	for _, g := range groups {
		c.groups = append(c.groups, g.label)
	}
	for i, e := range s.engines {
		bs := barSeries{name: e, color: engineColor(i)}
		found := false
		for _, g := range groups {
			sum, n, ok := s.summary(g.sr, e, spec.unit)
			if ok {
				found = true
				c.runs.add(n)
			}
			bs.vals = append(bs.vals, sum)
		}
		if found {
			c.series = append(c.series, bs)
		}
	}
	if len(c.series) == 0 {
		return nil
	}
	return c
}

// sqlReadRatioChart draws, per SQL read workload, the time per op of every engine but
// ratioBase divided by ratioBase's, with a line at 1 and cairn's goal marked. It returns nil
// if no engine has a ratio.
func sqlReadRatioChart(s *store) *barChart {
	groups := workloadGroups(s, sqlReads)
	c := &barChart{
		file:     "sql-read-ratio",
		title:    "SQL reads: time per query ÷ SQLite's (modernc.org/sqlite)",
		yLabel:   "time ÷ " + ratioBase + "'s time (lower is faster)",
		unit:     ratioUnit,
		from:     1,
		ref:      1,
		refName:  ratioBase + " = 1",
		goalName: goalEngine + "'s goal",
		explain:  "bars: each engine's median time per op ÷ " + ratioBase + "'s",
		whiskers: "whiskers: its 95% confidence interval's ends ÷ " + ratioBase + "'s opposite ends",
		width:    9.5 * vg.Inch, // room for the labels of eight groups
	}
	for _, g := range groups {
		c.groups = append(c.groups, g.label)
	}
	for i, e := range s.engines {
		if e == ratioBase {
			continue
		}
		bs := barSeries{name: e, color: engineColor(i)}
		found := false
		for _, g := range groups {
			var r benchmath.Summary
			sum, n, ok := s.summary(g.sr, e, "sec/op")
			base, bn, bok := s.summary(g.sr, ratioBase, "sec/op")
			if ok && bok {
				r, found = ratioSummary(sum, base), true
				c.runs.add(n)
				c.runs.add(bn)
			}
			bs.vals = append(bs.vals, r)
		}
		if found {
			c.series = append(c.series, bs)
		}
	}
	if len(c.series) == 0 {
		return nil
	}
	if c.series[0].name == goalEngine { // goals bound the ratios of series[0]
		for _, g := range groups {
			c.goals = append(c.goals, g.goal)
		}
	}
	return c
}

// ratioSummary returns a's median over b's with the range from a's low end over b's high end
// to a's high end over b's low end where both have a finite interval (the ratio is in it when
// both medians are in theirs: with two 95% intervals, at least 90% of the time); else an
// infinite one.
func ratioSummary(a, b benchmath.Summary) benchmath.Summary {
	r := benchmath.Summary{Center: a.Center / b.Center, Lo: math.Inf(-1), Hi: math.Inf(1), Confidence: a.Confidence}
	if hasInterval(a) && hasInterval(b) {
		r.Lo, r.Hi = a.Lo/b.Hi, a.Hi/b.Lo
		r.Confidence = a.Confidence * b.Confidence
	}
	return r
}

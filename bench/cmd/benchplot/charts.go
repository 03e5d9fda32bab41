package main

import (
	"cmp"
	"image/color"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/plot/vg"
)

// A barChart is a grouped bar chart on a logarithmic Y axis: one group of bars per X
// category, one bar per series in every group.
type barChart struct {
	file   string // base name without extension
	title  string
	yLabel string
	unit   string // the benchfmt unit of the values, for the tick labels
	groups []string
	series []barSeries
	runs   runRange

	// Optional, for charts of ratios (sqlReadRatioChart):
	width    vg.Length // the figure's width; 0: figWidth
	from     float64   // the Y value the bars rise or fall from; 0: they rise from the axis's bottom
	goals    []float64 // by group, a mark across the bar of series[0] at this Y value; 0 for none
	goalName string    // the legend entry of the goal marks
	ref      float64   // a dashed line across the chart at this Y value; 0 for none
	refName  string    // the legend entry of the ref line
	explain  string    // a sentence for the caption saying what the bars are
	whiskers string    // the caption's account of the whiskers; "": benchstat's interval
}

// A barSeries is one bar in every group of a barChart, with one legend entry.
type barSeries struct {
	name  string
	color color.Color
	vals  []benchmath.Summary // by group; a zero Center where the series has no value
}

// A lineChart draws one line per engine over a numeric name parameter, both axes logarithmic.
type lineChart struct {
	file   string
	title  string
	xLabel string
	yLabel string
	unit   string
	xs     []float64 // every X value of any line, ascending
	lines  []lineSeries
	runs   runRange
}

// A lineSeries is one line of a lineChart.
type lineSeries struct {
	name  string
	index int // selects the colour and glyph, the same for an engine in every chart
	xs    []float64
	vals  []benchmath.Summary
}

// A runRange counts the runs behind the values of one chart (their -count).
type runRange struct{ min, max int }

// add counts a value of n runs.
func (r *runRange) add(n int) {
	if r.max == 0 || n < r.min {
		r.min = n
	}
	r.max = max(r.max, n)
}

// percentiles are the latency metrics the commit benchmarks report, as benchfmt tidies them.
var percentiles = []struct{ unit, label string }{
	{"p50-sec", "p50"}, {"p95-sec", "p95"}, {"p99-sec", "p99"}, {"p99.9-sec", "p99.9"},
}

// charts returns every chart the store has data for, in the order the documentation shows them.
func charts(s *store) []figure {
	var out []figure
	for _, c := range latencyCharts(s, commitLatency) {
		out = append(out, c)
	}
	for _, c := range writersCharts(s) {
		out = append(out, c)
	}
	for _, spec := range engineBarSpecs {
		for _, c := range engineBarCharts(s, spec) {
			out = append(out, c)
		}
	}
	if c := sqlReadRatioChart(s); c != nil {
		out = append(out, c)
	}
	for _, spec := range sqlLatencySpecs {
		for _, c := range latencyCharts(s, spec) {
			out = append(out, c)
		}
	}
	for _, spec := range sqlBarSpecs {
		if c := workloadBarChart(s, spec); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// A latencySpec describes the latency charts of one benchmark that reports the percentiles
// of its operations: one chart per sub-benchmark, the percentiles grouped by engine.
type latencySpec struct {
	base   string // benchmark name
	file   string // the charts' file name, before the suffix of the sub-benchmark
	title  string
	yLabel string
}

// commitLatency is the chart of durable commits of one writer.
var commitLatency = latencySpec{"CommitSync", "commit-latency", "Durable single-writer commit latency", "latency of one commit"}

// latencyCharts draws, for each sub-benchmark of spec.base, the latency percentiles grouped by
// engine.
func latencyCharts(s *store, spec latencySpec) []*barChart {
	var out []*barChart
	all := s.params[spec.base]
	for _, params := range all {
		sr := series{spec.base, params}
		c := &barChart{
			file:   spec.file + suffix(all, params),
			title:  spec.title + " (" + sr.name() + ")",
			yLabel: spec.yLabel,
			unit:   "sec/op",
		}
		addLatencyGroups(s, c, sr)
		if len(c.groups) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// addLatencyGroups adds one group per engine with any percentile of sr, and one series
// per percentile.
func addLatencyGroups(s *store, c *barChart, sr series) {
	c.series = make([]barSeries, len(percentiles))
	for i, p := range percentiles {
		c.series[i] = barSeries{name: p.label, color: percentileColors[i]}
	}
	for _, e := range s.engines {
		vals := make([]benchmath.Summary, len(percentiles))
		found := false
		for i, p := range percentiles {
			if sum, n, ok := s.summary(sr, e, p.unit); ok {
				vals[i], found = sum, true
				c.runs.add(n)
			}
		}
		if !found {
			continue
		}
		c.groups = append(c.groups, e)
		for i := range c.series {
			c.series[i].vals = append(c.series[i].vals, vals[i])
		}
	}
}

// writersCharts draws commits/s against the number of concurrent writers, one line per engine.
func writersCharts(s *store) []*lineChart {
	var out []*lineChart
	for _, g := range splitBy(s.params["ConcurrentWriters"], "writers") {
		c := &lineChart{
			file:   "writers" + g.suffix,
			title:  "Durable commits/s against concurrent writers (" + series{"ConcurrentWriters", g.rest}.name() + ")",
			xLabel: "concurrent writers",
			yLabel: "commits/s",
			unit:   "commits/s",
		}
		for i, e := range s.engines {
			if l := writersLine(s, c, g, e, i); len(l.xs) > 0 {
				c.lines = append(c.lines, l)
			}
		}
		if len(c.lines) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// writersLine collects one engine's points of a writers chart and notes their X values in c.
func writersLine(s *store, c *lineChart, g paramGroup, engine string, index int) lineSeries {
	l := lineSeries{name: engine, index: index}
	for i, v := range g.values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		sum, n, ok := s.summary(series{"ConcurrentWriters", g.params[i]}, engine, c.unit)
		if !ok {
			continue
		}
		l.xs, l.vals = append(l.xs, x), append(l.vals, sum)
		c.runs.add(n)
		if !slices.Contains(c.xs, x) {
			c.xs = append(c.xs, x)
			slices.Sort(c.xs)
		}
	}
	return l
}

// An engineBarSpec describes a chart with one group of bars per value of a name parameter
// and one bar per engine in every group.
type engineBarSpec struct {
	base    string // benchmark name
	groupBy string // the parameter whose values make the groups
	unit    string
	file    string
	title   string
	yLabel  string
}

var engineBarSpecs = []engineBarSpec{
	{"YCSB", "workload", "ops/s", "ycsb", "YCSB throughput, every write durable", "operations/s"},
	{"Get", "per-txn", "sec/op", "get", "Random point gets of cached keys, time per get", "time per get"},
	{"Scan", "len", "keys/s", "scan", "Scans of a cached data set, keys per second", "keys/s"},
}

// engineBarCharts draws one chart per combination of the parameters other than spec.groupBy.
func engineBarCharts(s *store, spec engineBarSpec) []*barChart {
	var out []*barChart
	for _, g := range splitBy(s.params[spec.base], spec.groupBy) {
		c := &barChart{
			file:   spec.file + g.suffix,
			title:  spec.title + " (" + series{spec.base, g.rest}.name() + ")",
			yLabel: spec.yLabel,
			unit:   spec.unit,
		}
		for _, v := range g.values {
			c.groups = append(c.groups, spec.groupBy+"="+v)
		}
		addEngineSeries(s, c, spec, g)
		if len(c.series) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// addEngineSeries adds one series per engine with a value in any group of g.
func addEngineSeries(s *store, c *barChart, spec engineBarSpec, g paramGroup) {
	for i, e := range s.engines {
		bs := barSeries{name: e, color: engineColor(i)}
		found := false
		for _, params := range g.params {
			sum, n, ok := s.summary(series{spec.base, params}, e, spec.unit)
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
}

// A paramGroup is the sub-benchmarks of one benchmark that differ only in one parameter.
type paramGroup struct {
	rest   string   // the other parameters: "records=10000/clients=8"
	suffix string   // for the file name: "" or "-" and the values of rest that vary between groups
	values []string // the values of the parameter, in natural order
	params []string // the full parameters of each value
}

// splitBy groups all (the parameters of one benchmark's sub-benchmarks) by everything but key.
// Parameters without key are left out.
func splitBy(all []string, key string) []paramGroup {
	var rests, withKey []string
	for _, p := range all {
		if _, ok := param(p, key); ok {
			withKey = append(withKey, p)
			if r := without(p, key); !slices.Contains(rests, r) {
				rests = append(rests, r)
			}
		}
	}
	var out []paramGroup
	for _, r := range rests {
		g := paramGroup{rest: r, suffix: suffix(rests, r)}
		for _, p := range withKey {
			if without(p, key) == r {
				v, _ := param(p, key)
				g.values, g.params = append(g.values, v), append(g.params, p)
			}
		}
		sortNatural(g.values, g.params)
		out = append(out, g)
	}
	return out
}

// sortNatural sorts values, and params with them: numbers first, in numeric order, then the
// rest as strings ("1" < "8" < "64" < "all").
func sortNatural(values, params []string) {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return compareNatural(values[a], values[b]) })
	v2, p2 := make([]string, len(values)), make([]string, len(params))
	for i, j := range idx {
		v2[i], p2[i] = values[j], params[j]
	}
	copy(values, v2)
	copy(params, p2)
}

// compareNatural orders numbers before other strings, numbers by value.
func compareNatural(a, b string) int {
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(fa, fb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// fileSafe matches what suffix replaces in parameter values.
var fileSafe = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// suffix returns "" if params is the only entry of all, else "-" and the values of the
// parameters of params that differ between the entries of all ("-insert" for
// "op=insert/value=100" beside "op=overwrite/value=100"), so that file names stay the same
// from a -short run to a full one.
func suffix(all []string, params string) string {
	var vals []string
	for _, p := range varying(all, params) {
		_, v, _ := strings.Cut(p, "=")
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return ""
	}
	return "-" + fileSafe.ReplaceAllString(strings.Join(vals, "-"), "_")
}

// name returns the series as benchstat would show it with -col /engine: "CommitSync/op=insert".
func (sr series) name() string {
	if sr.params == "" {
		return sr.base
	}
	return sr.base + "/" + sr.params
}

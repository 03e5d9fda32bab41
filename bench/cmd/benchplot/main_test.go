package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

const tiny = "testdata/tiny.txt"

// wantFiles are the charts testdata/tiny.txt has data for: no Scan, so no scan chart, and no
// SQLUpdate, so no sql-update-latency chart.
var wantFiles = []string{
	"commit-latency-overwrite", "commit-latency-insert", "writers", "ycsb", "get",
	"sql-read-ratio", "sql-insert-latency", "sql-insert-parallel-latency-8", "sql-insert-parallel-latency-64",
	"sql-write-rate", "sql-savepoints", "sql-json",
}

func TestRunWritesSVG(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-o", dir, "-note", "a test note", tiny}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v (stderr: %s)", err, stderr.String())
	}
	checkPrinted(t, stdout.String(), dir, "svg")
	if !strings.Contains(stderr.String(), "skipping") {
		t.Errorf("no warning about the malformed line; stderr: %q", stderr.String())
	}
	for _, name := range wantFiles {
		data, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		checkSVG(t, name, data)
		for _, want := range []string{"tiny.txt", "Test CPU", "a test note", "cairn abc1234"} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s.svg does not name %q", name, want)
			}
		}
	}
}

func TestRunWritesPNG(t *testing.T) {
	dir := t.TempDir()
	var stdout bytes.Buffer
	if err := run([]string{"-format", "png", "-o", dir, tiny}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	checkPrinted(t, stdout.String(), dir, "png")
	for _, name := range wantFiles {
		f, err := os.Open(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.png: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
			t.Errorf("%s.png is %v", name, b)
		}
	}
}

// checkPrinted checks that run printed the path of every wanted chart and nothing else.
func checkPrinted(t *testing.T, stdout, dir, ext string) {
	t.Helper()
	var want []string
	for _, name := range wantFiles {
		want = append(want, filepath.Join(dir, name+"."+ext))
	}
	if got := strings.Fields(stdout); !slices.Equal(got, want) {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// checkSVG checks that data is well-formed XML whose root element is svg.
func checkSVG(t *testing.T, name string, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s.svg: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s.svg: root element %q, want svg", name, root)
	}
}

func TestLoad(t *testing.T) {
	s, err := loadFiles([]string{tiny}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cairn", "sqlite", "sqlite-cgo"}; !slices.Equal(s.engines, want) {
		t.Errorf("engines %q, want %q (ReadTxn has no engine and is left out)", s.engines, want)
	}
	if want := []string{"op=overwrite/value=100", "op=insert/value=100"}; !slices.Equal(s.params["CommitSync"], want) {
		t.Errorf("CommitSync params %q, want %q", s.params["CommitSync"], want)
	}
	sum, n, ok := s.summary(series{"CommitSync", "op=insert/value=100"}, "cairn", "p99.9-sec")
	if !ok || n != 2 || sum.Center != 0.068 {
		t.Errorf("cairn insert p99.9: median %v s over %d runs (ok %v), want 0.068 s over 2", sum.Center, n, ok)
	}
	if _, _, ok := s.summary(series{"Scan", "keys=20000/len=all"}, "cairn", "keys/s"); ok {
		t.Error("a Scan summary where the input has none")
	}
}

func TestCharts(t *testing.T) {
	s, err := loadFiles([]string{tiny}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	figs := charts(s)
	var names []string
	for _, f := range figs {
		names = append(names, f.fileName())
	}
	if !slices.Equal(names, wantFiles) {
		t.Fatalf("charts %q, want %q", names, wantFiles)
	}
	lat := figs[1].(*barChart)
	if want := []string{"cairn", "sqlite"}; !slices.Equal(lat.groups, want) || len(lat.series) != 4 {
		t.Errorf("latency chart: groups %q and %d series, want %q and 4 (p50 to p99.9)", lat.groups, len(lat.series), want)
	}
	w := figs[2].(*lineChart)
	if want := []float64{1, 8, 64}; !slices.Equal(w.xs, want) || len(w.lines) != 2 || len(w.lines[1].xs) != 2 {
		t.Errorf("writers chart: xs %v, %d lines, want %v and 2 lines (sqlite without 64)", w.xs, len(w.lines), want)
	}
	y := figs[3].(*barChart)
	if want := []string{"workload=A", "workload=C"}; !slices.Equal(y.groups, want) {
		t.Errorf("YCSB groups %q, want %q", y.groups, want)
	}
	if y.series[1].vals[1].Center != 0 {
		t.Errorf("sqlite has a YCSB C value %v, the input has none", y.series[1].vals[1])
	}
	g := figs[4].(*barChart)
	if want := []string{"per-txn=1", "per-txn=100"}; !slices.Equal(g.groups, want) {
		t.Errorf("Get groups %q, want %q", g.groups, want)
	}
	if lat := figs[5].(*barChart); len(lat.series) == 0 || lat.series[0].name != "cairn" {
		t.Errorf("the KV latency chart lost its engines")
	}
}

// figureNamed returns the chart of figs with file name name.
func figureNamed(t *testing.T, figs []figure, name string) figure {
	t.Helper()
	for _, f := range figs {
		if f.fileName() == name {
			return f
		}
	}
	t.Fatalf("no chart %s", name)
	return nil
}

// seriesNames returns the names of c's series.
func seriesNames(c *barChart) []string {
	var names []string
	for _, s := range c.series {
		names = append(names, s.name)
	}
	return names
}

// centers returns the medians of a series.
func centers(s barSeries) []float64 {
	var out []float64
	for _, v := range s.vals {
		out = append(out, v.Center)
	}
	return out
}

// TestSQLCharts checks the SQL charts of testdata/tiny.txt: the read ratios to sqlite with
// cairn's goals, the latency percentiles of every engine, and the groups of the write and
// JSON charts.
func TestSQLCharts(t *testing.T) {
	s, err := loadFiles([]string{tiny}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	figs := charts(s)

	r := figureNamed(t, figs, "sql-read-ratio").(*barChart)
	wantGroups := []string{"point by key\ngoroutines=1", "point by key\ngoroutines=8", "full scan", "3-table join"}
	if !slices.Equal(r.groups, wantGroups) {
		t.Errorf("read ratio groups %q, want %q", r.groups, wantGroups)
	}
	if want := []string{"cairn", "sqlite-cgo"}; !slices.Equal(seriesNames(r), want) {
		t.Fatalf("read ratio series %q, want %q (no sqlite: it is the divisor)", seriesNames(r), want)
	}
	// cairn: 3000/6000, 2000/5000, 4 ms/1 ms; Join3 has no sqlite, so no ratio.
	if want := []float64{0.5, 0.4, 4, 0}; !slices.Equal(centers(r.series[0]), want) {
		t.Errorf("cairn's ratios %v, want %v", centers(r.series[0]), want)
	}
	if want := []float64{0.75, 0.8, 0, 0}; !slices.Equal(centers(r.series[1]), want) {
		t.Errorf("sqlite-cgo's ratios %v, want %v", centers(r.series[1]), want)
	}
	if want := []float64{0.5, 0.5, 1, 0.8}; !slices.Equal(r.goals, want) {
		t.Errorf("goals %v, want %v", r.goals, want)
	}
	if r.from != 1 || r.ref != 1 || r.unit != ratioUnit {
		t.Errorf("read ratio bars from %v, line at %v, unit %q; want 1, 1, %q", r.from, r.ref, r.unit, ratioUnit)
	}

	ins := figureNamed(t, figs, "sql-insert-latency").(*barChart)
	if want := []string{"cairn", "sqlite"}; !slices.Equal(ins.groups, want) || len(ins.series) != len(percentiles) {
		t.Errorf("insert latency: groups %q, %d series; want %q, %d", ins.groups, len(ins.series), want, len(percentiles))
	} else if got := ins.series[3].vals[1].Center; got != 620544e-9 {
		t.Errorf("sqlite's insert p99.9 %v s, want 620.544 µs", got)
	}
	par := figureNamed(t, figs, "sql-insert-parallel-latency-64").(*barChart)
	if got := par.series[2].vals[1].Center; got != 635437056e-9 {
		t.Errorf("sqlite's p99 with 64 goroutines %v s, want 635 ms", got)
	}

	w := figureNamed(t, figs, "sql-write-rate").(*barChart)
	wantGroups = []string{"INSERT, autocommit\ngoroutines=8", "INSERT, autocommit\ngoroutines=64", "bulk load\ntxn=10000"}
	if !slices.Equal(w.groups, wantGroups) {
		t.Errorf("write rate groups %q, want %q", w.groups, wantGroups)
	}
	if want := []float64{25715, 96381, 95183}; !slices.Equal(centers(w.series[0]), want) {
		t.Errorf("cairn's rows/s %v, want %v", centers(w.series[0]), want)
	}
	if want := []string{"cairn", "sqlite"}; !slices.Equal(seriesNames(w), want) {
		t.Errorf("write rate series %q, want %q (sqlite-cgo has no write rows)", seriesNames(w), want)
	}

	sp := figureNamed(t, figs, "sql-savepoints").(*barChart)
	if want := []string{"shape=flat50", "shape=nested5"}; !slices.Equal(sp.groups, want) {
		t.Errorf("savepoint groups %q, want %q", sp.groups, want)
	}
	if got := sp.series[1].vals[1].Center; got != 0 {
		t.Errorf("sqlite has a nested5 value %v, the input has none", got)
	}

	j := figureNamed(t, figs, "sql-json").(*barChart)
	if want := []string{"rows=10000\ncols=8-int", "rows=1\ncols=5-mixed"}; !slices.Equal(j.groups, want) {
		t.Errorf("JSON groups %q, want %q", j.groups, want)
	}
	if want := []string{"cairn", "sqlite", "sqlite-cgo"}; !slices.Equal(seriesNames(j), want) {
		t.Errorf("JSON series %q, want %q", seriesNames(j), want)
	}
}

// TestSQLReadRatioWithoutBase checks that no read ratio chart is drawn without sqlite's
// rows, and none without cairn's goals when cairn is missing.
func TestSQLReadRatioWithoutBase(t *testing.T) {
	s := newStore()
	in := "BenchmarkSQLScan/engine=cairn/rows=20000-2 1 4000000 ns/op\n" +
		"BenchmarkSQLScan/engine=sqlite-cgo/rows=20000-2 1 1000000 ns/op\n"
	if err := s.read(strings.NewReader(in), "in", io.Discard); err != nil {
		t.Fatal(err)
	}
	if c := sqlReadRatioChart(s); c != nil {
		t.Errorf("a read ratio chart without sqlite: %+v", c)
	}
	s = newStore()
	in = "BenchmarkSQLScan/engine=sqlite/rows=20000-2 1 4000000 ns/op\n" +
		"BenchmarkSQLScan/engine=sqlite-cgo/rows=20000-2 1 1000000 ns/op\n"
	if err := s.read(strings.NewReader(in), "in", io.Discard); err != nil {
		t.Fatal(err)
	}
	c := sqlReadRatioChart(s)
	if c == nil || len(c.series) != 1 || c.series[0].vals[0].Center != 0.25 {
		t.Fatalf("sqlite-cgo's ratio chart: %+v, want one series of 0.25", c)
	}
	if c.goals != nil {
		t.Errorf("goals %v without cairn", c.goals)
	}
}

// TestRatioSummary checks the ratio of two medians and its whiskers: the ends of the two
// intervals crossed where both are finite, infinite otherwise.
func TestRatioSummary(t *testing.T) {
	a := benchmath.Summary{Center: 2, Lo: 1, Hi: 4, Confidence: 0.95}
	b := benchmath.Summary{Center: 4, Lo: 2, Hi: 8, Confidence: 0.95}
	r := ratioSummary(a, b)
	if r.Center != 0.5 || r.Lo != 0.125 || r.Hi != 2 {
		t.Errorf("ratio %v [%v, %v], want 0.5 [0.125, 2]", r.Center, r.Lo, r.Hi)
	}
	b.Lo, b.Hi = math.Inf(-1), math.Inf(1)
	if r := ratioSummary(a, b); r.Center != 0.5 || hasInterval(r) {
		t.Errorf("ratio without b's interval: %v [%v, %v], want 0.5 and no interval", r.Center, r.Lo, r.Hi)
	}
}

func TestSplitByNaturalOrder(t *testing.T) {
	all := []string{"len=all/k=1", "len=100/k=1", "len=8/k=1", "len=8/k=2"}
	groups := splitBy(all, "len")
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	if want := []string{"8", "100", "all"}; !slices.Equal(groups[0].values, want) {
		t.Errorf("values %q, want %q", groups[0].values, want)
	}
	if groups[0].suffix != "-1" || groups[1].suffix != "-2" {
		t.Errorf("suffixes %q and %q, want -1 and -2", groups[0].suffix, groups[1].suffix)
	}
}

func TestRunErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, []byte("BenchmarkX-2 10 5 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{},
		{"-format", "gif", tiny},
		{filepath.Join(t.TempDir(), "missing.txt")},
		{"-o", t.TempDir(), empty},
	} {
		if err := run(args, new(bytes.Buffer), new(bytes.Buffer)); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}

// TestSuiteHasWhatIsCharted checks that the benchmarks, name parameters, metrics and engines
// the charts look for still appear in the suite's source (bench/*.go), so that renaming one
// there fails here instead of silently dropping a chart.
func TestSuiteHasWhatIsCharted(t *testing.T) {
	files, err := filepath.Glob("../../*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite sources found: %v", err)
	}
	var src []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, data...)
	}
	want := []string{
		"func BenchmarkCommitSync(", "func BenchmarkConcurrentWriters(", `"engine=`,
		"writers=", `"commits/s"`,
	}
	for _, p := range percentiles {
		want = append(want, `"`+strings.TrimSuffix(p.unit, "sec")+`ns"`)
	}
	for _, spec := range engineBarSpecs {
		want = append(want, "func Benchmark"+spec.base+"(", spec.groupBy+"=")
		if spec.unit != "sec/op" {
			want = append(want, `"`+spec.unit+`"`)
		}
	}
	for _, spec := range sqlLatencySpecs {
		want = append(want, "func Benchmark"+spec.base+"(")
	}
	ws := slices.Clone(sqlReads)
	for _, spec := range sqlBarSpecs {
		ws = append(ws, spec.workloads...)
		if spec.unit != "sec/op" {
			want = append(want, `"`+spec.unit+`"`)
		}
	}
	for _, w := range ws {
		want = append(want, "func Benchmark"+w.base+"(")
		for _, k := range w.show {
			want = append(want, k+"=")
		}
	}
	// The divisor of the read ratios and the engine the goals bound are SQL engines.
	_, engines, _ := bytes.Cut(src, []byte("var SQLEngines = []string{"))
	engines, _, _ = bytes.Cut(engines, []byte("}"))
	for _, e := range []string{goalEngine, ratioBase} {
		if !bytes.Contains(engines, []byte(strconv.Quote(e))) {
			t.Errorf("SQLEngines no longer has %q (engines: %s)", e, engines)
		}
	}
	for _, w := range want {
		if !bytes.Contains(src, []byte(w)) {
			t.Errorf("the suite's source no longer contains %s", w)
		}
	}
}

// TestRunWritesTables checks -tables: one table per unit with a column per engine, cairn's
// cells without a ratio, the others' with their ratio to cairn, and the path printed first.
func TestRunWritesTables(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "tables.md")
	var stdout bytes.Buffer
	if err := run([]string{"-o", dir, "-tables", md, tiny}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(stdout.String()); len(got) == 0 || got[0] != md {
		t.Errorf("printed %q, want %s first", got, md)
	}
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"Source: tiny.txt (Test CPU",
		"### sec/op\n\n| workload | cairn | sqlite |",
		"### allocs/op",
		// One run each: no interval. sqlite's 6980 ns against cairn's 338 ns is 21x.
		"| Get/keys=20000/per-txn=1 | 338.0ns ±∞ | 6.980µs ±∞ (21×) |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("tables lack %q:\n%s", want, text)
		}
	}
	if i, j := strings.Index(text, "### sec/op"), strings.Index(text, "### allocs/op"); i > j {
		t.Errorf("sec/op comes after allocs/op")
	}
}

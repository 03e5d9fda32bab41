package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const tiny = "testdata/tiny.txt"

// wantFiles are the charts testdata/tiny.txt has data for: no Scan, so no scan chart.
var wantFiles = []string{"commit-latency-overwrite", "commit-latency-insert", "writers", "ycsb", "get"}

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
	if want := []string{"cairn", "sqlite"}; !slices.Equal(s.engines, want) {
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

// TestSuiteHasWhatIsCharted checks that the benchmarks, name parameters and metrics the charts
// look for still appear in the suite's source (bench/*_test.go), so that renaming one there
// fails here instead of silently dropping a chart.
func TestSuiteHasWhatIsCharted(t *testing.T) {
	files, err := filepath.Glob("../../*_test.go")
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

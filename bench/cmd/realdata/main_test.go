package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParse checks the #define lines found in a header: object-like and function-like macros,
// empty values, continuation lines, and lines that are not definitions.
func TestParse(t *testing.T) {
	text := "#ifndef X_H\n#define X_H\n" +
		"#  define EPOLLIN 0x001 /* ready */\n" +
		"#define MAX(a, b) ((a) > (b) ? (a) : (b))\n" +
		"#define LONG 1 + \\\n  2\n" +
		"#define SPACED (x)\n" +
		"// #define NOT_A_DEFINE 1\n" +
		"#undef X\n#endif\n"
	type got struct {
		line          int64
		name, params  string
		value         string
		objectLike    bool
		paramsPresent bool
	}
	var defs []got
	lines := Parse([]byte(text), func(line int64, name string, params *string, value string) {
		g := got{line: line, name: name, value: value, objectLike: params == nil}
		if params != nil {
			g.params = *params
		}
		defs = append(defs, g)
	})
	if lines != 10 {
		t.Errorf("%d lines, want 10", lines)
	}
	want := []got{
		{line: 2, name: "X_H", objectLike: true},
		{line: 3, name: "EPOLLIN", value: "0x001 /* ready */", objectLike: true},
		{line: 4, name: "MAX", params: "(a, b)", value: "((a) > (b) ? (a) : (b))"},
		{line: 5, name: "LONG", value: "1 + \n  2", objectLike: true},
		{line: 7, name: "SPACED", value: "(x)", objectLike: true},
	}
	if fmt.Sprint(defs) != fmt.Sprint(want) {
		t.Errorf("defines:\n%v\nwant\n%v", defs, want)
	}
}

// TestEnginesAgree loads a small tree of headers written for the test into both engines and
// checks that every query returns the same rows on both and the rows counted are all there.
func TestEnginesAgree(t *testing.T) {
	src := t.TempDir()
	write := func(path, text string) {
		path = filepath.Join(src, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "#define EPOLL_%d %d\n#define PR_SET_%d 0x%x\n#define SIG%d(x) ((x) << %d)\n", i, i, i, i*7, i%40, i%5)
	}
	write("sys/epoll.h", b.String()+"#define EINVAL 22\n#define SIGINT 2\n")
	write("linux/errno.h", "#define EINVAL 22 /* Invalid argument */\n#define SIGINT 2\n#define SIGINT 3\n")
	write("top.h", "#define EINVAL\n#define LONGEST \\\n  \"a long, long value\"\n")
	write("notaheader.c", "#define IGNORED 1\n")
	d, err := Collect(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 3 || len(d.Defines) != 907 {
		t.Fatalf("%d files, %d defines; want 3, 907", len(d.Files), len(d.Defines))
	}
	var results []*Result
	for _, e := range Engines {
		dir := filepath.Join(t.TempDir(), e.Name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := Run(e, dir, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	if diffs := Diff(results[0], results[1], Engines[0].Name, Engines[1].Name); len(diffs) > 0 {
		t.Fatalf("results differ:\n%s", strings.Join(diffs, "\n"))
	}
	if got := results[0].Rows[0]; len(got) != 1 || got[0] != "int64:3|int64:907|int64:643" {
		t.Errorf("counts: %q", got)
	}
	for i, q := range Queries {
		if len(results[0].Rows[i]) == 0 {
			t.Errorf("query %s returned no rows", q.Name)
		}
	}
}

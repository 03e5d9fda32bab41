package main

// Tests that keep README.md true: its Go code compiles, its transcript is what kvsh prints, the
// Go versions it names are those of the go.mod files, and .gitignore covers what its quick
// start makes.

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// updateReadme makes TestReadmeTranscript rewrite README.md's transcript with kvsh's output.
var updateReadme = flag.Bool("update", false, "rewrite README.md's transcript with what kvsh prints")

// repoRoot is the module's root directory (cmd/kvsh is two levels below).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// fencedBlock is one fenced code block of a Markdown file.
type fencedBlock struct {
	lang  string // the word after the opening ```
	first int    // index of the block's first line in the file's lines
	lines []string
}

// fencedBlocks returns the fenced code blocks of a Markdown text split into lines.
func fencedBlocks(t *testing.T, lines []string) []fencedBlock {
	t.Helper()
	var blocks []fencedBlock
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := fencedBlock{lang: strings.TrimSpace(lang), first: i + 1}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.lines = append(b.lines, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("README.md: the block opened on line %d is not closed", b.first)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// readmeLines returns README.md's path and its lines.
func readmeLines(t *testing.T) (string, []string) {
	t.Helper()
	path := filepath.Join(repoRoot(t), "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, strings.Split(string(data), "\n")
}

// readmeImports are the packages README's Go code may use, by the name it calls them.
var readmeImports = map[string]string{
	"cairn":   "github.com/cairndb/cairn",
	"bytes":   "bytes",
	"context": "context",
	"errors":  "errors",
	"fmt":     "fmt",
	"log":     "log",
	"os":      "os",
	"time":    "time",
}

// TestReadmeCodeCompiles builds and vets README.md's Go code against this module, and checks
// that gofmt would not change it. A block that
// starts with "package" is a file of its own; the other blocks are, in order, the body of one
// function `func run(ctx context.Context) error` (README says so), given the imports of the
// packages they name and a main that calls run.
func TestReadmeCodeCompiles(t *testing.T) {
	_, lines := readmeLines(t)
	var files [][]byte
	var body []string
	for _, b := range fencedBlocks(t, lines) {
		if b.lang != "go" {
			continue
		}
		if len(b.lines) > 0 && strings.HasPrefix(b.lines[0], "package ") {
			files = append(files, []byte(strings.Join(b.lines, "\n")+"\n"))
			continue
		}
		body = append(body, fmt.Sprintf("\t// README.md line %d", b.first+1))
		for _, l := range b.lines {
			body = append(body, "\t"+l)
		}
	}
	if len(files) == 0 && len(body) == 0 {
		t.Fatal("README.md has no Go code")
	}
	if len(body) > 0 {
		code := strings.Join(body, "\n")
		pkgs := map[string]bool{"context": true, "log": true}
		for _, m := range regexp.MustCompile(`\b([a-z]+)\.[A-Z]`).FindAllStringSubmatch(code, -1) {
			if _, ok := readmeImports[m[1]]; ok {
				pkgs[m[1]] = true
			}
		}
		var imports []string
		for name := range pkgs {
			imports = append(imports, fmt.Sprintf("\t%q", readmeImports[name]))
		}
		slices.Sort(imports)
		files = append(files, fmt.Appendf(nil, "package main\n\nimport (\n%s\n)\n\n"+
			"func main() {\n\tif err := run(context.Background()); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}\n\n"+
			"func run(ctx context.Context) error {\n%s\n\treturn nil\n}\n", strings.Join(imports, "\n"), code))
	}

	// The code reads as Go is written: gofmt leaves it as it is.
	for i, f := range files {
		formatted, err := format.Source(f)
		if err != nil {
			t.Fatalf("readme%d.go does not parse: %v\n%s", i, err, f)
		}
		got, want := strings.Split(string(f), "\n"), strings.Split(string(formatted), "\n")
		for n := range min(len(got), len(want)) {
			if got[n] != want[n] {
				t.Errorf("README.md's Go code is not gofmt-formatted: readme%d.go line %d is\n%q\ngofmt makes it\n%q", i, n+1, got[n], want[n])
				break
			}
		}
	}

	dir := t.TempDir()
	root := repoRoot(t)
	gomod := fmt.Sprintf("module readmecheck\n\ngo 1.25\n\nrequire github.com/cairndb/cairn v0.0.0\n\nreplace github.com/cairndb/cairn => %s\n", root)
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
	for i, f := range files {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("readme%d.go", i)), f)
	}
	// The module's own dependencies are in the module cache already: nothing is downloaded. go
	// build lists every compile error (vet stops at the first), then vet checks the rest.
	for _, args := range [][]string{{"build", "-o", os.DevNull, "."}, {"vet", "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		var listing strings.Builder
		for i, f := range files {
			fmt.Fprintf(&listing, "--- readme%d.go\n", i)
			for n, l := range strings.Split(string(f), "\n") {
				fmt.Fprintf(&listing, "%3d  %s\n", n+1, l)
			}
		}
		t.Fatalf("README.md's Go code fails go %s: %v\n%s\n%s", args[0], err, out, listing.String())
	}
}

// TestReadmeGoVersions checks README.md names the Go release each module needs: the library's
// go.mod and bench/go.mod.
func TestReadmeGoVersions(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`)
	for _, mod := range []string{"go.mod", "bench/go.mod"} {
		data, err := os.ReadFile(filepath.Join(root, mod))
		if err != nil {
			t.Fatal(err)
		}
		m := goLine.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s has no go line", mod)
		}
		if want := "Go " + string(m[1]); !bytes.Contains(readme, []byte(want)) {
			t.Errorf("%s needs %s; README.md does not say %q", mod, m[1], want)
		}
	}
}

// TestGitignoreCoversQuickStart runs README's quick start (kvsh on the default cairn.db, then on
// my.db, as `go build ./cmd/kvsh` builds it) in an empty directory and checks that .gitignore
// ignores every file it makes at the root of a clone.
func TestGitignoreCoversQuickStart(t *testing.T) {
	root := repoRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git work tree")
	}
	dir := t.TempDir()
	runIn(t, dir, "", "-c", "put a 1").expect(t, "", "", 0)
	runIn(t, dir, "", "my.db", "-c", "put a 1; checkpoint").expect(t, "", "", 0)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"kvsh"} // the binary `go build ./cmd/kvsh` writes
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, name := range names {
		cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", name)
		if err := cmd.Run(); err != nil {
			t.Errorf("%s, made by the quick start, is not ignored by .gitignore (git check-ignore: %v)", name, err)
		}
	}
}

// transcriptMasks replace what differs from run to run in README's transcript, in the README and
// in kvsh's output alike, before they are compared: times, the database id and the checksums
// that depend on it.
var transcriptMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^(SyncTime|LastCheckpointStall|OldestReaderAge) \S+$`), "$1 <time>"},
	{regexp.MustCompile(`^SyncHistogram \[[\d ]+\]$`), "SyncHistogram <histogram>"},
	{regexp.MustCompile(`^(  database id +)0x[0-9a-f]+$`), "${1}<id>"},
	{regexp.MustCompile(`^(  checksum +)0x[0-9a-f]+ \(ok\)$`), "${1}<checksum> (ok)"},
}

// maskTranscript applies transcriptMasks to every line.
func maskTranscript(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for _, m := range transcriptMasks {
			l = m.re.ReplaceAllString(l, m.with)
		}
		out[i] = l
	}
	return out
}

// TestReadmeTranscript types the commands of each of README.md's terminal sessions (the blocks
// starting with "$ ./kvsh ") into kvsh on a pseudo-terminal, each in an empty directory, and
// compares the screen with the block, times and ids masked (transcriptMasks). The commands are
// the text after each prompt, the continuation prompt of a SQL statement included. With -update
// it writes the screens into README.md instead.
func TestReadmeTranscript(t *testing.T) {
	path, lines := readmeLines(t)
	var blocks []fencedBlock
	for _, b := range fencedBlocks(t, lines) {
		if len(b.lines) > 0 && strings.HasPrefix(b.lines[0], "$ ./kvsh ") {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		t.Fatal(`README.md has no block starting with "$ ./kvsh "`)
	}
	// Last block first, so that rewriting one leaves the line numbers of the earlier ones.
	for i := len(blocks) - 1; i >= 0; i-- {
		lines = readmeSession(t, lines, blocks[i])
	}
	if *updateReadme {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readmeSession runs the terminal session of one README block and compares its screen with the
// block; with -update it returns lines with the block replaced by the screen.
func readmeSession(t *testing.T, lines []string, block fencedBlock) []string {
	t.Helper()
	args := strings.Fields(strings.TrimPrefix(block.lines[0], "$ ./kvsh "))
	want := block.lines[1:]
	prompt := regexp.MustCompile(`^(?:kvsh(?:\((?:tx|ro)\))?(?::\S*)?|   \.\.\.)> (.*)$`)
	var commands []string
	for _, l := range want {
		if m := prompt.FindStringSubmatch(l); m != nil {
			commands = append(commands, m[1])
		}
	}
	if len(commands) == 0 || commands[len(commands)-1] != "quit" {
		t.Fatalf("README's transcript on line %d must end with quit; its commands are %q", block.first+1, commands)
	}

	term := startTerminalIn(t, t.TempDir(), "", args...)
	term.expectPrompt()
	for _, c := range commands[:len(commands)-1] {
		term.typ(c + "\r")
		term.expectPrompt()
	}
	term.typ("quit\r")
	if code := term.wait(); code != 0 {
		t.Fatalf("kvsh exit %d; screen %q", code, term.screen())
	}
	term.drain()
	term.mu.Lock()
	got := screenLines(term.buf)
	term.mu.Unlock()
	for len(got) > 0 && got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}

	if *updateReadme {
		t.Logf("README.md: transcript on line %d rewritten (%d lines)", block.first+1, len(got))
		return slices.Concat(lines[:block.first+1], got, lines[block.first+len(block.lines):])
	}
	g, w := maskTranscript(got), maskTranscript(want)
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("README.md's transcript differs from kvsh's screen at README line %d:\n"+
				"README: %q\nkvsh:   %q\n(go test ./cmd/kvsh -run TestReadmeTranscript -update rewrites it)\nkvsh's screen:\n%s",
				block.first+2+i, wl, gl, strings.Join(got, "\n"))
		}
	}
	return lines
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn"
)

// kvshBin is the kvsh binary built by TestMain.
var kvshBin string

// buildFlags are extra go build flags for the binary (race_test.go adds -race).
var buildFlags []string

// TestMain builds the kvsh binary used by the end-to-end tests.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

// testMain builds kvsh once into a temporary directory and runs the tests.
func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kvsh-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	kvshBin = filepath.Join(dir, "kvsh")
	args := append([]string{"build", "-o", kvshBin}, buildFlags...)
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building kvsh: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// result is what one kvsh run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// runIn runs kvsh in directory dir (the test's working directory if empty) with stdin as
// input and waits for it.
func runIn(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kvshBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("running kvsh %q: %v", args, err)
	}
	return res
}

// runKvsh runs kvsh with the given arguments and stdin.
func runKvsh(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runIn(t, "", stdin, args...)
}

// expect fails the test unless r matches the wanted output and exit status.
func (r result) expect(t *testing.T, stdout, stderr string, code int) {
	t.Helper()
	if r.stdout != stdout || r.stderr != stderr || r.code != code {
		t.Fatalf("got stdout %q, stderr %q, exit %d\nwant stdout %q, stderr %q, exit %d",
			r.stdout, r.stderr, r.code, stdout, stderr, code)
	}
}

// tempDB returns the path of a database in a fresh temporary directory.
func tempDB(t *testing.T) string {
	return filepath.Join(t.TempDir(), "test.db")
}

// TestCommandFlag runs commands given with -c.
func TestCommandFlag(t *testing.T) {
	db := tempDB(t)
	// The path may come before the flags, as users type it.
	r := runKvsh(t, "", db, "-c", "put a 1; put b 2; get a; scan; count; del a; get a")
	r.expect(t, "1\na\t1\nb\t2\n2\n", "error: not found: a\n", 1)
	runKvsh(t, "", "-c", "scan; count b; count c; del missing", db).expect(t, "b\t2\n1\n0\n", "", 0)
	runKvsh(t, "", "-c", "", db).expect(t, "", "", 0)
}

// TestStdin reads commands from a non-terminal stdin (no prompt).
func TestStdin(t *testing.T) {
	db := tempDB(t)
	input := "put a 1\nput b 2; get a\r\n# a comment\n\n   \nscan\nquit\nput c 3\n"
	runKvsh(t, input, db).expect(t, "1\na\t1\nb\t2\n", "", 0)
	// quit stopped the session: c was never written. exit works too, and a last line
	// without a newline still runs.
	runKvsh(t, "get b; exit; get c\n", db).expect(t, "2\n", "", 0)
	runKvsh(t, "get b\nget c", db).expect(t, "2\n", "error: not found: c\n", 1)
}

// TestDefaultPath opens cairn.db in the working directory when no path is given.
func TestDefaultPath(t *testing.T) {
	dir := t.TempDir()
	runIn(t, dir, "", "-c", "put k v").expect(t, "", "", 0)
	if _, err := os.Stat(filepath.Join(dir, "cairn.db")); err != nil {
		t.Fatalf("default database not created: %v", err)
	}
	runIn(t, dir, "get k").expect(t, "v\n", "", 0)
}

// TestErrorsDoNotEndSession checks each failure prints one error line and the session goes on.
func TestErrorsDoNotEndSession(t *testing.T) {
	db := tempDB(t)
	cmds := `frob; get; put onlykey; get nope; put "" v; put a "unterminated`
	r := runKvsh(t, "", db, "-c", cmds+"\nput z 1; get z")
	r.expect(t, "", "error: unterminated double quote at column 51\n", 1)
	runKvsh(t, "", db, "-c", "scan").expect(t, "", "", 0)

	// A malformed -c runs nothing. On stdin each line is parsed alone: only the malformed line is lost.
	lines0 := strings.ReplaceAll(cmds, `; put a "unterminated`, "\n"+`put a "unterminated`)
	r = runKvsh(t, lines0+"\nput z 1; get z\nscan\n", db)
	wantErr := []string{
		"error: unknown command frob (try help)",
		"error: usage: get KEY",
		"error: usage: put KEY VALUE",
		"error: not found: nope",
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 6 || r.code != 1 || r.stdout != "1\nz\t1\n" {
		t.Fatalf("got stdout %q stderr %q exit %d", r.stdout, r.stderr, r.code)
	}
	for i, want := range wantErr {
		if lines[i] != want {
			t.Errorf("stderr line %d = %q, want %q", i, lines[i], want)
		}
	}
	if !strings.HasPrefix(lines[4], "error: ") || !strings.HasPrefix(lines[5], "error: unterminated") {
		t.Errorf("stderr lines 4-5 = %q", lines[4:])
	}
}

// TestBail checks -bail stops at the first failure, in -c and stdin mode.
func TestBail(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", "-bail", db, "-c", "put a 1; get nope; put b 2").expect(t, "", "error: not found: nope\n", 1)
	runKvsh(t, "put c 3\nget nope\nput d 4\n", "-bail", db).expect(t, "", "error: not found: nope\n", 1)
	runKvsh(t, "", db, "-c", "scan").expect(t, "a\t1\nc\t3\n", "", 0)
	// Without -bail every command runs but the status still reports the failure.
	runKvsh(t, "", db, "-c", "get nope; put b 2; get b").expect(t, "2\n", "error: not found: nope\n", 1)
	runKvsh(t, "", "-bail", db, "-c", "get a; get b").expect(t, "1\n2\n", "", 0)
}

// TestBinarySafe stores and lists binary keys and values, and cuts long values in listings.
func TestBinarySafe(t *testing.T) {
	db := tempDB(t)
	long := strings.Repeat("y", 300)
	cmds := fmt.Sprintf(`put 0x00ff "line\nbreak"; put tab "a\tb"; put text 'plain words'; put long %s; `+
		`put "\"q" 0x22; get 0x00ff; get text; get "\x00\xff"; scan; prefix t; get long; count`, long)
	r := runKvsh(t, "", db, "-c", cmds)
	want := `"line\nbreak"` + "\n" + "plain words\n" + `"line\nbreak"` + "\n" +
		`"\x00\xff"` + "\t" + `"line\nbreak"` + "\n" +
		`"\"q"` + "\t" + `"\""` + "\n" +
		"long\t" + long[:200] + " … (300 bytes)\n" +
		"tab\t" + `"a\tb"` + "\n" +
		"text\tplain words\n" +
		"tab\t" + `"a\tb"` + "\n" +
		"text\tplain words\n" +
		long + "\n" + "5\n"
	r.expect(t, want, "", 0)
}

// TestScanRange checks the bounds of scan.
func TestScanRange(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "put a 1; put b 2; put c 3; put d 4").expect(t, "", "", 0)
	runKvsh(t, "", db, "-c", "scan b").expect(t, "b\t2\nc\t3\nd\t4\n", "", 0)
	runKvsh(t, "", db, "-c", "scan b d").expect(t, "b\t2\nc\t3\n", "", 0)
	runKvsh(t, "", db, "-c", "scan bb c").expect(t, "", "", 0)
	runKvsh(t, "", db, "-c", "scan a b c").expect(t, "", "error: usage: scan [START [END]]\n", 1)
}

// TestStatsCheckpointHelp checks stats prints "Name value" lines and help lists the commands.
func TestStatsCheckpointHelp(t *testing.T) {
	db := tempDB(t)
	r := runKvsh(t, "", db, "-c", "put a 1; checkpoint; stats")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("stats: exit %d, stderr %q", r.code, r.stderr)
	}
	line := regexp.MustCompile(`^[A-Z][A-Za-z0-9_.]* \S.*$`)
	for l := range strings.Lines(r.stdout) {
		if !line.MatchString(strings.TrimSuffix(l, "\n")) {
			t.Errorf("stats line %q is not \"Name value\"", l)
		}
	}
	if r.stdout == "" {
		t.Error("stats printed nothing")
	}
	r = runKvsh(t, "", db, "-c", "help; help import; help nope")
	for _, name := range []string{"get KEY", "scan [START [END]]", "import DIR", "verify DIR", "quit"} {
		if !strings.Contains(r.stdout, name) {
			t.Errorf("help does not mention %q:\n%s", name, r.stdout)
		}
	}
	if r.stderr != "error: unknown command nope\n" || r.code != 1 {
		t.Errorf("help nope: stderr %q exit %d", r.stderr, r.code)
	}
}

// TestUsageErrors checks bad command lines exit with status 2.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	r := runIn(t, dir, "", "a.db", "b.db")
	if r.code != 2 || !strings.Contains(r.stderr, "too many arguments") || !strings.Contains(r.stderr, "usage: kvsh") {
		t.Errorf("two paths: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runIn(t, dir, "", "-nope"); r.code != 2 || !strings.Contains(r.stderr, "-nope") {
		t.Errorf("unknown flag: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runIn(t, dir, "", "-h"); r.code != 0 || !strings.Contains(r.stderr, "-bail") {
		t.Errorf("-h: exit %d, stderr %q", r.code, r.stderr)
	}
	// "--" ends the flags: -c is then a database path.
	runIn(t, dir, "put k v", "--", "-c").expect(t, "", "", 0)
	if _, err := os.Stat(filepath.Join(dir, "-c")); err != nil {
		t.Errorf("database -c not created: %v", err)
	}
}

// TestVersion: -version and --version print the version line and exit 0 without opening (or
// creating) a database.
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	want := regexp.MustCompile(`^kvsh ` + regexp.QuoteMeta(version) + ` \(cairn page format \d+, go\S+ \w+/\w+\)\n$`)
	for _, flag := range []string{"-version", "--version"} {
		r := runIn(t, dir, "", flag)
		if r.code != 0 || r.stderr != "" || !want.MatchString(r.stdout) {
			t.Errorf("kvsh %s: exit %d, stdout %q, stderr %q", flag, r.code, r.stdout, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("kvsh -version created %v", entries)
	}
}

// TestOpenErrors checks a database that cannot be opened gives one error line and status 1.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	r := runKvsh(t, "", dir, "-c", "count")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "error: ") || r.stdout != "" {
		t.Errorf("directory as database: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(dir, "garbage.db")
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(bad, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	r = runKvsh(t, "", bad, "-c", "count")
	if r.code != 1 || !strings.Contains(r.stderr, "not a cairn database") {
		t.Errorf("garbage database: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestLocked opens a database in a long-running kvsh and checks a second one is refused.
func TestLocked(t *testing.T) {
	db := tempDB(t)
	first := start(t, db)
	first.send("count")
	first.waitStdout(t, "0")
	r := runKvsh(t, "", db, "-c", "count")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "locked") || !strings.HasPrefix(r.stderr, "error: ") {
		t.Fatalf("second kvsh: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	first.send("put a 1")
	if code := first.finish(t); code != 0 {
		t.Fatalf("first kvsh exit %d, stderr %q", code, first.stderr.String())
	}
	// Once the first one is gone the database opens again.
	runKvsh(t, "", db, "-c", "get a").expect(t, "1\n", "", 0)
}

// makeTree writes a test tree under root and returns the expected key/value pairs.
// Entries kvsh must skip (a symlink) are not in the map.
func makeTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	rng := rand.New(rand.NewChaCha8([32]byte{1, 2, 3}))
	big := make([]byte, 2<<20)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	files := map[string][]byte{
		"a.txt":                 []byte("hello\n"),
		"empty":                 {},
		"dir/x y.txt":           []byte("space in name"),
		"dir/ünï.txt":           []byte("värde"),
		"dir/sub/deep/file.bin": big,
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "dir-bad\xffname"), []byte("raw"), 0o644); err == nil {
		os.Remove(filepath.Join(root, "dir-bad\xffname"))
		files["dir/bad\xffname"] = []byte("raw name")
	} else {
		t.Logf("no non-UTF-8 file name on this system: %v", err)
	}
	for k, v := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(k)), v)
	}
	if err := os.MkdirAll(filepath.Join(root, "empty-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	return files
}

// writeFile writes data to path, creating parent directories.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// importedLine matches the final line of import: files, bytes, and the skipped files with their
// reasons, if any.
var importedLine = regexp.MustCompile(`^imported (\d+) files, (\d+) bytes in \d+\.\d\d s(?: \(skipped (\d+): ([^)]*)\))?$`)

// TestImportVerify imports a tree, verifies it, then detects a changed and an added file.
func TestImportVerify(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	files := makeTree(t, tree)
	db := filepath.Join(dir, "test.db")
	total := 0
	for _, v := range files {
		total += len(v)
	}

	r := runKvsh(t, "", db, "-c", "import "+strconv.Quote(tree)+"; verify "+strconv.Quote(tree)+"; count")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	m := importedLine.FindStringSubmatch(lines[0])
	if m == nil || m[1] != strconv.Itoa(len(files)) || m[2] != strconv.Itoa(total) || m[3] != "1" || m[4] != "1 symlink" {
		t.Errorf("import line %q, want %d files, %d bytes, 1 symlink skipped", lines[0], len(files), total)
	}
	if want := fmt.Sprintf("verified %d files: 0 mismatches, 0 missing (skipped 1: 1 symlink)", len(files)); lines[1] != want {
		t.Errorf("verify line %q, want %q", lines[1], want)
	}
	if lines[2] != strconv.Itoa(len(files)) {
		t.Errorf("count %q, want %d", lines[2], len(files))
	}
	wantWarn := "warning: skipping " + filepath.Join(tree, "link") + ": symlink\n"
	if r.stderr != wantWarn+wantWarn {
		t.Errorf("stderr %q, want the symlink skipped twice", r.stderr)
	}

	checkStoredValues(t, db, files)

	// One file changed and one added: verify fails in a new process.
	writeFile(t, filepath.Join(tree, "a.txt"), []byte("hellO\n"))
	writeFile(t, filepath.Join(tree, "new/file"), []byte("new"))
	r = runKvsh(t, "", db, "-c", "verify "+strconv.Quote(tree))
	want := fmt.Sprintf("verified %d files: 1 mismatches, 1 missing (skipped 1: 1 symlink)\n  mismatch: a.txt\n  missing: new/file\n", len(files)+1)
	r.expect(t, want, wantWarn+"error: verify: 1 mismatches, 1 missing\n", 1)

	// Restored: a checkpoint, then a fresh process verifies cleanly.
	writeFile(t, filepath.Join(tree, "a.txt"), files["a.txt"])
	if err := os.RemoveAll(filepath.Join(tree, "new")); err != nil {
		t.Fatal(err)
	}
	runKvsh(t, "", db, "-c", "checkpoint").expect(t, "", "", 0)
	r = runKvsh(t, "", db, "-c", "verify "+strconv.Quote(tree))
	r.expect(t, fmt.Sprintf("verified %d files: 0 mismatches, 0 missing (skipped 1: 1 symlink)\n", len(files)), wantWarn, 0)
	// -q silences the warnings; the summary still counts the symlink.
	r = runKvsh(t, "", "-q", db, "-c", "verify "+strconv.Quote(tree))
	r.expect(t, fmt.Sprintf("verified %d files: 0 mismatches, 0 missing (skipped 1: 1 symlink)\n", len(files)), "", 0)
}

// checkStoredValues reads every key back with get (Go-quoted or plain) and compares.
func checkStoredValues(t *testing.T, db string, files map[string][]byte) {
	t.Helper()
	for k, v := range files {
		r := runKvsh(t, "", db, "-c", "get "+strconv.Quote(k))
		if r.code != 0 || r.stderr != "" {
			t.Errorf("get %q: exit %d, stderr %q", k, r.code, r.stderr)
			continue
		}
		got := strings.TrimSuffix(r.stdout, "\n")
		if unq, err := strconv.Unquote(got); err == nil {
			got = unq
		}
		if got != string(v) {
			t.Errorf("get %q: %d bytes differ from the file's %d", k, len(got), len(v))
		}
	}
	r := runKvsh(t, "", db, "-c", "prefix dir/sub/")
	if !strings.Contains(r.stdout, "dir/sub/deep/file.bin\t") || !strings.HasSuffix(r.stdout, " … (2097152 bytes)\n") {
		t.Errorf("scan of the big file: %q", r.stdout)
	}
}

// TestImportCurrentDirectory imports "." holding the default database, which must skip the
// database's own files.
func TestImportCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "one"), []byte("1"))
	writeFile(t, filepath.Join(dir, "sub/two"), []byte("22"))
	r := runIn(t, dir, "", "-c", "import .; verify .; scan")
	lines := strings.Split(r.stdout, "\n")
	if r.code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "imported 2 files, 3 bytes in ") {
		t.Fatalf("import .: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if lines[1] != "verified 2 files: 0 mismatches, 0 missing (skipped 3: 3 files of the open database)" ||
		lines[2] != "one\t1" || lines[3] != "sub/two\t22" {
		t.Errorf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "warning: skipping cairn.db: file of the open database\n") ||
		!strings.Contains(r.stdout, " (skipped 3: 3 files of the open database)\n") {
		t.Errorf("stderr %q does not mention skipping cairn.db", r.stderr)
	}
}

// TestImportErrors checks import and verify refuse a file or a missing path.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	file := filepath.Join(dir, "file")
	writeFile(t, file, []byte("x"))
	r := runKvsh(t, "", db, "-c", "import "+strconv.Quote(file)+"; import "+strconv.Quote(filepath.Join(dir, "nope"))+"; verify "+strconv.Quote(file))
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != 1 || r.stdout != "" || len(lines) != 3 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(lines[0], "is not a directory") || !strings.Contains(lines[1], "no such file") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestImportUnreadable checks an unreadable file is skipped and counted (not as root).
func TestImportUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	writeFile(t, filepath.Join(tree, "ok"), []byte("ok"))
	writeFile(t, filepath.Join(tree, "secret"), []byte("no"))
	if err := os.Chmod(filepath.Join(tree, "secret"), 0); err != nil {
		t.Fatal(err)
	}
	r := runKvsh(t, "", filepath.Join(dir, "db"), "-c", "import "+strconv.Quote(tree))
	if r.code != 0 || !strings.Contains(r.stdout, "imported 1 files, 2 bytes") || !strings.Contains(r.stdout, "(skipped 1: 1 unreadable)") ||
		r.stderr != "warning: skipping "+filepath.Join(tree, "secret")+": unreadable: open: permission denied\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// makeSparseTree creates n sparse files of size bytes: slow to read, free on disk.
func makeSparseTree(t *testing.T, root string, n int, size int64) {
	t.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		path := filepath.Join(root, fmt.Sprintf("f%04d", i))
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil || st.Blocks > 8 {
			t.Skipf("no sparse files here (blocks %d, %v)", st.Blocks, err)
		}
	}
}

// TestInterrupt sends SIGINT during import and verify: each stops after its current batch,
// reports what it did, and the shell goes on. Both run for more than a second with stderr on a
// pipe: no progress or status line may appear there.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("reads gigabytes of sparse files")
	}
	if runtime.GOOS != "linux" {
		t.Skip("watches the files kvsh opens through /proc")
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const n = 256
	makeSparseTree(t, tree, n, 8<<20)
	sh := start(t, filepath.Join(dir, "db"))

	sh.send("import " + strconv.Quote(tree))
	sh.waitOpenUnder(t, tree)
	time.Sleep(time.Second)
	sh.interrupt(t)
	sh.send("count")
	m := importedLine.FindStringSubmatch(sh.waitStdout(t, "imported "))
	if m == nil {
		t.Fatal("bad import line")
	}
	imported, _ := strconv.Atoi(m[1])
	if imported >= n {
		t.Fatalf("import was not interrupted: %d files", imported)
	}
	if got := sh.waitStderr(t, "error: "); got != "error: import: interrupted" {
		t.Fatalf("stderr %q, want only the interruption", sh.stderr.String())
	}
	if got := sh.nextStdout(t); got != m[1] {
		t.Fatalf("count after interrupted import = %s, want the %d reported files", got, imported)
	}

	sh.send("verify " + strconv.Quote(tree))
	sh.waitOpenUnder(t, tree)
	time.Sleep(time.Second)
	sh.interrupt(t)
	// Stopped by Ctrl-C, verify says so: no "verified" line that reads as a pass.
	line := sh.waitStdout(t, "verify stopped after ")
	var verified, mismatches, missing int
	if _, err := fmt.Sscanf(line, "verify stopped after %d files: %d mismatches, %d missing", &verified, &mismatches, &missing); err != nil {
		t.Fatalf("verify line %q: %v", line, err)
	}
	if verified >= n || mismatches != 0 || missing != max(0, verified-imported) {
		t.Fatalf("interrupted verify: %q after importing %d", line, imported)
	}
	if got := sh.waitStderr(t, "error: "); got != "error: verify: interrupted" {
		t.Fatalf("stderr %q, want only the interruptions", sh.stderr.String())
	}
	if got := sh.stderr.String(); got != "error: import: interrupted\nerror: verify: interrupted\n" {
		t.Fatalf("stderr %q, want only the interruptions (no status lines on a pipe)", got)
	}

	// Between commands Ctrl-C ends kvsh; every reported import is still there on reopen.
	sh.interrupt(t)
	if st := sh.wait(t); st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Fatalf("idle kvsh after SIGINT: %v, want killed by SIGINT", st)
	}
	runKvsh(t, "", filepath.Join(dir, "db"), "-c", "count").expect(t, m[1]+"\n", "", 0)
}

// TestImportSkipsHugeFile checks a file over MaxValueSize is skipped with a warning that says
// so (a sparse file: nothing is written to disk), and that it is refused from its size, before
// kvsh opens it: made unreadable, it is still reported as too large, not as unreadable.
func TestImportSkipsHugeFile(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	makeSparseTree(t, tree, 1, cairn.MaxValueSize+1)
	writeFile(t, filepath.Join(tree, "small"), []byte("s"))
	r := runKvsh(t, "", filepath.Join(dir, "db"), "-c", "import "+strconv.Quote(tree)+"; verify "+strconv.Quote(tree))
	warn := fmt.Sprintf("warning: skipping %s: larger than 256 MiB (%d bytes)\n", filepath.Join(tree, "f0000"), cairn.MaxValueSize+1)
	if r.code != 0 || r.stderr != warn+warn || !strings.HasPrefix(r.stdout, "imported 1 files, 1 bytes in ") ||
		!strings.Contains(r.stdout, " (skipped 1: 1 larger than 256 MiB)\nverified 1 files: 0 mismatches, 0 missing (skipped 1: 1 larger than 256 MiB)\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if os.Geteuid() == 0 {
		return // root opens every file
	}
	if err := os.Chmod(filepath.Join(tree, "f0000"), 0); err != nil {
		t.Fatal(err)
	}
	r = runKvsh(t, "", filepath.Join(dir, "db"), "-c", "verify "+strconv.Quote(tree))
	if r.code != 0 || r.stderr != warn {
		t.Fatalf("unreadable huge file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// proc is a kvsh process fed through a pipe that the test keeps open.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    chan string // stdout lines
	errs   chan string // stderr lines
	stderr strings.Builder
}

// start launches kvsh on db reading commands from a pipe.
func start(t *testing.T, db string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(kvshBin, db), out: make(chan string, 1000), errs: make(chan string, 1000)}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	go readLines(stdout, p.out)
	go readLines(stderr, p.errs)
	return p
}

// readLines sends the lines of r to ch and closes ch at the end.
func readLines(r io.Reader, ch chan<- string) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		ch <- s.Text()
	}
	close(ch)
}

// send writes one command line.
func (p *proc) send(line string) {
	io.WriteString(p.stdin, line+"\n")
}

// interrupt delivers SIGINT as Ctrl-C would.
func (p *proc) interrupt(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
}

// lineTimeout bounds every wait for output.
const lineTimeout = time.Minute

// nextStdout returns the next stdout line.
func (p *proc) nextStdout(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.out:
		if !ok {
			t.Fatalf("stdout closed; stderr %q", p.drainStderr())
		}
		return l
	case <-time.After(lineTimeout):
		t.Fatalf("no stdout line; stderr %q", p.drainStderr())
	}
	return ""
}

// waitStdout skips stdout lines until one starts with prefix and returns it.
func (p *proc) waitStdout(t *testing.T, prefix string) string {
	t.Helper()
	for {
		if l := p.nextStdout(t); strings.HasPrefix(l, prefix) {
			return l
		}
	}
}

// waitStderr skips stderr lines until one starts with prefix and returns it.
func (p *proc) waitStderr(t *testing.T, prefix string) string {
	t.Helper()
	for {
		select {
		case l, ok := <-p.errs:
			if !ok {
				t.Fatalf("stderr closed before %q; stderr %q", prefix, p.stderr.String())
			}
			p.stderr.WriteString(l + "\n")
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-time.After(lineTimeout):
			t.Fatalf("no stderr line %q; stderr %q", prefix, p.stderr.String())
		}
	}
}

// waitOpenUnder waits until the process has a file under dir open (an import or verify has
// started reading the tree). Linux only: it reads /proc/PID/fd.
func (p *proc) waitOpenUnder(t *testing.T, dir string) {
	t.Helper()
	fds := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
	for deadline := time.Now().Add(lineTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(target, dir+"/") {
				return
			}
		}
	}
	t.Fatalf("kvsh opened no file under %s; stderr %q", dir, p.drainStderr())
}

// drainStderr collects the stderr lines received so far.
func (p *proc) drainStderr() string {
	for {
		select {
		case l, ok := <-p.errs:
			if !ok {
				return p.stderr.String()
			}
			p.stderr.WriteString(l + "\n")
		default:
			return p.stderr.String()
		}
	}
}

// finish closes stdin, drains the output and returns the exit status.
func (p *proc) finish(t *testing.T) int {
	t.Helper()
	p.stdin.Close()
	return p.wait(t).ExitCode()
}

// wait drains the output and waits for the process to end.
func (p *proc) wait(t *testing.T) *os.ProcessState {
	t.Helper()
	for range p.out {
	}
	for l := range p.errs {
		p.stderr.WriteString(l + "\n")
	}
	err := p.cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState
}

// TestCheck runs check on a healthy database ("ok"), then on one whose only tree page was
// damaged: one line per problem, the count ("1 problem", "N problems"), and a failed command.
func TestCheck(t *testing.T) {
	db := tempDB(t)
	// One commit: the leaf is page 2, verified in memory, then (after the checkpoint of Close)
	// read from the file.
	runKvsh(t, "", db, "-c", "put a 1; check").expect(t, "ok\n", "", 0)
	runKvsh(t, "", db, "-c", "check").expect(t, "ok\n", "", 0)
	// Inside a read-write transaction check would wait for itself: it is refused.
	runKvsh(t, "", db, "-c", "begin; check; rollback; begin ro; check; rollback").expect(t, "ok\n",
		"error: check is not allowed in a read-write transaction: commit or rollback first\n", 1)
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff}, 2*4096+100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := runKvsh(t, "", db, "-c", "check")
	if r.code != 1 || r.stderr != "error: check found problems\n" {
		t.Fatalf("check: exit %d, stderr %q", r.code, r.stderr)
	}
	if r.stdout != "pager: page 2: checksum mismatch: corrupt data\n1 problem\n" {
		t.Fatalf("check output %q", r.stdout)
	}
	// Under -bail the failed check stops the session.
	r = runKvsh(t, "", db, "-bail", "-c", "check; put c 3; get c")
	if r.code != 1 || strings.Count(r.stderr, "error:") != 1 || strings.Contains(r.stdout, "3") {
		t.Fatalf("check -bail: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestReadOnlyWritesNothing: -readonly opens with cairn's ReadOnly option: the files are left
// byte for byte as they were (the WAL is not replayed into the file, nothing is checkpointed at
// exit), while the commits only in the WAL are visible.
func TestReadOnlyWritesNothing(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "put a 1; checkpoint; put b 2").expect(t, "", "", 0)
	snapshot := func() string {
		var all string
		for _, p := range []string{db, db + "-wal", db + "-wal2"} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			all += string(b)
		}
		return all
	}
	before := snapshot()
	runKvsh(t, "", "-readonly", db, "-c", "scan; check").expect(t, "a\t1\nb\t2\nok\n", "", 0)
	if snapshot() != before {
		t.Fatal("kvsh -readonly changed the database files")
	}
}

// TestVerifyDamaged: verify on a database whose page holding one file's value is damaged counts
// the files it compared one by one and says it stopped there, with no summary that reads as a
// pass: "verify stopped after 30 files: …", then the read error.
func TestVerifyDamaged(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const n = 60
	for i := range n {
		writeFile(t, filepath.Join(tree, fmt.Sprintf("f%03d", i)), bytes.Repeat(fmt.Appendf(nil, "<f%03d>", i), 1000))
	}
	db := filepath.Join(dir, "test.db")
	r := runKvsh(t, "", db, "-c", "import "+strconv.Quote(tree)+"; checkpoint")
	if r.code != 0 || !strings.HasPrefix(r.stdout, fmt.Sprintf("imported %d files", n)) {
		t.Fatalf("import: %+v", r)
	}
	// Damage the page holding f030's value (an overflow page: 6,000 bytes).
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, bytes.Repeat([]byte("<f030>"), 100))
	if at < 0 {
		t.Fatal("f030's value is not in the page file")
	}
	flipFileByte(t, db, int64(at+10))
	r = runKvsh(t, "", db, "-c", "verify "+strconv.Quote(tree))
	if r.code != 1 || r.stdout != "verify stopped after 30 files: 0 mismatches, 0 missing\n" ||
		!strings.HasPrefix(r.stderr, "error: verify: get f030: ") || !strings.Contains(r.stderr, "corrupt") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("verify of a damaged database: %+v", r)
	}
}

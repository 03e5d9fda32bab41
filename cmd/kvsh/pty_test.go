package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// screenTimeout bounds every wait for terminal output.
const screenTimeout = 20 * time.Second

// terminal is kvsh running on a pseudo-terminal, driven as a person would type.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File // the master side
	mu   sync.Mutex
	cond *sync.Cond
	buf  []byte // everything kvsh printed
	mark int    // expect searches buf from here
	eof  bool
	gate sync.Mutex // held while the test pauses reading
	done chan struct{}
}

// startTerminal runs kvsh on db in a 40x200 pseudo-terminal with the given history file.
func startTerminal(t *testing.T, db, history string) *terminal {
	t.Helper()
	return startTerminalIn(t, "", history, db)
}

// startTerminalIn runs kvsh with the given arguments in directory dir (the test's if empty), in
// a 40x200 pseudo-terminal with the given history file.
func startTerminalIn(t *testing.T, dir, history string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(kvshBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TERM=xterm", historyEnv+"="+history)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	term.cond = sync.NewCond(&term.mu)
	go term.read()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
		<-term.done
		cmd.Wait()
	})
	return term
}

// read collects the terminal output until kvsh exits.
func (term *terminal) read() {
	defer close(term.done)
	p := make([]byte, 4096)
	for {
		term.gate.Lock()
		term.gate.Unlock()
		n, err := term.tty.Read(p)
		term.mu.Lock()
		term.buf = append(term.buf, p[:n]...)
		if err != nil {
			term.eof = true
		}
		term.cond.Broadcast()
		term.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// typ sends keystrokes.
func (term *terminal) typ(s string) {
	term.t.Helper()
	if _, err := term.tty.WriteString(s); err != nil {
		term.t.Fatalf("typing %q: %v", s, err)
	}
}

// expect waits until the output after the previous match contains want, and moves past it.
func (term *terminal) expect(want string) {
	term.t.Helper()
	term.expectMatch(strconv.Quote(want), func(b []byte) int {
		if i := bytes.Index(b, []byte(want)); i >= 0 {
			return i + len(want)
		}
		return -1
	})
}

// promptAtEnd matches a prompt at the end of the output: "kvsh> ", "kvsh(tx):users> ", or the
// continuation prompt of a SQL statement, "   ...> ".
var promptAtEnd = regexp.MustCompile(`(?:^|\n)(?:kvsh(?:\((?:tx|ro)\))?(?::[^\r\n]*)?|   \.\.\.)> $`)

// expectPrompt waits until the output after the previous match ends with a prompt (kvsh waits
// for a line), and moves past it.
func (term *terminal) expectPrompt() {
	term.t.Helper()
	term.expectMatch("a prompt", func(b []byte) int {
		if promptAtEnd.Match(b) {
			return len(b)
		}
		return -1
	})
}

// expectMatch waits until find finds what it looks for in the output after the previous match
// (it returns the end of the match, or -1), and moves past it. what names it in a failure.
func (term *terminal) expectMatch(what string, find func([]byte) int) {
	term.t.Helper()
	timer := time.AfterFunc(screenTimeout, func() {
		if os.Getenv("KVSH_DEBUG") != "" { // kvsh dumps its goroutines on the screen
			term.cmd.Process.Signal(syscall.SIGQUIT)
			time.Sleep(time.Second)
		}
		term.mu.Lock()
		term.eof = true // wake the waiter; the next check reports the timeout
		term.cond.Broadcast()
		term.mu.Unlock()
	})
	defer timer.Stop()
	term.mu.Lock()
	defer term.mu.Unlock()
	for {
		if end := find(term.buf[term.mark:]); end >= 0 {
			term.mark += end
			return
		}
		if term.eof {
			term.t.Fatalf("screen never showed %s; after the last match it shows %q", what, term.buf[term.mark:])
		}
		term.cond.Wait()
	}
}

// drain waits, after kvsh exited, until everything it printed has been read.
func (term *terminal) drain() {
	term.t.Helper()
	select {
	case <-term.done:
	case <-time.After(screenTimeout):
		term.t.Fatal("the terminal's output never ended")
	}
}

// screen returns everything printed since the last match.
func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return string(term.buf[term.mark:])
}

// wait waits for kvsh to exit and returns its exit code.
func (term *terminal) wait() int {
	term.t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- term.cmd.Wait() }()
	select {
	case err := <-exited:
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return exitErr.ExitCode()
		}
		if err != nil {
			term.t.Fatal(err)
		}
		return 0
	case <-time.After(screenTimeout):
		term.t.Fatalf("kvsh did not exit; screen %q", term.screen())
	}
	return -1
}

// TestTerminalEditing types commands, completes commands and keys with Tab, cancels a line with
// Ctrl-C, opens a transaction (the prompt shows it) and quits with Ctrl-D, which rolls it back
// and closes the database.
func TestTerminalEditing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	term := startTerminal(t, db, filepath.Join(dir, "history"))
	term.expect("kvsh> ")
	term.typ("put apple 1; put apricot 2; put banana 3; put \"a b\" 4\r")
	term.expect("kvsh> ")

	// A unique key prefix completes to the key and a space.
	term.typ("get ba\t")
	term.expect("get banana ")
	term.typ("\r")
	term.expect("3\r\n")
	term.expect("kvsh> ")

	// A shared prefix completes to the common part; a quoted key is completed quoted.
	term.typ("get apr\t\r")
	term.expect("2\r\n")
	term.typ("get \"a \t\r")
	term.expect("4\r\n")
	term.expect("kvsh> ")

	// A command name completes too.
	term.typ("cou\t")
	term.expect("count ")
	term.typ("\r")
	term.expect("4\r\n")
	term.expect("kvsh> ")

	// Ctrl-C drops the line being typed and the shell goes on.
	term.typ("put zzz 9")
	term.expect("put zzz 9") // echoed: liner reads keys (Ctrl-C too) itself now
	term.typ("\x03")
	term.expect("^C")
	term.typ("get zzz\r")
	term.expect("error: not found: zzz")
	term.expect("kvsh> ")

	// Errors are one line and keep the session.
	term.typ("frob\r")
	term.expect("error: unknown command frob (try help)")

	// A transaction shows in the prompt; Ctrl-D rolls it back and quits cleanly.
	term.typ("begin\r")
	term.expect("kvsh(tx)> ")
	term.typ("put t 1\r")
	term.expect("kvsh(tx)> ")
	term.typ("\x04")
	term.expect("warning: the open transaction was rolled back")
	if code := term.wait(); code != 0 { // frob and get zzz failed, but the session ended cleanly
		t.Fatalf("exit %d, want 0; screen %q", code, term.screen())
	}
	// The database was closed (not locked) and the rolled back key is absent.
	runKvsh(t, "", db, "-c", "count; get apricot").expect(t, "4\n2\n", "", 0)
}

// TestTerminalHistory checks history is saved in $KVSH_HISTORY and recalled with Up in the next
// session.
func TestTerminalHistory(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	hist := filepath.Join(dir, "history")

	term := startTerminal(t, db, hist)
	term.expect("kvsh> ")
	term.typ("put h1 v1\r")
	term.expect("kvsh> ")
	term.typ("get h1\r")
	term.expect("v1\r\n")
	term.typ("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("first session exit %d; screen %q", code, term.screen())
	}
	data, err := os.ReadFile(hist)
	if err != nil || string(data) != "put h1 v1\nget h1\n" {
		t.Fatalf("history file %q, %v", data, err)
	}

	term = startTerminal(t, db, hist)
	term.expect("kvsh> ")
	term.typ("put h1 v2\r")
	term.expect("kvsh> ")
	term.typ("\x1b[A\x1b[A") // Up twice: "get h1"
	term.expect("get h1")
	term.typ("\r")
	term.expect("v2\r\n")
	term.typ("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("second session exit %d; screen %q", code, term.screen())
	}
	data, _ = os.ReadFile(hist)
	if string(data) != "put h1 v1\nget h1\nput h1 v2\nget h1\n" {
		t.Fatalf("history file after two sessions %q", data)
	}
}

// TestTerminalInterruptScan presses Ctrl-C during a scan that cannot finish (the test stops
// reading the terminal, so kvsh blocks on output): the scan stops and the shell goes on.
func TestTerminalInterruptScan(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	const n = 20000
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "{\"key\":\"k%05d\",\"value\":\"%s\"}\n", i, strings.Repeat("v", 150))
	}
	data := filepath.Join(dir, "data.jsonl")
	writeFile(t, data, []byte(sb.String()))
	r := runKvsh(t, "", db, "-c", "import "+data+"; count")
	if r.code != 0 || !strings.HasSuffix(r.stdout, fmt.Sprintf("\n%d\n", n)) {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	term := startTerminal(t, db, filepath.Join(dir, "history"))
	term.expect("kvsh> ")
	term.gate.Lock() // stop reading: kvsh's output blocks once the terminal buffer is full
	term.typ("scan\r")
	time.Sleep(300 * time.Millisecond)
	term.typ("\x03")
	term.gate.Unlock()
	term.expect("k00000\t")
	// kvsh sets NOFLSH: the output queued before Ctrl-C, the error line and the prompt all show.
	term.expect("error: interrupted\r\n")
	term.expect("kvsh> ")
	term.typ("count\r")
	term.expect(fmt.Sprintf("\n%d\r\n", n))
	term.mu.Lock()
	all := string(term.buf)
	term.mu.Unlock()
	if strings.Contains(all, fmt.Sprintf("k%05d", n-1)) {
		t.Fatal("the scan ran to the end")
	}
	term.typ("quit\r")
	if code := term.wait(); code != 0 { // the interrupted scan failed, but quit ends cleanly
		t.Fatalf("exit %d; screen %q", code, term.screen())
	}
}

// TestTerminalBuckets checks the prompt shows the bucket in use (and the transaction), and that
// Tab completes bucket names after use and rmbucket, and keys within the bucket in use.
func TestTerminalBuckets(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	term := startTerminal(t, db, filepath.Join(dir, "history"))
	term.expect("kvsh> ")
	term.typ("mkbucket users; mkbucket uploads; mkbucket other; put apple default\r")
	term.expect("kvsh> ")

	// A unique bucket prefix completes; the prompt then shows the bucket.
	term.typ("use us\t")
	term.expect("use users ")
	term.typ("\r")
	term.expect("kvsh:users> ")
	term.typ("put apple 1; put apricot 2\r")
	term.expect("kvsh:users> ")
	term.typ("get apr\t\r")
	term.expect("2\r\n")
	term.expect("kvsh:users> ")
	term.typ("get appl\t\r")
	term.expect("1\r\n")
	term.expect("kvsh:users> ")

	// Two buckets share the prefix: a second Tab lists them; more letters complete one.
	term.typ("use u\t\t")
	term.expect("uploads")
	term.typ("p\t")
	term.expect("use uploads ")
	term.typ("\r")
	term.expect("kvsh:uploads> ")

	// In a transaction the prompt shows both; rmbucket completes bucket names too.
	term.typ("begin\r")
	term.expect("kvsh(tx):uploads> ")
	term.typ("rmbucket ot\t")
	term.expect("rmbucket other ")
	term.typ("\r")
	term.expect("kvsh(tx):uploads> ")
	term.typ("rollback\r")
	term.expect("kvsh:uploads> ")
	term.typ("use\r")
	term.expect("kvsh> ")
	term.typ("get apple\r")
	term.expect("default\r\n")
	term.typ("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; screen %q", code, term.screen())
	}
	runKvsh(t, "", db, "-c", "buckets").expect(t, "other\nuploads\nusers\n", "", 0)
}

// TestTerminalExitStatus: an interactive session that ends with quit or Ctrl-D exits 0 even
// though commands failed (their errors were shown); under -bail the first failure ends the
// session with status 1. The same commands from a script exit 1 (TestStdin, TestBail).
func TestTerminalExitStatus(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	hist := filepath.Join(dir, "history")
	for _, end := range []string{"quit\r", "exit\r", "\x04"} {
		term := startTerminal(t, db, hist)
		term.expect("kvsh> ")
		term.typ("get nokey\r")
		term.expect("error: not found: nokey\r\n")
		term.typ("frob; put a 1\r")
		term.expect("error: unknown command frob (try help)\r\n")
		term.expect("kvsh> ")
		term.typ(end)
		if code := term.wait(); code != 0 {
			t.Fatalf("ended with %q: exit %d, want 0; screen %q", end, code, term.screen())
		}
	}
	runKvsh(t, "", db, "-c", "get a").expect(t, "1\n", "", 0) // put a 1 ran after frob failed

	term := startTerminalIn(t, "", hist, "-bail", db)
	term.expect("kvsh> ")
	term.typ("get nokey\r")
	term.expect("error: not found: nokey\r\n")
	if code := term.wait(); code != 1 {
		t.Fatalf("-bail: exit %d, want 1; screen %q", code, term.screen())
	}
}

// TestTerminalStartLine: an interactive session starts with one line naming the version, the
// database, whether it was created (or an empty file made a database) or opened, and its keys;
// -q leaves it out, and so does a script.
func TestTerminalStartLine(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "history")
	start := func(want string, args ...string) {
		t.Helper()
		term := startTerminalIn(t, dir, hist, args...)
		term.expect("kvsh> ")
		term.mu.Lock()
		got := strings.TrimSuffix(string(term.buf[:term.mark]), "kvsh> ")
		term.mu.Unlock()
		if got != want {
			t.Fatalf("kvsh %q started with %q, want %q", args, got, want)
		}
		term.typ("put k" + strconv.Itoa(len(args)) + " v; mkbucket b" + strconv.Itoa(len(args)) + "\r")
		term.expect("kvsh> ")
		term.typ("\x04")
		if code := term.wait(); code != 0 {
			t.Fatalf("exit %d; screen %q", code, term.screen())
		}
	}
	start("cairn "+version+": my.db (created, 0 keys); type help\r\n", "my.db")
	start("cairn "+version+": my.db (opened, 1 key, 1 bucket); type help\r\n", "-bail", "my.db")
	start("", "-q", "-bail", "my.db")
	start("cairn "+version+": my.db (opened read-only, 3 keys, 3 buckets); type help\r\n", "-readonly", "my.db")
	writeFile(t, filepath.Join(dir, "empty.db"), nil)
	start("cairn "+version+": empty.db (created in the empty file, 0 keys); type help\r\n", "empty.db")
	// A script gets no start line.
	runIn(t, dir, "count\n", "my.db").expect(t, "3\n", "", 0)
	// Keys that cannot be read are not counted; the line says what was opened.
	runIn(t, dir, "", "leaf.db", "-c", "put a 1").expect(t, "", "", 0)
	flipFileByte(t, filepath.Join(dir, "leaf.db"), 2*4096+100) // the only leaf, page 2 (TestCheck)
	start("cairn "+version+": leaf.db (opened); type help\r\n", "leaf.db")
}

// screenLines replays terminal output as a terminal shows it, without a line length: text
// overwrites at the cursor, "\r" returns to column 0, "\n" starts the next line (the tty turns
// it into "\r\n"), a tab stays a tab, ESC[K erases to the end of the line, ESC[nC, ESC[nD and ESC[nG move the cursor, "\b"
// moves it back; other escape sequences are dropped. It returns the lines, trailing spaces cut.
func screenLines(raw []byte) []string {
	lines := [][]rune{nil}
	row, col := 0, 0
	put := func(r rune) {
		line := lines[row]
		for len(line) <= col {
			line = append(line, ' ')
		}
		line[col] = r
		lines[row] = line
		col++
	}
	s := []rune(string(raw))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\r':
			col = 0
		case '\n':
			row, col = row+1, 0
			if row == len(lines) {
				lines = append(lines, nil)
			}
		case '\b':
			col = max(col-1, 0)
		case 0x1b:
			if i+1 >= len(s) || s[i+1] != '[' {
				i++
				continue
			}
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			if j == len(s) {
				i = j
				continue
			}
			arg, _ := strconv.Atoi(string(s[i+2 : j]))
			switch s[j] {
			case 'K':
				if arg == 0 && col < len(lines[row]) {
					lines[row] = lines[row][:col]
				}
			case 'C':
				col += max(arg, 1)
			case 'D':
				col = max(col-max(arg, 1), 0)
			case 'G':
				col = max(arg, 1) - 1
			}
			i = j
		default:
			if c >= ' ' || c == '\t' { // a tab is kept as a tab, as a transcript shows it
				put(c)
			}
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(string(l), " ")
	}
	return out
}

// TestTerminalImportWarnings imports a tree with symlinks among its files, a socket and a named
// pipe on a terminal while the progress bar is drawn: every warning says why the file is
// skipped and stands on a line of its own (the bar is erased before it and drawn again after),
// and the summary counts the files skipped by reason. .quiet silences the warnings.
func TestTerminalImportWarnings(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const files, links = 4000, 2000
	for i := range files {
		writeFile(t, filepath.Join(tree, fmt.Sprintf("e%04d-file", i)), []byte("0123456789"))
		if i%2 == 0 {
			if err := os.Symlink(fmt.Sprintf("e%04d-file", i), filepath.Join(tree, fmt.Sprintf("e%04d-link", i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "p-fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock, err := net.Listen("unix", filepath.Join(tree, "s-sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()

	term := startTerminal(t, filepath.Join(dir, "test.db"), filepath.Join(dir, "history"))
	term.expect("kvsh> ")
	// Stop reading for a while: kvsh blocks on its warnings once the terminal's buffer is full,
	// so that the bar is due (drawn every 100 ms) when it goes on, with warnings still to come.
	term.gate.Lock()
	term.typ("import " + strconv.Quote(tree) + "\r")
	time.Sleep(500 * time.Millisecond)
	term.gate.Unlock()
	term.expect(fmt.Sprintf("imported %d files, %d bytes in ", files, 10*files))
	term.expect(fmt.Sprintf(" s (skipped %d: %d symlinks, 1 socket, 1 named pipe)\r\n", links+2, links))
	term.expect("kvsh> ")

	term.mu.Lock()
	raw := slices.Clone(term.buf)
	term.mu.Unlock()
	if bar := bytes.Index(raw, []byte("\rimport ")); bar < 0 || bar > bytes.LastIndex(raw, []byte("warning: skipping ")) {
		t.Fatal("no warning came after the progress bar was drawn: the test did not test that")
	}
	warnings := 0
	for _, line := range screenLines(raw) {
		i := strings.Index(line, "warning: ")
		if i < 0 {
			continue
		}
		warnings++
		if i > 0 || strings.Contains(line, "import ") || strings.Contains(line, "[") {
			t.Fatalf("a warning shares its line with something else: %q", line)
		}
		if !strings.HasSuffix(line, "-link: symlink") && !strings.HasSuffix(line, "p-fifo: named pipe") &&
			!strings.HasSuffix(line, "s-sock: socket") {
			t.Fatalf("warning %q does not say why", line)
		}
	}
	if warnings != links+2 {
		t.Fatalf("%d warnings, want %d", warnings, links+2)
	}

	// .quiet on: the same summary, no warning.
	term.typ(".quiet on; verify " + strconv.Quote(tree) + "\r")
	term.expect(fmt.Sprintf("verified %d files: 0 mismatches, 0 missing (skipped %d: %d symlinks, 1 socket, 1 named pipe)\r\n", files, links+2, links))
	term.expect("kvsh> ")
	term.mu.Lock()
	after := string(term.buf[len(raw):])
	term.mu.Unlock()
	if strings.Contains(after, "warning:") {
		t.Fatalf(".quiet on: warnings shown: %q", after)
	}
	term.typ(".quiet\r")
	term.expect("on\r\n")
	term.typ("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; screen %q", code, term.screen())
	}
}

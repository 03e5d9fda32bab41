package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/pager"
	"github.com/creack/pty"
)

// salvageDamagedDB builds a database of 763 keys in the default key space (random binary values, some
// longer than a page) and 300 in bucket "logs", checkpointed, then writes 16 KiB of random bytes
// into the middle of its pages, as a new user's test did (issue 27). It returns the path.
func salvageDamagedDB(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "damaged.db")
	db, err := cairn.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(27, 8))
	value := func(i int) []byte {
		v := make([]byte, 10+rng.IntN(300))
		if i%50 == 0 {
			v = make([]byte, 5000)
		}
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		return v
	}
	err = db.Update(func(tx *cairn.Tx) error {
		for i := range 763 {
			if err := tx.Put(fmt.Appendf(nil, "file/%04d", i), value(i)); err != nil {
				return err
			}
		}
		b, err := tx.CreateBucket([]byte("logs"))
		for i := 0; i < 300 && err == nil; i++ {
			err = b.Put(fmt.Appendf(nil, "log-%03d", i), value(i))
		}
		return err
	})
	if err == nil {
		err = db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 16<<10)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	slots, err := pager.ReadMetaPages(bytes.NewReader(b), int64(len(b)))
	if err != nil || slots.Current < 0 {
		t.Fatalf("meta pages: %v", err)
	}
	m := slots.Pages[slots.Current]
	used := int(m.PageCount) * int(m.PageSize) // the file may be longer (it grows in chunks)
	copy(b[used/2-5000:], junk)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// salvagedByLibrary returns what cairn.Salvage reads of path: bucket ("" for the default key
// space) -> key -> value, and the report.
func salvagedByLibrary(t *testing.T, path string) (map[string]map[string]string, *cairn.SalvageReport) {
	got := map[string]map[string]string{}
	rep, err := cairn.Salvage(path, nil, func(b, k, v []byte) error {
		if got[string(b)] == nil {
			got[string(b)] = map[string]string{}
		}
		got[string(b)][string(k)] = string(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, rep
}

// readSalvageExport parses a JSON Lines export.
func readSalvageExport(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p struct{ Key, Value jsonBytes }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		out[string(p.Key)] = string(p.Value)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// salvageFileSnapshot is a file's bytes and modification time.
func salvageFileSnapshot(t *testing.T, path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %d %x", fi.ModTime(), fi.Size(), b)
}

// TestSalvage runs kvsh -salvage on a database with 16 KiB of random bytes in the middle of its
// page file, where count fails: export writes exactly the keys cairn.Salvage reads, in each key
// space; the report is printed on stderr; writes are refused; recover writes a database that
// opens and checks clean; .meta reads the damaged file; and the damaged files are left as they
// were.
func TestSalvage(t *testing.T) {
	path := salvageDamagedDB(t)
	dir := filepath.Dir(path)
	if r := runIn(t, dir, "", "-readonly", path, "-c", "count; use logs; count"); r.code == 0 {
		t.Fatalf("counting the damaged database works (stdout %q): the test damages nothing", r.stdout)
	}
	want, rep := salvagedByLibrary(t, path)
	if len(rep.Unreadable) == 0 || rep.Keys == 0 {
		t.Fatalf("want some damage and some keys: %+v", rep)
	}
	before := map[string]string{}
	for _, p := range []string{path, path + "-wal", path + "-wal2"} {
		before[p] = salvageFileSnapshot(t, p)
	}
	out := filepath.Join(dir, "out.jsonl")
	logs := filepath.Join(dir, "logs.jsonl")
	r := runIn(t, dir, "", "-salvage", path, "-c", "export "+out+"; use logs; export "+logs+"; count")
	t.Logf("kvsh -salvage %s -c 'export ...':\n%s%s", filepath.Base(path), r.stderr, r.stdout)
	if r.code != 0 {
		t.Fatalf("kvsh -salvage: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, fmt.Sprintf("salvage %s: %d keys: ", path, rep.Keys)) {
		t.Fatalf("the report does not start the standard error: %q", r.stderr)
	}
	for _, line := range []string{"  meta page 0: ", "  pages: ", "  unreadable page ", "  wal: 0 records applied after LSN "} {
		if !strings.Contains(r.stderr, "\n"+line) {
			t.Fatalf("report without %q:\n%s", line, r.stderr)
		}
	}
	if got := readSalvageExport(t, out); !salvageMapsEqual(got, want[""]) {
		t.Fatalf("export of the default key space: %d keys, the library salvages %d", len(got), len(want[""]))
	}
	if got := readSalvageExport(t, logs); !salvageMapsEqual(got, want["logs"]) {
		t.Fatalf("export of bucket logs: %d keys, the library salvages %d", len(got), len(want["logs"]))
	}
	if !strings.HasSuffix(r.stdout, fmt.Sprintf("\n%d\n", len(want["logs"]))) {
		t.Fatalf("count in logs: stdout %q", r.stdout)
	}

	// Writes are refused; .salvage prints the report again; .meta reads the damaged file.
	r = runIn(t, dir, "", "-salvage", path, "-c", "put a 1; .salvage; .meta")
	if r.code != 1 || !strings.Contains(r.stderr, "error: put is not allowed: the salvaged keys are read-only") {
		t.Fatalf("put: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, fmt.Sprintf("salvage %s: %d keys: ", path, rep.Keys)) || !strings.Contains(r.stdout, "meta page 0 (offset 0): valid") {
		t.Fatalf(".salvage and .meta: stdout %q", r.stdout)
	}

	// recover writes the salvaged keys to a new database, which opens, checks clean and holds
	// them.
	recovered := filepath.Join(dir, "recovered.db")
	if r := runIn(t, dir, "", "-salvage", path, "-c", "recover "+recovered); r.code != 0 {
		t.Fatalf("recover: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runIn(t, dir, "", recovered, "-c", "check; count; use logs; count")
	if want := fmt.Sprintf("ok\n%d\n%d\n", len(want[""]), len(want["logs"])); r.code != 0 || r.stdout != want {
		t.Fatalf("recovered database: exit %d, stdout %q (want %q), stderr %q", r.code, r.stdout, want, r.stderr)
	}
	for p, b := range before {
		if salvageFileSnapshot(t, p) != b {
			t.Fatalf("kvsh -salvage changed %s", p)
		}
	}
	// Outside salvage mode the salvage commands say how to get there.
	r = runIn(t, dir, "", recovered, "-c", ".salvage; recover x.db")
	if r.code != 1 || strings.Count(r.stderr, "only in salvage mode: kvsh -salvage DAMAGED.db") != 2 {
		t.Fatalf("salvage commands without -salvage: exit %d, stderr %q", r.code, r.stderr)
	}
}

func salvageMapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal([]byte(v), []byte(w)) {
			return false
		}
	}
	return true
}

// TestSalvageTerminal runs kvsh -salvage on a terminal, as a person does: the report comes
// first, then the prompt; the commands read the salvaged keys; quit ends the session.
func TestSalvageTerminal(t *testing.T) {
	path := salvageDamagedDB(t)
	want, _ := salvagedByLibrary(t, path)
	cmd := exec.Command(kvshBin, "-salvage", path)
	cmd.Env = append(os.Environ(), "TERM=xterm", historyEnv+"=")
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
	term.expect(fmt.Sprintf("salvage %s: ", path))
	term.expect("kvsh")
	term.typ("count\r")
	term.expect(fmt.Sprintf("\n%d\r\n", len(want[""])))
	term.typ("use logs; count\r")
	term.expect(fmt.Sprintf("\n%d\r\n", len(want["logs"])))
	term.typ(".salvage\r")
	term.expect("  wal: 0 records applied")
	term.typ("quit\r")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}

package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn"
)

// TestBuckets creates, lists, uses and deletes buckets, with every error path: each error is one
// line and the session goes on.
func TestBuckets(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", `mkbucket users; mkbucket "bin\x00\xff"; mkbucket "a b"; buckets; put k default`).
		expect(t, "a b\n"+`"bin\x00\xff"`+"\nusers\n", "", 0)
	// The data commands work in the bucket in use; use, use . and use "" go back.
	runKvsh(t, "", db, "-c", "use users; put k1 v1; put k2 v2; put j0 x; del j0; get k1; scan; range k2; prefix k; "+
		"first; last k; count; count k2; use; get k; count; use users; use .; get k").
		expect(t, "v1\nk1\tv1\nk2\tv2\nk2\tv2\nk1\tv1\nk2\tv2\nk1\tv1\nk2\tv2\n2\n1\ndefault\n1\ndefault\n", "", 0)
	runKvsh(t, "", db, "-c", `use "bin\x00\xff"; put 0x00 1; scan; use 0x62696e00ff; count; use "a b"; first`).
		expect(t, `"\x00"`+"\t1\n1\n", "error: bucket a b is empty\n", 1)
	// Errors.
	runKvsh(t, "", db, "-c", `use nope; mkbucket users; rmbucket nope; mkbucket ""; use users; get nope; `+
		"mkbucket; rmbucket a b; use a b; buckets x; count").
		expect(t, "2\n", "error: bucket not found: nope\n"+
			"error: bucket exists: users\n"+
			"error: bucket not found: nope\n"+
			"error: bucket name required (a bucket name is 1 or more bytes)\n"+
			"error: not found: nope\n"+
			"error: usage: mkbucket NAME\n"+
			"error: usage: rmbucket NAME\n"+
			"error: usage: use [BUCKET|.]\n"+
			"error: usage: buckets\n", 1)
	long := strconv.Quote(strings.Repeat("n", cairn.MaxKeySize+1))
	runKvsh(t, "", db, "-c", "mkbucket "+long).expect(t, "", "error: cairn: bucket name of 16,385 bytes is larger than the 16,384-byte limit\n", 1)
	// Deleting the bucket in use goes back to the default key space, saying so.
	runKvsh(t, "", db, "-c", "use users; rmbucket users; get k; buckets; use users").expect(t, "default\na b\n"+`"bin\x00\xff"`+"\n",
		"warning: bucket users no longer exists: back to the default key space\nerror: bucket not found: users\n", 1)
	// -readonly refuses mkbucket and rmbucket; buckets and use work.
	runKvsh(t, "", "-readonly", db, "-c", `mkbucket x; rmbucket "a b"; use "a b"; count; buckets`).
		expect(t, "0\na b\n"+`"bin\x00\xff"`+"\n", "error: mkbucket is not allowed: the database was opened with -readonly\n"+
			"error: rmbucket is not allowed: the database was opened with -readonly\n", 1)
	runKvsh(t, "", db, "-c", "help use; help rmbucket").expect(t,
		"use [BUCKET|.]\n    make the data commands work in BUCKET (none or .: the default key space)\n"+
			"rmbucket NAME\n    delete a bucket and every key in it\n", "", 0)
}

// TestBucketsInTransaction checks that the bucket commands work in the shell's transaction:
// uncommitted buckets are visible to it, a rollback undoes them (and leaves a bucket it removed),
// and a read-only transaction refuses mkbucket and rmbucket.
func TestBucketsInTransaction(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "begin; mkbucket t; use t; put a 1; buckets; count; commit; count; buckets").
		expect(t, "t\n1\n1\nt\n", "", 0)
	runKvsh(t, "", db, "-c", "begin; mkbucket u; use u; put b 2; rollback; buckets; count").expect(t, "t\n0\n",
		"warning: bucket u no longer exists: back to the default key space\n", 0)
	runKvsh(t, "", db, "-c", "use t; begin; rmbucket t; buckets; rollback; buckets; use t; get a").expect(t, "t\n1\n",
		"warning: bucket t no longer exists: back to the default key space\n", 0)
	runKvsh(t, "", db, "-c", "begin ro; mkbucket x; rmbucket t; use t; count; buckets").expect(t, "1\nt\n",
		"error: mkbucket is not allowed in a read-only transaction: commit or rollback first\n"+
			"error: rmbucket is not allowed in a read-only transaction: commit or rollback first\n", 1)
	// use looks in the open transaction too.
	runKvsh(t, "", db, "-c", "begin ro; use t; commit; begin; rmbucket t; use t; commit; use t").expect(t, "",
		"warning: bucket t no longer exists: back to the default key space\n"+
			"error: bucket not found: t\nerror: bucket not found: t\n", 1)
}

// TestBucketImportExportVerify imports a directory and a JSON Lines file into a bucket, verifies
// them there (not in the default key space) and exports the bucket.
func TestBucketImportExportVerify(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	tree := filepath.Join(dir, "tree")
	writeFile(t, filepath.Join(tree, "a.txt"), []byte("A"))
	writeFile(t, filepath.Join(tree, "sub", "b.bin"), []byte{0, 1, 2})
	jsonl := filepath.Join(dir, "in.jsonl")
	writeFile(t, jsonl, []byte(`{"key":"j","value":{"base64":"AP8="}}`+"\n"))
	out := filepath.Join(dir, "out.jsonl")
	r := runKvsh(t, "", db, "-c", "mkbucket files; use files; import "+tree+"; import "+jsonl+"; verify "+tree+
		"; export "+out+"; count; use; count; verify "+tree)
	want := regexp.MustCompile(`^imported 2 files, 4 bytes in \S+ s
imported 1 pairs, 2 bytes in \S+ s
verified 2 files: 0 mismatches, 0 missing
exported 3 keys, 6 bytes in \S+ s
3
0
verified 2 files: 0 mismatches, 2 missing
  missing: a.txt
  missing: sub/b.bin
$`)
	if !want.MatchString(r.stdout) || r.stderr != "error: verify: 0 mismatches, 2 missing\n" || r.code != 1 {
		t.Fatalf("import, verify, export in a bucket: %+v", r)
	}
	got, _ := os.ReadFile(out)
	wantFile := `{"key":"a.txt","value":"A"}` + "\n" + `{"key":"j","value":{"base64":"AP8="}}` + "\n" +
		`{"key":"sub/b.bin","value":{"base64":"AAEC"}}` + "\n"
	if string(got) != wantFile {
		t.Fatalf("exported %q, want %q", got, wantFile)
	}
}

// TestSavepoints checks savepoint, rollback to and release in a shell transaction, and their
// errors outside one.
func TestSavepoints(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "savepoint; savepoint a; rollback to a; release a; begin ro; savepoint; rollback to a; release a").
		expect(t, "", strings.Repeat("error: savepoints need an open transaction (begin starts one)\n", 4)+
			strings.Repeat("error: savepoints need a read-write transaction (this one is read-only)\n", 3), 1)
	// Unnamed savepoints print their number; rollback to keeps the savepoint, drops later ones.
	runKvsh(t, "", db, "-c", "begin; put a 1; savepoint; mkbucket u; use u; put x 1; savepoint named; put y 2; savepoint; "+
		"count; rollback to named; count; rollback to named; rollback to 2; savepoint named; rollback to 1; buckets; count; "+
		"release 1; rollback to 1; savepoint; release 3; savepoint 4; savepoint; commit; scan").
		expect(t, "1\n2\n2\n1\n1\n3\n5\na\t1\n", "error: no savepoint 2 in this transaction\n"+
			"error: savepoint exists: named (release it or pick another name)\n"+
			"warning: bucket u no longer exists: back to the default key space\n"+
			"error: no savepoint 1 in this transaction\n", 1)
	runKvsh(t, "", db, "-c", "rollback to; rollback x; rollback to a b; rollback from a; release").expect(t, "",
		strings.Repeat("error: usage: rollback [to NAME]\n", 4)+"error: usage: release NAME\n", 1)
	// Binary names; commit and rollback end the savepoints; a new transaction numbers from 1.
	runKvsh(t, "", db, "-c", `begin; savepoint "s\x00"; put b 2; rollback to "s\x00"; commit; begin; rollback to "s\x00"; savepoint; rollback; get b`).
		expect(t, "1\n", `error: no savepoint "s\x00" in this transaction`+"\nerror: not found: b\n", 1)
}

// TestBackup backs up a database with buckets and opens the copy; the errors are one line.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	db, copy := filepath.Join(dir, "test.db"), filepath.Join(dir, "copy.db")
	putAll(t, db, binaryPairs())
	r := runKvsh(t, "", db, "-c", "mkbucket b; use b; put k v; begin; put uncommitted 1; backup "+copy+"; rollback; backup "+copy)
	if r.code != 1 || !regexp.MustCompile(`^backup \S+copy.db: \d+ bytes, \d+ pages in \S+ s\n$`).MatchString(r.stdout) ||
		!strings.HasPrefix(r.stderr, "error: backup: open ") || !strings.HasSuffix(r.stderr, "copy.db: file exists\n") {
		t.Fatalf("backup: %+v", r)
	}
	st, err := os.Stat(copy)
	size := regexp.MustCompile(`: (\d+) bytes`).FindStringSubmatch(r.stdout)
	if err != nil || strconv.FormatInt(st.Size(), 10) != size[1] {
		t.Fatalf("backup size %v, printed %s", err, size[1])
	}
	samePairs(t, dumpJSONL(t, copy), binaryPairs())
	runKvsh(t, "", copy, "-c", "buckets; use b; scan; check").expect(t, "b\nk\tv\nok\n", "", 0)
	// -readonly allows a backup; a missing directory is one error line.
	r = runKvsh(t, "", "-readonly", db, "-c", "backup "+filepath.Join(dir, "ro.db")+"; backup "+filepath.Join(dir, "no", "x.db"))
	if r.code != 1 || !strings.HasPrefix(r.stdout, "backup ") || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "no such file or directory") {
		t.Fatalf("backup under -readonly: %+v", r)
	}
}

// TestCompact shrinks a database after a large bucket is deleted, and checks the refusals.
func TestCompact(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	data := filepath.Join(dir, "big.jsonl")
	var sb strings.Builder
	for i := range 600 {
		sb.WriteString(`{"key":"k` + strconv.Itoa(i) + `","value":"` + strings.Repeat("v", 3000) + `"}` + "\n")
	}
	writeFile(t, data, []byte(sb.String()))
	r := runKvsh(t, "", db, "-c", "mkbucket big; mkbucket keep; use keep; put a 1; use big; import "+data+"; use; put d 1; checkpoint; rmbucket big; compact; check; get d; use keep; get a")
	m := regexp.MustCompile(`(?m)^compact: (\d+) → (\d+) pages, (\d+) → (\d+) bytes \(\d+ pass(es)?, \d+ extents moved\) in \S+ s\nok\n1\n1\n$`).FindStringSubmatch(r.stdout)
	if r.code != 0 || r.stderr != "" || m == nil {
		t.Fatalf("compact: %+v", r)
	}
	before, _ := strconv.Atoi(m[1])
	after, _ := strconv.Atoi(m[2])
	fileAfter, _ := strconv.ParseInt(m[4], 10, 64)
	if after >= before/4 || fileAfter != int64(after)*4096 {
		t.Fatalf("compact from %d to %d pages, file %d bytes", before, after, fileAfter)
	}
	if st, err := os.Stat(db); err != nil || st.Size() != fileAfter {
		t.Fatalf("file size after compact: %v %v, printed %d", st, err, fileAfter)
	}
	runKvsh(t, "", db, "-c", "begin; compact; rollback; begin ro; compact").expect(t, "",
		"error: compact cannot run inside a transaction: commit or rollback first\n"+
			"error: compact is not allowed in a read-only transaction: commit or rollback first\n", 1)
	runKvsh(t, "", "-readonly", db, "-c", "compact").expect(t, "", "error: compact is not allowed: the database was opened with -readonly\n", 1)
}

// testShell opens a database in the test process and returns a shell on it writing to out.
func testShell(t *testing.T, out io.Writer) *shell {
	t.Helper()
	db, err := cairn.Open(tempDB(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &shell{db: db, out: bufio.NewWriter(out), errOut: io.Discard}
}

// TestBackupCompactCancel runs backup and compact with a cancelled context, as after Ctrl-C:
// backup fails and removes its partial file, compact stops and reports what it did.
func TestBackupCompactCancel(t *testing.T) {
	var out strings.Builder
	sh := testShell(t, &out)
	err := sh.db.Update(func(tx *cairn.Tx) error {
		for i := range 300 {
			if err := tx.Put([]byte(strconv.Itoa(i)), make([]byte, 5000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "copy.db")
	err = cmdBackup(sh, ctx, [][]byte{[]byte(path)})
	if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "was removed") {
		t.Fatalf("cancelled backup: %v", err)
	}
	if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("partial backup left: %v", serr)
	}
	// Free half the pages, so that compact has pages to move.
	err = sh.db.Update(func(tx *cairn.Tx) error {
		for i := range 150 {
			if err := tx.Delete([]byte(strconv.Itoa(i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.db.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = cmdCompact(sh, ctx, nil)
	sh.out.Flush()
	if !errors.Is(err, errInterrupted) || !regexp.MustCompile(`^compact: (\d+) → (\d+) pages, `).MatchString(out.String()) {
		t.Fatalf("cancelled compact: %v, printed %q", err, out.String())
	}
}

// TestPrompt checks the prompt for each transaction state with and without a bucket, and the
// shortening of long or binary bucket names.
func TestPrompt(t *testing.T) {
	sh := testShell(t, io.Discard)
	if err := cmdMkbucket(sh, context.Background(), [][]byte{[]byte("users")}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		cmd  string
		args []string
		want string
	}{
		{"", nil, "kvsh> "},
		{"use", []string{"users"}, "kvsh:users> "},
		{"begin", nil, "kvsh(tx):users> "},
		{"rollback", nil, "kvsh:users> "},
		{"begin", []string{"ro"}, "kvsh(ro):users> "},
		{"use", nil, "kvsh(ro)> "},
		{"commit", nil, "kvsh> "},
	}
	for _, s := range steps {
		if s.cmd != "" {
			words := [][]byte{[]byte(s.cmd)}
			for _, a := range s.args {
				words = append(words, []byte(a))
			}
			if err := sh.exec(words); err != nil {
				t.Fatalf("%s %v: %v", s.cmd, s.args, err)
			}
		}
		if got := sh.prompt(); got != s.want {
			t.Errorf("after %s %v: prompt %q, want %q", s.cmd, s.args, got, s.want)
		}
	}
	for name, want := range map[string]string{
		"users":                    "users",
		"a\tb":                     `"a\tb"`,
		strings.Repeat("n", 40):    strings.Repeat("n", 32) + "…",
		strings.Repeat("é", 20):    strings.Repeat("é", 16) + "…",
		strings.Repeat("\x00", 33): `"` + strings.Repeat(`\x00`, 32) + `"…`,
	} {
		if got := shortName([]byte(name)); got != want {
			t.Errorf("shortName(%q) = %q, want %q", name, got, want)
		}
	}
}

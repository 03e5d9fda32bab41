package main

// What kvsh prints for the library's errors (issue 27): the library's message as it is, naming
// the path and the cause once, with the sizes of a limit.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTooLargeKeyMessage: a key past the limit is reported with both sizes, not echoed.
func TestTooLargeKeyMessage(t *testing.T) {
	db := tempDB(t)
	key := strings.Repeat("k", 20480)
	runKvsh(t, "", db, "-c", "put "+key+" v").expect(t, "",
		"error: cairn: key of 20,480 bytes is larger than the 16,384-byte limit\n", 1)
}

// TestOpenErrorMessages: an Open failure is one line, the library's error as it is: the path
// once, the cause once.
func TestOpenErrorMessages(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nonexistent", "x.db")
	runKvsh(t, "", missing, "-c", "count").expect(t, "",
		"error: cairn: open "+missing+": no such file or directory\n", 1)
	runKvsh(t, "", "-readonly", missing, "-c", "count").expect(t, "",
		"error: cairn: open "+missing+": no such file or directory\n", 1)
	runKvsh(t, "", dir, "-c", "count").expect(t, "", "error: cairn: open "+dir+": is a directory\n", 1)
}

// TestLockedMessages: a database another kvsh has open is refused, saying so.
func TestLockedMessages(t *testing.T) {
	db := tempDB(t)
	first := start(t, db)
	first.send("count")
	first.waitStdout(t, "0")
	runKvsh(t, "", db, "-c", "count").expect(t, "",
		"error: cairn: open "+db+": database is locked by another process\n", 1)
	runKvsh(t, "", "-readonly", db, "-c", "count").expect(t, "",
		"error: cairn: open "+db+": database is locked by another process that has it open for writing\n", 1)
	if code := first.finish(t); code != 0 {
		t.Fatalf("first kvsh exit %d, stderr %q", code, first.stderr.String())
	}
}

// TestPermissionMessage: a database file the user may not write suggests -readonly, which works.
// Root may write any file, so the test needs another user (the library's tests simulate the
// error for root).
func TestPermissionMessage(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only file")
	}
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "put k v").expect(t, "", "", 0)
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	runKvsh(t, "", db, "-c", "get k").expect(t, "",
		"error: cairn: open "+db+": permission denied (open it read-only: Options.ReadOnly, kvsh -readonly)\n", 1)
	runKvsh(t, "", "-readonly", db, "-c", "get k").expect(t, "v\n", "", 0)
}

// TestNotADatabaseMessage: a file of another program is not called corrupt.
func TestNotADatabaseMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passwd")
	writeFile(t, path, []byte("root:x:0:0:root:/root:/bin/bash\n"))
	runKvsh(t, "", path, "-c", "count").expect(t, "",
		"error: cairn: open "+path+": not a cairn database (bad magic)\n", 1)
	runKvsh(t, "", "-readonly", path, "-c", "count").expect(t, "",
		"error: cairn: open "+path+": not a cairn database (bad magic)\n", 1)
}

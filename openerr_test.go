package cairn

// Tests of Open's errors (issue 27): the path once and the cause once, a hint on a permission
// error, who holds a lock.

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

// requirePathError checks err wraps the *fs.PathError of the file at path, with want as its cause.
func requirePathError(t *testing.T, err error, path string, want error) {
	t.Helper()
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, path, pe.Path)
	require.ErrorIs(t, err, want)
}

func TestOpenErrorNamesThePathOnce(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nonexistent", "x.db")
	_, err := Open(missing, nil)
	require.EqualError(t, err, "cairn: open "+missing+": no such file or directory")
	requirePathError(t, err, missing, fs.ErrNotExist)

	_, err = Open(missing, &Options{ReadOnly: true})
	require.EqualError(t, err, "cairn: open "+missing+": no such file or directory")
	requirePathError(t, err, missing, fs.ErrNotExist)

	_, err = Open(dir, nil)
	require.EqualError(t, err, "cairn: open "+dir+": is a directory")
	requirePathError(t, err, dir, syscall.EISDIR)

	// Another file than the database keeps its path.
	path := filepath.Join(dir, "x.db")
	require.NoError(t, os.Mkdir(path+"-wal", 0o755))
	_, err = Open(path, nil)
	require.EqualError(t, err, "cairn: open "+path+": open "+path+"-wal: is a directory")
	requirePathError(t, err, path+"-wal", syscall.EISDIR)

	empty := filepath.Join(dir, "empty.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	_, err = Open(empty, &Options{ReadOnly: true})
	require.EqualError(t, err, "cairn: open "+empty+": empty file: no database to open read-only: file does not exist")
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// TestOpenPermissionErrorSuggestsReadOnly simulates the permission errors of a user who may not
// write the file or its directory: the tests run as root, whom the OS lets write anything, so an
// ErrFS over the OS's file system returns the *fs.PathError the OS gives other users.
// TestOpenPermissionErrorAsNonRoot checks the same with real permissions when not run as root.
func TestOpenPermissionErrorSuggestsReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	const hint = " (open it read-only: Options.ReadOnly, kvsh -readonly)"
	denied := func(p string, errno syscall.Errno) error { return &fs.PathError{Op: "open", Path: p, Err: errno} }
	tests := []struct {
		name     string
		rule     vfs.Rule
		readOnly bool
		want     string
		is       error
	}{
		{"read-only file", vfs.Rule{Op: vfs.OpOpen, Path: path, Err: denied(path, syscall.EACCES)}, false,
			"cairn: open " + path + ": permission denied" + hint, fs.ErrPermission},
		{"read-only directory", vfs.Rule{Op: vfs.OpOpen, Path: path + "-wal", Err: denied(path+"-wal", syscall.EACCES)}, false,
			"cairn: open " + path + ": open " + path + "-wal: permission denied" + hint, fs.ErrPermission},
		{"read-only file system", vfs.Rule{Op: vfs.OpOpen, Path: path, Err: denied(path, syscall.EROFS)}, false,
			"cairn: open " + path + ": read-only file system" + hint, syscall.EROFS},
		// Not readable either: read-only would not help.
		{"unreadable file", vfs.Rule{Op: vfs.OpOpen, Path: path, Err: denied(path, syscall.EACCES), Sticky: true}, false,
			"cairn: open " + path + ": permission denied", fs.ErrPermission},
		{"read-only open", vfs.Rule{Op: vfs.OpOpen, Path: path, Err: denied(path, syscall.EACCES)}, true,
			"cairn: open " + path + ": permission denied", fs.ErrPermission},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			efs := vfs.NewErrFS(vfs.OS)
			tc.rule.Plain = true
			efs.Inject(tc.rule)
			_, err := Open(path, &Options{fs: efs, ReadOnly: tc.readOnly})
			require.EqualError(t, err, tc.want)
			require.ErrorIs(t, err, tc.is)
			var pe *fs.PathError
			require.ErrorAs(t, err, &pe)
		})
	}
}

// TestOpenPermissionErrorAsNonRoot makes the file, then its directory, read-only for real: the
// error suggests a read-only open, which works. Root may write anything, so it is skipped then.
func TestOpenPermissionErrorAsNonRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only file: see TestOpenPermissionErrorSuggestsReadOnly")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
	require.NoError(t, db.Close())
	const hint = " (open it read-only: Options.ReadOnly, kvsh -readonly)"
	readBack := func() {
		t.Helper()
		db, err := Open(path, &Options{ReadOnly: true})
		require.NoError(t, err)
		require.NoError(t, db.View(func(tx *Tx) error {
			v, err := tx.Get([]byte("k"))
			require.Equal(t, "v", string(v))
			return err
		}))
		require.NoError(t, db.Close())
	}

	require.NoError(t, os.Chmod(path, 0o444))
	_, err = Open(path, nil)
	require.EqualError(t, err, "cairn: open "+path+": permission denied"+hint)
	requirePathError(t, err, path, fs.ErrPermission)
	readBack()
	require.NoError(t, os.Chmod(path, 0o644))

	for _, wal := range []string{path + "-wal", path + "-wal2"} {
		require.NoError(t, os.Remove(wal))
	}
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err = Open(path, nil)
	require.EqualError(t, err, "cairn: open "+path+": open "+path+"-wal: permission denied"+hint)
	requirePathError(t, err, path+"-wal", fs.ErrPermission)
	readBack()
}

func TestSecondOpenInThisProcess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	here := "cairn: open %s: database is already open in this process"
	_, err = Open(path, nil)
	require.EqualError(t, err, fmt.Sprintf(here, path))
	require.ErrorIs(t, err, ErrLocked)
	_, err = Open(path, &Options{ReadOnly: true})
	require.EqualError(t, err, fmt.Sprintf(here, path))
	require.ErrorIs(t, err, ErrLocked)
	// The same file by other names.
	link := filepath.Join(dir, "link.db")
	require.NoError(t, os.Symlink(path, link))
	_, err = Open(link, nil)
	require.EqualError(t, err, fmt.Sprintf(here, link))
	hard := filepath.Join(dir, "hard.db")
	require.NoError(t, os.Link(path, hard))
	_, err = Open(hard, nil)
	require.EqualError(t, err, fmt.Sprintf(here, hard))
	require.NoError(t, db.Close())

	// Read-only opens share the file; a writer is refused while one is open.
	r1, err := Open(path, &Options{ReadOnly: true})
	require.NoError(t, err)
	r2, err := Open(path, &Options{ReadOnly: true})
	require.NoError(t, err)
	_, err = Open(path, nil)
	require.EqualError(t, err, fmt.Sprintf(here, path))
	require.NoError(t, r1.Close())
	require.NoError(t, r2.Close())
	db, err = Open(path, nil)
	require.NoError(t, err, "closed: the file is forgotten")
	require.NoError(t, db.Close())

	// On another file system (memory), too.
	mem := vfs.NewMem()
	db, err = Open("/d/db", &Options{fs: mem})
	require.NoError(t, err)
	_, err = Open("/d/db", &Options{fs: mem})
	require.EqualError(t, err, "cairn: open /d/db: database is already open in this process")
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, db.Close())
}

// TestOpenLockedByAnotherProcess holds the database open in a child process (this test binary
// running TestHelperHoldOpen).
func TestOpenLockedByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	path := filepath.Join(t.TempDir(), "x.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldOpen$")
	cmd.Env = append(os.Environ(), "CAIRN_HOLD_OPEN="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "open\n", line)

	_, err = Open(path, nil)
	require.EqualError(t, err, "cairn: open "+path+": database is locked by another process")
	require.ErrorIs(t, err, ErrLocked)
	_, err = Open(path, &Options{ReadOnly: true})
	require.EqualError(t, err, "cairn: open "+path+": database is locked by another process that has it open for writing")
	require.ErrorIs(t, err, ErrLocked)

	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Close())
}

// TestHelperHoldOpen is the child process of TestOpenLockedByAnotherProcess: it opens the database
// named by CAIRN_HOLD_OPEN, says "open" and keeps it open until its standard input ends.
func TestHelperHoldOpen(t *testing.T) {
	path := os.Getenv("CAIRN_HOLD_OPEN")
	if path == "" {
		t.Skip("the child process of TestOpenLockedByAnotherProcess")
	}
	db, err := Open(path, nil)
	require.NoError(t, err)
	os.Stdout.WriteString("open\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, db.Close())
}

// TestNotADatabase: a file that is not a cairn database is said to be so, with ErrNotDatabase,
// not ErrCorrupt; it is left as it was, and no WAL file is made beside it. A cairn file with
// damaged meta pages stays ErrCorrupt.
func TestNotADatabase(t *testing.T) {
	dir := t.TempDir()
	passwd := []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		passwd = b
	}
	for name, data := range map[string][]byte{
		"passwd":  passwd,
		"short":   []byte("hello"),
		"zeroes":  make([]byte, 3*4096),
		"one-off": []byte("cairnDB\x01" + string(make([]byte, 8192))),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(path, data, 0o600))
			for _, ro := range []bool{false, true} {
				_, err := Open(path, &Options{ReadOnly: ro})
				require.EqualError(t, err, "cairn: open "+path+": not a cairn database (bad magic)")
				require.ErrorIs(t, err, ErrNotDatabase)
				require.NotErrorIs(t, err, ErrCorrupt)
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, data, got, "the file is unchanged")
			for _, wal := range []string{path + "-wal", path + "-wal2"} {
				require.NoFileExists(t, wal)
			}
		})
	}

	// A cairn file: its magic, then damage.
	path := filepath.Join(dir, "x.db")
	db, err := Open(path, &Options{PageSize: 8192})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	damaged := func(name string, fn func(b []byte)) string {
		p := filepath.Join(dir, name)
		c := bytes.Clone(b)
		fn(c)
		require.NoError(t, os.WriteFile(p, c, 0o600))
		return p
	}
	for _, p := range []string{
		damaged("cut.db", func([]byte) {}), // replaced below
		damaged("magic0-crc1.db", func(c []byte) { c[0] ^= 1; c[8192+80] ^= 1 }),
		damaged("crc-both.db", func(c []byte) { c[80] ^= 1; c[8192+80] ^= 1 }),
	} {
		if filepath.Base(p) == "cut.db" {
			require.NoError(t, os.Truncate(p, 50))
		}
		_, err := Open(p, nil)
		require.ErrorIs(t, err, ErrCorrupt, "%s", p)
		require.NotErrorIs(t, err, ErrNotDatabase, "%s", p)
	}
	// Both meta pages without the magic: nothing says it is a cairn file.
	p := damaged("magic-both.db", func(c []byte) { c[0] ^= 1; c[8192] ^= 1 })
	_, err = Open(p, nil)
	require.EqualError(t, err, "cairn: open "+p+": not a cairn database (bad magic)")
}

// uncomparableFS is a file system whose values == cannot compare (it holds a slice).
type uncomparableFS struct {
	vfs.FS
	_ []int
}

// wrapperFS is of a comparable type, but == panics when its field holds an uncomparableFS.
type wrapperFS struct{ vfs.FS }

// TestSameFSNeverPanics: the set of open files compares file systems of any kind.
func TestSameFSNeverPanics(t *testing.T) {
	mem := vfs.NewMem()
	a, b := uncomparableFS{FS: mem}, uncomparableFS{FS: mem}
	require.NotPanics(t, func() { require.False(t, sameFS(a, b)) })
	wa, wb := wrapperFS{a}, wrapperFS{b}
	require.NotPanics(t, func() { require.False(t, sameFS(wa, wb)) })
	require.True(t, sameFS(mem, mem))
	require.False(t, sameFS(mem, vfs.NewMem()))
	require.True(t, sameFS(vfs.OS, vfs.OS))
	db, err := Open("/d/db", &Options{fs: wa})
	require.NoError(t, err)
	_, err = Open("/d/db", &Options{fs: wb})
	require.ErrorIs(t, err, ErrLocked, "the memory file system's lock holds")
	require.NoError(t, db.Close())
}

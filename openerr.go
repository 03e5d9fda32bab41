package cairn

// Errors of Open name the database file once and the cause once: "cairn: open PATH: CAUSE".
// CAUSE leaves PATH out where the cause is an *fs.PathError of the database file itself ("no such
// file or directory", not "open PATH: no such file or directory"), and keeps the path of any
// other file (PATH-wal). It may add a hint (Options.ReadOnly on a permission error), and says
// who holds a lock (another process, or this one). Every rewritten cause unwraps to the
// original error, so errors.Is (fs.ErrNotExist, fs.ErrPermission, ErrLocked) and errors.As
// (*fs.PathError) see what they saw before.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"syscall"

	"github.com/cairndb/cairn/internal/vfs"
)

// readOnlyHint is added to a permission error of an Open with write access when the file can be
// opened for reading.
const readOnlyHint = "open it read-only: Options.ReadOnly, kvsh -readonly"

// causeError is the cause inside an error of Open with a message of its own; it unwraps to err.
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }

// openError returns the error of Open for path: "cairn: open PATH: CAUSE" (see the top of the
// file).
func openError(fsys vfs.FS, path string, readOnly bool, err error) error {
	cause := err
	if pe, ok := err.(*fs.PathError); ok && pe.Path == path {
		msg := pe.Err.Error()
		if pe.Op != "open" {
			msg = pe.Op + ": " + msg
		}
		cause = &causeError{msg: msg, err: pe}
	}
	if !readOnly && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) && readable(fsys, path) {
		cause = &causeError{msg: cause.Error() + " (" + readOnlyHint + ")", err: cause}
	}
	return fmt.Errorf("cairn: open %s: %w", path, cause)
}

// readable reports whether the file at path can be opened for reading: then a read-only open
// may succeed where one with write access was refused.
func readable(fsys vfs.FS, path string) bool {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// lockFile takes the lock of the database file (exclusive, or shared for a read-only open) and
// records the file as open in this process until the lock is closed. When another holder has the
// lock, the error wraps ErrLocked and says whether the holder is this process.
func (db *DB) lockFile() (io.Closer, error) {
	fsys := db.opts.fs
	lock := fsys.Lock
	if db.opts.ReadOnly {
		lock = fsys.LockShared
	}
	l, err := lock(db.path)
	switch {
	case errors.Is(err, vfs.ErrLocked):
		msg := "database is locked by another process"
		switch {
		case openHere.has(fsys, db.path):
			msg = "database is already open in this process"
		case db.opts.ReadOnly:
			msg += " that has it open for writing"
		}
		return nil, &causeError{msg: msg, err: ErrLocked}
	case err != nil:
		return nil, err
	}
	return openHere.add(fsys, db.path, l), nil
}

// openHere is the set of database files open in this process: a lock that fails while the file is
// in it is held by this process.
var openHere openFiles

type openFiles struct {
	mu    sync.Mutex
	files map[*openFile]struct{}
}

// openFile is a database file open in this process, locked by lock.
type openFile struct {
	set  *openFiles
	fs   vfs.FS
	path string      // absolute
	info os.FileInfo // of the file on the OS's file system (nil on others): the same file by another name
	lock io.Closer
}

// add records the file at path, locked by lock, and returns the closer that releases the lock and
// forgets the file.
func (s *openFiles) add(fsys vfs.FS, path string, lock io.Closer) io.Closer {
	f := &openFile{set: s, fs: fsys, lock: lock}
	f.path, f.info = identify(fsys, path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = make(map[*openFile]struct{})
	}
	s.files[f] = struct{}{}
	return f
}

// Close releases the lock and then forgets the file (in that order: a lock that fails meanwhile
// finds the file open here).
func (f *openFile) Close() error {
	err := f.lock.Close()
	f.set.mu.Lock()
	delete(f.set.files, f)
	f.set.mu.Unlock()
	return err
}

// has reports whether the file at path, on fsys, is open in this process.
func (s *openFiles) has(fsys vfs.FS, path string) bool {
	abs, info := identify(fsys, path)
	s.mu.Lock()
	defer s.mu.Unlock()
	for f := range s.files {
		if !sameFS(f.fs, fsys) {
			continue
		}
		if f.path == abs || f.info != nil && info != nil && os.SameFile(f.info, info) {
			return true
		}
	}
	return false
}

// identify returns the absolute path of path and, on the OS's file system, its file info.
func identify(fsys vfs.FS, path string) (string, os.FileInfo) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if fsys != vfs.OS {
		return abs, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return abs, nil
	}
	return abs, info
}

// sameFS reports whether a and b are the same file system (false for values that cannot be
// compared, where == would panic).
func sameFS(a, b vfs.FS) bool {
	return reflect.ValueOf(a).Comparable() && reflect.ValueOf(b).Comparable() && a == b
}

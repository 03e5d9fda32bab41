package cairn

// Errors of Open name the database file once and the cause once: "cairn: open PATH: CAUSE".
// CAUSE leaves PATH out where the cause is an *fs.PathError of the database file itself ("no such
// file or directory", not "open PATH: no such file or directory"), and keeps the path of any
// other file (PATH-wal). It may add a hint (Options.ReadOnly on a permission error). Every rewritten cause unwraps to the
// original error, so errors.Is (fs.ErrNotExist, fs.ErrPermission, ErrLocked) and errors.As
// (*fs.PathError) see what they saw before.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// lockFile takes the lock of the database file (exclusive, or shared for a read-only open). When
// another holder has the lock, the error wraps ErrLocked.
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
		if db.opts.ReadOnly {
			msg += " that has it open for writing"
		}
		return nil, &causeError{msg: msg, err: ErrLocked}
	case err != nil:
		return nil, err
	}
	return l, nil
}

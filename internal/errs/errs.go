// Package errs holds the error markers shared by every layer, so that lower layers can wrap them
// and the root package can re-export them as cairn.ErrCorrupt and friends.
package errs

import (
	"errors"
	"fmt"
)

// ErrCorrupt marks bytes read from disk (meta page, tree page, free list, WAL record) that fail a
// checksum or a structural check. Test with errors.Is.
var ErrCorrupt = errors.New("corrupt data")

// ErrFailed marks a database that saw a failed write or fdatasync: commits fail until reopen.
var ErrFailed = errors.New("database failed")

// VersionError reports an intact file header (magic and checksum match) of a format version
// older than the one this build reads: a development format that no build reads any more
// (docs/FORMAT.md, "Versions and compatibility"). It wraps ErrCorrupt, as a header of a version
// newer than the build's does, so that callers need one test for "this build cannot read it".
type VersionError struct {
	File  string // "page file" or "WAL"
	Found uint32 // the version in the file
	Reads uint32 // the only version this build reads
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s format version %d is not supported (this build reads version %d); it was written by a development build",
		e.File, e.Found, e.Reads)
}

// Unwrap returns ErrCorrupt.
func (e *VersionError) Unwrap() error { return ErrCorrupt }

// ErrNotDatabase marks a page file none of whose meta pages starts with the magic bytes: not a
// cairn database at all (another program's file), as opposed to a damaged one (ErrCorrupt, which
// it does not wrap).
var ErrNotDatabase = errors.New("not a cairn database (bad magic)")

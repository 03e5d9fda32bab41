// Package errs holds the error markers shared by every layer, so that lower layers can wrap them
// and the root package can re-export them as cairn.ErrCorrupt and friends.
package errs

import "errors"

// ErrCorrupt marks bytes read from disk (meta page, tree page, free list, WAL record) that fail a
// checksum or a structural check. Test with errors.Is.
var ErrCorrupt = errors.New("corrupt data")

// ErrFailed marks a database that saw a failed write or fdatasync: commits fail until reopen.
var ErrFailed = errors.New("database failed")

// ErrNotDatabase marks a page file none of whose meta pages starts with the magic bytes: not a
// cairn database at all (another program's file), as opposed to a damaged one (ErrCorrupt, which
// it does not wrap).
var ErrNotDatabase = errors.New("not a cairn database (bad magic)")

package cairn

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/wal"
)

// Errors returned by cairn, possibly wrapped with context: test them with errors.Is.
var (
	// ErrNotFound is returned by Tx.Get when the key is not present.
	ErrNotFound = errors.New("cairn: key not found")
	// ErrTxReadOnly is returned by Put and Delete in a read-only transaction.
	ErrTxReadOnly = errors.New("cairn: transaction is read-only")
	// ErrTxClosed is returned by any use of a transaction after Commit or Rollback.
	ErrTxClosed = errors.New("cairn: transaction is closed")
	// ErrTxManaged is returned by Commit and Rollback called inside View or Update, which end the
	// transaction themselves.
	ErrTxManaged = errors.New("cairn: transaction is managed by View or Update")
	// ErrTxOpen is returned by BeginReadInto given a transaction that has not ended.
	ErrTxOpen = errors.New("cairn: transaction is still open")
	// ErrClosed is returned by any use of a DB after Close.
	ErrClosed = errors.New("cairn: database is closed")
	// ErrLocked is returned by Open when another process, or another DB of this process, has
	// the database open. The error wrapping it says which: "cairn: open PATH: database is locked
	// by another process" or "...: database is already open in this process".
	ErrLocked = errors.New("cairn: database is locked by another process")
	// ErrKeyRequired is returned by Put and Delete for an empty key.
	ErrKeyRequired = errors.New("cairn: key required")
	// ErrKeyTooLarge is returned for a key or bucket name longer than MaxKeySize (16,384) bytes.
	// The error wrapping it gives both sizes, not the key: "cairn: key of 20,480 bytes is larger
	// than the 16,384-byte limit" ("bucket name of ..." for a bucket name).
	ErrKeyTooLarge = errors.New("cairn: key too large")
	// ErrValueTooLarge is returned for a value longer than MaxValueSize (268,435,456) bytes, by an
	// error giving both sizes as for ErrKeyTooLarge ("cairn: value of ... bytes is larger than
	// the 268,435,456-byte limit").
	ErrValueTooLarge = errors.New("cairn: value too large")
	// ErrTxTooLarge is returned by Commit when the transaction's changes (its WAL record) exceed
	// MaxTxSize (1,073,741,824) bytes, by an error giving both sizes as for ErrKeyTooLarge; the
	// transaction is rolled back and the database goes on.
	ErrTxTooLarge = errors.New("cairn: transaction too large")
	// ErrReadOnly is returned by write transactions, Checkpoint and Compact on a database opened
	// with Options.ReadOnly.
	ErrReadOnly = errors.New("cairn: database is open read-only")
	// ErrBucketNotFound is returned by Tx.Bucket and DeleteBucket for a bucket that does not
	// exist, and by the methods of a Bucket that was deleted.
	ErrBucketNotFound = errors.New("cairn: bucket not found")
	// ErrBucketExists is returned by CreateBucket for a name already taken.
	ErrBucketExists = errors.New("cairn: bucket already exists")
	// ErrBucketNameRequired is returned for an empty bucket name.
	ErrBucketNameRequired = errors.New("cairn: bucket name required")
	// ErrCursorInvalid is returned by Cursor.Err for a cursor made before a RollbackTo of its
	// transaction: RollbackTo rebuilds the transaction's trees, so make a new cursor.
	ErrCursorInvalid = errors.New("cairn: cursor invalidated by RollbackTo")
	// ErrSavepointInvalid is returned by RollbackTo and Release for a savepoint that was released
	// (or rolled back past) or belongs to another transaction.
	ErrSavepointInvalid = errors.New("cairn: savepoint released or not of this transaction")
	// ErrCorrupt marks damaged bytes read from the database or WAL file: a checksum or structure
	// check failed. Open returns it rather than silently dropping data.
	ErrCorrupt = errs.ErrCorrupt
	// ErrNotDatabase is returned by Open for a file that is not a cairn database at all (another
	// program's file): neither meta page starts with cairn's magic bytes. The message is
	// "cairn: open PATH: not a cairn database (bad magic)". It does not wrap ErrCorrupt, which
	// stays for a cairn file that is damaged (a meta page with the magic but a bad checksum, say).
	ErrNotDatabase = errs.ErrNotDatabase
	// ErrFailed marks a database whose write or fdatasync failed: the commit in flight and every
	// later write fail until the database is closed and reopened (which recovers every
	// acknowledged commit). Read transactions keep working. Close returns the failure too.
	ErrFailed = errs.ErrFailed
	// ErrLSNGap is returned by ApplyRecords for records that start after the database's newest
	// commit plus one: the replica missed commits in between and must first be brought up to
	// them (for a cluster: by installing a snapshot, a Backup of a newer state).
	ErrLSNGap = errors.New("cairn: records do not follow the newest commit")
)

// Size limits in bytes: of a key, of a value, and of all keys and values a transaction writes
// (its WAL record, with a few bytes of framing per operation). Past them Put, CreateBucket and
// Commit return ErrKeyTooLarge, ErrValueTooLarge and ErrTxTooLarge.
const (
	MaxKeySize   = 16384      // 16 KiB: a key, or a bucket name
	MaxValueSize = 268435456  // 256 MiB: a value
	MaxTxSize    = 1073741824 // 1 GiB: a transaction's WAL record (wal.MaxRecordSize)
)

// MaxTxSize is wal.MaxRecordSize, written as a number for go doc: the build fails if they differ
// (a negative constant does not convert to uint).
const _ = uint(MaxTxSize-wal.MaxRecordSize) + uint(wal.MaxRecordSize-MaxTxSize)

// sizeError is a too-large error that gives both sizes, never the bytes themselves: "cairn: key
// of 20,480 bytes is larger than the 16,384-byte limit". errors.Is matches its sentinel
// (ErrKeyTooLarge, ErrValueTooLarge or ErrTxTooLarge).
type sizeError struct {
	what        string // "key", "bucket name", "value", "transaction"
	size, limit int
	sentinel    error
}

func (e *sizeError) Error() string {
	return fmt.Sprintf("cairn: %s of %s bytes is larger than the %s-byte limit", e.what, commas(e.size), commas(e.limit))
}

func (e *sizeError) Unwrap() error { return e.sentinel }

// commas formats n in decimal with a comma between groups of three digits: 16,384.
func commas(n int) string {
	s := strconv.Itoa(n)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

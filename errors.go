package cairn

import (
	"errors"

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
	// ErrClosed is returned by any use of a DB after Close.
	ErrClosed = errors.New("cairn: database is closed")
	// ErrLocked is returned by Open when another process (or another DB in this process) has the
	// database open.
	ErrLocked = errors.New("cairn: database is locked by another process")
	// ErrKeyRequired is returned by Put and Delete for an empty key.
	ErrKeyRequired = errors.New("cairn: key required")
	// ErrKeyTooLarge is returned for a key longer than MaxKeySize bytes.
	ErrKeyTooLarge = errors.New("cairn: key too large")
	// ErrValueTooLarge is returned for a value longer than MaxValueSize bytes.
	ErrValueTooLarge = errors.New("cairn: value too large")
	// ErrTxTooLarge is returned by Commit when the transaction's changes exceed MaxTxSize bytes;
	// the transaction is rolled back and the database goes on.
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
	// ErrFailed marks a database whose write or fdatasync failed: the commit in flight and every
	// later write fail until the database is closed and reopened (which recovers every
	// acknowledged commit). Read transactions keep working. Close returns the failure too.
	ErrFailed = errs.ErrFailed
)

// Size limits in bytes: of a key, of a value, and of all keys and values a transaction writes
// (its WAL record, with a few bytes of framing per operation).
const (
	MaxKeySize   = 16 << 10
	MaxValueSize = 256 << 20
	MaxTxSize    = wal.MaxRecordSize
)

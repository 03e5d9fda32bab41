package main

// Buckets in the shell: `use` selects the key space the data commands (get, put, del, scan,
// range, prefix, first, last, count, import, export, verify, and key completion) work in: the
// default key space of the database (sh.bucket nil) or a bucket. The shell keeps only the name:
// every command looks the bucket up again in its own transaction (or the open one), so a bucket
// deleted meanwhile gives "bucket not found" rather than a stale handle.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"unicode/utf8"

	"github.com/cairndb/cairn"
)

// keySpace is what the data commands need of a key space: *cairn.Tx (the default key space) and
// *cairn.Bucket both provide it.
type keySpace interface {
	Get(key []byte) ([]byte, error)
	Put(key, value []byte) error
	Delete(key []byte) error
	Range(start, end []byte) iter.Seq2[[]byte, []byte]
	Prefix(prefix []byte) iter.Seq2[[]byte, []byte]
	Cursor() *cairn.Cursor
}

// space returns the key space of tx that `use` selected.
func (sh *shell) space(tx *cairn.Tx) (keySpace, error) {
	if sh.bucket == nil {
		return tx, nil
	}
	b, err := tx.Bucket(sh.bucket)
	if err != nil {
		return nil, bucketError(err, sh.bucket)
	}
	return b, nil
}

// viewSpace runs fn on the selected key space of the open transaction, or else of a read
// transaction of its own.
func (sh *shell) viewSpace(fn func(tx *cairn.Tx, ks keySpace) error) error {
	return sh.view(func(tx *cairn.Tx) error {
		ks, err := sh.space(tx)
		if err != nil {
			return err
		}
		return fn(tx, ks)
	})
}

// updateSpace runs fn on the selected key space of the open read-write transaction, or else of a
// read-write transaction of its own committed when fn succeeds.
func (sh *shell) updateSpace(fn func(ks keySpace) error) error {
	return sh.update(func(tx *cairn.Tx) error {
		ks, err := sh.space(tx)
		if err != nil {
			return err
		}
		return fn(ks)
	})
}

// bucketError turns the library's bucket errors into one-line shell errors naming the bucket.
func bucketError(err error, name []byte) error {
	switch {
	case errors.Is(err, cairn.ErrBucketNotFound):
		return fmt.Errorf("bucket not found: %s", formatBytes(name))
	case errors.Is(err, cairn.ErrBucketExists):
		return fmt.Errorf("bucket exists: %s", formatBytes(name))
	case errors.Is(err, cairn.ErrBucketNameRequired):
		return errors.New("bucket name required (a bucket name is 1 or more bytes)")
	}
	return err // the library's own message: "cairn: bucket name of N bytes is larger than ..."
}

// cmdBuckets lists the names of the buckets, one per line, binary-safe as keys are in table mode.
// The SQL layer's buckets are left out (.tables lists the SQL tables).
func cmdBuckets(sh *shell, ctx context.Context, _ [][]byte) error {
	return sh.view(func(tx *cairn.Tx) error {
		n := 0
		return tx.ForEachBucket(func(name []byte) error {
			if n++; n%256 == 0 && ctx.Err() != nil {
				return errInterrupted
			}
			if isSQLBucket(name) {
				return nil
			}
			fmt.Fprintln(sh.out, formatBytes(name))
			return nil
		})
	})
}

// cmdUse selects the bucket the data commands work in; no argument or "." selects the default
// key space.
func cmdUse(sh *shell, _ context.Context, args [][]byte) error {
	if len(args) == 0 || string(args[0]) == "." {
		sh.bucket = nil
		return nil
	}
	name := args[0]
	err := sh.view(func(tx *cairn.Tx) error {
		_, err := tx.Bucket(name)
		return err
	})
	if err != nil {
		return bucketError(err, name)
	}
	sh.bucket = bytes.Clone(name)
	return nil
}

// errSQLBucket refuses mkbucket and rmbucket on a name of the SQL layer's buckets.
func errSQLBucket(name []byte) error {
	return fmt.Errorf("bucket %s is the SQL layer's (its tables, indexes and schema): use CREATE and DROP", formatBytes(name))
}

// cmdMkbucket creates an empty bucket.
func cmdMkbucket(sh *shell, _ context.Context, args [][]byte) error {
	if isSQLBucket(args[0]) {
		return errSQLBucket(args[0])
	}
	err := sh.update(func(tx *cairn.Tx) error {
		_, err := tx.CreateBucket(args[0])
		return err
	})
	return bucketError(err, args[0])
}

// cmdRmbucket deletes a bucket and its keys. If it was the bucket in use, the shell goes back to
// the default key space.
func cmdRmbucket(sh *shell, _ context.Context, args [][]byte) error {
	if isSQLBucket(args[0]) {
		return errSQLBucket(args[0])
	}
	err := sh.update(func(tx *cairn.Tx) error { return tx.DeleteBucket(args[0]) })
	if err != nil {
		return bucketError(err, args[0])
	}
	if sh.bucket != nil && bytes.Equal(sh.bucket, args[0]) {
		sh.leaveBucket()
	}
	return nil
}

// recheckBucket goes back to the default key space if the bucket in use no longer exists (after a
// rollback undid its creation, say).
func (sh *shell) recheckBucket() {
	if sh.bucket == nil {
		return
	}
	err := sh.view(func(tx *cairn.Tx) error {
		_, err := tx.Bucket(sh.bucket)
		return err
	})
	if errors.Is(err, cairn.ErrBucketNotFound) {
		sh.leaveBucket()
	}
}

// leaveBucket selects the default key space, saying so.
func (sh *shell) leaveBucket() {
	sh.warn("bucket %s no longer exists: back to the default key space", formatBytes(sh.bucket))
	sh.bucket = nil
}

// maxShortName is the number of bytes of a bucket name the prompt and .pages show.
const maxShortName = 32

// shortName renders a bucket name for the prompt and .pages: binary-safe, cut after
// maxShortName bytes with a trailing "…".
func shortName(name []byte) string {
	if len(name) <= maxShortName {
		return formatBytes(name)
	}
	cut := maxShortName
	for cut > maxShortName-utf8.UTFMax && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return formatBytes(name[:cut]) + "…"
}

// bucketNames returns the names of the buckets starting with prefix, at most maxCandidates, read
// in the open transaction or a read transaction of its own.
func (sh *shell) bucketNames(prefix []byte) [][]byte {
	var names [][]byte
	errStop := errors.New("stop")
	sh.view(func(tx *cairn.Tx) error {
		return tx.ForEachBucket(func(name []byte) error {
			switch {
			case isSQLBucket(name) && !isSQLBucket(prefix):
			case bytes.HasPrefix(name, prefix):
				names = append(names, bytes.Clone(name))
			case bytes.Compare(name, prefix) > 0:
				return errStop // sorted: no later name has the prefix
			}
			if len(names) == maxCandidates {
				return errStop
			}
			return nil
		})
	})
	return names
}

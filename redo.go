package cairn

// Redo record payload (the opaque payload of a WAL record): one committed transaction, replayed
// operation by operation through the transaction API. Its layout and op codes are in package
// internal/ondisk, which kvsh decodes with too.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cairndb/cairn/internal/ondisk"
)

// appendOp appends an operation to a redo payload and returns the payload and the key and value
// as stored in it, so the tree can keep them without a second copy.
func appendOp(redo []byte, op byte, key, value []byte) (out, k, v []byte) {
	// Grow at most once per op, and at least doubling: append's own growth (1.25x for large
	// slices) copied a 1,000-put record about five times over, and the trees keep every old copy
	// alive until the commit through the key and value slices they hold.
	if need := 2 + 2*binary.MaxVarintLen64 + len(key) + len(value); cap(redo)-len(redo) < need {
		redo = slices.Grow(redo, max(need, cap(redo)))
	}
	if len(redo) == 0 {
		redo = append(redo, ondisk.RedoTxn)
	}
	redo = append(redo, op)
	redo = binary.AppendUvarint(redo, uint64(len(key)))
	ks := len(redo)
	redo = append(redo, key...)
	ke := len(redo)
	vs := ke
	if op == ondisk.RedoPut {
		redo = binary.AppendUvarint(redo, uint64(len(value)))
		vs = len(redo)
		redo = append(redo, value...)
	}
	return redo, redo[ks:ke:ke], redo[vs:len(redo):len(redo)]
}

// logOp logs a put or delete in bucket (nil: the default key space), selecting the bucket first
// if the previous operation was in another one, and returns key and value as the tree may keep
// them. While replaying it logs nothing: key and value are stable slices of a payload already.
func (tx *Tx) logOp(bucket []byte, op byte, key, value []byte) (k, v []byte) {
	if tx.replaying {
		return key, value
	}
	if !bytes.Equal(tx.redoBucket, bucket) {
		tx.redo, _, _ = appendOp(tx.redo, ondisk.RedoSelect, bucket, nil)
		tx.redoBucket = bucket
	}
	tx.redo, k, v = appendOp(tx.redo, op, key, value)
	return k, v
}

// logBucketOp logs the creation or deletion of a bucket.
func (tx *Tx) logBucketOp(op byte, name []byte) {
	if !tx.replaying {
		tx.redo, _, _ = appendOp(tx.redo, op, name, nil)
	}
}

// replay applies one redo payload to tx, which must be writable with replaying set. The trees
// keep slices of payload, which must not be modified afterwards. Errors wrap ErrCorrupt, but for
// read errors of the database file.
func (tx *Tx) replay(payload []byte) error {
	if len(payload) == 0 {
		return nil
	}
	if payload[0] != ondisk.RedoTxn {
		return fmt.Errorf("cairn: redo record: unknown type: %w", ErrCorrupt)
	}
	cur := &tx.main
	for b := payload[1:]; len(b) > 0; {
		op := b[0]
		key, rest, err := readBytes(b[1:])
		if err != nil {
			return err
		}
		var value []byte
		if op == ondisk.RedoPut {
			if value, rest, err = readBytes(rest); err != nil {
				return err
			}
		}
		if cur, err = tx.replayOp(cur, op, key, value); err != nil {
			return err
		}
		b = rest
	}
	return nil
}

// replayOp applies one operation in bucket cur and returns the bucket of the next one.
func (tx *Tx) replayOp(cur *Bucket, op byte, key, value []byte) (*Bucket, error) {
	var err error
	switch op {
	case ondisk.RedoPut:
		err = cur.Put(key, value)
	case ondisk.RedoDelete:
		err = cur.Delete(key)
	case ondisk.RedoSelect:
		if len(key) == 0 {
			return &tx.main, nil
		}
		cur, err = tx.Bucket(key)
	case ondisk.RedoCreateBucket:
		_, err = tx.CreateBucket(key)
	case ondisk.RedoDeleteBucket:
		err = tx.DeleteBucket(key)
	default:
		return nil, fmt.Errorf("cairn: redo record: unknown operation %d: %w", op, ErrCorrupt)
	}
	if isMisuse(err) {
		return nil, fmt.Errorf("cairn: redo record: operation %d on %q: %w: %w", op, key, err, ErrCorrupt)
	}
	return cur, err
}

func readBytes(b []byte) (field, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, fmt.Errorf("cairn: redo record: bad length: %w", ErrCorrupt)
	}
	end := w + int(n)
	return b[w:end:end], b[end:], nil
}

// isMisuse reports whether err is a misuse error of the API: in a replayed record it means the
// record is damaged. Other errors (reading the database file) pass as they are.
func isMisuse(err error) bool {
	for _, e := range []error{ErrBucketNotFound, ErrBucketExists, ErrBucketNameRequired,
		ErrKeyRequired, ErrKeyTooLarge, ErrValueTooLarge} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

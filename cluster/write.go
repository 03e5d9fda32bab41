package cluster

// KV writes from any node: Write commits a batch of puts and deletes, guarded by conditions, on
// the leader, forwarding it there from another node. A batch is one transaction: its conditions
// are checked and its operations applied in one commit, or nothing is.
// Wire body of a batch (forward.go): count | count × (kind (1 byte) | bucket | key | value).

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cairndb/cairn"
)

// ErrConditionFailed is returned by Write when a condition of its batch does not hold: nothing
// was written.
var ErrConditionFailed = errors.New("cluster: write condition failed")

// OpKind is what an Op does.
type OpKind uint8

// Operations of a Write batch.
const (
	// OpPut sets Key to Value in Bucket (created if missing).
	OpPut OpKind = 1
	// OpDelete deletes Key from Bucket (nothing if it is absent, or the bucket is).
	OpDelete OpKind = 2
	// OpIfEqual is a condition: Key in Bucket holds exactly Value. With the OpPut of the same
	// key after it, it makes a compare-and-set.
	OpIfEqual OpKind = 3
	// OpIfAbsent is a condition: Key is not in Bucket (or the bucket does not exist).
	OpIfAbsent OpKind = 4
)

// Op is one operation of a Write batch. Bucket nil is the database's default bucket (as
// cairn.Tx.Put uses it).
type Op struct {
	Kind   OpKind
	Bucket []byte
	Key    []byte
	Value  []byte // OpPut's value, OpIfEqual's expected value
}

// Write commits ops as one transaction on the leader, in order: conditions are checked when
// reached, and if one does not hold nothing is written and the error wraps
// ErrConditionFailed. On a node that is not the leader the batch is forwarded to the leader
// (Config.DisableForwarding: a *NotLeaderError). It returns the LSN of a version that holds the
// batch's commit: a token for ReadOptions.MinLSN (read-your-writes on any node). Errors wrapping
// cairn.ErrFailed mean the outcome is unknown (see Update); other errors are cairn's (an empty
// key, a value too large), ctx's while waiting for a leader, or ErrStopped.
func (n *Node) Write(ctx context.Context, ops []Op) (uint64, error) {
	for _, op := range ops {
		if op.Kind < OpPut || op.Kind > OpIfAbsent {
			return 0, fmt.Errorf("cluster: Write: unknown operation %d", op.Kind)
		}
	}
	if n.writable.Load() {
		err := n.applyOps(ops)
		if !errors.Is(err, ErrNotLeader) {
			if err != nil {
				return 0, err
			}
			return n.LastLSN(), nil
		}
	}
	if n.cfg.DisableForwarding {
		return 0, n.notLeader()
	}
	_, lsn, err := n.forward(ctx, encodeOps([]byte{reqWrite}, ops), false)
	if errors.Is(err, errLocal) {
		if err := n.applyOps(ops); err != nil {
			return 0, err
		}
		return n.LastLSN(), nil
	}
	return lsn, err
}

// applyOps commits ops on this node, the leader.
func (n *Node) applyOps(ops []Op) error {
	return n.Update(func(tx *cairn.Tx) error {
		for i, op := range ops {
			if err := applyOp(tx, op); err != nil {
				return fmt.Errorf("cluster: Write: operation %d: %w", i, err)
			}
		}
		return nil
	})
}

func applyOp(tx *cairn.Tx, op Op) error {
	switch op.Kind {
	case OpPut:
		if op.Bucket == nil {
			return tx.Put(op.Key, op.Value)
		}
		b, err := tx.CreateBucketIfNotExists(op.Bucket)
		if err != nil {
			return err
		}
		return b.Put(op.Key, op.Value)
	case OpDelete:
		if op.Bucket == nil {
			return ignoreNotFound(tx.Delete(op.Key))
		}
		b, err := tx.Bucket(op.Bucket)
		if errors.Is(err, cairn.ErrBucketNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return ignoreNotFound(b.Delete(op.Key))
	}
	var v []byte
	var err error
	if op.Bucket == nil {
		v, err = tx.Get(op.Key)
	} else {
		var b *cairn.Bucket
		if b, err = tx.Bucket(op.Bucket); err == nil {
			v, err = b.Get(op.Key)
		}
	}
	absent := errors.Is(err, cairn.ErrNotFound) || errors.Is(err, cairn.ErrBucketNotFound)
	if err != nil && !absent {
		return err
	}
	switch {
	case op.Kind == OpIfAbsent && !absent:
		return fmt.Errorf("%w: key %q is present", ErrConditionFailed, op.Key)
	case op.Kind == OpIfEqual && absent:
		return fmt.Errorf("%w: key %q is absent", ErrConditionFailed, op.Key)
	case op.Kind == OpIfEqual && !bytes.Equal(v, op.Value):
		return fmt.Errorf("%w: key %q holds another value", ErrConditionFailed, op.Key)
	}
	return nil
}

func ignoreNotFound(err error) error {
	if errors.Is(err, cairn.ErrNotFound) {
		return nil
	}
	return err
}

func encodeOps(b []byte, ops []Op) []byte {
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = append(b, byte(op.Kind))
		b = appendNullable(b, op.Bucket)
		b = appendBytes(b, op.Key)
		b = appendBytes(b, op.Value)
	}
	return b
}

// appendNullable appends a byte string that may be nil: 0 for nil, else 1 + its length.
func appendNullable(b, s []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	return appendBytes(append(b, 1), s)
}

func decodeOps(d *decoder) []Op {
	count := d.count(4)
	ops := make([]Op, 0, count)
	for range count {
		op := Op{Kind: OpKind(d.byte())}
		if d.byte() == 1 {
			op.Bucket = d.bytes()
		}
		op.Key, op.Value = d.bytes(), d.bytes()
		if d.err != nil {
			return nil
		}
		if op.Kind < OpPut || op.Kind > OpIfAbsent {
			d.fail("unknown operation")
			return nil
		}
		ops = append(ops, op)
	}
	return ops
}

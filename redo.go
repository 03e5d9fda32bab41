package cairn

// Redo record payload (the opaque payload of a WAL record): one committed transaction.
//
//	| Size    | Field                                         |
//	| 1       | record type: 1 = transaction                  |
//	| ...     | operations until the end of the payload       |
//	Operation: 1 byte op (1 = put, 2 = delete), uvarint key length, key bytes,
//	and for put: uvarint value length, value bytes.

import (
	"encoding/binary"
	"fmt"

	"github.com/cairndb/cairn/btree"
)

const (
	redoTxn    = 1
	redoPut    = 1
	redoDelete = 2
)

// appendOp appends an operation to a redo payload and returns the payload and the key and value
// as stored in it, so the tree can keep them without a second copy.
func appendOp(redo []byte, op byte, key, value []byte) (out, k, v []byte) {
	if len(redo) == 0 {
		redo = append(redo, redoTxn)
	}
	redo = append(redo, op)
	redo = binary.AppendUvarint(redo, uint64(len(key)))
	ks := len(redo)
	redo = append(redo, key...)
	ke := len(redo)
	vs := ke
	if op == redoPut {
		redo = binary.AppendUvarint(redo, uint64(len(value)))
		vs = len(redo)
		redo = append(redo, value...)
	}
	return redo, redo[ks:ke:ke], redo[vs:len(redo):len(redo)]
}

// applyRedo replays one redo payload into tree t. The tree keeps slices of payload, which must
// not be modified afterwards. Errors wrap ErrCorrupt.
func applyRedo(t *btree.Tree, payload []byte) error {
	if len(payload) == 0 || payload[0] != redoTxn {
		return fmt.Errorf("cairn: redo record: unknown type: %w", ErrCorrupt)
	}
	b := payload[1:]
	for len(b) > 0 {
		op := b[0]
		key, rest, err := readBytes(b[1:])
		if err != nil {
			return err
		}
		switch op {
		case redoPut:
			var value []byte
			if value, rest, err = readBytes(rest); err != nil {
				return err
			}
			err = t.Put(key, value)
		case redoDelete:
			_, err = t.Delete(key)
		default:
			return fmt.Errorf("cairn: redo record: unknown operation %d: %w", op, ErrCorrupt)
		}
		if err != nil {
			return err
		}
		b = rest
	}
	return nil
}

func readBytes(b []byte) (field, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, fmt.Errorf("cairn: redo record: bad length: %w", ErrCorrupt)
	}
	end := w + int(n)
	return b[w:end:end], b[end:], nil
}

package cairn

// Savepoints mark a position in a write transaction's redo record: the record is the
// transaction's source of truth (recovery replays it to rebuild the same trees), so rolling back
// to a savepoint rebuilds the trees from the transaction's base version by replaying the record up
// to that position. Invariant: after a RollbackTo, the bytes of the record before the savepoint
// are never overwritten (the record is re-sliced to its length as capacity), because the rebuilt
// trees keep slices of them.

import "fmt"

// Savepoint marks a point inside a write transaction that RollbackTo returns to. It is valid
// until it is released, the transaction rolls back to a savepoint made before it, or the
// transaction ends.
type Savepoint struct {
	tx *Tx
	id uint64
}

type savepoint struct {
	id         uint64
	redoLen    int
	redoBucket []byte
}

// Savepoint marks the transaction's current state: it costs O(1) (no copy of anything). Savepoints
// nest to any depth. Errors: ErrTxClosed, ErrTxReadOnly.
func (tx *Tx) Savepoint() (Savepoint, error) {
	switch {
	case tx.closed:
		return Savepoint{}, ErrTxClosed
	case !tx.writable:
		return Savepoint{}, ErrTxReadOnly
	}
	tx.spSeq++
	tx.savepoints = append(tx.savepoints, savepoint{id: tx.spSeq, redoLen: len(tx.redo), redoBucket: tx.redoBucket})
	return Savepoint{tx: tx, id: tx.spSeq}, nil
}

func (tx *Tx) findSavepoint(sp Savepoint) (int, error) {
	if tx.closed {
		return 0, ErrTxClosed
	}
	if sp.tx == tx {
		for i := range tx.savepoints {
			if tx.savepoints[i].id == sp.id {
				return i, nil
			}
		}
	}
	return 0, ErrSavepointInvalid
}

// RollbackTo undoes every change made after sp (puts, deletes, bucket creations and deletions) and
// releases the savepoints made after it; sp stays valid, so it can be rolled back to again. It
// replays the changes made before sp from the transaction's redo record, so it costs about as
// much as making them did. Buckets and values obtained earlier stay valid (a Bucket reloads; a
// bucket created after sp is gone: ErrBucketNotFound), cursors do not (ErrCursorInvalid).
// Errors: ErrSavepointInvalid, ErrTxClosed; a read error of the database file during the replay
// rolls the whole transaction back and is returned.
func (tx *Tx) RollbackTo(sp Savepoint) error {
	i, err := tx.findSavepoint(sp)
	if err != nil {
		return err
	}
	s := tx.savepoints[i]
	tx.savepoints = tx.savepoints[:i+1]
	record := tx.redo[:s.redoLen:s.redoLen]
	tx.db.stateMu.Lock()
	err = tx.rebase(record) // from latest and the held commits, the transaction's base
	tx.db.stateMu.Unlock()
	tx.redo, tx.redoBucket = record, s.redoBucket
	if err != nil {
		tx.managed = false
		tx.end()
		return fmt.Errorf("cairn: rollback to savepoint: %w", err)
	}
	return nil
}

// Release forgets sp and every savepoint made after it, keeping their changes. Errors:
// ErrSavepointInvalid, ErrTxClosed.
func (tx *Tx) Release(sp Savepoint) error {
	i, err := tx.findSavepoint(sp)
	if err != nil {
		return err
	}
	tx.savepoints = tx.savepoints[:i]
	return nil
}

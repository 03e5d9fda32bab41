package engine

// Attached transactions: a program that uses the cairn.DB itself as well as SQL (kvsh, whose
// key-value commands and SQL statements share one transaction) begins a cairn transaction and
// attaches it to a Session. Invariants while a session is attached:
//   - s.inTx and s.attached are set and s.tx is the caller's transaction; the session never
//     commits it or rolls it back as a whole, except when a statement's ON CONFLICT ROLLBACK (or
//     a failed undo of a statement) ends it, which detaches the session: InTransaction then
//     reports false, and the caller must treat its transaction as rolled back.
//   - BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT and RELEASE are refused: the caller owns the
//     transaction and its savepoints.
//   - s.schema is the schema the transaction sees, its own DDL included. A caller that rolls
//     the transaction back to one of its savepoints restores it with RolledBackTo(the Mark taken
//     when it made the savepoint), so that the session never loads (and caches) the schema of a
//     transaction that may still roll back.

import (
	"errors"

	"github.com/cairndb/cairn"
)

// ErrAttached is returned by a transaction statement (BEGIN, COMMIT, END, ROLLBACK,
// SAVEPOINT, RELEASE) run in a session attached to its caller's transaction.
var ErrAttached = errors.New("the session runs in its caller's transaction: transaction statements are the caller's to run")

// Attach makes tx, a transaction the caller began (read-write or read-only), the session's
// explicit transaction: every statement runs in it, and sees and leaves its changes there, until
// Detach. The caller commits or rolls back tx; the session does neither (see the file comment
// for the one exception). It fails if the session already has a transaction.
func (s *Session) Attach(tx *cairn.Tx) error {
	if s.inTx {
		return errors.New("cannot start a transaction within a transaction")
	}
	s.reset()
	s.tx, s.inTx, s.attached, s.snapshot = tx, true, true, tx.LSN()
	return nil
}

// Detach ends the attachment, after the caller committed or rolled back its transaction. It
// does nothing if the session is not attached.
func (s *Session) Detach() {
	if s.attached {
		s.reset()
	}
}

// Attached reports whether the session runs in a transaction of its caller (Attach).
func (s *Session) Attached() bool { return s.attached }

// Mark is the state of an attached session that a rollback of its transaction to a savepoint
// must restore: take it when making the savepoint, give it to RolledBackTo after rolling back.
type Mark struct {
	schema *Schema
}

// Mark returns the session's state, to go with a savepoint the caller makes now in the attached
// transaction.
func (s *Session) Mark() Mark { return Mark{schema: s.schema} }

// RolledBackTo tells an attached session that the caller rolled its transaction back to the
// savepoint m was taken with: the schema the session sees is again the one of that moment.
func (s *Session) RolledBackTo(m Mark) {
	if s.attached {
		s.schema = m.schema
	}
}

// attachedWriteTx is writeTx for an attached session: the caller's transaction, if it is
// read-write, with the schema it sees loaded (the transaction holds no DDL of the session when
// s.schema is nil, so the schema loaded is a committed one, safe to cache).
func (s *Session) attachedWriteTx() (*cairn.Tx, error) {
	if !s.tx.Writable() {
		return nil, ErrReadOnlyTx
	}
	if s.schema == nil {
		sc, err := s.eng.schemaFor(s.tx)
		if err != nil {
			return nil, err
		}
		s.schema = sc
	}
	return s.tx, nil
}

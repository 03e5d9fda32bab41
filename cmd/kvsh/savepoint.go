package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
)

// namedSavepoint is a savepoint of the shell's transaction with the name the shell knows it by.
type namedSavepoint struct {
	name string
	sp   cairn.Savepoint
	mark engine.Mark // the SQL session's state when it was made (sql.go)
}

// savepointTx returns the shell's transaction if savepoints can be used in it.
func (sh *shell) savepointTx() (*cairn.Tx, error) {
	switch {
	case sh.tx == nil:
		return nil, errors.New("savepoints need an open transaction (begin starts one)")
	case !sh.tx.Writable():
		return nil, errors.New("savepoints need a read-write transaction (this one is read-only)")
	}
	return sh.tx, nil
}

// findSavepoint returns the index of the savepoint called name.
func (sh *shell) findSavepoint(name []byte) (int, error) {
	if _, err := sh.savepointTx(); err != nil {
		return 0, err
	}
	i := sh.savepointIndex(string(name))
	if i < 0 {
		return 0, fmt.Errorf("no savepoint %s in this transaction", formatBytes(name))
	}
	return i, nil
}

// savepointIndex returns the index of the savepoint called name, or -1.
func (sh *shell) savepointIndex(name string) int {
	return slices.IndexFunc(sh.savepoints, func(s namedSavepoint) bool { return s.name == name })
}

// cmdSavepoint marks a savepoint in the shell's transaction. Without a name it takes the next
// free number and prints it.
func cmdSavepoint(sh *shell, _ context.Context, args [][]byte) error {
	tx, err := sh.savepointTx()
	if err != nil {
		return err
	}
	name := ""
	if len(args) == 1 {
		name = string(args[0])
		if sh.savepointIndex(name) >= 0 {
			return fmt.Errorf("savepoint exists: %s (release it or pick another name)", formatBytes(args[0]))
		}
	} else {
		for name == "" || sh.savepointIndex(name) >= 0 {
			sh.spSeq++
			name = strconv.Itoa(sh.spSeq)
		}
	}
	sp, err := tx.Savepoint()
	if err != nil {
		return err
	}
	sh.savepoints = append(sh.savepoints, namedSavepoint{name, sp, sh.sqlMark()})
	if len(args) == 0 {
		fmt.Fprintln(sh.out, name)
	}
	return nil
}

// rollbackTo undoes the changes made since savepoint name, which stays (later ones go). If the
// library has to end the transaction (a read error while it replays), the shell's transaction
// is gone and the error says so.
func (sh *shell) rollbackTo(name []byte) error {
	i, err := sh.findSavepoint(name)
	if err != nil {
		return err
	}
	err = sh.tx.RollbackTo(sh.savepoints[i].sp)
	if err != nil && !errors.Is(err, cairn.ErrSavepointInvalid) {
		sh.dropTx()
		sh.recheckBucket()
		return fmt.Errorf("rollback to %s: %w (the transaction was rolled back)", formatBytes(name), err)
	}
	if err != nil {
		return err
	}
	sh.savepoints = sh.savepoints[:i+1]
	if sh.sess != nil {
		sh.sess.RolledBackTo(sh.savepoints[i].mark)
	}
	sh.recheckBucket()
	return nil
}

// cmdRelease forgets a savepoint and the later ones, keeping their changes.
func cmdRelease(sh *shell, _ context.Context, args [][]byte) error {
	i, err := sh.findSavepoint(args[0])
	if err != nil {
		return err
	}
	if err := sh.tx.Release(sh.savepoints[i].sp); err != nil {
		return err
	}
	sh.savepoints = sh.savepoints[:i]
	return nil
}

// savepointNames lists the names of the open transaction's savepoints, for completion.
func (sh *shell) savepointNames() []string {
	names := make([]string, len(sh.savepoints))
	for i, s := range sh.savepoints {
		names[i] = quoteArg([]byte(s.name), false)
	}
	return names
}

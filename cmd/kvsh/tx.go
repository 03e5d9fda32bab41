package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairndb/cairn"
)

// continuationPrompt is the prompt for the next line of an unfinished SQL statement.
const continuationPrompt = "   ...> "

// prompt is the prompt of a terminal session: "kvsh", then "(tx)" or "(ro)" while a read-write
// or read-only transaction is open, then ":" and the bucket in use, if any: "kvsh> ",
// "kvsh(tx)> ", "kvsh:users> ", "kvsh(ro):users> "; continuationPrompt while a SQL statement
// waits for its ';'. A remote session's prompt names the node instead (remotePrompt).
func (sh *shell) prompt() string {
	if sh.pending != "" {
		return continuationPrompt
	}
	if sh.remote != nil {
		return sh.remotePrompt()
	}
	p := "kvsh"
	switch {
	case sh.tx == nil:
	case sh.tx.Writable():
		p += "(tx)"
	default:
		p += "(ro)"
	}
	if sh.bucket != nil {
		p += ":" + shortName(sh.bucket)
	}
	return p + "> "
}

// mayRun refuses a write command under -readonly or inside a read-only transaction.
func (sh *shell) mayRun(c *command, args [][]byte) error {
	writes := c.writes || (c.name == "begin" && len(args) == 0)
	switch {
	case writes && sh.salvage != nil:
		return fmt.Errorf("%s is not allowed: the salvaged keys are read-only (recover FILE writes them to a new database)", c.name)
	case writes && sh.readonly:
		return fmt.Errorf("%s is not allowed: the database was opened with -readonly", c.name)
	case c.writes && sh.tx != nil && !sh.tx.Writable():
		return fmt.Errorf("%s is not allowed in a read-only transaction: commit or rollback first", c.name)
	}
	return nil
}

// view runs fn in the open transaction, or else in a read transaction of its own.
func (sh *shell) view(fn func(tx *cairn.Tx) error) error {
	if sh.tx == nil {
		return sh.db.View(fn)
	}
	if err := fn(sh.tx); err != nil {
		return err
	}
	return sh.tx.Err()
}

// update runs fn in the open read-write transaction (left open), or else in a read-write
// transaction of its own committed when fn succeeds.
func (sh *shell) update(fn func(tx *cairn.Tx) error) error {
	if sh.tx == nil {
		return sh.db.Update(fn)
	}
	if !sh.tx.Writable() {
		return errors.New("the open transaction is read-only: commit or rollback first")
	}
	return fn(sh.tx)
}

// cmdBegin opens the shell's transaction: read-write, or read-only with "ro".
func cmdBegin(sh *shell, _ context.Context, args [][]byte) error {
	if sh.tx != nil {
		return errors.New("a transaction is already open: commit or rollback first")
	}
	writable := true
	if len(args) == 1 {
		if string(args[0]) != "ro" {
			return errors.New("usage: begin [ro]")
		}
		writable = false
	}
	tx, err := sh.db.Begin(writable)
	if err != nil {
		return err
	}
	sh.tx, sh.savepoints, sh.spSeq = tx, nil, 0
	return sh.attachSQL()
}

// txCommand reads SQL's forms of the transaction commands as the shell's: the name in any case,
// END as commit, and the optional words dropped: BEGIN [DEFERRED|IMMEDIATE|EXCLUSIVE]
// [TRANSACTION], COMMIT|END [TRANSACTION], ROLLBACK [TRANSACTION] [TO [SAVEPOINT] NAME],
// RELEASE [SAVEPOINT] NAME. Other commands are returned as they are.
func txCommand(words [][]byte) [][]byte {
	name := strings.ToLower(string(words[0]))
	if !txWords[name] {
		return words
	}
	args := words[1:]
	is := func(i int, word string) bool { return i < len(args) && strings.EqualFold(string(args[i]), word) }
	switch name {
	case "begin":
		if is(0, "deferred") || is(0, "immediate") || is(0, "exclusive") {
			args = args[1:]
		}
		if is(0, "transaction") {
			args = args[1:]
		}
	case "commit", "end":
		name = "commit"
		if is(0, "transaction") {
			args = args[1:]
		}
	case "rollback":
		if is(0, "transaction") {
			args = args[1:]
		}
		if is(0, "to") {
			args = append([][]byte{[]byte("to")}, args[1:]...)
			if len(args) == 3 && is(1, "savepoint") {
				args = [][]byte{args[0], args[2]}
			}
		}
	case "release":
		if len(args) == 2 && is(0, "savepoint") {
			args = args[1:]
		}
	}
	return append([][]byte{[]byte(name)}, args...)
}

// cmdCommit commits the shell's transaction.
func cmdCommit(sh *shell, _ context.Context, _ [][]byte) error {
	if sh.tx == nil {
		return errors.New("no open transaction (begin starts one)")
	}
	tx := sh.tx
	sh.dropTx()
	if err := tx.Commit(); err != nil {
		sh.recheckBucket()
		return fmt.Errorf("commit: %w (the transaction was rolled back)", err)
	}
	return nil
}

// cmdRollback discards the shell's transaction, or with "to NAME" its changes since a savepoint.
func cmdRollback(sh *shell, _ context.Context, args [][]byte) error {
	switch {
	case len(args) == 2 && string(args[0]) == "to":
		return sh.rollbackTo(args[1])
	case len(args) > 0:
		return errors.New("usage: rollback [to NAME]")
	case sh.tx == nil:
		return errors.New("no open transaction (begin starts one)")
	}
	tx := sh.tx
	sh.dropTx()
	err := tx.Rollback()
	sh.recheckBucket()
	return err
}

// endTx rolls back a transaction left open when the session ends, saying so for a read-write
// one (its changes are lost).
func (sh *shell) endTx() {
	if sh.tx == nil {
		return
	}
	writable := sh.tx.Writable()
	err := sh.tx.Rollback()
	sh.dropTx()
	if writable {
		sh.warn("the open transaction was rolled back (commit saves changes)")
	}
	if err != nil {
		sh.warn("rollback: %v", err)
	}
}

// prefixEnd is the smallest key greater than every key starting with p, or nil if there is
// none (p is empty or all 0xff).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// cmdFirst prints the first key (starting with a prefix) with its value.
func cmdFirst(sh *shell, _ context.Context, args [][]byte) error {
	return sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		c := ks.Cursor()
		var k, v []byte
		if len(args) == 0 {
			k, v = c.First()
		} else {
			k, v = c.Seek(args[0])
		}
		return sh.printOne(c, args, k, v)
	})
}

// cmdLast prints the last key (starting with a prefix) with its value.
func cmdLast(sh *shell, _ context.Context, args [][]byte) error {
	return sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		c := ks.Cursor()
		var end []byte
		if len(args) > 0 {
			end = prefixEnd(args[0])
		}
		var k, v []byte
		if end == nil {
			k, v = c.Last()
		} else if k, _ = c.Seek(end); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		return sh.printOne(c, args, k, v)
	})
}

// printOne prints the pair first or last found, or an error if there is none.
func (sh *shell) printOne(c *cairn.Cursor, args [][]byte, k, v []byte) error {
	if err := c.Err(); err != nil {
		return err
	}
	if k == nil || (len(args) > 0 && !bytes.HasPrefix(k, args[0])) {
		if len(args) > 0 {
			return fmt.Errorf("no key starts with %s", formatBytes(args[0]))
		}
		if sh.bucket != nil {
			return fmt.Errorf("bucket %s is empty", formatBytes(sh.bucket))
		}
		return errors.New("the database is empty")
	}
	p := newPairPrinter(sh.out, sh.mode)
	err := p.pair(k, v)
	p.end()
	return err
}

// cmdMode sets or prints the output mode.
func cmdMode(sh *shell, _ context.Context, args [][]byte) error {
	if len(args) == 0 {
		fmt.Fprintln(sh.out, sh.mode)
		return nil
	}
	m, err := parseMode(string(args[0]))
	if err != nil {
		return err
	}
	sh.mode = m
	return nil
}

// cmdTimer turns the command timer on or off, or prints its state.
func cmdTimer(sh *shell, _ context.Context, args [][]byte) error {
	return setSwitch(sh, &sh.timer, ".timer", args)
}

// cmdQuiet turns the warnings for skipped files and keys off (on) or back on (off), or prints
// the state.
func cmdQuiet(sh *shell, _ context.Context, args [][]byte) error {
	return setSwitch(sh, &sh.quiet, ".quiet", args)
}

// setSwitch sets an on/off setting from args, or prints it when args is empty.
func setSwitch(sh *shell, setting *bool, name string, args [][]byte) error {
	if len(args) == 0 {
		fmt.Fprintln(sh.out, map[bool]string{true: "on", false: "off"}[*setting])
		return nil
	}
	switch string(args[0]) {
	case "on":
		*setting = true
	case "off":
		*setting = false
	default:
		return fmt.Errorf("usage: %s [on|off]", name)
	}
	return nil
}

// formatDuration renders d with three significant digits in a fitting unit.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.3f ms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

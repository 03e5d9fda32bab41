package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairndb/cairn"
)

// The prompts of a terminal session: no transaction, a read-write one, a read-only one.
const (
	promptTx = "kvsh(tx)> "
	promptRO = "kvsh(ro)> "
)

// prompt is the prompt that shows the open transaction, if any.
func (sh *shell) prompt() string {
	switch {
	case sh.tx == nil:
		return prompt
	case sh.tx.Writable():
		return promptTx
	}
	return promptRO
}

// mayRun refuses a write command under -readonly or inside a read-only transaction.
func (sh *shell) mayRun(c *command, args [][]byte) error {
	writes := c.writes || (c.name == "begin" && len(args) == 0)
	switch {
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
	sh.tx = tx
	return nil
}

// cmdCommit commits the shell's transaction.
func cmdCommit(sh *shell, _ context.Context, _ [][]byte) error {
	if sh.tx == nil {
		return errors.New("no open transaction (begin starts one)")
	}
	tx := sh.tx
	sh.tx = nil
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w (the transaction was rolled back)", err)
	}
	return nil
}

// cmdRollback discards the shell's transaction.
func cmdRollback(sh *shell, _ context.Context, _ [][]byte) error {
	if sh.tx == nil {
		return errors.New("no open transaction (begin starts one)")
	}
	tx := sh.tx
	sh.tx = nil
	return tx.Rollback()
}

// endTx rolls back a transaction left open when the session ends, saying so for a read-write
// one (its changes are lost).
func (sh *shell) endTx() {
	if sh.tx == nil {
		return
	}
	writable := sh.tx.Writable()
	err := sh.tx.Rollback()
	sh.tx = nil
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
	return sh.view(func(tx *cairn.Tx) error {
		c := tx.Cursor()
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
	return sh.view(func(tx *cairn.Tx) error {
		c := tx.Cursor()
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
	if len(args) == 0 {
		fmt.Fprintln(sh.out, map[bool]string{true: "on", false: "off"}[sh.timer])
		return nil
	}
	switch string(args[0]) {
	case "on":
		sh.timer = true
	case "off":
		sh.timer = false
	default:
		return errors.New("usage: .timer [on|off]")
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

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairndb/cairn"
)

// errCheckFailed fails the check command after it listed the problems it found.
var errCheckFailed = errors.New("check found problems")

// cmdCheck runs the integrity check (cairn.DB.Check) and prints each problem on its own line, then
// "ok", "1 problem" or "N problems"; it fails when there are problems.
func cmdCheck(sh *shell, _ context.Context, _ [][]byte) error {
	if sh.tx != nil && sh.tx.Writable() {
		// Check waits for the writer slot, which the open transaction holds.
		return errors.New("check is not allowed in a read-write transaction: commit or rollback first")
	}
	err := sh.db.Check()
	if err == nil {
		fmt.Fprintln(sh.out, "ok")
		return nil
	}
	if !errors.Is(err, cairn.ErrCorrupt) {
		return err // closed or failed database, read error: not a finding
	}
	problems := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		problems = j.Unwrap()
	}
	for _, p := range problems {
		fmt.Fprintln(sh.out, strings.TrimPrefix(p.Error(), "cairn: check: "))
	}
	if len(problems) == 1 {
		fmt.Fprintln(sh.out, "1 problem")
	} else {
		fmt.Fprintf(sh.out, "%d problems\n", len(problems))
	}
	return errCheckFailed
}

// Package killtest runs a test binary's own child test as a separate process and kills it with
// SIGKILL while it reports its acknowledged writes, the harness of the kill -9 tests of the root
// package and of cairnsql.
package killtest

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Child is one run of a child test and when to kill it.
type Child struct {
	Test string // the child test's name: os.Args[0] runs -test.run=^Test$
	Env  string // NAME=VALUE added to the child's environment (what it is to do)
	// One run in EarlyOneIn is killed 0 to EarlyMax after the start (during Open and recovery,
	// or the first writes); the others 0 to LateMax after the first report line.
	EarlyOneIn        int
	EarlyMax, LateMax time.Duration
	Deadline          time.Duration // the child must report within this (else the test fails)
}

// Run starts c, passes each line the child writes on stdout to record (the lines already in
// the pipe when it dies too), kills it at a random moment drawn from rng, and requires that it
// died of the kill. It reports whether the kill was an early one. The child exits when its
// stdin closes, so it does not outlive the parent.
func Run(t *testing.T, rng *rand.Rand, c Child, record func(line string)) (early bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], fmt.Sprintf("-test.run=^%s$", c.Test), "-test.count=1")
	cmd.Env = append(os.Environ(), c.Env)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var killAt <-chan time.Time
	early = rng.IntN(c.EarlyOneIn) == 0
	if early {
		killAt = time.After(time.Duration(rng.Int64N(int64(c.EarlyMax))))
	}
	deadline := time.After(c.Deadline)
wait:
	for {
		select {
		case line, ok := <-lines:
			require.True(t, ok, "child exited before the kill; stderr:\n%s", &stderr)
			record(line)
			if killAt == nil {
				killAt = time.After(time.Duration(rng.Int64N(int64(c.LateMax))))
			}
		case <-killAt:
			break wait
		case <-deadline:
			require.FailNow(t, "child made no progress", "stderr:\n%s", &stderr)
		}
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL
	for line := range lines {              // reports already in the pipe count
		record(line)
	}
	require.Error(t, cmd.Wait(), "the child must die of the kill; stderr:\n%s", &stderr)
	return early
}

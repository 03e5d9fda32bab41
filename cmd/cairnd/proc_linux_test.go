package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes cmd's process get SIGKILL when the test process dies, so that no cairnd
// outlives a test binary that was killed.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

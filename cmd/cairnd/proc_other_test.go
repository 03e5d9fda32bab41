//go:build !linux

package main

import "os/exec"

// dieWithParent does nothing outside Linux: the tests' cleanups kill their processes.
func dieWithParent(*exec.Cmd) {}

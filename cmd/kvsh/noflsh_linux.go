package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// keepOutputOnInterrupt sets NOFLSH on the terminal so that Ctrl-C during a command does not
// discard the output still queued (and with it the command's error line and the next prompt)
// or keys typed ahead. liner restores the terminal's original mode when the session ends.
func keepOutputOnInterrupt(f *os.File) {
	t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	if err != nil {
		return
	}
	t.Lflag |= unix.NOFLSH
	unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, t)
}

//go:build !linux

package main

import "os"

// keepOutputOnInterrupt does nothing here: the terminal keeps its own NOFLSH setting.
func keepOutputOnInterrupt(*os.File) {}

//go:build race

package main

import (
	"os"
	"strings"
)

// Under go test -race the cairnd binary of the process tests is built with -race too, without
// the race runtime's default one-second sleep at exit.
func init() {
	buildFlags = append(buildFlags, "-race")
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

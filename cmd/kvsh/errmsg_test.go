package main

// What kvsh prints for the library's errors (issue 27): the library's message as it is, naming
// the path and the cause once, with the sizes of a limit.

import (
	"strings"
	"testing"
)

// TestTooLargeKeyMessage: a key past the limit is reported with both sizes, not echoed.
func TestTooLargeKeyMessage(t *testing.T) {
	db := tempDB(t)
	key := strings.Repeat("k", 20480)
	runKvsh(t, "", db, "-c", "put "+key+" v").expect(t, "",
		"error: cairn: key of 20,480 bytes is larger than the 16,384-byte limit\n", 1)
}

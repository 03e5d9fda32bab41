package main

import (
	"io/fs"
	"testing"
)

// TestSkipSummary checks the reasons given for each file type and the summary of the skipped
// files: counts by reason, most frequent first, singular for one file, nothing for none.
func TestSkipSummary(t *testing.T) {
	for m, want := range map[fs.FileMode]skipReason{
		fs.ModeSymlink:                      skipSymlink,
		fs.ModeDevice:                       skipDevice,
		fs.ModeDevice | fs.ModeCharDevice:   skipDevice,
		fs.ModeSocket:                       skipSocket,
		fs.ModeNamedPipe:                    skipNamedPipe,
		fs.ModeIrregular:                    skipIrregular,
		fs.ModeSymlink | fs.ModeIrregular:   skipSymlink,
		fs.ModeNamedPipe | fs.ModeIrregular: skipNamedPipe,
	} {
		if got := typeReason(m); got != want {
			t.Errorf("typeReason(%v) = %s, want %s", m, skipNames[got][0], skipNames[want][0])
		}
	}
	var c skipCounts
	if got := c.summary(); got != "" {
		t.Errorf("nothing skipped: summary %q", got)
	}
	c[skipSocket] = 16
	c[skipSymlink] = 3901
	if got, want := c.summary(), " (skipped 3917: 3901 symlinks, 16 sockets)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	c[skipTooLarge], c[skipDevice], c[skipUnreadable], c[skipDatabase], c[skipLongPath] = 1, 16, 2, 1, 1
	want := " (skipped 3938: 3901 symlinks, 16 devices, 16 sockets, 2 unreadable, 1 larger than 256 MiB," +
		" 1 path longer than the 16384-byte key limit, 1 file of the open database)"
	if got := c.summary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	for n, want := range map[int64]string{256 << 20: "256 MiB", 16 << 10: "16 KiB", 1 << 30: "1 GiB", 1000: "1000 bytes", 3 << 19: "1536 KiB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

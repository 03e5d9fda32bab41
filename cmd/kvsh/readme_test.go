package main

// Tests that keep README.md true: .gitignore covers what its quick start makes.

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repoRoot is the module's root directory (cmd/kvsh is two levels below).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// TestGitignoreCoversQuickStart runs README's quick start (kvsh on the default cairn.db, then on
// my.db, as `go build ./cmd/kvsh` builds it) in an empty directory and checks that .gitignore
// ignores every file it makes at the root of a clone.
func TestGitignoreCoversQuickStart(t *testing.T) {
	root := repoRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git work tree")
	}
	dir := t.TempDir()
	runIn(t, dir, "", "-c", "put a 1").expect(t, "", "", 0)
	runIn(t, dir, "", "my.db", "-c", "put a 1; checkpoint").expect(t, "", "", 0)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"kvsh"} // the binary `go build ./cmd/kvsh` writes
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, name := range names {
		cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", name)
		if err := cmd.Run(); err != nil {
			t.Errorf("%s, made by the quick start, is not ignored by .gitignore (git check-ignore: %v)", name, err)
		}
	}
}

// transcriptMasks replace what differs from run to run in README's transcript, in the README and
// in kvsh's output alike, before they are compared: times, the database id and the checksums

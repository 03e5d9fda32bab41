package slt

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Files returns the .test files under dir, as paths relative to dir with forward slashes, sorted.
func Files(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".test") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	slices.Sort(files)
	return files, err
}

// RunDir is the go test entry: it runs every .test file under dir in a subtest named by the
// file's relative path, each on a fresh database from open (which registers its own cleanup,
// e.g. with t.Cleanup(func() { db.Close() })). Each subtest logs the file's summary line
// ("file: N records, P passed, F failed, S skipped") and fails when more records fail than
// opts.Allowed grants the file (none by default), listing the first failures. A file failing
// fewer than it is allowed is logged, so that the allowance can be lowered.
func RunDir(t *testing.T, dir string, open func(t *testing.T) *sql.DB, opts Options) {
	t.Helper()
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("slt: no .test files under %s", dir)
	}
	for name := range opts.Allowed {
		if !slices.Contains(files, name) {
			t.Errorf("slt: Allowed names %s, which is not a file under %s", name, dir)
		}
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			res, err := RunFile(context.Background(), open(t), filepath.Join(dir, filepath.FromSlash(name)), opts)
			if err != nil {
				t.Fatal(err)
			}
			res.File = name
			t.Log(res.String())
			allowed := opts.Allowed[name]
			switch failed := res.Failed(); {
			case failed > allowed:
				for _, f := range res.Failures {
					f.File = name
					t.Error(f.String())
				}
				t.Errorf("%s: %d failed, %d allowed", name, failed, allowed)
			case failed < allowed:
				t.Logf("%s: %d failed, %d allowed: lower the allowance", name, failed, allowed)
			}
		})
	}
}

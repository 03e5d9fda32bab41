package main

// The version of cairn and kvsh, and the line an interactive session starts with.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/pager"
)

// version is the release of cairn (the library and kvsh, one module) this program belongs to:
// cairn.Version (version.go at the module root). `kvsh -version` prints it and so does the first
// line of an interactive session; README.md's transcript shows it, so raising it means updating
// that transcript (go test ./cmd/kvsh -run TestReadmeTranscript -update).
const version = cairn.Version

// startCountBudget bounds the time the start line spends counting keys; a larger database is
// reported as "more than N keys".
const startCountBudget = 200 * time.Millisecond

// printVersion prints the -version line: kvsh's version, the page-file format it writes, and
// the Go release and platform it was built for.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "kvsh %s (cairn page format %d, %s %s/%s)\n", version, pager.FormatVersion,
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// openKind says what Open is about to do with path, for the start line: "created" (no file),
// "created in the empty file" (Open makes an empty file a new database) or "opened". A stat
// error other than a missing file says "opened": Open reports it.
func openKind(path string, readonly bool) string {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "created"
	case err == nil && st.Mode().IsRegular() && st.Size() == 0:
		return "created in the empty file"
	case readonly:
		return "opened read-only"
	}
	return "opened"
}

// startLine is the line an interactive session starts with:
// "cairn 0.1.0: my.db (created, 0 keys); type help". The keys are those of the default key space,
// counted for at most startCountBudget ("more than N keys" past it); buckets and SQL tables
// are counted when there are any (the SQL layer's buckets are not counted as buckets, its table
// buckets as tables). If they cannot be read (a damaged page) the counts are left out: the commands
// that read them report the damage.
func startLine(db *cairn.DB, path, kind string) string {
	var keys, buckets, tables int
	complete := true
	err := db.View(func(tx *cairn.Tx) error {
		deadline := time.Now().Add(startCountBudget)
		for range tx.Range(nil, nil) {
			keys++
			if keys%1024 == 0 && time.Now().After(deadline) {
				complete = false
				break
			}
		}
		if err := tx.Err(); err != nil {
			return err
		}
		return tx.ForEachBucket(func(name []byte) error {
			switch {
			case bytes.HasPrefix(name, []byte(sqlTablePrefix)):
				tables++
			case !isSQLBucket(name):
				buckets++
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Sprintf("cairn %s: %s (%s); type help", version, path, kind)
	}
	what := plural(uint64(keys), "key")
	if !complete {
		what = "more than " + what
	}
	if buckets > 0 {
		what += ", " + plural(uint64(buckets), "bucket")
	}
	if tables > 0 {
		what += ", " + plural(uint64(tables), "table")
	}
	return fmt.Sprintf("cairn %s: %s (%s, %s); type help", version, path, kind, what)
}

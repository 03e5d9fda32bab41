package difftest

import (
	"bufio"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var fileFlag = flag.String("difftest.file", "", "TestFile runs this file's statements (one a line) on both engines and logs both outcomes")

// TestFile is a tool for looking at a difference: it runs each line of -difftest.file on cairn
// and on SQLite and logs both outcomes, marking the lines where they differ (compared as
// multisets, every value exact). Without the flag it does nothing.
func TestFile(t *testing.T) {
	if *fileFlag == "" {
		t.Skip("no -difftest.file")
	}
	f, err := os.Open(*fileFlag)
	require.NoError(t, err)
	defer f.Close()
	cairn, sqlite := openDB(t, "cairn"), openDB(t, "sqlite")
	defer cairn.Close()
	defer sqlite.Close()
	ctx, cancel := statementContext()
	defer cancel()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		var got, want outcome
		var diff string
		if strings.HasPrefix(strings.ToUpper(line), "SELECT") {
			got, want = runQuery(ctx, cairn, line), runQuery(ctx, sqlite, line)
			diff = compareQuery(query{sql: line}, got, want)
		} else {
			got, want = runExec(ctx, cairn, line), runExec(ctx, sqlite, line)
			diff = compareChange(change{}, got, want)
		}
		mark := "  "
		if diff != "" {
			mark = "!="
		}
		t.Logf("%s %s\n    cairn:  %s\n    SQLite: %s", mark, line, describe(got), describe(want))
	}
}

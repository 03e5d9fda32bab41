package slt

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// corpus is the repository's copy of the sqllogictest files.
const corpus = "../../testdata/slt"

func TestParse(t *testing.T) {
	src := "# leading comment\r\n" +
		"statement ok\r\n" +
		"CREATE TABLE t1(a INTEGER,\r\n" +
		"# a comment inside the SQL\r\n" +
		"  b TEXT)\r\n" +
		"  \t \r\n" + // white space only: blank
		"skipif mysql # the rest of the line is ignored\n" +
		"onlyif sqlite\n" +
		"query IT rowsort label-7 extra tokens\n" +
		"SELECT a,\n" +
		"b FROM t1\n" +
		"----\n" +
		"1\n" +
		"# a comment between values\n" +
		"x y\n" +
		"\n\n\n" +
		"hash-threshold 3\n" +
		"\n" +
		"statement error\n" +
		"INSERT INTO nowhere VALUES(1)\n" +
		"\n" +
		"query R\n" +
		"SELECT 1\n" +
		"\n" +
		"onlyif mssql\n" +
		"halt\n" +
		"\n" +
		"frobnicate now\n"
	recs := Parse([]byte(src))
	require.Len(t, recs, 7)

	require.Equal(t, Record{Line: 2, Kind: Statement, Fields: [4]string{"statement", "ok"},
		SQL: "CREATE TABLE t1(a INTEGER,\n  b TEXT)"}, recs[0])
	require.Equal(t, Record{Line: 9, Kind: Query,
		Conditions: []Condition{{Skip: true, Engine: "mysql"}, {Skip: false, Engine: "sqlite"}},
		Fields:     [4]string{"query", "IT", "rowsort", "label-7"},
		SQL:        "SELECT a,\nb FROM t1", Expected: []string{"1", "x y"}, Dashes: true}, recs[1])
	require.Equal(t, Record{Line: 19, Kind: HashThreshold, Fields: [4]string{"hash-threshold", "3"}}, recs[2])
	require.Equal(t, Record{Line: 21, Kind: Statement, Fields: [4]string{"statement", "error"},
		SQL: "INSERT INTO nowhere VALUES(1)"}, recs[3])
	require.Equal(t, Record{Line: 24, Kind: Query, Fields: [4]string{"query", "R"}, SQL: "SELECT 1"}, recs[4])
	require.Equal(t, Record{Line: 28, Kind: Halt, Fields: [4]string{"halt"},
		Conditions: []Condition{{Engine: "mssql"}}}, recs[5])
	require.Equal(t, Record{Line: 30, Kind: Unknown, Fields: [4]string{"frobnicate", "now"}}, recs[6])

	// A record of conditions only has an empty command.
	recs = Parse([]byte("onlyif sqlite\n"))
	require.Equal(t, []Record{{Line: 1, Kind: Unknown, Conditions: []Condition{{Engine: "sqlite"}}}}, recs)
	require.Empty(t, Parse([]byte("\n# only a comment\n \n")))
}

// TestCorpusChecksums checks testdata/slt against its SHA256SUMS: every listed file is there
// with its sum, and every .test file there is listed.
func TestCorpusChecksums(t *testing.T) {
	sums, err := os.ReadFile(filepath.Join(corpus, "SHA256SUMS"))
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, "SHA256SUMS line %q", line)
		data, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(name)))
		require.NoError(t, err)
		got := sha256.Sum256(data)
		require.Equal(t, sum, hex.EncodeToString(got[:]), "%s: sha256 differs from SHA256SUMS", name)
		listed[name] = true
	}
	files, err := Files(corpus)
	require.NoError(t, err)
	require.Len(t, files, 12)
	for _, f := range files {
		require.True(t, listed[f], "%s is not in SHA256SUMS", f)
	}
}

// TestParseCorpus parses every corpus file: no unknown record kinds, every query has a type
// string and a "----" line, and the record counts are those of the files' command lines.
func TestParseCorpus(t *testing.T) {
	files, err := Files(corpus)
	require.NoError(t, err)
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(corpus, f))
		require.NoError(t, err)
		commands := 0
		for _, line := range strings.Split(string(data), "\n") {
			for _, kw := range []string{"statement ", "query ", "hash-threshold ", "halt"} {
				if strings.HasPrefix(line, kw) {
					commands++
				}
			}
		}
		recs := Parse(data)
		require.Len(t, recs, commands, f)
		for _, r := range recs {
			require.NotEqual(t, Unknown, r.Kind, "%s:%d", f, r.Line)
			if r.Kind == Query {
				require.True(t, r.Dashes && r.Fields[1] != "", "%s:%d", f, r.Line)
			}
		}
		total += len(recs)
	}
	require.Equal(t, 3559, total)
}

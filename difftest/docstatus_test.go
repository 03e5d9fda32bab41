package difftest

// docs/SQL.md's "Status against SQLite" lists every function and PRAGMA SQLite 3.54.1 has, with
// whether cairn has it. TestSQLDocStatus keeps that list true: it asks SQLite for its functions
// (pragma_function_list) and PRAGMAs (pragma_pragma_list), cairn for its functions, and runs
// each PRAGMA the document says cairn has.

import (
	"database/sql"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// statusRow is a row of one of the status tables: the names of its first column and the word
// of its second ("yes", "no", "accepted", "ignored").
type statusRow struct {
	names  []string
	status string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// statusTable returns the rows of the table under the heading "### title" of the status section.
func statusTable(t *testing.T, doc, title string) []statusRow {
	_, section, ok := strings.Cut(doc, "\n## Status against SQLite")
	require.True(t, ok, "docs/SQL.md has no section Status against SQLite")
	section, _, _ = strings.Cut(section, "\n## ")
	_, table, ok := strings.Cut(section, "\n### "+title+"\n")
	require.True(t, ok, "no table %q", title)
	table, _, _ = strings.Cut(table, "\n### ")
	var rows []statusRow
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		var r statusRow
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			r.names = append(r.names, m[1])
		}
		r.status = strings.TrimSpace(cells[2])
		if len(r.names) > 0 {
			rows = append(rows, r)
		}
	}
	require.NotEmpty(t, rows, "table %q has no rows", title)
	return rows
}

// names returns the distinct values of the first column of a query.
func names(t *testing.T, db *sql.DB, query string) []string {
	rows, err := db.Query(query)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		out = append(out, n)
	}
	require.NoError(t, rows.Err())
	slices.Sort(out)
	return slices.Compact(out)
}

func TestSQLDocStatus(t *testing.T) {
	text, err := os.ReadFile("../docs/SQL.md")
	require.NoError(t, err)
	doc := string(text)
	cairn, sqlite := openDB(t, "cairn"), openDB(t, "sqlite")
	defer cairn.Close()
	defer sqlite.Close()
	const functions = `SELECT name FROM pragma_function_list`

	t.Run("functions", func(t *testing.T) {
		has := names(t, cairn, functions)
		documented := map[string]string{}
		for _, r := range statusTable(t, doc, "Functions") {
			require.Contains(t, []string{"yes", "no"}, r.status, "status of %v", r.names)
			for _, n := range r.names {
				require.NotContains(t, documented, n, "%s is listed twice", n)
				documented[n] = r.status
				_, found := slices.BinarySearch(has, n)
				require.Equal(t, r.status == "yes", found, "SQL.md says %s is %q in cairn", n, r.status)
			}
		}
		for _, n := range append(names(t, sqlite, functions), has...) {
			require.Contains(t, documented, n, "SQL.md's function table does not list %s", n)
		}
	})

	t.Run("pragmas", func(t *testing.T) {
		documented := map[string]bool{}
		for _, r := range statusTable(t, doc, "PRAGMAs") {
			require.Contains(t, []string{"yes", "accepted", "ignored", "no"}, r.status, "status of %v", r.names)
			for _, n := range r.names {
				require.NotContains(t, documented, n, "%s is listed twice", n)
				documented[n] = true
				if r.status == "yes" || r.status == "accepted" {
					rows, err := cairn.Query("PRAGMA " + n)
					require.NoError(t, err, "PRAGMA %s", n)
					require.NoError(t, rows.Close())
				}
			}
		}
		for _, n := range names(t, sqlite, `SELECT name FROM pragma_pragma_list`) {
			require.Contains(t, documented, n, "SQL.md's PRAGMA table does not list %s", n)
		}
	})
}

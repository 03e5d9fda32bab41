package cairn

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLayering enforces that imports point down only (root -> txn -> btree -> pager -> internal,
// and wal -> internal; the SQL layer above the root: cairnsql -> sql/engine -> sql/parse,
// sql/codec, sql/ast -> sql/value, and sql/engine -> root; cluster -> raftstore -> root, and cluster -> cairnsql), that the
// library imports nothing outside the standard library and golang.org/x/sys, that only sql/parse
// imports the SQL parser (github.com/sqlc-dev/meyer) and only raftstore and cluster
// hashicorp/raft, which see nothing of cairn but its public API; the test-helper packages may
// import testify.
func TestLayering(t *testing.T) {
	const mod = "github.com/cairndb/cairn/"
	// external lists the packages that may import modules outside the standard library and
	// golang.org/x/sys.
	external := map[string][]string{"sql/parse": {"github.com/sqlc-dev/meyer/"},
		"raftstore": {"github.com/hashicorp/raft/"},
		"cluster":   {"github.com/hashicorp/raft/", "github.com/hashicorp/go-hclog/"},
		// test helpers, imported by tests only
		"internal/killtest":           {"github.com/stretchr/testify/"},
		"internal/invariants/invtest": {"github.com/stretchr/testify/"}}
	allowed := map[string][]string{
		"cluster":                     {"", "raftstore", "cairnsql", "sql/engine", "sql/codec", "sql/value"},
		"raftstore":                   {""},
		"cairnsql":                    {"", "sql/engine", "sql/value"},
		"sql/engine":                  {"", "sql/ast", "sql/parse", "sql/codec", "sql/value"},
		"sql/parse":                   {"sql/ast", "sql/value"},
		"sql/ast":                     {"sql/value"},
		"sql/codec":                   {"sql/value"},
		"sql/value":                   {},
		".":                           {"txn", "btree", "pager", "wal", "internal/"},
		"txn":                         {"btree", "pager", "internal/"},
		"btree":                       {"pager", "internal/"},
		"pager":                       {"internal/"},
		"wal":                         {"internal/"},
		"internal/vfs":                {"internal/errs"},
		"internal/errs":               {},
		"internal/ondisk":             {},
		"internal/invariants":         {},
		"internal/slt":                {},
		"internal/killtest":           {},
		"internal/invariants/invtest": {"internal/invariants"},
	}
	for dir, ok := range allowed {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, inModule := strings.CutPrefix(path+"/", mod)
				rel = strings.TrimSuffix(rel, "/")
				if !inModule {
					std := !strings.Contains(strings.Split(path, "/")[0], ".")
					ext := false
					for _, prefix := range external[dir] {
						ext = ext || strings.HasPrefix(path+"/", prefix)
					}
					require.True(t, std || ext || strings.HasPrefix(path, "golang.org/x/sys/"),
						"%s/%s imports %s: the library depends only on the standard library and golang.org/x/sys", dir, e.Name(), path)
					continue
				}
				permitted := false
				for _, p := range ok {
					permitted = permitted || rel == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p))
				}
				require.True(t, permitted, "%s/%s imports %s: imports must point down the layers", dir, e.Name(), path)
			}
		}
	}
}

// TestRootImportClosure asks the go command what `import "github.com/cairndb/cairn"` compiles:
// the standard library, golang.org/x/sys and the library's own layers, and so none of the
// modules that other packages of this module use (hashicorp/raft for raftstore, the SQL parser,
// kvsh's terminal packages). TestLayering checks each import; this checks the closure itself.
func TestRootImportClosure(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	require.NoError(t, err)
	own := map[string]bool{"": true, "txn": true, "btree": true, "pager": true, "wal": true}
	pkgs := strings.Fields(string(out))
	require.Contains(t, pkgs, "github.com/cairndb/cairn")
	for _, p := range pkgs {
		if strings.HasPrefix(p, "golang.org/x/sys/") {
			continue
		}
		rel, ok := strings.CutPrefix(p, "github.com/cairndb/cairn")
		rel = strings.TrimPrefix(rel, "/")
		require.True(t, ok && (own[rel] || strings.HasPrefix(rel, "internal/")),
			"the root package's import closure holds %s: a program importing cairn would compile it", p)
	}
}

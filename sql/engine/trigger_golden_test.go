package engine_test

// The golden file of SQL layout version 4 (FORMAT.md, "SQL schema"): version 3 with trigger
// entries. The golden database of version 3 with a table and four triggers (one sharing its name with a
// table) and a view's INSTEAD OF trigger; TestGoldenSchemaV4Reads loads the committed file and
// fires them, so a build that reads the trigger entries differently fails.

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cairndb/cairn/sql/engine"
	"github.com/stretchr/testify/require"
)

const schemaV4Path = "testdata/schema_v4.txt"

var goldenV4SQL = append(append([]string(nil), goldenSQL...),
	"CREATE TABLE log(x)",
	"CREATE TRIGGER fruit_log AFTER INSERT ON fruit BEGIN INSERT INTO log VALUES ('first ' || NEW.name); END",
	"CREATE TRIGGER fruit BEFORE INSERT ON fruit WHEN NEW.price < 0 BEGIN SELECT RAISE(ABORT, 'negative price'); END",
	"CREATE TRIGGER fruit_log2 AFTER INSERT ON fruit BEGIN INSERT INTO log VALUES ('second ' || NEW.name); END",
	"CREATE TRIGGER cheap_ins INSTEAD OF INSERT ON cheap BEGIN INSERT INTO fruit(name, price) VALUES (NEW.name, 1); END",
)

func TestGoldenSchemaV4(t *testing.T) {
	db := openMemory(t)
	s := engine.New(db).NewSession()
	defer s.Close()
	for _, q := range goldenV4SQL {
		_, err := s.Exec(context.Background(), q, nil)
		require.NoError(t, err, q)
	}
	got := strings.NewReplacer("# SQL layout version 3", "# SQL layout version 4",
		"# TestGoldenSchemaLayout makes", "# TestGoldenSchemaV4 makes").Replace(dumpBuckets(t, db))
	require.Contains(t, got, "0076657273696f6e\t0000000000000004\n", "the first CREATE TRIGGER makes the layout version 4")
	if *update {
		require.NoError(t, os.WriteFile(schemaV4Path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(schemaV4Path)
	require.NoError(t, err)
	require.Equal(t, string(want), got, "the SQL layout changed: see FORMAT.md (\"SQL schema\"), then go test -update")
}

func TestGoldenSchemaV4Reads(t *testing.T) {
	db := openMemory(t)
	loadDump(t, db, schemaV4Path)
	s := engine.New(db).NewSession()
	defer s.Close()
	ctx := context.Background()
	_, err := s.Exec(ctx, "INSERT INTO fruit(name, price) VALUES ('pear', -1)", nil)
	require.EqualError(t, err, "negative price")
	_, err = s.Exec(ctx, "INSERT INTO cheap VALUES ('fig')", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"'second fig'", "'first fig'"}, quotedRows(t, s, "SELECT x FROM log"))
	require.Equal(t, []string{"'Kiwi' 2.5", "'fig' 1.0"}, quotedRows(t, s, "SELECT name, price FROM fruit ORDER BY id"))
}

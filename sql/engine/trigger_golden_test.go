package engine_test

// The golden file of SQL layout version 3 (FORMAT.md, "SQL schema"): version 2 with trigger
// entries. The golden database of version 2 with two triggers (one sharing its name with a
// table) and a view's INSTEAD OF trigger; TestGoldenSchemaV3Reads loads the committed file and
// fires them, so a build that reads the trigger entries differently fails.

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cairndb/cairn/sql/engine"
	"github.com/stretchr/testify/require"
)

const schemaV3Path = "testdata/schema_v3.txt"

var goldenV3SQL = append(append([]string(nil), goldenSQL...),
	"CREATE TABLE log(x)",
	"CREATE TRIGGER fruit_log AFTER INSERT ON fruit BEGIN INSERT INTO log VALUES ('first ' || NEW.name); END",
	"CREATE TRIGGER fruit BEFORE INSERT ON fruit WHEN NEW.price < 0 BEGIN SELECT RAISE(ABORT, 'negative price'); END",
	"CREATE TRIGGER fruit_log2 AFTER INSERT ON fruit BEGIN INSERT INTO log VALUES ('second ' || NEW.name); END",
	"CREATE TRIGGER cheap_ins INSTEAD OF INSERT ON cheap BEGIN INSERT INTO fruit(name, price) VALUES (NEW.name, 1); END",
)

func TestGoldenSchemaV3(t *testing.T) {
	db := openMemory(t)
	s := engine.New(db).NewSession()
	defer s.Close()
	for _, q := range goldenV3SQL {
		_, err := s.Exec(context.Background(), q, nil)
		require.NoError(t, err, q)
	}
	got := strings.NewReplacer("# SQL layout version 2", "# SQL layout version 3",
		"# TestGoldenSchemaLayout makes", "# TestGoldenSchemaV3 makes").Replace(dumpBuckets(t, db))
	require.Contains(t, got, "0076657273696f6e\t0000000000000003\n", "the first CREATE TRIGGER makes the layout version 3")
	if *update {
		require.NoError(t, os.WriteFile(schemaV3Path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(schemaV3Path)
	require.NoError(t, err)
	require.Equal(t, string(want), got, "the SQL layout changed: see FORMAT.md (\"SQL schema\"), then go test -update")
}

func TestGoldenSchemaV3Reads(t *testing.T) {
	db := openMemory(t)
	loadDump(t, db, schemaV3Path)
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

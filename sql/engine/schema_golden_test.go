package engine_test

// The golden file of the SQL layout (version 3, FORMAT.md "SQL schema"): a small database made
// by the engine, every bucket's keys and values dumped as hex. TestGoldenSchemaLayout fails when
// the engine writes other bytes (a format change: a new version in FORMAT.md, then go test
// -update); TestGoldenSchemaLayoutReads loads the committed file into an empty database and
// queries it, so a build that reads the layout differently fails too. The version-2 file is
// frozen: this build reads it (TestGoldenSchemaV2Reads).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const schemaGoldenPath = "testdata/schema_v3.txt"

// schemaV2Path is a database of layout version 2, frozen: this build reads it.
const schemaV2Path = "testdata/schema_v2.txt"

// schemaV1Path is a database of layout version 1, frozen: this build refuses it.
const schemaV1Path = "testdata/schema_v1.txt"

// goldenSQL makes the golden database: a rowid table with an INTEGER PRIMARY KEY, a UNIQUE
// column (an automatic index) and a descending index; a WITHOUT ROWID table with a NOCASE text
// key and an index; a view. FORMAT.md's worked example quotes the row of fruit and its entries.
var goldenSQL = []string{
	"CREATE TABLE fruit(id INTEGER PRIMARY KEY, name TEXT UNIQUE, price REAL)",
	"CREATE INDEX fruit_price ON fruit(price DESC)",
	"INSERT INTO fruit VALUES (7, 'Kiwi', 2.5)",
	"CREATE TABLE tag(k TEXT COLLATE NOCASE PRIMARY KEY, n INTEGER) WITHOUT ROWID",
	"CREATE INDEX tag_n ON tag(n)",
	"INSERT INTO tag VALUES ('Ab', 300)",
	"INSERT INTO tag VALUES ('x' || char(0) || 'Y', 1)", // version 2's NOCASE key: up to the NUL, then the length
	"CREATE VIEW cheap AS SELECT name FROM fruit WHERE price < 3",
	// Version 3: the row of fruit stays a record of 3 values, which reads origin as 'NZ'.
	"ALTER TABLE fruit ADD COLUMN origin TEXT DEFAULT 'NZ'",
}

func openMemory(t *testing.T) *cairn.DB {
	t.Helper()
	db, err := cairn.Open("golden.db", &cairn.Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// dumpBuckets renders every bucket of db (and checks that the default key space is empty: the
// SQL layer writes only buckets).
func dumpBuckets(t *testing.T, db *cairn.DB) string {
	t.Helper()
	var out strings.Builder
	out.WriteString("# SQL layout version 3 (FORMAT.md, \"SQL schema\"): the buckets of the database that\n")
	out.WriteString("# TestGoldenSchemaLayout makes. A line `bucket NAME` (a Go string), then one line per\n")
	out.WriteString("# entry: the key in hex, a tab, the value in hex.\n")
	err := db.View(func(tx *cairn.Tx) error {
		for k := range tx.Range(nil, nil) {
			return fmt.Errorf("the default key space holds %q", k)
		}
		return tx.ForEachBucket(func(name []byte) error {
			fmt.Fprintf(&out, "bucket %q\n", name)
			b, err := tx.Bucket(name)
			if err != nil {
				return err
			}
			for k, v := range b.Range(nil, nil) {
				fmt.Fprintf(&out, "%x\t%x\n", k, v)
			}
			return tx.Err()
		})
	})
	require.NoError(t, err)
	return out.String()
}

func TestGoldenSchemaLayout(t *testing.T) {
	db := openMemory(t)
	s := engine.New(db).NewSession()
	defer s.Close()
	for _, q := range goldenSQL {
		_, err := s.Exec(context.Background(), q, nil)
		require.NoError(t, err, q)
	}
	got := dumpBuckets(t, db)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(schemaGoldenPath), 0o755))
		require.NoError(t, os.WriteFile(schemaGoldenPath, []byte(got), 0o644))
	}
	want, err := os.ReadFile(schemaGoldenPath)
	require.NoError(t, err)
	require.Equal(t, string(want), got, "the SQL layout changed: see FORMAT.md (\"SQL schema\"), then go test -update")
}

// loadDump writes the buckets of a golden file into db.
func loadDump(t *testing.T, db *cairn.DB, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	err = db.Update(func(tx *cairn.Tx) error {
		var b *cairn.Bucket
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "bucket "):
				name, err := strconv.Unquote(strings.TrimPrefix(line, "bucket "))
				if err != nil {
					return err
				}
				if b, err = tx.CreateBucket([]byte(name)); err != nil {
					return err
				}
			default:
				kh, vh, ok := strings.Cut(line, "\t")
				k, err1 := hex.DecodeString(kh)
				v, err2 := hex.DecodeString(vh)
				if !ok || err1 != nil || err2 != nil || b == nil {
					return fmt.Errorf("bad line %q", line)
				}
				if err := b.Put(k, v); err != nil {
					return err
				}
			}
		}
		return sc.Err()
	})
	require.NoError(t, err)
}

// quotedRows returns the rows of q, each rendered as quote() renders its values.
func quotedRows(t *testing.T, s *engine.Session, q string) []string {
	t.Helper()
	st, err := s.Prepare(q)
	require.NoError(t, err, q)
	rows, err := st.Query(context.Background(), nil)
	require.NoError(t, err, q)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line []byte
		for i, v := range rows.Row() {
			if i > 0 {
				line = append(line, ' ')
			}
			line = value.AppendQuoted(line, v)
		}
		out = append(out, string(line))
	}
	require.NoError(t, rows.Err(), q)
	return out
}

func TestGoldenSchemaLayoutReads(t *testing.T) {
	db := openMemory(t)
	loadDump(t, db, schemaGoldenPath)
	require.Equal(t, []string{"7 'Kiwi' 2.5 'NZ'"}, quotedRows(t, engine.New(db).NewSession(), "SELECT * FROM fruit"))
	checkGoldenReads(t, db, 7)
}

// TestGoldenSchemaV2Reads reads the frozen version-2 database, and checks that ADD COLUMN
// makes it version 3.
func TestGoldenSchemaV2Reads(t *testing.T) {
	db := openMemory(t)
	loadDump(t, db, schemaV2Path)
	s := engine.New(db).NewSession()
	require.Equal(t, []string{"7 'Kiwi' 2.5"}, quotedRows(t, s, "SELECT * FROM fruit"))
	checkGoldenReads(t, db, 6)
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 2}, schemaVersion(t, db))
	_, err := s.Exec(context.Background(), "ALTER TABLE fruit ADD COLUMN origin TEXT DEFAULT 'NZ'", nil)
	require.NoError(t, err)
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 3}, schemaVersion(t, db))
	require.Equal(t, []string{"'NZ'", "'NZ'"}, quotedRows(t, s, "SELECT origin FROM fruit"))
}

// schemaVersion returns the schema bucket's version entry.
func schemaVersion(t *testing.T, db *cairn.DB) []byte {
	t.Helper()
	var v []byte
	require.NoError(t, db.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket([]byte("\x00sql/schema"))
		if err != nil {
			return err
		}
		v, err = b.Get([]byte("\x00version"))
		return err
	}))
	return v
}

// checkGoldenReads queries the golden database through each index and checks its counters:
// cookie is the schema cookie after one more CREATE TABLE.
func checkGoldenReads(t *testing.T, db *cairn.DB, cookie byte) {
	s := engine.New(db).NewSession()
	defer s.Close()
	// Through each index: the automatic one of UNIQUE, the descending one, the WITHOUT ROWID
	// table's primary key (NOCASE) and its index.
	require.Equal(t, []string{"7"}, quotedRows(t, s, "SELECT id FROM fruit WHERE name = 'Kiwi'"))
	require.Equal(t, []string{"'Kiwi'"}, quotedRows(t, s, "SELECT name FROM fruit WHERE price > 2 AND price <= 2.5"))
	require.Equal(t, []string{"'Ab' 300"}, quotedRows(t, s, "SELECT * FROM tag WHERE k = 'aB'"))
	require.Equal(t, []string{"'Ab'"}, quotedRows(t, s, "SELECT k FROM tag WHERE n = 300"))
	require.Equal(t, []string{"'Kiwi'"}, quotedRows(t, s, "SELECT * FROM cheap"))
	for q, plan := range map[string]string{
		"SELECT id FROM fruit WHERE name = 'Kiwi'": "SEARCH fruit USING COVERING INDEX sqlite_autoindex_fruit_1 (name=?)",
		"SELECT id FROM fruit WHERE price > 2":     "SEARCH fruit USING COVERING INDEX fruit_price (price>?)",
		"SELECT k FROM tag WHERE n = 300":          "SEARCH tag USING INDEX tag_n (n=?)",
	} {
		got := quotedRows(t, s, "EXPLAIN QUERY PLAN "+q)
		require.Len(t, got, 1, q)
		require.True(t, strings.HasSuffix(got[0], "'"+plan+"'"), "%s: %s", q, got[0])
	}
	// The schema bucket's cookie and next id: a new table gets id 5120 and the cookie goes on.
	_, err := s.Exec(context.Background(), "INSERT INTO fruit(name, price) VALUES ('kiwi', 1)", nil)
	require.NoError(t, err, "UNIQUE on name is BINARY: 'kiwi' differs from 'Kiwi'")
	_, err = s.Exec(context.Background(), "INSERT INTO fruit(name, price) VALUES ('Kiwi', 1)", nil)
	require.EqualError(t, err, "UNIQUE constraint failed: fruit.name")
	_, err = s.Exec(context.Background(), "INSERT INTO tag VALUES ('AB', 1)", nil)
	require.EqualError(t, err, "UNIQUE constraint failed: tag.k")
	_, err = s.Exec(context.Background(), "CREATE TABLE more(a)", nil)
	require.NoError(t, err)
	err = db.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket([]byte("\x00sql/schema"))
		if err != nil {
			return err
		}
		gotCookie, err := b.Get([]byte("\x00cookie"))
		if err != nil {
			return err
		}
		next, err := b.Get([]byte("\x00next-id"))
		if err != nil {
			return err
		}
		require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, cookie}, gotCookie)
		require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0x18, 0}, next) // 6144: 5120 was taken
		_, err = tx.Bucket([]byte("\x00sql/t/5120"))
		return err
	})
	require.NoError(t, err)
}

// TestGoldenSchemaVersionRefused checks that a database of layout version 1 (NOCASE keys that
// go on past a NUL byte), and one of a version to come, are refused with an error naming both
// versions, not read.
func TestGoldenSchemaVersionRefused(t *testing.T) {
	db := openMemory(t)
	loadDump(t, db, schemaV1Path)
	requireVersionRefused(t, db, 1)
	err := db.Update(func(tx *cairn.Tx) error {
		b, err := tx.Bucket([]byte("\x00sql/schema"))
		if err != nil {
			return err
		}
		return b.Put([]byte("\x00version"), []byte{0, 0, 0, 0, 0, 0, 0, 5})
	})
	require.NoError(t, err)
	requireVersionRefused(t, db, 5)
}

// requireVersionRefused requires that a query on db fails on its layout version.
func requireVersionRefused(t *testing.T, db *cairn.DB, version int) {
	t.Helper()
	s := engine.New(db).NewSession()
	defer s.Close()
	st, err := s.Prepare("SELECT * FROM fruit")
	require.NoError(t, err)
	_, err = st.Query(context.Background(), nil)
	require.Error(t, err)
	require.ErrorIs(t, err, cairn.ErrCorrupt)
	require.Contains(t, err.Error(), fmt.Sprintf("sql: schema layout version %d is not supported (this build reads versions 2 to 4)", version))
	require.False(t, bytes.Contains([]byte(err.Error()), []byte("no such table")))
}

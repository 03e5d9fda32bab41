package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
)

// textRows renders rows as "v1|v2|..." with each value's text (Value.String's form: texts quoted).
func textRows(rows [][]value.Value) []string {
	var out []string
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = v.String()
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

// TestAlterTableRewritesSchemaText checks the CREATE texts ALTER TABLE leaves, against the texts
// SQLite 3.54.1 leaves in sqlite_schema for the same statements (quoted here).
func TestAlterTableRewritesSchemaText(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, qty INT CHECK (qty >= 0), note);
		CREATE INDEX t_qty ON t(qty);
		CREATE VIEW v AS SELECT t.id, name, qty FROM t WHERE t.qty > 0;
		CREATE VIEW v2 AS SELECT x.qty, (SELECT max(qty) FROM t) AS m FROM t AS x JOIN t ON t.id = x.id;
		CREATE TABLE c(x REFERENCES t(qty), qty);
		CREATE VIEW v3 AS SELECT qty FROM c;
		INSERT INTO t VALUES (1, 'a', 2, 'n');
		ALTER TABLE t RENAME TO items;
		ALTER TABLE items RENAME COLUMN qty TO amount;
		ALTER TABLE items ADD COLUMN price REAL DEFAULT 1 ;
		ALTER TABLE items DROP COLUMN note`)
	objs, err := s.Objects()
	require.NoError(t, err)
	got := map[string]string{}
	for _, o := range objs {
		got[o.Name] = o.SQL
	}
	require.Equal(t, map[string]string{
		"items":                    `CREATE TABLE "items"(id INTEGER PRIMARY KEY, name TEXT UNIQUE, amount INT CHECK (amount >= 0), price REAL DEFAULT 1)`,
		"sqlite_autoindex_items_1": "",
		"t_qty":                    `CREATE INDEX t_qty ON "items"(amount)`,
		"v":                        `CREATE VIEW v AS SELECT "items".id, name, amount FROM "items" WHERE "items".amount > 0`,
		"v2":                       `CREATE VIEW v2 AS SELECT x.amount, (SELECT max(amount) FROM "items") AS m FROM "items" AS x JOIN "items" ON "items".id = x.id`,
		"c":                        `CREATE TABLE c(x REFERENCES "items"(amount), qty)`,
		"v3":                       `CREATE VIEW v3 AS SELECT qty FROM c`,
	}, got)
	require.Equal(t, []string{"1|'a'|2|1.0"}, textRows(query(t, s, "SELECT * FROM items")))
	require.Equal(t, []string{"2|2"}, textRows(query(t, s, "SELECT * FROM v2")))
}

// TestAlterTableReplansPreparedStatements: a statement prepared before ALTER TABLE plans again
// for the new schema (the schema cookie changed).
func TestAlterTableReplansPreparedStatements(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 2)`)
	st, err := s.Prepare("SELECT * FROM t")
	require.NoError(t, err)
	read := func() []string {
		rows, err := st.Query(t.Context(), nil)
		require.NoError(t, err)
		defer rows.Close()
		var out [][]value.Value
		for rows.Next() {
			out = append(out, cloneRow(rows.Row()))
		}
		require.NoError(t, rows.Err())
		return textRows(out)
	}
	require.Equal(t, []string{"1|2"}, read())
	mustExec(t, s, "ALTER TABLE t ADD COLUMN c DEFAULT 'x'")
	require.Equal(t, []string{"1|2|'x'"}, read())
	mustExec(t, s, "ALTER TABLE t DROP COLUMN a")
	require.Equal(t, []string{"2|'x'"}, read())
	mustExec(t, s, "ALTER TABLE t RENAME TO u")
	_, err = st.Query(t.Context(), nil)
	require.EqualError(t, err, "no such table: t")
}

// TestAlterTableSurvivesReopen: the edited CREATE texts are the schema, and records written
// before ADD COLUMN read its default after the database is opened again.
func TestAlterTableSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := cairn.Open(path, &cairn.Options{Sync: cairn.SyncNone})
	require.NoError(t, err)
	s := New(db).NewSession()
	mustExec(t, s, `CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 2);
		ALTER TABLE t ADD COLUMN c INT DEFAULT '7'; ALTER TABLE t RENAME b TO bb;
		CREATE INDEX tc ON t(c); ALTER TABLE t RENAME TO u`)
	require.NoError(t, db.Close())
	db, err = cairn.Open(path, &cairn.Options{Sync: cairn.SyncNone})
	require.NoError(t, err)
	defer db.Close()
	s = New(db).NewSession()
	require.Equal(t, []string{"1|2|7"}, textRows(query(t, s, "SELECT a, bb, c FROM u WHERE c = 7")))
	require.Equal(t, []string{"'integer'"}, textRows(query(t, s, "SELECT typeof(c) FROM u")))
}

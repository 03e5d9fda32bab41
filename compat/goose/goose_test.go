package goose

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/stretchr/testify/require"

	_ "github.com/cairndb/cairn/cairnsql"
)

// provider opens a cairn database and a goose provider over testdata/migrations with goose's
// SQLite dialect: the one a program that migrates SQLite today uses.
func provider(t *testing.T, path string) (*sql.DB, *goose.Provider) {
	t.Helper()
	db, err := sql.Open("cairn", path)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	p, err := goose.NewProvider(database.DialectSQLite3, db, os.DirFS("testdata/migrations"))
	require.NoError(t, err)
	return db, p
}

// tables lists the database's tables as sqlite_master does, without goose's own.
func tables(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var names []string
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'goose%' AND name NOT LIKE 'sqlite%' ORDER BY name`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Err())
	return names
}

func TestMigrateUpAndDown(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "app.db")
	db, p := provider(t, path)

	results, err := p.Up(ctx)
	require.NoError(t, err)
	require.Len(t, results, 4)
	v, err := p.GetDBVersion(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 4, v)
	require.Equal(t, []string{"articles", "users"}, tables(t, db))

	var name, title, content string
	require.NoError(t, db.QueryRow(`SELECT u.name, a.title, a.content FROM articles a JOIN users u ON u.id = a.user_id`).
		Scan(&name, &title, &content))
	require.Equal(t, []string{"first", "hello from first@example.com", ""}, []string{name, title, content})

	// goose's version table: one row per applied migration, with a timestamp from its DEFAULT.
	var applied int
	var stamped int
	require.NoError(t, db.QueryRow(`SELECT count(*), count(tstamp) FROM goose_db_version WHERE version_id > 0`).
		Scan(&applied, &stamped))
	require.Equal(t, 4, applied)
	require.Equal(t, 4, stamped)

	// Down one at a time to 1, then Up again: every Down undoes its Up.
	_, err = p.DownTo(ctx, 1)
	require.NoError(t, err)
	v, err = p.GetDBVersion(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, v)
	require.Equal(t, []string{"users"}, tables(t, db))
	var cols int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pragma_table_info('users')`).Scan(&cols))
	require.Equal(t, 3, cols, "migration 3's Down drops the name column")

	_, err = p.Up(ctx)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, tables(t, db))
}

func TestMigrationsSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "app.db")
	db, p := provider(t, path)
	_, err := p.UpTo(ctx, 2)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	db, p = provider(t, path)
	status, err := p.Status(ctx)
	require.NoError(t, err)
	require.Len(t, status, 4)
	for i, s := range status {
		want := goose.StatePending
		if i < 2 {
			want = goose.StateApplied
		}
		require.Equal(t, want, s.State, "migration %d", s.Source.Version)
	}
	_, err = p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"articles", "users"}, tables(t, db))
}

func TestFailingMigrationRollsBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	migrations := filepath.Join(dir, "migrations")
	require.NoError(t, os.Mkdir(migrations, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(migrations, "00001_ok.sql"),
		[]byte("-- +goose Up\nCREATE TABLE a(x);\n-- +goose Down\nDROP TABLE a;\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(migrations, "00002_bad.sql"),
		[]byte("-- +goose Up\nCREATE TABLE b(x);\nINSERT INTO nowhere VALUES (1);\n-- +goose Down\nDROP TABLE b;\n"), 0o644))
	db, err := sql.Open("cairn", filepath.Join(dir, "app.db"))
	require.NoError(t, err)
	defer db.Close()
	p, err := goose.NewProvider(database.DialectSQLite3, db, os.DirFS(migrations))
	require.NoError(t, err)

	_, err = p.Up(ctx)
	require.ErrorContains(t, err, "no such table: nowhere")
	v, err := p.GetDBVersion(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, v)
	require.Equal(t, []string{"a"}, tables(t, db), "the failed migration's CREATE TABLE b is rolled back")
}

package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	_ "github.com/cairndb/cairn/cairnsql"
)

// migrations are the schema's versions: migrations[i] takes a database from user_version i to
// i+1, in one transaction with the version bump.
var migrations = []string{
	`CREATE TABLE folders (
		id INTEGER PRIMARY KEY,
		parent_id INTEGER REFERENCES folders(id),
		name TEXT NOT NULL
	);
	CREATE TABLE bookmarks (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		url TEXT NOT NULL UNIQUE,
		title TEXT NOT NULL,
		folder_id INTEGER REFERENCES folders(id),
		meta TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
		created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
		updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
	)`,
	`CREATE INDEX bookmarks_folder ON bookmarks(folder_id)`,
	`ALTER TABLE bookmarks ADD COLUMN visits INTEGER NOT NULL DEFAULT 0`,
}

// open opens the database at path, with foreign keys enforced on every connection (a
// PRAGMA in the DSN, as with SQLite's drivers), and migrates it.
func open(path string) (*sql.DB, error) {
	db, err := sql.Open("cairn", path+"?_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// migrate brings the schema to the newest version.
func migrate(db *sql.DB) error {
	ctx := context.Background()
	for {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var version int
		if err := tx.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
			tx.Rollback()
			return err
		}
		if version >= len(migrations) {
			return tx.Rollback()
		}
		if _, err := tx.Exec(migrations[version]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", version+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, version+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
}

// bookmark is a bookmark as the API shows it.
type bookmark struct {
	ID        int64    `json:"id"`
	URL       string   `json:"url"`
	Title     string   `json:"title"`
	FolderID  *int64   `json:"folder_id"`
	Tags      []string `json:"tags"`
	Visits    int64    `json:"visits"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

// bookmarkColumns are the columns scanBookmark reads, in its order, of the bookmarks table
// called b; returnedColumns are the same for RETURNING, where SQLite allows no table name.
const (
	bookmarkColumns = `b.id, b.url, b.title, b.folder_id, b.meta -> '$.tags', b.visits, b.created_at, b.updated_at`
	returnedColumns = `id, url, title, folder_id, meta -> '$.tags', visits, created_at, updated_at`
)

func scanBookmark(s interface{ Scan(...any) error }) (bookmark, error) {
	var b bookmark
	var tags sql.NullString
	if err := s.Scan(&b.ID, &b.URL, &b.Title, &b.FolderID, &tags, &b.Visits, &b.CreatedAt, &b.UpdatedAt); err != nil {
		return b, err
	}
	b.Tags = []string{}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &b.Tags); err != nil {
			return b, err
		}
	}
	return b, nil
}

// putBookmark inserts a bookmark, or updates the one with the same URL, and returns it.
func putBookmark(ctx context.Context, db *sql.DB, b bookmark) (bookmark, error) {
	tags, err := json.Marshal(b.Tags)
	if err != nil {
		return b, err
	}
	row := db.QueryRowContext(ctx, `
		INSERT INTO bookmarks AS b (url, title, folder_id, meta)
		VALUES (?, ?, ?, json_object('tags', json(?)))
		ON CONFLICT (url) DO UPDATE SET
			title = excluded.title,
			folder_id = excluded.folder_id,
			meta = json_set(b.meta, '$.tags', json(excluded.meta -> '$.tags')),
			updated_at = CURRENT_TIMESTAMP
		RETURNING `+returnedColumns, b.URL, b.Title, b.FolderID, string(tags))
	return scanBookmark(row)
}

// listBookmarks returns the bookmarks tagged tag (every bookmark when tag is ""), oldest first.
func listBookmarks(ctx context.Context, db *sql.DB, tag string) ([]bookmark, error) {
	return queryBookmarks(ctx, db, `
		SELECT `+bookmarkColumns+` FROM bookmarks b
		WHERE ? = '' OR EXISTS (SELECT 1 FROM json_each(b.meta, '$.tags') WHERE value = ?)
		ORDER BY b.id`, tag, tag)
}

// folderBookmarks returns the bookmarks in a folder and in every folder below it.
func folderBookmarks(ctx context.Context, db *sql.DB, folder int64) ([]bookmark, error) {
	return queryBookmarks(ctx, db, `
		WITH RECURSIVE tree(id) AS (
			SELECT id FROM folders WHERE id = ?
			UNION ALL
			SELECT f.id FROM folders f JOIN tree ON f.parent_id = tree.id
		)
		SELECT `+bookmarkColumns+` FROM bookmarks b JOIN tree ON b.folder_id = tree.id
		ORDER BY b.id`, folder)
}

func queryBookmarks(ctx context.Context, db *sql.DB, query string, args ...any) ([]bookmark, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []bookmark{}
	for rows.Next() {
		b, err := scanBookmark(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// visit counts a visit of a bookmark and returns the new count; sql.ErrNoRows if there is none.
func visit(ctx context.Context, db *sql.DB, id int64) (int64, error) {
	var visits int64
	err := db.QueryRowContext(ctx, `UPDATE bookmarks SET visits = visits + 1 WHERE id = ? RETURNING visits`, id).Scan(&visits)
	return visits, err
}

// folder is a folder as the API shows it.
type folder struct {
	ID       int64  `json:"id"`
	ParentID *int64 `json:"parent_id"`
	Name     string `json:"name"`
}

func addFolder(ctx context.Context, db *sql.DB, f folder) (folder, error) {
	err := db.QueryRowContext(ctx, `INSERT INTO folders (parent_id, name) VALUES (?, ?) RETURNING id`,
		f.ParentID, f.Name).Scan(&f.ID)
	return f, err
}

// tagCount is a tag and the number of bookmarks that have it.
type tagCount struct {
	Tag   string `json:"tag"`
	Count int64  `json:"count"`
}

// tagCounts returns every tag with its count, the most used first.
func tagCounts(ctx context.Context, db *sql.DB) ([]tagCount, error) {
	rows, err := db.QueryContext(ctx, `
		SELECT t.value, count(*) FROM bookmarks b, json_each(b.meta, '$.tags') t
		GROUP BY t.value ORDER BY count(*) DESC, t.value`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []tagCount{}
	for rows.Next() {
		var tc tagCount
		if err := rows.Scan(&tc.Tag, &tc.Count); err != nil {
			return nil, err
		}
		out = append(out, tc)
	}
	return out, rows.Err()
}

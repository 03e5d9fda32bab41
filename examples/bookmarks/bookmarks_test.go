package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// client talks to the service as a user's program would, over HTTP.
type client struct {
	t   *testing.T
	url string
}

func (c client) do(method, path string, body any, out any) int {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(c.t, err)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.url+path, r)
	require.NoError(c.t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	if resp.StatusCode == http.StatusOK && out != nil {
		require.NoError(c.t, json.Unmarshal(data, out), "%s", data)
	}
	return resp.StatusCode
}

func start(t *testing.T, path string) (client, *sql.DB) {
	db, err := open(path)
	require.NoError(t, err)
	srv := httptest.NewServer(newServer(db))
	t.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return client{t, srv.URL}, db
}

func urls(bs []bookmark) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.URL)
	}
	return out
}

func TestBookmarksService(t *testing.T) {
	c, db := start(t, filepath.Join(t.TempDir(), "bookmarks.db"))

	var dev, golang, rust, home folder
	require.Equal(t, 200, c.do("POST", "/folders", folder{Name: "dev"}, &dev))
	require.Equal(t, 200, c.do("POST", "/folders", folder{Name: "go", ParentID: &dev.ID}, &golang))
	require.Equal(t, 200, c.do("POST", "/folders", folder{Name: "rust", ParentID: &dev.ID}, &rust))
	require.Equal(t, 200, c.do("POST", "/folders", folder{Name: "home"}, &home))

	put := func(url, title string, f folder, tags ...string) bookmark {
		var b bookmark
		require.Equal(t, 200, c.do("PUT", "/bookmarks", bookmark{URL: url, Title: title, FolderID: &f.ID, Tags: tags}, &b))
		return b
	}
	gd := put("https://go.dev", "Go", golang, "go", "docs")
	put("https://pkg.go.dev", "Packages", golang, "go")
	put("https://rust-lang.org", "Rust", rust, "rust", "docs")
	put("https://example.com/recipes", "Recipes", home)
	require.Equal(t, []string{"go", "docs"}, gd.Tags)
	require.NotEmpty(t, gd.CreatedAt)

	// PUT of a known URL updates the row in place (same id), as an upsert.
	again := put("https://go.dev", "The Go language", golang, "go", "lang")
	require.Equal(t, gd.ID, again.ID)
	require.Equal(t, "The Go language", again.Title)
	require.Equal(t, []string{"go", "lang"}, again.Tags)
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM bookmarks`).Scan(&n))
	require.Equal(t, 4, n)

	var bs []bookmark
	require.Equal(t, 200, c.do("GET", "/bookmarks?tag=go", nil, &bs))
	require.Equal(t, []string{"https://go.dev", "https://pkg.go.dev"}, urls(bs))
	require.Equal(t, 200, c.do("GET", "/bookmarks?tag=docs", nil, &bs))
	require.Equal(t, []string{"https://rust-lang.org"}, urls(bs))
	require.Equal(t, 200, c.do("GET", "/bookmarks", nil, &bs))
	require.Len(t, bs, 4)

	// The folder tree: dev holds go and rust, so its bookmarks are theirs.
	require.Equal(t, 200, c.do("GET", "/folders/"+itoa(dev.ID)+"/bookmarks", nil, &bs))
	require.Equal(t, []string{"https://go.dev", "https://pkg.go.dev", "https://rust-lang.org"}, urls(bs))
	require.Equal(t, 200, c.do("GET", "/folders/"+itoa(home.ID)+"/bookmarks", nil, &bs))
	require.Equal(t, []string{"https://example.com/recipes"}, urls(bs))

	var visits map[string]int64
	require.Equal(t, 200, c.do("POST", "/bookmarks/"+itoa(gd.ID)+"/visit", nil, &visits))
	require.Equal(t, 200, c.do("POST", "/bookmarks/"+itoa(gd.ID)+"/visit", nil, &visits))
	require.Equal(t, int64(2), visits["visits"])
	require.Equal(t, 404, c.do("POST", "/bookmarks/999/visit", nil, nil))

	var tags []tagCount
	require.Equal(t, 200, c.do("GET", "/tags", nil, &tags))
	require.Equal(t, []tagCount{{"go", 2}, {"docs", 1}, {"lang", 1}, {"rust", 1}}, tags)

	require.Equal(t, 400, c.do("PUT", "/bookmarks", bookmark{URL: "x"}, nil))
	missing := int64(999)
	require.Equal(t, 400, c.do("PUT", "/bookmarks", bookmark{URL: "y", Title: "y", FolderID: &missing}, nil),
		"a bookmark in a folder that does not exist breaks the foreign key")
	require.Equal(t, 400, c.do("POST", "/folders", folder{Name: "orphan", ParentID: &missing}, nil))
}

func TestMigrationsRunOnceAndSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bookmarks.db")
	c, db := start(t, path)
	var f folder
	require.Equal(t, 200, c.do("POST", "/folders", folder{Name: "a"}, &f))
	require.NoError(t, migrate(db), "a second migrate changes nothing")
	var version int
	require.NoError(t, db.QueryRow(`PRAGMA user_version`).Scan(&version))
	require.Equal(t, len(migrations), version)
	require.NoError(t, db.Close())

	db, err := open(path)
	require.NoError(t, err)
	defer db.Close()
	var name string
	require.NoError(t, db.QueryRow(`SELECT name FROM folders WHERE id = ?`, f.ID).Scan(&name))
	require.Equal(t, "a", name)
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

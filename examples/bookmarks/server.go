package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"strconv"
	"strings"
)

// newServer returns the service's HTTP handler:
//
//	PUT  /bookmarks                {"url","title","folder_id","tags"}: insert or update by URL
//	GET  /bookmarks[?tag=T]        the bookmarks (with tag T)
//	POST /bookmarks/{id}/visit     count a visit
//	POST /folders                  {"name","parent_id"}: a new folder
//	GET  /folders/{id}/bookmarks   the bookmarks in a folder and its subfolders
//	GET  /tags                     each tag with its number of bookmarks
func newServer(db *sql.DB) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /bookmarks", func(w http.ResponseWriter, r *http.Request) {
		var b bookmark
		if !decode(w, r, &b) {
			return
		}
		if b.URL == "" || b.Title == "" {
			http.Error(w, "url and title are required", http.StatusBadRequest)
			return
		}
		if b.Tags == nil {
			b.Tags = []string{}
		}
		b, err := putBookmark(r.Context(), db, b)
		reply(w, b, err)
	})
	mux.HandleFunc("GET /bookmarks", func(w http.ResponseWriter, r *http.Request) {
		bs, err := listBookmarks(r.Context(), db, r.URL.Query().Get("tag"))
		reply(w, bs, err)
	})
	mux.HandleFunc("POST /bookmarks/{id}/visit", func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathID(w, r)
		if !ok {
			return
		}
		visits, err := visit(r.Context(), db, id)
		reply(w, map[string]int64{"visits": visits}, err)
	})
	mux.HandleFunc("POST /folders", func(w http.ResponseWriter, r *http.Request) {
		var f folder
		if !decode(w, r, &f) {
			return
		}
		if f.Name == "" {
			http.Error(w, "name is required", http.StatusBadRequest)
			return
		}
		f, err := addFolder(r.Context(), db, f)
		reply(w, f, err)
	})
	mux.HandleFunc("GET /folders/{id}/bookmarks", func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathID(w, r)
		if !ok {
			return
		}
		bs, err := folderBookmarks(r.Context(), db, id)
		reply(w, bs, err)
	})
	mux.HandleFunc("GET /tags", func(w http.ResponseWriter, r *http.Request) {
		tags, err := tagCounts(r.Context(), db)
		reply(w, tags, err)
	})
	return mux
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		http.Error(w, "bad JSON: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "bad id", http.StatusBadRequest)
		return 0, false
	}
	return id, true
}

// reply writes v as JSON, or the error: 404 for no rows, 500 for the rest.
func reply(w http.ResponseWriter, v any, err error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		http.Error(w, "not found", http.StatusNotFound)
		return
	case err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed"):
		http.Error(w, "no such folder", http.StatusBadRequest)
		return
	case err != nil:
		log.Printf("bookmarks: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

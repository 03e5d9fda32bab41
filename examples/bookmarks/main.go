// Command bookmarks is a small HTTP service that keeps bookmarks in folders, on a cairn database
// through database/sql: schema migrations by PRAGMA user_version, tags in a JSON column queried
// with json_each, upserts with RETURNING, and a recursive query over the folder tree.
//
//	go run ./examples/bookmarks -db bookmarks.db -addr localhost:8080
//
//	curl -X POST localhost:8080/folders -d '{"name":"dev"}'
//	curl -X PUT localhost:8080/bookmarks -d '{"url":"https://go.dev","title":"Go","folder_id":1,"tags":["go"]}'
//	curl localhost:8080/bookmarks?tag=go
//	curl localhost:8080/folders/1/bookmarks
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	path := flag.String("db", "bookmarks.db", "the cairn database file (created if missing)")
	addr := flag.String("addr", "localhost:8080", "the address to serve HTTP on")
	flag.Parse()

	db, err := open(*path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	log.Printf("serving bookmarks from %s on http://%s", *path, *addr)
	log.Fatal(http.ListenAndServe(*addr, newServer(db)))
}

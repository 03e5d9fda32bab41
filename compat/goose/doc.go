// Package goose checks that github.com/pressly/goose/v3, a migration tool, runs migrations up
// and down on a cairn database with its SQLite dialect; a module of its own so that cairn's
// users never download goose.
package goose

// Package difftest holds the tests that compare cairn's SQL layer with SQLite (modernc.org/sqlite),
// in a module of its own so that cairn's users never download SQLite; see README.md.
package difftest

// Package sqlx checks that github.com/jmoiron/sqlx, the struct-mapping layer many Go programs put
// over database/sql, works on cairn's driver as it does on SQLite's; a module of its own so that
// cairn's users never download sqlx.
package sqlx

// Package slt runs sqllogictest files (the corpus SQLite is tested with) against any database/sql
// driver, reading and judging them exactly as SQLite's own harness (sqllogictest.c) does.
package slt

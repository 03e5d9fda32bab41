package main

import "testing"

// TestSQLReturning prints the rows of INSERT, UPDATE and DELETE ... RETURNING (upserts included)
// as a query's, and the statement does its work (the upsert used up rowid 3).
func TestSQLReturning(t *testing.T) {
	db := tempDB(t)
	input := "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, n INTEGER);\n" +
		"INSERT INTO t(name, n) VALUES ('a', 1), ('b', 2) RETURNING id, name;\n" +
		"INSERT INTO t(name, n) VALUES ('a', 5) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n RETURNING n;\n" +
		"DELETE FROM t WHERE name = 'b' RETURNING *;\n" +
		"INSERT INTO t(name, n) VALUES ('c', 3);\n" +
		"SELECT * FROM sqlite_sequence;\n"
	runKvsh(t, input, db).expect(t,
		"id  name\n--  ----\n 1  a\n 2  b\n"+
			"n\n-\n6\n"+
			"id  name  n\n--  ----  -\n 2  b     2\n"+
			"name  seq\n----  ---\nt       4\n", "", 0)
}

package main

// Tests of SQL in kvsh: how input splits into commands and statements, and SQL sessions run
// through the kvsh binary (-c, standard input) as a person or a script uses it. The terminal
// session is TestTerminalSQL (pty_sql_test.go).

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSplitInput checks how text splits into shell commands and SQL statements, and what is left
// of an unfinished statement.
func TestSplitInput(t *testing.T) {
	type item = string // "kv:WORDS|..." or "sql:TEXT"
	tests := []struct {
		name  string
		in    string
		final bool
		want  []item
		rest  string
	}{
		{"kv only", "put a 1; get a", true, []item{"kv:put|a|1", "kv:get|a"}, ""},
		{"sql then kv", "CREATE TABLE t(a); put x 1", true, []item{"sql:CREATE TABLE t(a);", "kv:put|x|1"}, ""},
		{"several statements", "select 1;SELECT 2 ;  values(3);", true,
			[]item{"sql:select 1;", "sql:SELECT 2 ;", "sql:values(3);"}, ""},
		{"statement over lines", "SELECT a,\n  b\nFROM t;\nget k", false,
			[]item{"sql:SELECT a,\n  b\nFROM t;", "kv:get|k"}, ""},
		{"unfinished kept", "put a 1; SELECT *\nFROM t", false, []item{"kv:put|a|1"}, "SELECT *\nFROM t"},
		{"unfinished runs when final", "SELECT 1 +", true, []item{"sql:SELECT 1 +"}, ""},
		{"semicolons in literals and names", `SELECT 'a;b', "c;d", [e;f], ` + "`g;h`" + `; get x`, true,
			[]item{`sql:SELECT 'a;b', "c;d", [e;f], ` + "`g;h`" + `;`, "kv:get|x"}, ""},
		{"doubled quote", "SELECT 'it''s;'; get x", true, []item{"sql:SELECT 'it''s;';", "kv:get|x"}, ""},
		{"unfinished literal", "INSERT INTO t VALUES('a;\nb", false, nil, "INSERT INTO t VALUES('a;\nb"},
		{"comments", "SELECT 1 -- no ; here\n/* nor ; here */ + 2;", true,
			[]item{"sql:SELECT 1 -- no ; here\n/* nor ; here */ + 2;"}, ""},
		{"comment lines skipped", "-- note; get a\n# note\n/* x; */ get b", true, []item{"kv:get|b"}, ""},
		{"unfinished block comment", "/* a\n", false, nil, "/* a\n"},
		{"any case", "Select 1; dElEtE FROM t;", true, []item{"sql:Select 1;", "sql:dElEtE FROM t;"}, ""},
		{"word boundary", "selected 1", true, []item{"kv:selected|1"}, ""},
		{"unknown word on a line ending in ;", "PRAGMA x;", true, []item{"sql:PRAGMA x;"}, ""},
		{"unknown word, no ; at the end", "frob; get a", true, []item{"kv:frob", "kv:get|a"}, ""},
		{"command name with ; stays a command", "get a;", true, []item{"kv:get|a"}, ""},
		{"transaction words are commands", "BEGIN; INSERT INTO t VALUES(1); COMMIT;", true,
			[]item{"kv:BEGIN", "sql:INSERT INTO t VALUES(1);", "kv:COMMIT"}, ""},
		{"dot command", ".mode json; SELECT 1;", true, []item{"kv:.mode|json", "sql:SELECT 1;"}, ""},
		{"trigger body", "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO l VALUES (1); DELETE FROM m; END; get a", true,
			[]item{"sql:CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO l VALUES (1); DELETE FROM m; END;", "kv:get|a"}, ""},
		{"trigger unfinished", "create temp trigger tr after insert on t begin\n  insert into l values (1);", false,
			nil, "create temp trigger tr after insert on t begin\n  insert into l values (1);"},
		{"trigger over lines", "CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  SELECT 'end;';\nEnd\n;", false,
			[]item{"sql:CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  SELECT 'end;';\nEnd\n;"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, rest, err := splitInput(tt.in, tt.final)
			if err != nil {
				t.Fatalf("splitInput(%q): %v", tt.in, err)
			}
			var got []item
			for _, it := range items {
				if it.words == nil {
					got = append(got, "sql:"+it.sql)
					continue
				}
				var ws []string
				for _, w := range it.words {
					ws = append(ws, string(w))
				}
				got = append(got, "kv:"+strings.Join(ws, "|"))
			}
			if !reflect.DeepEqual(got, tt.want) || rest != tt.rest {
				t.Fatalf("splitInput(%q, %v) = %q, rest %q; want %q, rest %q", tt.in, tt.final, got, rest, tt.want, tt.rest)
			}
		})
	}
	// A command that cannot be read fails the whole input, SQL included.
	if items, _, err := splitInput(`SELECT 1; put a "b`, true); err == nil || len(items) != 0 {
		t.Fatalf("unterminated quote: items %v, err %v", items, err)
	}
}

// TestTxCommand checks that SQL's forms of the transaction statements become the shell's.
func TestTxCommand(t *testing.T) {
	for in, want := range map[string]string{
		"BEGIN":                               "begin",
		"begin ro":                            "begin ro",
		"Begin Immediate Transaction":         "begin",
		"BEGIN DEFERRED":                      "begin",
		"begin exclusive":                     "begin",
		"COMMIT TRANSACTION":                  "commit",
		"END":                                 "commit",
		"end transaction":                     "commit",
		"ROLLBACK":                            "rollback",
		"ROLLBACK TRANSACTION":                "rollback",
		"ROLLBACK TO a":                       "rollback to a",
		"rollback transaction to savepoint a": "rollback to a",
		"rollback to savepoint":               "rollback to savepoint",
		"SAVEPOINT sp1":                       "savepoint sp1",
		"RELEASE SAVEPOINT sp1":               "release sp1",
		"release savepoint":                   "release savepoint",
		"get KEY":                             "get KEY",
		"GET a":                               "GET a",
	} {
		var words [][]byte
		for _, w := range strings.Fields(in) {
			words = append(words, []byte(w))
		}
		var got []string
		for _, w := range txCommand(words) {
			got = append(got, string(w))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("txCommand(%q) = %q, want %q", in, strings.Join(got, " "), want)
		}
	}
}

// TestSQLCommandFlag runs SQL with -c: statements and key-value commands in one argument, the
// table output, and errors with their position.
func TestSQLCommandFlag(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "CREATE TABLE t(a); INSERT INTO t VALUES(1); SELECT * FROM t;").expect(t,
		"a\n-\n1\n", "", 0)
	runKvsh(t, "", db, "-c", `put k v; CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT, score REAL, pic BLOB); `+
		`INSERT INTO p VALUES(1, 'Ada', 12.5, x'cafe'), (2, 'Grace', NULL, NULL), (10, 'Edsger W.', -3, x''); get k; `+
		`SELECT * FROM p ORDER BY id; SELECT count(*), sum(score), max(name) FROM p`).expect(t,
		"v\n"+
			"id  name       score  pic\n"+
			"--  ---------  -----  -------\n"+
			" 1  Ada         12.5  x'cafe'\n"+
			" 2  Grace       NULL  NULL\n"+
			"10  Edsger W.   -3.0  x''\n"+
			"count(*)  sum(score)  max(name)\n"+
			"--------  ----------  ---------\n"+
			"       3         9.5  Grace\n", "", 0)
	// Text that does not print is Go-quoted; a mixed column aligns each number to the right.
	runKvsh(t, "", db, "-c", `SELECT 'a'||char(10)||'b' AS s UNION ALL SELECT 1234 UNION ALL SELECT 'x';`).expect(t,
		"s\n"+
			"------\n"+
			`"a\nb"`+"\n"+
			"  1234\n"+
			"x\n", "", 0)
	// A query without rows prints nothing; so do statements that are not queries.
	runKvsh(t, "", db, "-c", "SELECT * FROM p WHERE id > 100; UPDATE p SET score = 1 WHERE id = 2; DELETE FROM p WHERE id = 10").
		expect(t, "", "", 0)

	// Errors: one line each, with the position of a syntax error; the session goes on, and the
	// exit status says a command failed.
	runKvsh(t, "", db, "-c", "SELECT * FROM nope; SELECT id FROM WHERE; get k; SELECT 1 +; INSERT INTO p(id) VALUES(1); "+
		"SELECT id FROM p ORDER BY id; frob;").expect(t, "v\nid\n--\n 1\n 2\n",
		"error: no such table: nope\n"+
			"error: 1:16: near \"WHERE\": syntax error\n"+
			"error: 1:11: near \";\": syntax error\n"+
			"error: UNIQUE constraint failed: p.id\n"+
			"error: 1:1: near \"frob\": syntax error\n", 1)
	runKvsh(t, "", "-bail", db, "-c", "SELECT 1; SELECT * FROM nope; SELECT 2").expect(t, "1\n-\n1\n", "error: no such table: nope\n", 1)
}

// TestSQLStdin reads SQL from a non-terminal standard input: statements over several lines, key
// commands between them, comments, and a last statement without ';' at the end of the input.
func TestSQLStdin(t *testing.T) {
	db := tempDB(t)
	input := "CREATE TABLE t(\n  a INTEGER,\n  b TEXT\n);\n" +
		"-- a SQL comment\n# a shell comment\n" +
		"INSERT INTO t VALUES(1, 'x;y'),\n  (2, 'it''s');\nput k v\n" +
		"SELECT b\nFROM t\nWHERE a = 2; get k\n" +
		"SELECT count(*)\n  FROM t"
	runKvsh(t, input, db).expect(t, "b\n----\nit's\nv\ncount(*)\n--------\n       2\n", "", 0)
	// An unfinished statement at the end of the input is an error of the parser.
	runKvsh(t, "SELECT (1,\n", db).expect(t, "", "error: 1:11: incomplete input\n", 1)
	// -f reads a file the same way.
	script := writeScript(t, "UPDATE t\n  SET b = 'z'\n  WHERE a = 1;\nSELECT * FROM t ORDER BY a;\n")
	runKvsh(t, "", db, "-f", script).expect(t, "a  b\n-  ----\n1  z\n2  it's\n", "", 0)
}

// writeScript writes a script file and returns its path.
func writeScript(t *testing.T, text string) string {
	t.Helper()
	path := t.TempDir() + "/script.sql"
	writeFile(t, path, []byte(text))
	return path
}

// TestSQLModes parses the json, jsonl and csv output of a query back, and checks raw and hex.
func TestSQLModes(t *testing.T) {
	db := tempDB(t)
	setup := `CREATE TABLE v(i INTEGER, r REAL, s TEXT, b BLOB, n); ` +
		`INSERT INTO v VALUES(-7, 0.5, 'Ada "<&>"', x'00ff10', NULL), (9007199254740993, 1e20, 'line' || char(10) || 'two', x'', 3);`
	runKvsh(t, "", db, "-c", setup).expect(t, "", "", 0)
	query := "SELECT * FROM v ORDER BY i"

	r := runKvsh(t, "", db, "-c", ".mode json; "+query+"; SELECT * FROM v WHERE 0")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("json: %+v", r)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.UseNumber()
	var rows []map[string]any
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("json output %q: %v", r.stdout, err)
	}
	want := []map[string]any{
		{"i": json.Number("-7"), "r": json.Number("0.5"), "s": `Ada "<&>"`, "b": map[string]any{"base64": "AP8Q"}, "n": nil},
		{"i": json.Number("9007199254740993"), "r": json.Number("1.0e+20"), "s": "line\ntwo", "b": map[string]any{"base64": ""}, "n": json.Number("3")},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("json rows %#v\nwant %#v", rows, want)
	}
	var empty []map[string]any
	if err := dec.Decode(&empty); err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("json of no rows: %v, %#v (output %q)", err, empty, r.stdout)
	}
	// Column order is kept: the keys of each line come in the columns' order.
	if !strings.Contains(r.stdout, `{"i":-7,"r":0.5,"s":"Ada \"<&>\"","b":{"base64":"AP8Q"},"n":null}`) {
		t.Fatalf("json line: %q", r.stdout)
	}

	r = runKvsh(t, "", db, "-c", ".mode jsonl; SELECT i, s FROM v ORDER BY i")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("jsonl: %+v", r)
	}
	for n, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil || obj["s"] != want[n]["s"] {
			t.Fatalf("jsonl line %q: %v, %v", l, obj, err)
		}
	}

	r = runKvsh(t, "", db, "-c", ".mode csv; "+query)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || r.code != 0 {
		t.Fatalf("csv %q: %v", r.stdout, err)
	}
	wantCSV := [][]string{{"i", "r", "s", "b", "n"}, {"-7", "0.5", `Ada "<&>"`, "\x00\xff\x10", ""},
		{"9007199254740993", "1.0e+20", "line\ntwo", "", "3"}}
	if !reflect.DeepEqual(recs, wantCSV) {
		t.Fatalf("csv %q", recs)
	}

	runKvsh(t, "", db, "-c", ".mode raw; SELECT i, s, n FROM v ORDER BY i; .mode hex; SELECT i, s, b, n FROM v ORDER BY i").expect(t,
		"-7\tAda \"<&>\"\t\n9007199254740993\tline\ntwo\t3\n"+
			"-7\t41646120223c263e22\t00ff10\tNULL\n9007199254740993\t6c696e650a74776f\t\t3\n", "", 0)
}

// TestSQLTransactions checks that the shell's one transaction holds SQL statements and key
// commands alike, in the shell's words and in SQL's.
func TestSQLTransactions(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "CREATE TABLE t(a UNIQUE)").expect(t, "", "", 0)
	// Rolled back together; committed together.
	runKvsh(t, "", db, "-c", "begin; INSERT INTO t VALUES(1); put k 1; SELECT count(*) FROM t; rollback; "+
		"SELECT count(*) FROM t; count").expect(t, "count(*)\n--------\n       1\ncount(*)\n--------\n       0\n0\n", "", 0)
	runKvsh(t, "", db, "-c", "BEGIN IMMEDIATE; INSERT INTO t VALUES(2); put k 2; END TRANSACTION;").expect(t, "", "", 0)
	runKvsh(t, "", db, "-c", "SELECT a FROM t; get k").expect(t, "a\n-\n2\n2\n", "", 0)

	// Savepoints: ROLLBACK TO undoes a CREATE TABLE and the rows after it; the table can be made
	// again in the same transaction.
	runKvsh(t, "", db, "-c", "BEGIN; SAVEPOINT s1; CREATE TABLE u(x); INSERT INTO u VALUES(1); put k 3; "+
		"ROLLBACK TO SAVEPOINT s1; SELECT * FROM u; get k; CREATE TABLE u(y, z); INSERT INTO u VALUES(4, 5); "+
		"RELEASE SAVEPOINT s1; COMMIT; SELECT * FROM u").expect(t, "2\ny  z\n-  -\n4  5\n",
		"error: no such table: u\n", 1)

	// A failed statement undoes only itself; the transaction goes on.
	runKvsh(t, "", db, "-c", "begin; INSERT INTO t VALUES(3); INSERT INTO t VALUES(4), (2); commit; SELECT a FROM t ORDER BY a").
		expect(t, "a\n-\n2\n3\n", "error: UNIQUE constraint failed: t.a\n", 1)
	// ON CONFLICT ROLLBACK ends the shell's transaction, which says so.
	runKvsh(t, "", db, "-c", "begin; put k 9; INSERT OR ROLLBACK INTO t VALUES(2); commit; get k").expect(t, "2\n",
		"error: UNIQUE constraint failed: t.a (the transaction was rolled back)\n"+
			"error: no open transaction (begin starts one)\n", 1)

	// Read-only: begin ro and -readonly refuse SQL writes and run queries.
	runKvsh(t, "", db, "-c", "begin ro; INSERT INTO t VALUES(5); SELECT count(*) FROM t; commit").expect(t,
		"count(*)\n--------\n       2\n",
		"error: INSERT is not allowed in a read-only transaction: commit or rollback first\n", 1)
	runKvsh(t, "", "-readonly", db, "-c", "delete from t; SELECT max(a) FROM t").expect(t, "max(a)\n------\n     3\n",
		"error: DELETE is not allowed: the database was opened with -readonly\n", 1)
}

// TestSQLSchemaCommands checks .tables, .schema and .indexes, and that buckets hides the SQL
// layer's buckets.
func TestSQLSchemaCommands(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "mkbucket photos; "+
		"CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT);\n"+
		"CREATE INDEX users_name ON users(name);\n"+
		"CREATE TABLE \"order lines\"(a, b, PRIMARY KEY(a, b)) WITHOUT ROWID;\n"+
		"CREATE VIEW names AS SELECT name FROM users;").expect(t, "", "", 0)
	runKvsh(t, "", db, "-c", ".tables; .indexes; .indexes users").expect(t,
		"names\norder lines\nusers\n"+
			"sqlite_autoindex_users_1\nusers_name\n"+
			"sqlite_autoindex_users_1\nusers_name\n", "", 0)
	runKvsh(t, "", db, "-c", ".schema").expect(t,
		"CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT);\n"+
			"CREATE INDEX users_name ON users(name);\n"+
			"CREATE TABLE \"order lines\"(a, b, PRIMARY KEY(a, b)) WITHOUT ROWID;\n"+
			"CREATE VIEW names AS SELECT name FROM users;\n", "", 0)
	runKvsh(t, "", db, "-c", ".schema USERS; .schema users_name; .schema nope; .indexes nope").expect(t,
		"CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT);\n"+
			"CREATE INDEX users_name ON users(name);\n"+
			"CREATE INDEX users_name ON users(name);\n",
		"error: no table, index or view named nope\nerror: no such table: nope\n", 1)
	// The SQL layer's buckets are not listed, and cannot be made or removed by hand.
	runKvsh(t, "", db, "-c", `buckets; rmbucket "\x00sql/schema"; mkbucket 0x0073716c2f74`).expect(t, "photos\n",
		`error: bucket "\x00sql/schema" is the SQL layer's (its tables, indexes and schema): use CREATE and DROP`+"\n"+
			`error: bucket "\x00sql/t" is the SQL layer's (its tables, indexes and schema): use CREATE and DROP`+"\n", 1)
	// Inside a transaction the schema commands see its own DDL.
	runKvsh(t, "", db, "-c", "begin; DROP VIEW names; CREATE TABLE extra(x); .tables; rollback; .tables").expect(t,
		"extra\norder lines\nusers\nnames\norder lines\nusers\n", "", 0)
}

// TestSQLExplainQueryPlan prints EXPLAIN QUERY PLAN as SQLite's shell does, as a tree, and as
// rows in the json mode.
func TestSQLExplainQueryPlan(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "CREATE TABLE a(x INTEGER PRIMARY KEY, y); CREATE TABLE b(p, q); CREATE INDEX bq ON b(q);").
		expect(t, "", "", 0)
	runKvsh(t, "", db, "-c", "EXPLAIN QUERY PLAN SELECT * FROM b WHERE q = 3;\n"+
		"explain query plan SELECT * FROM b JOIN a ON a.x = b.q ORDER BY y;\n"+
		"EXPLAIN QUERY PLAN SELECT * FROM (SELECT p FROM b) AS s UNION SELECT 1;").expect(t,
		"QUERY PLAN\n"+
			"`--SEARCH b USING INDEX bq (q=?)\n"+
			"QUERY PLAN\n"+
			"|--SCAN b\n"+
			"|--SEARCH a USING INTEGER PRIMARY KEY (rowid=?)\n"+
			"`--USE TEMP B-TREE FOR ORDER BY\n"+
			"QUERY PLAN\n"+
			"|--LEFT-MOST SUBQUERY\n"+
			"|  |--CO-ROUTINE s\n"+
			"|  |  `--SCAN b\n"+
			"|  `--SCAN s\n"+
			"`--UNION\n", "", 0)
	runKvsh(t, "", db, "-c", ".mode jsonl; EXPLAIN QUERY PLAN SELECT * FROM a").expect(t,
		`{"id":1,"parent":0,"notused":0,"detail":"SCAN a"}`+"\n", "", 0)
}

// TestSQLTimer checks that .timer times each statement on stderr (and the commands, .timer on
// itself included).
func TestSQLTimer(t *testing.T) {
	r := runKvsh(t, "", tempDB(t), "-c", ".timer on; CREATE TABLE t(a); INSERT INTO t VALUES(1); SELECT a FROM t")
	if r.code != 0 || r.stdout != "a\n-\n1\n" || strings.Count(r.stderr, "time: ") != 4 {
		t.Fatalf(".timer: %+v", r)
	}
}

// TestSQLLargeResult checks that the table mode streams past the rows it holds to align: the
// widths come from the first rows, later wider values print in full.
func TestSQLLargeResult(t *testing.T) {
	db := tempDB(t)
	n := tableHeldRows + 5
	runKvsh(t, "", db, "-c", fmt.Sprintf("CREATE TABLE t(a INTEGER PRIMARY KEY, b); "+
		"CREATE TABLE d(x); INSERT INTO d VALUES(0), (1), (2), (3), (4), (5), (6), (7), (8), (9); "+
		"INSERT INTO t(b) SELECT 'x' FROM d AS d1, d AS d2, d AS d3, d AS d4 LIMIT %d; "+
		"UPDATE t SET b = 'a much wider value' WHERE a = %d", n, n)).expect(t, "", "", 0)
	r := runKvsh(t, "", db, "-c", "SELECT b, a FROM t")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != n+2 {
		t.Fatalf("%d lines, exit %d, stderr %q", len(lines), r.code, r.stderr)
	}
	if lines[0] != "b     a" || lines[2] != "x     1" || lines[n+1] != fmt.Sprintf("a much wider value  %d", n) {
		t.Fatalf("lines %q ... %q", lines[:3], lines[n+1])
	}
	if !bytes.Equal([]byte(lines[1]), []byte("-  ----")) {
		t.Fatalf("separator %q", lines[1])
	}
}

// TestSQLInterrupt stops a long query with SIGINT, as Ctrl-C does: the query ends with
// "interrupted" and the shell goes on.
func TestSQLInterrupt(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "CREATE TABLE d(x); INSERT INTO d VALUES(0), (1), (2), (3), (4), (5), (6), (7), (8), (9); "+
		"CREATE TABLE k(x); INSERT INTO k SELECT a.x*100 + b.x*10 + c.x FROM d AS a, d AS b, d AS c").expect(t, "", "", 0)
	sh := start(t, db)
	sh.send("SELECT count(*) FROM k AS a, k AS b, k AS c;") // 10^9 rows: minutes
	// Let the query start: a SIGINT between commands would end kvsh.
	time.Sleep(time.Second)
	sh.interrupt(t)
	if got := sh.waitStderr(t, "error: "); got != "error: interrupted" {
		t.Fatalf("stderr %q", sh.stderr.String())
	}
	sh.send("SELECT count(*) FROM k;")
	for _, want := range []string{"count(*)", "--------", "    1000"} {
		if got := sh.nextStdout(t); got != want {
			t.Fatalf("after the interruption: %q, want %q", got, want)
		}
	}
}

// TestSQLTrigger: a CREATE TRIGGER typed over several lines runs when its END; arrives (the
// semicolons of its body do not end it), fires, and .schema shows it.
func TestSQLTrigger(t *testing.T) {
	db := tempDB(t)
	input := "CREATE TABLE t(a);\nCREATE TABLE log(x);\n" +
		"CREATE TRIGGER t_log AFTER INSERT ON t BEGIN\n" +
		"  INSERT INTO log VALUES ('got ' || NEW.a);\n" +
		"  INSERT INTO log VALUES ('twice ' || NEW.a);\n" +
		"END;\n" +
		"INSERT INTO t VALUES (1);\nSELECT x FROM log;\n.schema t_log\n"
	runKvsh(t, input, db).expect(t, "x\n-------\ngot 1\ntwice 1\n"+
		"CREATE TRIGGER t_log AFTER INSERT ON t BEGIN\n"+
		"  INSERT INTO log VALUES ('got ' || NEW.a);\n"+
		"  INSERT INTO log VALUES ('twice ' || NEW.a);\n"+
		"END;\n", "", 0)
}

package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTerminalSQL types a SQL session on a pseudo-terminal, as a person does: the start line
// counts the tables, a statement spans lines behind the continuation prompt, results print as
// aligned tables, a syntax error shows its position with a caret, Ctrl-C drops an unfinished
// statement, .tables, .schema (with Tab completing a table name), .indexes and .timer work, and
// BEGIN and COMMIT show in the prompt. The screen, replayed, must read as the transcript below
// (the time .timer prints aside).
func TestTerminalSQL(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.db")
	runKvsh(t, "", db, "-c", "put greeting hello; mkbucket notes; "+
		"CREATE TABLE fruit(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL); CREATE INDEX fruit_name ON fruit(name);").
		expect(t, "", "", 0)
	term := startTerminalIn(t, dir, filepath.Join(dir, "history"), "shop.db")
	term.expect("kvsh> ")
	steps := []struct {
		typed  string // keys, "\r" ends a line
		expect string // what the screen shows next
	}{
		{"INSERT INTO fruit(name, price)\r", "   ...> "},
		{"  VALUES ('apple', 0.5), ('pear', 0.75),\r", "   ...> "},
		{"         ('fig', NULL);\r", "kvsh> "},
		{"SELECT id, name, price\r", "   ...> "},
		{"FROM fruit ORDER BY name;\r", "kvsh> "},
		{"SELECT name FROM fruit WHERE;\r", "kvsh> "},
		{"SELECT name\r", "   ...> "},
		{"FROM fruit WHERE price >> ;\r", "kvsh> "},
		{"SELECT 'never\r", "   ...> "},
		{"runs", "runs"}, // echoed: liner reads the keys, Ctrl-C too
		{"\x03", "kvsh> "},
		{".tables\r", "kvsh> "},
		{".schema fr\t", ".schema fruit"}, // fruit and fruit_name: completed to the common prefix
		{"\r", "kvsh> "},
		{".indexes f\t", ".indexes fruit "},
		{"\r", "kvsh> "},
		{".indexes\r", "kvsh> "},
		{".timer on\r", "kvsh> "},
		{"SELECT count(*) FROM fruit;\r", "kvsh> "},
		{".timer off\r", "kvsh> "},
		{"BEGIN;\r", "kvsh(tx)> "},
		{"DELETE FROM fruit WHERE price IS NULL; put note 'fig is gone'\r", "kvsh(tx)> "},
		{"COMMIT;\r", "kvsh> "},
		{"SELECT group_concat(name, ', ') AS names FROM fruit; get note\r", "kvsh> "},
	}
	for _, s := range steps {
		term.typ(s.typed)
		term.expect(s.expect)
	}
	term.typ("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; screen %q", code, term.screen())
	}
	term.drain()
	want := `cairn ` + version + `: shop.db (opened, 1 key, 1 bucket, 1 table); type help
kvsh> INSERT INTO fruit(name, price)
   ...>   VALUES ('apple', 0.5), ('pear', 0.75),
   ...>          ('fig', NULL);
kvsh> SELECT id, name, price
   ...> FROM fruit ORDER BY name;
id  name   price
--  -----  -----
 1  apple    0.5
 3  fig     NULL
 2  pear    0.75
kvsh> SELECT name FROM fruit WHERE;
error: 1:29: near ";": syntax error
  SELECT name FROM fruit WHERE;
                              ^
kvsh> SELECT name
   ...> FROM fruit WHERE price >> ;
error: 2:27: near ";": syntax error
  FROM fruit WHERE price >> ;
                            ^
kvsh> SELECT 'never
   ...> runs^C
kvsh> .tables
fruit
kvsh> .schema fruit
CREATE TABLE fruit(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
CREATE INDEX fruit_name ON fruit(name);
kvsh> .indexes fruit
fruit_name
kvsh> .indexes
fruit_name
kvsh> .timer on
time: <time>
kvsh> SELECT count(*) FROM fruit;
count(*)
--------
       3
time: <time>
kvsh> .timer off
kvsh> BEGIN;
kvsh(tx)> DELETE FROM fruit WHERE price IS NULL; put note 'fig is gone'
kvsh(tx)> COMMIT;
kvsh> SELECT group_concat(name, ', ') AS names FROM fruit; get note
names
-----------
apple, pear
fig is gone
kvsh>`
	term.mu.Lock()
	got := screenLines(term.buf)
	term.mu.Unlock()
	for len(got) > 0 && got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}
	timeLine := regexp.MustCompile(`^time: \S+ m?s$`)
	for i, l := range got {
		got[i] = timeLine.ReplaceAllString(l, "time: <time>")
	}
	if g := strings.Join(got, "\n"); g != want {
		t.Fatalf("screen:\n%s\n\nwant:\n%s", g, want)
	}
	// The session's changes are in the file.
	runKvsh(t, "", db, "-c", "SELECT name FROM fruit WHERE price < 0.6; get note").expect(t, "name\n-----\napple\nfig is gone\n", "", 0)
}

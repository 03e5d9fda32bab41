package main

// Splitting input into shell commands and SQL statements. Input (a -c argument, a line, or the
// lines of an unfinished statement and the next line) is a sequence of commands. At the start of
// each (after blanks, newlines and ';'), its first word decides what it is:
//   - a dot command, a quote, '#' (a comment to the end of the line), or a shell command name
//     (get, put, scan, ...; exactly as help lists them): a shell command, which ends at an
//     unquoted ';' or the end of its line (args.go reads its words);
//   - begin, commit, end, rollback, savepoint or release, in any case: a shell command too, the
//     one transaction control of both languages (tx.go reads their SQL forms);
//   - a word that starts SQL statements (select, insert, update, delete, create, drop, with,
//     values, explain, replace, ... in any case), or any other word on a line that ends with ';':
//     a SQL statement, which ends at its first ';' outside quotes and comments, on any later
//     line (for CREATE TRIGGER, the first such ';' right after the word END, as SQLite's
//     sqlite3_complete has it: the body's statements end with ';' too); until that ';' arrives
//     the statement is unfinished (the continuation prompt);
//   - "--" or "/*": a SQL comment, skipped.

import (
	"strings"
)

// sqlStarts are the words that begin a SQL statement, lower case. The transaction statements
// (BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT, RELEASE) are not here: they are shell commands.
var sqlStarts = map[string]bool{
	"select": true, "insert": true, "update": true, "delete": true, "create": true, "drop": true,
	"with": true, "values": true, "explain": true, "replace": true, "reindex": true, "alter": true,
	"analyze": true, "attach": true, "detach": true, "pragma": true, "vacuum": true,
}

// txWords are the transaction commands, lower case: shell commands that also read SQL's forms
// of them ("end" is SQL's other name of commit).
var txWords = map[string]bool{
	"begin": true, "commit": true, "end": true, "rollback": true, "savepoint": true, "release": true,
}

// inputItem is one command of the input: a shell command's words, or a SQL statement.
type inputItem struct {
	words [][]byte // a shell command (words[0] is its name); nil for SQL
	sql   string   // a SQL statement, from its first word through its ';' (if it has one)
}

// splitInput splits s into commands. If final is false, an unfinished SQL statement (or block
// comment) at the end is returned as rest, to be completed by more input; if final is true it
// becomes the last item (and the parser reports what is missing). A shell command that cannot be
// read (an unterminated quote, a bad hex word) is an error for the whole of s: nothing of it
// runs.
func splitInput(s string, final bool) (items []inputItem, rest string, err error) {
	i := 0
	for {
		i = skipBlanks(s, i)
		if i == len(s) {
			return items, "", nil
		}
		switch {
		case s[i] == '#' || strings.HasPrefix(s[i:], "--"):
			i = lineEnd(s, i)
			continue
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				if !final {
					return items, s[i:], nil
				}
				return items, "", nil
			}
			i += 2 + end + 2
			continue
		case isSQL(s, i):
			end := sqlEnd(s, i)
			if end < 0 {
				if !final {
					return items, s[i:], nil
				}
				end = len(s)
			}
			items = append(items, inputItem{sql: strings.TrimRight(s[i:end], " \t\r\n")})
			i = end
			continue
		}
		t := tokenizer{s: s, i: i}
		for t.i < len(t.s) && len(t.cmds) == 0 {
			if err := t.step(); err != nil {
				return nil, "", err
			}
		}
		if len(t.cmds) == 0 {
			if err := t.endCommand(); err != nil {
				return nil, "", err
			}
		}
		for _, words := range t.cmds {
			items = append(items, inputItem{words: words})
		}
		i = t.i
	}
}

// skipBlanks returns the index of the first byte at or after i that is not a space, tab,
// carriage return, newline or ';'.
func skipBlanks(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n;", s[i]) >= 0 {
		i++
	}
	return i
}

// lineEnd returns the index of the newline ending the line that holds i, or len(s).
func lineEnd(s string, i int) int {
	if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(s)
}

// isSQL reports whether the command starting at s[i] is a SQL statement (see the file comment).
func isSQL(s string, i int) bool {
	if strings.IndexByte(".#\"'", s[i]) >= 0 {
		return false
	}
	n := i
	for n < len(s) && isWordByte(s[n]) {
		n++
	}
	word := strings.ToLower(s[i:n])
	switch {
	case sqlStarts[word]:
		return true
	case txWords[word]:
		return false
	}
	name := s[i:]
	if k := strings.IndexAny(name, " \t\r\n;"); k >= 0 {
		name = name[:k]
	}
	if _, ok := lookup(name); ok {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(s[i:lineEnd(s, i)], " \t\r"), ";")
}

// isWordByte reports whether c can be part of a keyword or name: an ASCII letter, digit or '_'.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sqlEnd returns the index just past the ';' that ends the SQL statement starting at s[i]: the
// first ';' outside string literals ('...'), quoted names ("...", `...`, [...]) and comments
// (-- to the end of the line, /* ... */). It returns -1 if there is none yet (the statement, or
// a literal or comment in it, is unfinished).
func sqlEnd(s string, i int) int {
	trigger := startsTrigger(s, i)
	for i < len(s) {
		c := s[i]
		var close string
		switch {
		case c == ';' && trigger && !afterEnd(s, i):
			i++
			continue
		case c == ';':
			return i + 1
		case c == '\'' || c == '"' || c == '`':
			close = string(c)
		case c == '[':
			close = "]"
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			close = "\n"
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			close = "*/"
			i++
		default:
			i++
			continue
		}
		end := strings.Index(s[i+1:], close)
		if end < 0 {
			return -1 // also a "--" comment that ends the input: no ';' after it
		}
		// A doubled quote inside a literal ('it''s') closes and reopens it: the same scan.
		i += 1 + end + len(close)
	}
	return -1
}

// startsTrigger reports whether the statement at s[i] is CREATE [TEMP|TEMPORARY] TRIGGER.
func startsTrigger(s string, i int) bool {
	word := func() string {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
		start := i
		for i < len(s) && isWordByte(s[i]) {
			i++
		}
		return strings.ToLower(s[start:i])
	}
	if word() != "create" {
		return false
	}
	w := word()
	if w == "temp" || w == "temporary" {
		w = word()
	}
	return w == "trigger"
}

// afterEnd reports whether the word right before s[i] (spaces between allowed) is END.
func afterEnd(s string, i int) bool {
	for i > 0 && strings.IndexByte(" \t\r\n", s[i-1]) >= 0 {
		i--
	}
	start := i
	for start > 0 && isWordByte(s[start-1]) {
		start--
	}
	return strings.EqualFold(s[start:i], "end")
}

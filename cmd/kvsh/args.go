package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// splitCommands splits a line into commands, each a list of words.
//
// Words are separated by spaces or tabs; commands by an unquoted ';' or newline. Inside double
// quotes Go escapes apply (\n, \t, \", \\, \xNN, \u00e9, ...); inside single quotes every byte is
// literal. Quoted and unquoted parts that touch form one word, so "" is an empty word. An unquoted
// word starting with 0x is hex bytes ("0x41" in quotes stays text). A '#' where a command would
// start comments out the rest of the line. Empty commands are dropped.
func splitCommands(line string) ([][][]byte, error) {
	t := tokenizer{s: line}
	for t.i < len(t.s) {
		if err := t.step(); err != nil {
			return nil, err
		}
	}
	if err := t.endCommand(); err != nil {
		return nil, err
	}
	return t.cmds, nil
}

// tokenizer is the state of splitCommands.
type tokenizer struct {
	s      string
	i      int        // next byte of s to read
	cmds   [][][]byte // finished commands
	words  [][]byte   // finished words of the current command
	cur    []byte     // bytes of the current word
	inWord bool       // cur is a word, even if empty
	quoted bool       // some part of cur was quoted
}

// step consumes one unquoted byte or one quoted string.
func (t *tokenizer) step() error {
	c := t.s[t.i]
	switch {
	case c == ' ' || c == '\t' || c == '\r':
		t.i++
		return t.endWord()
	case c == ';' || c == '\n':
		t.i++
		return t.endCommand()
	case c == '#' && !t.inWord && len(t.words) == 0:
		t.skipComment()
		return nil
	case c == '"':
		return t.doubleQuoted()
	case c == '\'':
		return t.singleQuoted()
	}
	t.cur = append(t.cur, c)
	t.inWord = true
	t.i++
	return nil
}

// skipComment moves past the rest of the current line.
func (t *tokenizer) skipComment() {
	for t.i < len(t.s) && t.s[t.i] != '\n' {
		t.i++
	}
}

// singleQuoted appends the literal bytes up to the closing single quote.
func (t *tokenizer) singleQuoted() error {
	start := t.i
	end := strings.IndexByte(t.s[start+1:], '\'')
	if end < 0 {
		return fmt.Errorf("unterminated single quote at column %d", start+1)
	}
	t.cur = append(t.cur, t.s[start+1:start+1+end]...)
	t.i = start + end + 2
	t.inWord, t.quoted = true, true
	return nil
}

// doubleQuoted appends the unescaped bytes up to the closing double quote.
func (t *tokenizer) doubleQuoted() error {
	start := t.i
	t.i++
	for t.i < len(t.s) {
		switch c := t.s[t.i]; c {
		case '"':
			t.i++
			t.inWord, t.quoted = true, true
			return nil
		case '\\':
			if err := t.escape(); err != nil {
				return fmt.Errorf("bad escape at column %d: %w", t.i+1, err)
			}
		default:
			// Copy raw bytes one by one so invalid UTF-8 survives unchanged.
			t.cur = append(t.cur, c)
			t.i++
		}
	}
	return fmt.Errorf("unterminated double quote at column %d", start+1)
}

// escape decodes the backslash escape at t.i and appends its bytes.
func (t *tokenizer) escape() error {
	value, multibyte, tail, err := strconv.UnquoteChar(t.s[t.i:], '"')
	if err != nil {
		return errors.New("invalid Go escape sequence")
	}
	if multibyte {
		t.cur = utf8.AppendRune(t.cur, value)
	} else {
		t.cur = append(t.cur, byte(value))
	}
	t.i = len(t.s) - len(tail)
	return nil
}

// endWord finishes the current word, if any, decoding 0x hex words.
func (t *tokenizer) endWord() error {
	if !t.inWord {
		return nil
	}
	w := t.cur
	if w == nil {
		w = []byte{}
	}
	if !t.quoted && bytes.HasPrefix(w, []byte("0x")) {
		dec := make([]byte, hex.DecodedLen(len(w)-2))
		if _, err := hex.Decode(dec, w[2:]); err != nil {
			return fmt.Errorf("bad hex word %q: %v (quote it to use it as text)", w, err)
		}
		w = dec
	}
	t.words = append(t.words, w)
	t.cur, t.inWord, t.quoted = nil, false, false
	return nil
}

// endCommand finishes the current word and command; empty commands are dropped.
func (t *tokenizer) endCommand() error {
	if err := t.endWord(); err != nil {
		return err
	}
	if len(t.words) > 0 {
		t.cmds = append(t.cmds, t.words)
	}
	t.words = nil
	return nil
}

package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/peterh/liner"
)

// maxCandidates caps the keys (and file names) offered by one tab completion.
const maxCandidates = 100

// historyEnv names the environment variable that overrides the history file (empty: no history).
const historyEnv = "KVSH_HISTORY"

// interactive runs a line-editing session on the terminal until Ctrl-D, quit or a -bail stop.
// Ctrl-C clears the line being typed; while a command runs it cancels that command.
func (sh *shell) interactive() {
	ln := liner.NewLiner()
	defer ln.Close()
	keepOutputOnInterrupt(os.Stdin)
	ln.SetCtrlCAborts(true) // Prompt returns on Ctrl-C, so that it also drops an unfinished statement
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(sh.complete)
	hist := historyPath()
	sh.loadHistory(ln, hist)

	// While a command runs, exec's own handler cancels it; between commands (outside the prompt,
	// where liner reads Ctrl-C as a key) a SIGINT must not end the shell.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	done := make(chan struct{})
	defer func() { signal.Stop(sigs); close(done) }()
	go func() {
		for {
			select {
			case <-sigs:
			case <-done:
				return
			}
		}
	}()

	for {
		line, err := ln.Prompt(sh.prompt())
		switch {
		case errors.Is(err, io.EOF): // Ctrl-D on an empty line
			fmt.Fprintln(sh.out)
			sh.endInput()
			return
		case errors.Is(err, liner.ErrPromptAborted): // Ctrl-C: also drops an unfinished statement
			sh.pending = ""
			continue
		case err != nil:
			sh.fail(fmt.Errorf("read input: %w", err))
			sh.broken = true
			return
		}
		if strings.TrimSpace(line) != "" {
			ln.AppendHistory(line)
			sh.saveHistory(ln, hist)
		}
		if !sh.feedLine(line) {
			return
		}
	}
}

// historyPath is the history file: $KVSH_HISTORY if set (empty disables history), else
// ~/.kvsh_history, or "" if there is no home directory.
func historyPath() string {
	if p, ok := os.LookupEnv(historyEnv); ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".kvsh_history")
}

// loadHistory reads the history file; a missing file is not an error.
func (sh *shell) loadHistory(ln *liner.State, path string) {
	if path == "" {
		return
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		sh.warn("history not loaded: %v", err)
		return
	}
	defer f.Close()
	if _, err := ln.ReadHistory(f); err != nil {
		sh.warn("history %s: %v", path, err)
	}
}

// saveHistory writes the whole history (at most liner.HistoryLimit lines) after every line, so
// a killed shell keeps it too.
func (sh *shell) saveHistory(ln *liner.State, path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		_, err = ln.WriteHistory(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		sh.warn("history not saved: %v", err)
	}
}

// partialLine is the command being typed up to the cursor, as complete sees it.
type partialLine struct {
	words []string // raw text of the finished words of the current command
	start int      // byte offset of the word under the cursor
	cur   string   // raw text of the word under the cursor (maybe empty)
}

// scanPartial splits the text before the cursor into the words of its last command, keeping
// quotes as typed.
func scanPartial(s string) partialLine {
	var p partialLine
	start := -1
	inDouble, inSingle := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inDouble:
			if c == '\\' {
				i++
			} else if c == '"' {
				inDouble = false
			}
			continue
		case inSingle:
			inSingle = c != '\''
			continue
		}
		switch c {
		case ' ', '\t':
			if start >= 0 {
				p.words = append(p.words, s[start:i])
				start = -1
			}
		case ';', '\n':
			p.words, start = nil, -1
		default:
			if start < 0 {
				start = i
			}
			inDouble, inSingle = c == '"', c == '\''
		}
	}
	if start < 0 {
		p.start = len(s)
	} else {
		p.start, p.cur = start, s[start:]
	}
	return p
}

// decodePartial reads a word being typed as bytes, closing an open quote or dropping an odd
// hex digit. ok is false if it cannot be read (a half-typed escape).
func decodePartial(raw string) (b []byte, ok bool) {
	tries := []string{raw, raw + `"`, raw + `'`}
	if strings.HasPrefix(raw, "0x") {
		tries = append(tries, raw[:len(raw)-1])
	}
	for _, t := range tries {
		cmds, err := splitCommands("x " + t)
		if err == nil && len(cmds) == 1 && len(cmds[0]) == 2 {
			return cmds[0][1], true
		}
	}
	return nil, raw == ""
}

// keyArgs names the commands whose arguments are keys, completed from the database.
var keyArgs = map[string]bool{
	"get": true, "put": true, "del": true, "scan": true, "range": true, "prefix": true,
	"first": true, "last": true, "count": true,
}

// complete is liner's word completer: commands in command position, fixed arguments, file
// names for import, export and verify, and keys from the database elsewhere.
func (sh *shell) complete(line string, pos int) (head string, items []string, tail string) {
	runes := []rune(line)
	pos = min(max(pos, 0), len(runes))
	before, tail := string(runes[:pos]), string(runes[pos:])
	p := scanPartial(before)
	head = before[:p.start]
	if sh.remote != nil {
		return head, sh.completeRemote(p), tail
	}
	if len(p.words) == 0 {
		return head, completeFrom(commandNames(), p.cur), tail
	}
	name := p.words[0]
	switch {
	case name == "help" && len(p.words) == 1:
		return head, completeFrom(commandNames(), p.cur), tail
	case name == ".mode" && len(p.words) == 1:
		return head, completeFrom(modeNames, p.cur), tail
	case (name == ".timer" || name == ".quiet") && len(p.words) == 1:
		return head, completeFrom([]string{"on", "off"}, p.cur), tail
	case name == "begin" && len(p.words) == 1:
		return head, completeFrom([]string{"ro"}, p.cur), tail
	case (name == ".schema" || name == ".indexes") && len(p.words) == 1:
		return head, sh.objectNames(p.cur, name == ".schema"), tail
	case (name == "import" || name == "verify" || name == "export") && len(p.words) == 1:
		return head, completeFile(p.cur), tail
	case (name == "use" || name == "rmbucket") && len(p.words) == 1:
		return head, sh.completeBytes(p.cur, sh.bucketNames), tail
	case name == "rollback" && len(p.words) == 1:
		return head, completeFrom([]string{"to"}, p.cur), tail
	case (name == "release" && len(p.words) == 1) || (name == "rollback" && len(p.words) == 2 && p.words[1] == "to"):
		return head, completeFrom(sh.savepointNames(), p.cur), tail
	case keyArgs[name] || name == "export":
		return head, sh.completeBytes(p.cur, sh.keysWithPrefix), tail
	}
	return head, nil, tail
}

// commandNames lists every command name.
func commandNames() []string {
	names := make([]string, len(commands))
	for i := range commands {
		names[i] = commands[i].name
	}
	return names
}

// completeFrom returns the words starting with prefix, each followed by a space.
func completeFrom(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w+" ")
		}
	}
	return out
}

// completeFile completes a plain (unquoted) file name; directories end with a slash.
func completeFile(cur string) []string {
	b, ok := decodePartial(cur)
	if !ok {
		return nil
	}
	dir, base := filepath.Split(string(b))
	entries, err := os.ReadDir(cmpOr(dir, "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), base) || len(out) == maxCandidates {
			continue
		}
		name := dir + e.Name()
		if e.IsDir() {
			out = append(out, quoteArg([]byte(name+"/"), false))
		} else {
			out = append(out, quoteArg([]byte(name), false)+" ")
		}
	}
	return out
}

// cmpOr returns s, or def if s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// keysWithPrefix returns the keys of the key space in use that start with prefix, at most
// maxCandidates, read in the open transaction or a read transaction of its own.
func (sh *shell) keysWithPrefix(prefix []byte) [][]byte {
	var keys [][]byte
	sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		for k := range ks.Prefix(prefix) {
			keys = append(keys, bytes.Clone(k))
			if len(keys) == maxCandidates {
				break
			}
		}
		return nil
	})
	return keys
}

// completeBytes offers the keys (or bucket names) that list returns for the word being typed.
// One match is completed with a trailing space; several with a longer common prefix are
// completed to that prefix; otherwise liner lists them on a second Tab.
func (sh *shell) completeBytes(cur string, list func(prefix []byte) [][]byte) []string {
	prefix, ok := decodePartial(cur)
	if !ok {
		return nil
	}
	asHex := strings.HasPrefix(cur, "0x")
	keys := list(prefix)
	if len(keys) == 0 {
		return nil
	}
	if len(keys) == 1 {
		return []string{quoteArg(keys[0], asHex) + " "}
	}
	if common := commonPrefix(keys); len(common) > len(prefix) {
		s := quoteArg(common, asHex)
		if strings.HasPrefix(s, `"`) {
			s = strings.TrimSuffix(s, `"`) // leave the quote open: the key goes on
		}
		return []string{s}
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = quoteArg(k, asHex)
	}
	return out
}

// commonPrefix is the longest prefix shared by every key.
func commonPrefix(keys [][]byte) []byte {
	p := keys[0]
	for _, k := range keys[1:] {
		n := 0
		for n < len(p) && n < len(k) && p[n] == k[n] {
			n++
		}
		p = p[:n]
	}
	return p
}

// quoteArg renders b as one argument word the tokenizer reads back as b: hex when asked, as is
// when it is printable and holds nothing special to the tokenizer, otherwise Go-quoted.
func quoteArg(b []byte, asHex bool) string {
	if asHex {
		return "0x" + hex.EncodeToString(b)
	}
	plain := len(b) > 0 && isPrintable(b) && !bytes.HasPrefix(b, []byte("0x")) && b[0] != '#' &&
		!slices.ContainsFunc(b, func(c byte) bool { return strings.IndexByte(" \t;\"'", c) >= 0 })
	if plain {
		return string(b)
	}
	return strconv.Quote(string(b))
}

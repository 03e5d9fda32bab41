package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/engine"
)

// shell runs commands against one open database.
type shell struct {
	db       *cairn.DB
	out      *bufio.Writer // command output; flushed after every command
	errOut   io.Writer     // errors, warnings and progress
	bail     bool          // stop at the first failing command
	failed   bool          // some command failed
	broken   bool          // the input could not be read or the database not closed
	quiet    bool          // -q, .quiet on: no warnings for skipped files and keys
	readonly bool          // -readonly: write commands are refused
	mode     outputMode    // .mode
	timer    bool          // .timer on: print the time each command took
	tx       *cairn.Tx     // transaction opened by begin, nil if none
	progress bool          // errOut is a terminal: draw progress bars
	bar      *progress     // the progress bar of the running command, if any
	// bucket is the bucket the data commands work in (use), nil for the default key space.
	bucket []byte
	// savepoints are the savepoints of tx, oldest first; spSeq numbers the unnamed ones.
	savepoints []namedSavepoint
	spSeq      int
	// sess runs SQL (sql.go), made on first use; attached to tx while one is open.
	sess *engine.Session
	// pending is the start of a SQL statement whose ';' has not been read yet (line input).
	pending string
	// carets: a parse error shows the statement's line with a caret (a person is typing).
	carets bool
	// salvage is set in salvage mode (salvage.go).
	salvage *salvageState
	// remote is set in a remote session (kvsh -connect URL; remote.go), whose db is nil.
	remote *remote
}

// command is one entry of the command table.
type command struct {
	name    string
	usage   string // arguments, as shown by help
	help    string // one line
	minArgs int
	maxArgs int
	run     func(sh *shell, ctx context.Context, args [][]byte) error
	writes  bool // changes the database: refused under -readonly and in a read-only transaction
}

// errQuit is returned by quit and exit to end the session.
var errQuit = errors.New("quit")

// errInterrupted reports a command cancelled by Ctrl-C.
var errInterrupted = errors.New("interrupted")

// commands is the command table, in the order help lists it. It is filled by init because help
// refers to it.
var commands []command

// init fills the command table.
func init() {
	commands = []command{
		{"get", "KEY", "print the value of KEY", 1, 1, cmdGet, false},
		{"put", "KEY VALUE", "set KEY to VALUE", 2, 2, cmdPut, true},
		{"del", "KEY", "delete KEY (no error if missing)", 1, 1, cmdDel, true},
		{"scan", "[START [END]]", "list keys in [START, END) with their values", 0, 2, cmdScan, false},
		{"range", "[START [END]]", "same as scan", 0, 2, cmdScan, false},
		{"prefix", "P", "list keys starting with P with their values", 1, 1, cmdPrefix, false},
		{"first", "[PREFIX]", "print the first key (starting with PREFIX) and its value", 0, 1, cmdFirst, false},
		{"last", "[PREFIX]", "print the last key (starting with PREFIX) and its value", 0, 1, cmdLast, false},
		{"count", "[PREFIX]", "count keys (starting with PREFIX)", 0, 1, cmdCount, false},
		{"buckets", "", "list the names of the buckets", 0, 0, cmdBuckets, false},
		{"use", "[BUCKET|.]", "make the data commands work in BUCKET (none or .: the default key space)", 0, 1, cmdUse, false},
		{"mkbucket", "NAME", "create an empty bucket", 1, 1, cmdMkbucket, true},
		{"rmbucket", "NAME", "delete a bucket and every key in it", 1, 1, cmdRmbucket, true},
		{"begin", "[ro]", "open a read-write (or read-only) transaction used by the next commands and SQL statements", 0, 1, cmdBegin, false},
		{"commit", "", "commit the open transaction (SQL's END too)", 0, 0, cmdCommit, false},
		{"rollback", "[to NAME]", "discard the open transaction (or only its changes since savepoint NAME)", 0, 2, cmdRollback, false},
		{"savepoint", "[NAME]", "mark a savepoint in the open transaction (without NAME: print its number)", 0, 1, cmdSavepoint, false},
		{"release", "NAME", "forget savepoint NAME and the later ones, keeping their changes", 1, 1, cmdRelease, false},
		{"stats", "", "print database statistics", 0, 0, cmdStats, false},
		{"checkpoint", "", "copy the write-ahead log into the database file", 0, 0, cmdCheckpoint, true},
		{"check", "", "verify the whole database (checksums, tree, free pages); list each problem", 0, 0, cmdCheck, false},
		{"backup", "FILE", "write a consistent copy of the database to a new FILE", 1, 1, cmdBackup, false},
		{"compact", "", "shrink the database file: move pages down, truncate the free end", 0, 0, cmdCompact, true},
		{"import", "DIR|FILE.json|FILE.jsonl|FILE.csv", "store every file under DIR (key = relative path, value = contents), or the pairs of a JSON, JSON Lines or CSV file", 1, 1, cmdImport, true},
		{"export", "DIR|FILE.json|FILE.jsonl|FILE.csv [PREFIX]", "write every key (starting with PREFIX) as a file under DIR, or to a JSON, JSON Lines or CSV file", 1, 2, cmdExport, false},
		{"verify", "DIR", "check that every file under DIR is stored with the same contents", 1, 1, cmdVerify, false},
		{".mode", "[table|json|jsonl|csv|raw|hex]", "set (or show) how get, listings and SQL results print", 0, 1, cmdMode, false},
		{".timer", "[on|off]", "print the time each command or SQL statement takes (on stderr)", 0, 1, cmdTimer, false},
		{".tables", "", "list the SQL tables and views", 0, 0, cmdTables, false},
		{".schema", "[NAME]", "print the CREATE statements (of table, index or view NAME and its indexes)", 0, 1, cmdSchema, false},
		{".indexes", "[TABLE]", "list the SQL indexes (of TABLE)", 0, 1, cmdIndexes, false},
		{".quiet", "[on|off]", "silence (or show) the warnings for files and keys import, export and verify skip", 0, 1, cmdQuiet, false},
		{".meta", "", "print both meta pages of the database file, decoded, and which is current", 0, 0, cmdMeta, false},
		{".pages", "", "count the pages of the database file by type (as of the last checkpoint)", 0, 0, cmdPages, false},
		{".page", "N", "print page N of the database file, decoded (as of the last checkpoint)", 1, 1, cmdPage, false},
		{".wal", "", "print the write-ahead log's records since the last checkpoint, decoded", 0, 0, cmdWAL, false},
		{".salvage", "", "print the salvage report again (with -salvage)", 0, 0, cmdSalvageReport, false},
		{".cluster", "", "with -connect: the node's cluster status, its members and their lag", 0, 0, cmdCluster, false},
		{".consistency", "[MODE [MAX_STALENESS]]", "with -connect: set (or show) how reads are served: linearizable, leader or follower", 0, 2, cmdConsistency, false},
		{"recover", "FILE", "write the salvaged keys to a new database FILE (with -salvage)", 1, 1, cmdRecover, false},
		{"help", "[COMMAND]", "describe commands and argument syntax", 0, 1, cmdHelp, false},
		{"quit", "", "leave the shell", 0, 0, cmdQuit, false},
		{"exit", "", "leave the shell", 0, 0, cmdQuit, false},
	}
}

// lookup returns the command called name.
func lookup(name string) (*command, bool) {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i], true
		}
	}
	return nil, false
}

// runLine runs every command and SQL statement of a complete input (a -c argument, or the
// last line of a file) and reports whether the session goes on.
func (sh *shell) runLine(line string) bool {
	return sh.runInput(line, true)
}

// feedLine runs the commands and statements of one line of input, or keeps the start of a SQL
// statement that has no ';' yet to run with the next lines, and reports whether the session
// goes on.
func (sh *shell) feedLine(line string) bool {
	if sh.pending != "" {
		line = sh.pending + "\n" + line
		sh.pending = ""
	}
	return sh.runInput(line, false)
}

// endInput runs an unfinished SQL statement left when the input ends (the parser says what is
// missing), and reports whether the session goes on.
func (sh *shell) endInput() bool {
	text := sh.pending
	sh.pending = ""
	return text == "" || sh.runInput(text, true)
}

// runInput runs the commands of text (splitInput) and reports whether the session goes on. If
// final is false, an unfinished SQL statement at its end is kept in sh.pending.
func (sh *shell) runInput(text string, final bool) bool {
	items, rest, err := splitInput(text, final)
	if err != nil {
		return sh.fail(err)
	}
	for _, it := range items {
		began := time.Now()
		var err error
		if it.words != nil {
			err = sh.exec(it.words)
		} else {
			err = sh.execSQL(it.sql)
		}
		sh.out.Flush()
		if sh.timer {
			fmt.Fprintf(sh.errOut, "time: %s\n", formatDuration(time.Since(began)))
		}
		if errors.Is(err, errQuit) {
			return false
		}
		if err != nil && !sh.fail(err) {
			return false
		}
	}
	sh.pending = rest
	return true
}

// fail reports err and reports whether the session goes on (false under -bail).
func (sh *shell) fail(err error) bool {
	sh.out.Flush()
	fmt.Fprintf(sh.errOut, "error: %v\n", err)
	if sh.carets {
		fmt.Fprint(sh.errOut, sqlErrorCaret(err))
	}
	sh.failed = true
	return !sh.bail
}

// exec runs one command. Ctrl-C cancels the context of the running command.
func (sh *shell) exec(words [][]byte) error {
	words = txCommand(words)
	name := string(words[0])
	c, ok := lookup(name)
	if !ok {
		return fmt.Errorf("unknown command %s (try help)", formatBytes(words[0]))
	}
	args := words[1:]
	if len(args) < c.minArgs || len(args) > c.maxArgs {
		return fmt.Errorf("usage: %s", c.synopsis())
	}
	run := c.run
	if sh.remote != nil {
		if run = remoteCommands[c.name]; run == nil {
			return sh.errNeedsLocal(c.name)
		}
	}
	if err := sh.mayRun(c, args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(sh, ctx, args)
}

// synopsis is the command name followed by its usage.
func (c *command) synopsis() string {
	return strings.TrimSpace(c.name + " " + c.usage)
}

// warn prints a non-fatal message on the error stream, on a line of its own: a progress bar
// on the screen is erased first and drawn again below the message.
func (sh *shell) warn(format string, args ...any) {
	sh.out.Flush()
	bar := sh.bar
	if bar != nil {
		bar.erase()
	}
	fmt.Fprintf(sh.errOut, "warning: "+format+"\n", args...)
	if bar != nil {
		bar.redraw()
	}
}

// skipWarn is warn for a file or key that import, export or verify leaves out; .quiet and -q
// silence it (the command's summary still counts it).
func (sh *shell) skipWarn(format string, args ...any) {
	if !sh.quiet {
		sh.warn(format, args...)
	}
}

// cmdGet prints the full value of a key.
func cmdGet(sh *shell, _ context.Context, args [][]byte) error {
	return sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		v, err := ks.Get(args[0])
		if errors.Is(err, cairn.ErrNotFound) {
			return fmt.Errorf("not found: %s", formatBytes(args[0]))
		}
		if err != nil {
			return err
		}
		return printValue(sh.out, sh.mode, args[0], v)
	})
}

// cmdPut stores a key and value in its own transaction.
func cmdPut(sh *shell, _ context.Context, args [][]byte) error {
	return sh.updateSpace(func(ks keySpace) error { return ks.Put(args[0], args[1]) })
}

// cmdDel deletes a key; a missing key is not an error.
func cmdDel(sh *shell, _ context.Context, args [][]byte) error {
	return sh.updateSpace(func(ks keySpace) error { return ks.Delete(args[0]) })
}

// cmdScan lists the keys in [START, END) with their values.
func cmdScan(sh *shell, ctx context.Context, args [][]byte) error {
	var start, end []byte
	if len(args) > 0 {
		start = args[0]
	}
	if len(args) > 1 {
		end = args[1]
	}
	return sh.list(ctx, func(ks keySpace) iter.Seq2[[]byte, []byte] { return ks.Range(start, end) })
}

// cmdPrefix lists the keys starting with a prefix with their values.
func cmdPrefix(sh *shell, ctx context.Context, args [][]byte) error {
	return sh.list(ctx, func(ks keySpace) iter.Seq2[[]byte, []byte] { return ks.Prefix(args[0]) })
}

// list prints the pairs of the sequence built by seq in the output mode, streaming them.
func (sh *shell) list(ctx context.Context, seq func(keySpace) iter.Seq2[[]byte, []byte]) error {
	return sh.viewSpace(func(tx *cairn.Tx, ks keySpace) error {
		p := newPairPrinter(sh.out, sh.mode)
		defer p.end()
		for k, v := range seq(ks) {
			if ctx.Err() != nil {
				return errInterrupted
			}
			if err := p.pair(k, v); err != nil {
				return err
			}
		}
		return tx.Err()
	})
}

// cmdCount prints the number of keys, or of keys starting with a prefix.
func cmdCount(sh *shell, ctx context.Context, args [][]byte) error {
	return sh.viewSpace(func(tx *cairn.Tx, ks keySpace) error {
		seq := ks.Range(nil, nil)
		if len(args) > 0 {
			seq = ks.Prefix(args[0])
		}
		n := 0
		for range seq {
			if n%4096 == 0 && ctx.Err() != nil {
				return errInterrupted
			}
			n++
		}
		if err := tx.Err(); err != nil {
			return err
		}
		fmt.Fprintln(sh.out, n)
		return nil
	})
}

// cmdStats prints every field of the database statistics as "Name value".
func cmdStats(sh *shell, _ context.Context, _ [][]byte) error {
	for _, line := range formatFields(sh.db.Stats()) {
		fmt.Fprintln(sh.out, line)
	}
	return nil
}

// cmdCheckpoint runs a checkpoint now.
func cmdCheckpoint(sh *shell, ctx context.Context, _ [][]byte) error {
	if sh.tx != nil {
		return errors.New("checkpoint cannot run inside a transaction: commit or rollback first")
	}
	err := sh.db.Checkpoint(ctx)
	if err != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// cmdHelp lists the commands and the argument syntax, or describes one command.
func cmdHelp(sh *shell, _ context.Context, args [][]byte) error {
	if len(args) == 1 {
		c, ok := lookup(string(args[0]))
		if !ok {
			return fmt.Errorf("unknown command %s", formatBytes(args[0]))
		}
		fmt.Fprintf(sh.out, "%s\n    %s\n", c.synopsis(), c.help)
		return nil
	}
	fmt.Fprintln(sh.out, "Commands (separate several with ';'):")
	for i := range commands {
		if sh.remote != nil && remoteCommands[commands[i].name] == nil {
			continue
		}
		fmt.Fprintf(sh.out, "  %-22s %s\n", commands[i].synopsis(), commands[i].help)
	}
	if sh.remote != nil {
		fmt.Fprintf(sh.out, "\nConnected to %s: the other commands and SQL need a local database (kvsh PATH).\n", sh.remote.base)
	}
	fmt.Fprint(sh.out, helpSyntax)
	return nil
}

// helpSyntax is the part of help that explains arguments and output.
const helpSyntax = `
Arguments are separated by spaces. "double quotes" take Go escapes (\n \t \" \\ \xNN),
'single quotes' are literal, and an unquoted word starting with 0x is hex bytes (0x00ff).
Output is printed as is when printable, otherwise as a Go-quoted string; listings cut
values longer than 200 bytes (.mode raw, hex, json and jsonl show them in full).
Ctrl-C stops a running command; on a terminal it also clears the line being typed.

SQL: a statement starting with SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, WITH, VALUES,
EXPLAIN, REPLACE, ... (any case), or any line ending in ';' that starts with no command name,
is SQL in SQLite's dialect; it runs when its ';' is read, and may span lines ("   ...> ").
begin, commit (or end), rollback, savepoint and release, in any case and in their SQL forms
(BEGIN IMMEDIATE, ROLLBACK TO SAVEPOINT x), control one transaction shared by commands and
SQL. docs/KVSH.md, "SQL", has the rest.
`

// cmdQuit ends the session.
func cmdQuit(*shell, context.Context, [][]byte) error { return errQuit }

// Command kvsh is an interactive shell for reading, writing, importing and verifying a cairn database.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// defaultPath is the database opened when no path argument is given.
const defaultPath = "cairn.db"

// main runs kvsh and exits with its status.
func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// config holds the parsed command line.
type config struct {
	path     string
	commands string // -c argument
	hasCmds  bool   // -c was given (possibly empty); otherwise stdin is read
	file     string // -f argument: commands read from this file
	bail     bool
	readonly bool
	quiet    bool // -q: no start line, no warnings for skipped files and keys
	version  bool // -version: print the version and exit
	salvage  bool // -salvage: run on what cairn.Salvage reads of the database (salvage.go)
}

// run is main without the process exit: it returns the exit status.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if cfg.version {
		printVersion(stdout)
		return 0
	}
	// A person typing at a terminal: the session starts with a line saying what was opened, and
	// failed commands do not make the exit status non-zero (unless -bail ends the session).
	interactive := !cfg.hasCmds && cfg.file == "" && isTerminal(stdin)
	kind := openKind(cfg.path, cfg.readonly)
	db, salvage, err := openShellDB(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err) // the library's error names the path and the cause
		return 1
	}
	out := bufio.NewWriter(stdout)
	sh := &shell{db: db, out: out, errOut: stderr, bail: cfg.bail, readonly: cfg.readonly || salvage != nil,
		quiet: cfg.quiet, progress: isTerminalWriter(stderr), carets: interactive, salvage: salvage}
	if interactive && !cfg.quiet && salvage == nil {
		fmt.Fprintln(out, startLine(db, cfg.path, kind))
		out.Flush()
	}
	switch {
	case cfg.hasCmds:
		sh.runLine(cfg.commands)
	case cfg.file != "":
		sh.runFile(cfg.file)
	case interactive && isTerminalWriter(stdout):
		sh.interactive()
	default:
		sh.readLoop(stdin)
	}
	sh.endTx()
	out.Flush()
	if err := db.Close(); err != nil {
		fmt.Fprintf(stderr, "error: close: %v\n", err)
		sh.broken = true
	}
	salvage.remove()
	return exitStatus(sh, interactive)
}

// exitStatus is the exit status of a session: 1 if the input could not be read or the database
// not closed; 1 if a command failed in a script (-c, -f, standard input that is not a terminal)
// or ended the session under -bail; otherwise 0. An interactive session that ends with quit,
// exit or Ctrl-D exits 0 even if commands failed: their errors were shown as they happened (as
// sqlite3 and psql do).
func exitStatus(sh *shell, interactive bool) int {
	if sh.broken || (sh.failed && (!interactive || sh.bail)) {
		return 1
	}
	return 0
}

// parseFlags parses the command line; usage errors are already reported on stderr.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("kvsh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.commands, "c", "", "run `commands` (separated by ';') and exit")
	fs.StringVar(&cfg.file, "f", "", "run the commands in `file` and exit")
	fs.BoolVar(&cfg.bail, "bail", false, "stop at the first failing command")
	fs.BoolVar(&cfg.readonly, "readonly", false, "open the database read-only (shared lock, nothing written) and refuse commands that change it")
	fs.BoolVar(&cfg.quiet, "q", false, "quiet: no start line, no warnings for the files and keys import, export and verify skip")
	fs.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fs.BoolVar(&cfg.salvage, "salvage", false, "read every key that can be read of a damaged database, without writing to it, and run the commands on those keys (read-only)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kvsh [flags] [path]\n\nOpens the cairn database at path (default %s).\n\n", defaultPath)
		fs.PrintDefaults()
	}
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return cfg, err
	}
	fs.Visit(func(f *flag.Flag) { cfg.hasCmds = cfg.hasCmds || f.Name == "c" })
	if cfg.hasCmds && cfg.file != "" {
		fmt.Fprintln(stderr, "error: -c and -f cannot be used together")
		return cfg, errors.New("usage")
	}
	switch len(positional) {
	case 0:
		cfg.path = defaultPath
	case 1:
		cfg.path = positional[0]
	default:
		fmt.Fprintln(stderr, "error: too many arguments: want at most one database path")
		fs.Usage()
		return cfg, errors.New("usage")
	}
	return cfg, nil
}

// parseInterspersed parses flags placed before or after positional arguments (kvsh DB -c CMDS)
// and returns the positional ones. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// runFile runs the commands of a file, line by line (a SQL statement up to its ';'), like
// commands on standard input.
func (sh *shell) runFile(path string) {
	f, err := os.Open(path)
	if err != nil {
		sh.fail(err)
		return
	}
	defer f.Close()
	sh.readLines(f, false)
}

// readLoop runs commands read line by line from in until EOF, quit or a -bail stop. A prompt
// is printed when in is a terminal (and the output is not: line editing needs both).
func (sh *shell) readLoop(in *os.File) {
	sh.readLines(in, isTerminal(in))
}

// readLines runs commands read line by line from in (a SQL statement up to its ';', which may
// be on a later line), printing a prompt if interactive. At the end of the input an unfinished
// statement runs as it is (the parser says what is missing).
func (sh *shell) readLines(in io.Reader, interactive bool) {
	r := bufio.NewReader(in)
	for {
		if interactive {
			fmt.Fprint(sh.out, sh.prompt())
			sh.out.Flush()
		}
		line, err := r.ReadString('\n')
		if line != "" && !sh.feedLine(strings.TrimRight(line, "\r\n")) {
			return
		}
		if err != nil {
			if interactive {
				fmt.Fprintln(sh.out)
			}
			if !sh.endInput() {
				return
			}
			if !errors.Is(err, io.EOF) {
				sh.fail(fmt.Errorf("read input: %w", err))
				sh.broken = true
			}
			return
		}
	}
}

// isTerminal reports whether f is a terminal (not merely a character device like /dev/null).
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// isTerminalWriter reports whether w is a file that is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// Command kvsh is an interactive shell for reading, writing, importing and verifying a cairn database.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	// remote holds -connect (a cairnd node's URL: a remote session, remote.go) and the TLS files.
	remote remoteOptions
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
	out := bufio.NewWriter(stdout)
	var sh *shell
	if cfg.remote.url != "" {
		if sh, err = connectShell(cfg, out, interactive); err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
	} else {
		kind := openKind(cfg.path, cfg.readonly)
		db, salvage, err := openShellDB(cfg, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err) // the library's error names the path and the cause
			return 1
		}
		sh = &shell{db: db, readonly: cfg.readonly || salvage != nil, salvage: salvage}
		if interactive && !cfg.quiet && salvage == nil {
			fmt.Fprintln(out, startLine(db, cfg.path, kind))
			out.Flush()
		}
	}
	sh.out, sh.errOut, sh.bail, sh.quiet = out, stderr, cfg.bail, cfg.quiet
	sh.progress, sh.carets = isTerminalWriter(stderr), interactive
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
	if sh.db != nil {
		if err := sh.db.Close(); err != nil {
			fmt.Fprintf(stderr, "error: close: %v\n", err)
			sh.broken = true
		}
	}
	sh.salvage.remove()
	return exitStatus(sh, interactive)
}

// connectShell starts a remote session (-connect): it reads the node's status, which tells
// whether it answers, and prints the start line of an interactive session.
func connectShell(cfg config, out *bufio.Writer, interactive bool) (*shell, error) {
	r, err := dialRemote(cfg.remote)
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := r.connect(ctx)
	if err != nil {
		return nil, err
	}
	if interactive && !cfg.quiet {
		fmt.Fprintln(out, remoteStartLine(r, st))
		out.Flush()
	}
	return &shell{remote: r}, nil
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
	fs.StringVar(&cfg.remote.url, "connect", "", "connect to the cairnd node at `URL` (http://host:port or https://host:port) instead of opening a database")
	fs.StringVar(&cfg.remote.tlsCert, "tls-cert", "", "with -connect https://...: the client certificate (PEM `file`) cairnd's mutual TLS asks for")
	fs.StringVar(&cfg.remote.tlsKey, "tls-key", "", "with -connect https://...: the client certificate's private key (PEM `file`)")
	fs.StringVar(&cfg.remote.tlsCA, "tls-ca", "", "with -connect https://...: the CA certificate (PEM `file`) that signed the node's (default: the system's)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kvsh [flags] [path]\n       kvsh -connect URL [flags]\n\nOpens the cairn database at path (default %s), or connects to a cairnd node.\n\n", defaultPath)
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
	if cfg.remote.url != "" {
		switch {
		case len(positional) > 0:
			fmt.Fprintln(stderr, "error: -connect and a database path cannot be used together")
			return cfg, errors.New("usage")
		case cfg.readonly || cfg.salvage:
			fmt.Fprintln(stderr, "error: -readonly and -salvage are for a local database, not -connect")
			return cfg, errors.New("usage")
		}
		return cfg, nil
	}
	if cfg.remote != (remoteOptions{}) {
		fmt.Fprintln(stderr, "error: -tls-cert, -tls-key and -tls-ca go with -connect https://...")
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

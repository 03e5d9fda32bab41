package main

// SQL in the shell: statements run on a sql/engine Session over the shell's own cairn.DB, so
// that SQL tables and the key-value commands share one database and one transaction. The
// session is made on first use. While the shell has a transaction open (begin), the session is
// attached to it (engine.Session.Attach): SQL statements and key-value commands change the
// same transaction, and commit or roll back together. Outside one, each statement is its own
// transaction, as in SQLite.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/cairndb/cairn/sql/engine"
	"github.com/cairndb/cairn/sql/parse"
)

// sqlBucketPrefix starts the names of the buckets the SQL layer keeps its schema, tables and
// indexes in (sql/engine/schema.go): buckets hides them, mkbucket and rmbucket refuse them.
const sqlBucketPrefix = "\x00sql/"

// sqlTablePrefix starts the names of the buckets of SQL tables (one per table): the start line
// counts them.
const sqlTablePrefix = "\x00sql/t/"

// isSQLBucket reports whether a bucket name is the SQL layer's.
func isSQLBucket(name []byte) bool { return bytes.HasPrefix(name, []byte(sqlBucketPrefix)) }

// session returns the shell's SQL session, making it on first use (attached to the open
// transaction, if any).
func (sh *shell) session() *engine.Session {
	if sh.sess == nil {
		sh.sess = engine.New(sh.db).NewSession()
		if sh.tx != nil {
			sh.sess.Attach(sh.tx) // cannot fail: a new session has no transaction
		}
	}
	return sh.sess
}

// attachSQL attaches the SQL session, if there is one, to the transaction begin opened.
func (sh *shell) attachSQL() error {
	if sh.sess == nil {
		return nil
	}
	return sh.sess.Attach(sh.tx)
}

// dropTx forgets the shell's transaction (committed, rolled back, or ended by the library) and
// its savepoints, and detaches the SQL session from it.
func (sh *shell) dropTx() {
	sh.tx, sh.savepoints = nil, nil
	if sh.sess != nil {
		sh.sess.Detach()
	}
}

// sqlMark is the SQL session's state to keep with a savepoint made now (the zero Mark if there
// is no session yet: it has changed nothing in the transaction).
func (sh *shell) sqlMark() engine.Mark {
	if sh.sess == nil {
		return engine.Mark{}
	}
	return sh.sess.Mark()
}

// execSQL runs one SQL statement and prints its rows. Ctrl-C cancels it.
func (sh *shell) execSQL(text string) error {
	if sh.remote != nil {
		return sh.errNeedsLocal("SQL")
	}
	sess := sh.session()
	st, err := sess.Prepare(text)
	if err != nil {
		return err
	}
	if !st.ReadOnly() {
		verb := strings.ToUpper(firstWord(text))
		switch {
		case sh.readonly:
			return fmt.Errorf("%s is not allowed: the database was opened with -readonly", verb)
		case sh.tx != nil && !sh.tx.Writable():
			return fmt.Errorf("%s is not allowed in a read-only transaction: commit or rollback first", verb)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if st.ReadOnly() || st.Returns() { // RETURNING prints its rows as a query does
		err = sh.query(ctx, st)
	} else {
		_, err = st.Exec(ctx, nil)
	}
	if sh.tx != nil && !sess.InTransaction() {
		// The statement ended the shell's transaction (ON CONFLICT ROLLBACK).
		sh.dropTx()
		sh.recheckBucket()
		if err != nil {
			err = fmt.Errorf("%w (the transaction was rolled back)", err)
		}
	}
	if err != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// query runs a query and prints its rows in the output mode.
func (sh *shell) query(ctx context.Context, st *engine.Stmt) error {
	rows, err := st.Query(ctx, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols := rows.Columns()
	if sh.mode == modeTable && isPlanResult(st.Text(), cols) {
		var plan []planRow
		for rows.Next() {
			r := rows.Row()
			plan = append(plan, planRow{id: r[0].Int(), parent: r[1].Int(), detail: string(r[3].AppendText(nil))})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		printPlan(sh.out, plan)
		return nil
	}
	p := newRowPrinter(sh.out, sh.mode, cols)
	n := 0
	for rows.Next() {
		if n++; n%256 == 0 && ctx.Err() != nil {
			p.end()
			return errInterrupted
		}
		if err := p.row(rows.Row()); err != nil {
			return err
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	return rows.Err()
}

// firstWord returns the leading keyword of a statement.
func firstWord(text string) string {
	n := 0
	for n < len(text) && isWordByte(text[n]) {
		n++
	}
	return text[:n]
}

// sqlErrorCaret returns the lines that show where in the statement a parse error is: the line of
// the statement holding it, indented by two spaces, and a caret under the offending column; ""
// if err has no position.
func sqlErrorCaret(err error) string {
	var perr *parse.Error
	if !errors.As(err, &perr) || perr.Offset < 0 || perr.Offset > len(perr.SQL) {
		return ""
	}
	start := strings.LastIndexByte(perr.SQL[:perr.Offset], '\n') + 1
	end := lineEnd(perr.SQL, perr.Offset)
	line := strings.TrimRight(perr.SQL[start:end], "\r")
	var pad strings.Builder
	for _, r := range perr.SQL[start:perr.Offset] {
		if r == '\t' {
			pad.WriteRune('\t') // the terminal aligns it as it aligned the line's own tab
		} else {
			pad.WriteByte(' ')
		}
	}
	return fmt.Sprintf("  %s\n  %s^\n", formatLine(line), pad.String())
}

// formatLine renders a line of a statement for an error message: as typed, unless it holds
// control characters (other than tabs), which are Go-quoted.
func formatLine(s string) string {
	if isPrintable([]byte(strings.ReplaceAll(s, "\t", " "))) {
		return s
	}
	return formatBytes([]byte(s))
}

// objects returns the schema's objects the shell's session sees.
func (sh *shell) objects() ([]engine.Object, error) {
	return sh.session().Objects()
}

// objectName is how .tables and .indexes print a name: binary-safe, TEMP views as temp.NAME.
func objectName(o engine.Object) string {
	if o.Temp {
		return "temp." + formatBytes([]byte(o.Name))
	}
	return formatBytes([]byte(o.Name))
}

// cmdTables lists the SQL tables and views, by name.
func cmdTables(sh *shell, _ context.Context, _ [][]byte) error {
	objs, err := sh.objects()
	if err != nil {
		return err
	}
	var names []string
	for _, o := range objs {
		if o.Type == "table" || o.Type == "view" {
			names = append(names, objectName(o))
		}
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	for _, n := range names {
		fmt.Fprintln(sh.out, n)
	}
	return nil
}

// cmdSchema prints the CREATE statements of the schema, as they were given, each ending with
// ';': all of them, or those of the table, index or view NAME (a table's with its indexes').
func cmdSchema(sh *shell, _ context.Context, args [][]byte) error {
	objs, err := sh.objects()
	if err != nil {
		return err
	}
	found := false
	for _, o := range objs {
		if len(args) == 1 && !strings.EqualFold(o.Name, string(args[0])) && !strings.EqualFold(o.Table, string(args[0])) {
			continue
		}
		found = true
		if o.SQL != "" {
			fmt.Fprintf(sh.out, "%s;\n", o.SQL)
		}
	}
	if len(args) == 1 && !found {
		return fmt.Errorf("no table, index or view named %s", formatBytes(args[0]))
	}
	return nil
}

// cmdIndexes lists the SQL indexes by name, the automatic ones of UNIQUE and PRIMARY KEY
// constraints included: all of them, or those of one table.
func cmdIndexes(sh *shell, _ context.Context, args [][]byte) error {
	objs, err := sh.objects()
	if err != nil {
		return err
	}
	var names []string
	table := false
	for _, o := range objs {
		if len(args) == 1 && !strings.EqualFold(o.Table, string(args[0])) {
			continue
		}
		switch o.Type {
		case "table":
			table = true
		case "index":
			names = append(names, objectName(o))
		}
	}
	if len(args) == 1 && !table {
		return fmt.Errorf("no such table: %s", formatBytes(args[0]))
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	for _, n := range names {
		fmt.Fprintln(sh.out, n)
	}
	return nil
}

// objectNames returns the names of the SQL objects starting with prefix (any case), each
// followed by a space, for completion: tables and views, and indexes too if withIndexes.
func (sh *shell) objectNames(prefix string, withIndexes bool) []string {
	objs, err := sh.objects()
	if err != nil {
		return nil
	}
	var names []string
	for _, o := range objs {
		if o.Temp || (o.Type == "index" && !withIndexes) || len(o.Name) < len(prefix) {
			continue
		}
		if strings.EqualFold(o.Name[:len(prefix)], prefix) {
			names = append(names, o.Name+" ")
		}
	}
	return names
}

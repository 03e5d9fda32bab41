package engine

// Table-valued functions: a FROM item name(args...) whose rows a Go function makes from the
// evaluated arguments (SQLite's eponymous virtual tables, e.g. json_each). A function is an entry
// of tableFuncs: its columns, of which the hidden ones (SQLite's HIDDEN columns: json_each's json
// and root) are left out of * but found by name, and a generator. The arguments are bound in the
// scope of the FROM clause, so they may read the columns of the sources before the function in
// FROM (`FROM t, json_each(t.doc)`) and of enclosing queries, like a correlated subquery: the
// planner puts the function's loop inside the loops of every source its arguments read, and the
// arguments are evaluated again each time the loop starts. Invariant: the rows of one run are
// made once per start of the loop, held in memory, and every row has len(cols) values.

import (
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// tableFunc is a built-in table-valued function.
type tableFunc struct {
	name string
	// cols are the columns in order; hidden ones are not part of *.
	cols   []tableFuncCol
	minArg int
	maxArg int
	// rows returns the function's rows for the evaluated arguments; each row holds a value per
	// column. It may keep references to the arguments' bytes.
	rows func(args []value.Value) ([][]value.Value, error)
	// rowsCx, when set, is used instead of rows by functions that read the database or the
	// session (the pragma_* functions: pragma_tvf.go).
	rowsCx func(cx *execCtx, args []value.Value) ([][]value.Value, error)
}

// tableFuncCol is a column of a table-valued function.
type tableFuncCol struct {
	name   string
	hidden bool
}

// tableFuncs holds the table-valued functions by lower-case name; files register theirs in an
// init function.
var tableFuncs = map[string]*tableFunc{}

// tableFuncCall is a source's call of a table-valued function: the bound arguments and the
// sources of the same FROM clause they read (bit i: source i), which must come first in the
// join order.
type tableFuncCall struct {
	fn   *tableFunc
	args []expr
	deps uint64
}

// tableFuncSource makes the source of a FROM item that calls a table-valued function (its
// arguments are bound by bindTableFuncArgs once every source of the FROM clause is known).
func tableFuncSource(pc *planCtx, item *ast.FromItem, sc *scope) (*source, error) {
	f := tableFuncs[strings.ToLower(item.Table)]
	if f == nil {
		return nil, fmt.Errorf("no such table: %s", item.Table)
	}
	if len(item.FuncArgs) < f.minArg || len(item.FuncArgs) > f.maxArg {
		return nil, fmt.Errorf("too many arguments on %s() - max %d", f.name, f.maxArg)
	}
	call := &tableFuncCall{fn: f}
	name := f.name
	if item.Alias != "" {
		name = item.Alias
	}
	src := &source{name: name, fn: call, rowidSlot: -1}
	for _, c := range f.cols {
		src.cols = append(src.cols, srcColumn{name: c.name, affinity: value.AffinityBlob, noAffinity: true, notInStar: c.hidden})
	}
	return src, nil
}

// bindTableFuncArgs binds the arguments of the table-valued function of src in sc, whose
// sources are all known, and records the sources of sc they read. The arguments are those in
// parentheses, then those terms (of WHERE, and ON of an inner join) give as equalities on the
// following hidden columns, SQLite's other way to pass them (FROM json_each WHERE json = ?).
func bindTableFuncArgs(pc *planCtx, item *ast.FromItem, src *source, sc *scope, terms []exprAST) error {
	b := &binder{pc: pc, sc: sc} // an aggregate here is a "misuse of aggregate function", as in SQLite
	args := item.FuncArgs
	hidden := 0
	for _, c := range src.fn.fn.cols {
		if !c.hidden {
			continue
		}
		if hidden++; hidden <= len(args) {
			continue
		}
		x := hiddenColumnArg(terms, src.name, c.name, len(sc.sources) == 1)
		if x == nil {
			break
		}
		args = append(args[:len(args):len(args)], x)
	}
	for _, a := range args {
		saved := sc.refs
		sc.refs = 0
		x, _, err := b.bind(a)
		src.fn.deps |= sc.refs
		sc.refs = saved
		if err != nil {
			return err
		}
		src.fn.args = append(src.fn.args, x)
	}
	return nil
}

// hiddenColumnArg returns the other side of a term "name.col = x" (or "x = name.col"; an
// unqualified col when the function is the only source), or nil.
func hiddenColumnArg(terms []exprAST, name, col string, only bool) ast.Expr {
	is := func(e ast.Expr) bool {
		c, ok := e.(*ast.ColumnRef)
		return ok && strings.EqualFold(c.Column, col) &&
			(strings.EqualFold(c.Table, name) || c.Table == "" && only)
	}
	for _, t := range terms {
		bin, ok := t.(*ast.Binary)
		if !ok || bin.Op != ast.Eq {
			continue
		}
		switch {
		case is(bin.X) && !is(bin.Y):
			return bin.Y
		case is(bin.Y) && !is(bin.X):
			return bin.X
		}
	}
	return nil
}

// tableFuncScan is the access path of a table-valued function: it evaluates the arguments with
// the rows of the outer loops and iterates the rows the function makes.
type tableFuncScan struct {
	call *tableFuncCall
	name string
}

func (p *tableFuncScan) explain() string { return "SCAN " + p.name + " VIRTUAL TABLE" }

func (p *tableFuncScan) open(e *env, src int) (candidates, error) {
	args := make([]value.Value, len(p.call.args))
	for i, a := range p.call.args {
		v, err := a.eval(e)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	var rows [][]value.Value
	var err error
	if p.call.fn.rowsCx != nil {
		rows, err = p.call.fn.rowsCx(e.run.cx, args)
	} else {
		rows, err = p.call.fn.rows(args)
	}
	if err != nil {
		return nil, err
	}
	return &rowsIter{e: e, src: src, rows: rows}, nil
}

// estTableFuncRows is the planner's guess of a table-valued function's rows per call.
const estTableFuncRows = 25

// tableFuncAccess is chooseAccess for a table-valued function: with every source its arguments
// read in avail it scans; otherwise the order is impossible, which an infinite cost says.
func tableFuncAccess(src *source, avail uint64) (accessPath, estimate) {
	p := &tableFuncScan{call: src.fn, name: src.name}
	if src.fn.deps&^avail != 0 {
		return p, estimate{cost: 1e300, rows: 1e300}
	}
	return p, estimate{cost: estTableFuncRows, rows: estTableFuncRows}
}

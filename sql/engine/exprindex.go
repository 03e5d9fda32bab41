package engine

// Indexes on expressions and partial indexes (lang_createindex.html). An index column may be an
// expression of the table's columns; its key component is the expression's value on the row.
// A partial index (CREATE INDEX ... WHERE cond) holds entries only for the rows where cond is
// true. Invariants:
//   - An expression column has IndexColumn.Column == exprColumn and a bound evaluator over a
//     row of its table (the row layout of tableSource); the expressions and the condition are
//     deterministic and read no parameter and no subquery, so an entry depends on its row alone.
//   - The planner uses an expression column for a term whose side is the same expression
//     (canonical forms equal, columns resolved), and a partial index only when a term of the
//     query's WHERE is its condition (the same canonical form), so that every row the query can
//     select has an entry.

import (
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// exprColumn is IndexColumn.Column for an expression (-1 is the rowid in the planner's terms).
const exprColumn = -2

// indexExpr is the bound form of an index expression or a partial index's condition.
type indexExpr struct {
	ast   ast.Expr
	eval  expr
	canon string // canonical form over the table's row (exprCanon)
	aff   value.Affinity
	coll  value.Collation
}

// bindIndexExpr binds an index expression (what names it in errors: "index expressions" or
// "partial index WHERE clauses") over a row of t, refusing what SQLite refuses.
func bindIndexExpr(t *Table, e ast.Expr, what string) (*indexExpr, error) {
	var bad error
	walkAST(e, func(x exprAST) bool {
		switch x := x.(type) {
		case *ast.Subquery, *ast.Exists:
			bad = fmt.Errorf("subqueries prohibited in %s", what)
		case *ast.In:
			if x.Select != nil {
				bad = fmt.Errorf("subqueries prohibited in %s", what)
			}
		case *ast.Param:
			bad = fmt.Errorf("parameters prohibited in %s", what)
		case *ast.Call:
			if f := scalarFuncs[strings.ToLower(x.Name)]; f != nil && f.nondeterministic {
				bad = fmt.Errorf("non-deterministic functions prohibited in %s", what)
			}
		case *ast.ColumnRef:
			if x.Table != "" {
				bad = fmt.Errorf("the \".\" operator prohibited in %s", what)
			} else if t.columnIndex(x.Column) < 0 && !x.DoubleQuoted {
				bad = fmt.Errorf("no such column: %s", x.Column)
			}
		}
		return bad == nil
	})
	if bad != nil {
		return nil, bad
	}
	sc := &scope{sources: []*source{tableSource(t, t.Name)}}
	b := &binder{pc: &planCtx{schema: emptySchema()}, sc: sc}
	x, info, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	out := &indexExpr{ast: e, eval: x, canon: exprCanon(sc, e), aff: value.AffinityBlob, coll: value.Binary}
	if info.hasAff {
		out.aff = info.aff
	}
	if info.hasColl {
		out.coll = info.coll
	}
	return out, nil
}

// exprCanon renders e with its columns resolved in sc, which must hold one source (so that the
// same expression over the same table renders alike in an index and in a query).
func exprCanon(sc *scope, e ast.Expr) string {
	h := &havingMover{sc: sc}
	return h.canon(e)
}

// value evaluates the expression on a row of its table.
func (x *indexExpr) value(row []value.Value) (value.Value, error) {
	e := &env{rows: [][]value.Value{row}, run: &runState{}}
	return x.eval.eval(e)
}

// columnValue returns the value of the index's column i for a row of its table.
func (ix *Index) columnValue(i int, row []value.Value) (value.Value, error) {
	c := ix.Columns[i]
	if c.Column != exprColumn {
		return row[c.Column], nil
	}
	return c.expr.value(row)
}

// hasEntry reports whether the partial index ix has an entry for row (always for a full index).
func (ix *Index) hasEntry(row []value.Value) (bool, error) {
	if ix.where == nil {
		return true, nil
	}
	v, err := ix.where.value(row)
	if err != nil {
		return false, err
	}
	ok, known := value.Truth(v)
	return ok && known, nil
}

// exprIndexColumns resolves the columns of CREATE INDEX, expressions included.
func exprIndexColumns(t *Table, cols []ast.IndexedColumn) ([]IndexColumn, error) {
	var out []IndexColumn
	for _, ic := range cols {
		if ic.Expr == nil {
			c, err := t.indexColumns([]ast.IndexedColumn{ic})
			if err != nil {
				return nil, err
			}
			out = append(out, c...)
			continue
		}
		x, err := bindIndexExpr(t, ic.Expr, "index expressions")
		if err != nil {
			return nil, err
		}
		coll, err := indexCollation(ic, x.coll)
		if err != nil {
			return nil, err
		}
		out = append(out, IndexColumn{Column: exprColumn, Desc: ic.Desc, Collation: coll, expr: x})
	}
	return out, nil
}

// hasExprIndex reports whether an index of t has an expression column.
func (t *Table) hasExprIndex() bool {
	for _, ix := range t.Indexes {
		for _, c := range ix.Columns {
			if c.Column == exprColumn {
				return true
			}
		}
	}
	return false
}

// exprTerm returns, for a side x of a comparison placed on source i, the canonical form of x if
// it is an expression (not a bare column) over source i alone that an index of the source's
// table has as a column.
func exprTerm(sc *scope, i int, x exprAST) (string, bool) {
	src := sc.sources[i]
	if src.table == nil || !src.table.hasExprIndex() {
		return "", false
	}
	if _, col := x.(*ast.ColumnRef); col {
		return "", false
	}
	only := &scope{sources: []*source{src}}
	reads := false
	ok := walkAST(x, func(e exprAST) bool {
		switch e := e.(type) {
		case *ast.Subquery, *ast.Exists, *ast.Param:
			return false
		case *ast.In:
			return e.Select == nil
		case *ast.ColumnRef:
			r, err := sc.resolve(e.Table, e.Column)
			if err != nil || r.depth != 0 || r.src != i {
				return false
			}
			reads = true
		}
		return true
	})
	if !ok || !reads {
		return "", false
	}
	canon := exprCanon(only, x)
	for _, ix := range src.table.Indexes {
		for _, c := range ix.Columns {
			if c.Column == exprColumn && c.expr.canon == canon {
				return canon, true
			}
		}
	}
	return "", false
}

// exprColTerm returns the term "x op other" for an expression x that an index of source i's
// table has as a column (exprTerm).
func exprColTerm(pc *planCtx, sc *scope, i int, x exprAST, op ast.BinaryOp, other exprAST, flipped bool, avail uint64) (colTerm, bool) {
	canon, ok := exprTerm(sc, i, x)
	if !ok {
		return colTerm{}, false
	}
	ci, ok := exprInfoOf(pc, sc, x)
	if !ok {
		return colTerm{}, false
	}
	y, yi, refs, ok := bindAvail(pc, sc, other, avail)
	if !ok {
		return colTerm{}, false
	}
	coll := comparisonCollation(ci, yi)
	if flipped {
		coll = comparisonCollation(yi, ci)
	}
	return colTerm{col: exprColumn, canon: canon, op: op, x: y, refs: refs, aff: comparisonAffinity(ci, yi), coll: coll}, true
}

// exprInfoOf binds x in sc for its affinity and collation.
func exprInfoOf(pc *planCtx, sc *scope, x exprAST) (exprInfo, bool) {
	b := &binder{pc: pc, sc: sc, noAgg: "WHERE"}
	saved := sc.refs
	_, info, err := b.bind(x)
	sc.refs = saved
	return info, err == nil
}

// impliedPartialIndexes returns the partial indexes of source i's table whose condition the
// terms imply: each AND term of the condition is a term of the loop (the same canonical form),
// or is "X IS NOT NULL" (NOTNULL) where a term compares X with =, <, <=, > or >=, which NULL
// never satisfies.
func impliedPartialIndexes(sc *scope, i int, terms []boundTerm) map[*Index]bool {
	src := sc.sources[i]
	if src.table == nil {
		return nil
	}
	var out map[*Index]bool
	var have, compared map[string]bool
	for _, ix := range src.table.Indexes {
		if ix.where == nil {
			continue
		}
		if have == nil {
			only := &scope{sources: []*source{src}}
			have, compared = map[string]bool{}, map[string]bool{}
			for _, t := range terms {
				have[exprCanon(only, t.ast)] = true
				if b, ok := t.ast.(*ast.Binary); ok {
					switch b.Op {
					case ast.Eq, ast.Lt, ast.Le, ast.Gt, ast.Ge:
						compared[exprCanon(only, b.X)] = true
						compared[exprCanon(only, b.Y)] = true
					}
				}
			}
		}
		whole := &scope{sources: []*source{tableSource(src.table, src.table.Name)}}
		implied := true
		for _, c := range conjuncts(ix.where.ast, nil) {
			if have[exprCanon(whole, c)] {
				continue
			}
			if x, ok := notNullOperand(c); ok && compared[exprCanon(whole, x)] {
				continue
			}
			implied = false
			break
		}
		if implied {
			if out == nil {
				out = map[*Index]bool{}
			}
			out[ix] = true
		}
	}
	return out
}

// notNullOperand returns X of "X IS NOT NULL", "X NOTNULL" or "X NOT NULL".
func notNullOperand(e exprAST) (exprAST, bool) {
	switch e := e.(type) {
	case *ast.IsNull:
		return e.X, e.Not
	case *ast.Binary:
		if lit, ok := e.Y.(*ast.Literal); ok && e.Op == ast.IsNot && lit.Value.IsNull() {
			return e.X, true
		}
	}
	return nil, false
}

// isIntegerLiteral reports whether e is an integer literal (an ORDER BY result column number).
func isIntegerLiteral(e exprAST) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Value.Kind() == value.Integer
}

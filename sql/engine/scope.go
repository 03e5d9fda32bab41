package engine

// Name resolution: the sources of a query (its FROM items) and how a column name finds its
// source, with SQLite's rules: an unqualified name must name one column of the query's sources
// (columns merged by USING or NATURAL count once), else one of an enclosing query's; "rowid",
// "oid" and "_rowid_" name a rowid table's rowid unless a column has that name; a name that
// matches no column may be an alias of the select list (SQLite allows that in WHERE, GROUP BY,
// HAVING and ORDER BY); an unknown double-quoted name is a string literal.

import (
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/value"
)

// srcColumn is a column of a source as names see it.
type srcColumn struct {
	name     string
	affinity value.Affinity
	// noAffinity is set for a column of a subquery or view whose expression has no affinity
	// (SQLITE_AFF_NONE): unlike a table column declared without a type (BLOB affinity), it
	// takes the other operand's affinity in a comparison.
	noAffinity bool
	collation  value.Collation
	// noCollation is set for the rowid and its alias, the INTEGER PRIMARY KEY: SQLite's
	// expressions read them as the rowid, which has no collation (not even BINARY: the other
	// operand's, or a later core's in a compound, counts), whatever the column is declared with.
	noCollation bool
	declType    string
	// hidden columns are found by qualified names only: the right-hand copy of a column
	// merged by USING or NATURAL.
	hidden bool
	// notInStar columns are found by name but left out of * (a table-valued function's hidden
	// columns, tvf.go).
	notInStar bool
	// coalesce names the sources whose copies of the column (this one's first) a RIGHT or
	// FULL join's USING or NATURAL merged: the unqualified name and * read coalesce() of them.
	coalesce []string
}

// source is one FROM item of a query.
type source struct {
	name  string // the alias, or the table's name
	table *Table // nil for a subquery or view
	cols  []srcColumn
	// rowidSlot is the index in the row of the rowid (len(cols)), or -1 for sources without one.
	rowidSlot int
	sub       *selectPlan // a subquery or view, materialized when the query runs
	// virt makes the rows of a virtual table (sqlite_schema: master.go) when its loop opens.
	virt func(cx *execCtx) [][]value.Value
	// fn is the call of a table-valued function (tvf.go), nil for other sources.
	fn *tableFuncCall
	// left is set for the right side of a LEFT or FULL JOIN, right for that of a RIGHT or
	// FULL JOIN.
	left, right bool
	// notIndexed is set by NOT INDEXED: no index serves the source, not even for ORDER BY.
	notIndexed bool
	// used has bit c set once an expression read column c (the rowid slot too): an index that
	// holds every used column covers the source (cover.go). Bit 63 stands for every column
	// from 63 on.
	used uint64
	// termCols is used for the WHERE or ON term being bound: the planner clears it before each
	// (join.go), so that a scan can decode a term's columns before the others (access.go).
	termCols uint64
	// partialOK holds the partial indexes of the table that the terms of the source's loop
	// imply (exprindex.go), which its access path may use.
	partialOK map[*Index]bool
}

// markUsed records that an expression read column c.
func (s *source) markUsed(c int) {
	s.used |= 1 << uint(min(c, 63))
	s.termCols |= 1 << uint(min(c, 63))
}

// rowLen is the length of the row slice of the source: its columns and, for a rowid table, the
// rowid.
func (s *source) rowLen() int {
	if s.rowidSlot >= 0 {
		return s.rowidSlot + 1
	}
	return len(s.cols)
}

// scope is the name space of one query.
type scope struct {
	sources []*source
	outer   *scope
	// usedOuter is set when an expression of this query (or of a query inside it) read a column
	// of an enclosing query: the query is correlated.
	usedOuter bool
	// aliases are the select list's aliases and expressions, for names no column matches.
	aliases []aliasDef
	// inAliasBinding is set while an alias's expression is bound (an alias cannot name itself).
	inAliasBinding bool
	// refs has bit i set once an expression bound since the last reset read source i of this
	// query (the planner uses it to place WHERE terms).
	refs uint64
	// aggs collects the query's aggregate calls while the parts of it that may hold one are
	// bound (the select list, HAVING, the ORDER BY of an aggregate query); nil elsewhere. An
	// aggregate call of a subquery that reads only this query's columns goes there.
	aggs *aggCollector
	// readInside counts the references to this query's columns from queries inside it.
	readInside int
	// existsSelect is set for the cores of an EXISTS subquery; unevaluated for the queries inside
	// the select list of one, which SQLite never evaluates.
	existsSelect, unevaluated bool
	// aggQuery is set for an aggregate query (GROUP BY, or an aggregate in the select list).
	aggQuery bool
	// updateTarget is set when source 0 is an UPDATE ... FROM's target; hideTarget while the
	// ON terms of its FROM are bound, which do not see it (SQLite's rule).
	updateTarget, hideTarget bool
}

type aliasDef struct {
	name string
	expr exprAST
}

// colRefResult is what a column name resolved to.
type colRefResult struct {
	depth, src, col int
	c               srcColumn
}

// errNoColumn is returned by resolve when no source has the name.
type errNoColumn struct{ name string }

func (e *errNoColumn) Error() string { return "no such column: " + e.name }

// resolve finds the column table.column (table may be empty) from sc outward.
func (sc *scope) resolve(table, column string) (colRefResult, error) {
	depth := 0
	for s := sc; s != nil; s, depth = s.outer, depth+1 {
		r, found, err := s.resolveHere(table, column)
		if err != nil {
			return r, err
		}
		if found {
			r.depth = depth
			s.sources[r.src].markUsed(r.col)
			if r.src < 64 {
				s.refs |= 1 << uint(r.src)
			}
			if depth > 0 {
				s.readInside++
			}
			for o, d := sc, 0; d < depth; o, d = o.outer, d+1 {
				o.usedOuter = true
			}
			return r, nil
		}
	}
	name := column
	if table != "" {
		name = table + "." + column
	}
	return colRefResult{}, &errNoColumn{name: name}
}

func (sc *scope) resolveHere(table, column string) (colRefResult, bool, error) {
	var out colRefResult
	found := 0
	for si, src := range sc.sources {
		if table != "" && !strings.EqualFold(src.name, table) || si == 0 && sc.hideTarget {
			continue
		}
		for ci, c := range src.cols {
			if c.hidden && table == "" {
				continue
			}
			if strings.EqualFold(c.name, column) {
				if found == 0 {
					out = colRefResult{src: si, col: ci, c: c}
				}
				found++
			}
		}
	}
	if found > 1 {
		name := column
		if table != "" {
			name = table + "." + column
		}
		return out, false, fmt.Errorf("ambiguous column name: %s", name)
	}
	if found == 1 {
		return out, true, nil
	}
	if isRowidName(column) {
		for si, src := range sc.sources {
			if (table == "" || strings.EqualFold(src.name, table)) && src.rowidSlot >= 0 && !(si == 0 && sc.hideTarget) {
				if sc.rowidSources(table) > 1 {
					if table != "" {
						column = table + "." + column
					}
					return out, false, fmt.Errorf("ambiguous column name: %s", column)
				}
				return colRefResult{src: si, col: src.rowidSlot,
					c: srcColumn{name: column, affinity: value.AffinityInteger, noCollation: true}}, true, nil
			}
		}
	}
	if table != "" {
		for si, src := range sc.sources {
			if strings.EqualFold(src.name, table) && !(si == 0 && sc.hideTarget) {
				return out, false, nil
			}
		}
	}
	return out, false, nil
}

// rowidSources returns how many of sc's own sources have a rowid and are called name (any name
// when it is ""): a rowid reference that more than one could answer is ambiguous (FROM t, u; or
// FROM t, t, which SQLite allows as long as no reference is ambiguous).
func (sc *scope) rowidSources(name string) int {
	n := 0
	for _, src := range sc.sources {
		if src.rowidSlot >= 0 && (name == "" || strings.EqualFold(src.name, name)) {
			n++
		}
	}
	return n
}

// depthOf returns how many queries out from sc the column table.column is found (0: sc's own),
// without recording the reference; false if no query has it.
func (sc *scope) depthOf(table, column string) (int, bool) {
	d := 0
	for s := sc; s != nil; s, d = s.outer, d+1 {
		_, found, err := s.resolveHere(table, column)
		if err != nil {
			return 0, false
		}
		if found {
			return d, true
		}
	}
	return 0, false
}

// columnInfo returns the column table.column as a name finds it from sc (the rowid as an
// INTEGER column), without recording the reference; false if there is none.
func (sc *scope) columnInfo(table, column string) (srcColumn, bool) {
	for s := sc; s != nil; s = s.outer {
		r, found, err := s.resolveHere(table, column)
		if err != nil {
			return srcColumn{}, false
		}
		if found {
			return r.c, true
		}
	}
	return srcColumn{}, false
}

func isRowidName(n string) bool {
	return strings.EqualFold(n, "rowid") || strings.EqualFold(n, "oid") || strings.EqualFold(n, "_rowid_")
}

// hasTable reports whether some source of sc (not the outer ones) is called name.
func (sc *scope) hasTable(name string) bool {
	for _, s := range sc.sources {
		if strings.EqualFold(s.name, name) {
			return true
		}
	}
	return false
}

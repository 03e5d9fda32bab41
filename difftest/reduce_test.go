package difftest

// Reducing a mismatch: the statements of a failing case are shrunk while the case still fails the
// same way, so that its report is short enough to read. The setup loses statements one at a time;
// the failing statement loses clauses (WHERE, ORDER BY, LIMIT, DISTINCT, HAVING), result columns,
// and has parenthesized groups replaced by literals. A candidate is kept when, on fresh databases,
// every setup statement gives the same outcome on both engines, and the failing statement fails
// the same way: SQLite succeeds (or fails) as before, and cairn still differs.

import (
	"fmt"
	"regexp"
	"strings"
)

// failCase is a mismatch to reduce.
type failCase struct {
	setup []string
	stmt  string
	q     query  // for a query
	c     change // for a data change (c.table set)
}

// reduceBudget bounds the candidates tried for one case.
const reduceBudget = 3000

// reduce returns a smaller case that fails the same way (or c itself).
func reduce(c failCase) failCase {
	sqliteOK, ok := c.fails()
	if !ok {
		return c
	}
	tries := 0
	try := func(cand failCase) bool {
		if tries >= reduceBudget {
			return false
		}
		tries++
		okNow, fails := cand.fails()
		return fails && okNow == sqliteOK
	}
	for progress := true; progress && tries < reduceBudget; {
		progress = false
		// Setup statements, the last first (later ones depend on earlier ones).
		for i := len(c.setup) - 1; i >= 0; i-- {
			cand := c
			cand.setup = append(append([]string(nil), c.setup[:i]...), c.setup[i+1:]...)
			if try(cand) {
				c, progress = cand, true
			}
		}
		// The statement: after a success, the candidate at the same place of the new list next.
		for i := 0; tries < reduceBudget; {
			cands := shrinkings(c.stmt)
			if i >= len(cands) {
				break
			}
			if cands[i] == c.stmt {
				i++
				continue
			}
			cand := c
			cand.stmt = cands[i]
			if c.c.table == nil {
				cand.q = unorderedLike(c.q, cands[i])
			}
			if try(cand) {
				c, progress = cand, true
			} else {
				i++
			}
		}
	}
	return c
}

// unorderedLike is the query spec of a shrunk query: its result columns compared as q's were (the
// literals that replace parts are never fuzzy), as a multiset, unless its ORDER BY is untouched.
func unorderedLike(q query, sql string) query {
	out := query{sql: sql, cols: q.cols}
	if q.ordered && strings.HasSuffix(sql, q.sql[strings.LastIndex(q.sql, " ORDER BY "):]) {
		out.ordered, out.keys, out.limited = true, q.keys, q.limited
	}
	return out
}

// fails runs the case on fresh databases: whether SQLite ran the statement without error, and
// whether the engines differ there (and nowhere before).
func (c failCase) fails() (sqliteOK, differs bool) {
	r := &round{cairn: openDB(nil, "cairn"), sqlite: openDB(nil, "sqlite")}
	defer func() {
		r.cairn.Close()
		r.sqlite.Close()
	}()
	ctx, cancel := statementContext()
	defer cancel()
	for _, s := range c.setup {
		got, want := runExec(ctx, r.cairn, s), runExec(ctx, r.sqlite, s)
		if compareChange(change{}, got, want) != "" {
			return false, false
		}
	}
	if c.c.table != nil {
		cc := c.c
		cc.sql = c.stmt
		got, want := runExec(ctx, r.cairn, c.stmt), runExec(ctx, r.sqlite, c.stmt)
		if compareChange(cc, got, want) != "" {
			return want.err == nil, true
		}
		if want.err != nil {
			return false, false
		}
		q := query{sql: c.c.table.contents()}
		got, want = runQuery(ctx, r.cairn, q.sql), runQuery(ctx, r.sqlite, q.sql)
		return true, compareQuery(q, got, want) != ""
	}
	got, want := runQuery(ctx, r.cairn, c.stmt), runQuery(ctx, r.sqlite, c.stmt)
	return want.err == nil, compareQuery(c.q, got, want) != ""
}

// shrinkings returns smaller variants of a statement: without a clause, with a parenthesized
// group replaced by a literal, without a result column.
func shrinkings(s string) []string {
	var out []string
	// Clauses, from a top-level keyword to the next one.
	for _, kw := range []string{" WHERE ", " ORDER BY ", " LIMIT ", " OFFSET ", " HAVING ", " GROUP BY "} {
		for _, i := range topLevel(s, kw) {
			end := nextTopLevelClause(s, i+len(kw))
			out = append(out, s[:i]+s[end:])
		}
	}
	for _, i := range topLevel(s, " UNION ALL ") {
		out = append(out, s[:i])
	}
	for _, kw := range []string{" UNION ", " INTERSECT ", " EXCEPT "} {
		for _, i := range topLevel(s, kw) {
			out = append(out, s[:i])
		}
	}
	if strings.Contains(s, "SELECT DISTINCT ") {
		out = append(out, strings.Replace(s, "SELECT DISTINCT ", "SELECT ", 1))
	}
	// Parenthesized groups, the largest first, by NULL, then by other literals.
	groups := parenGroups(s)
	for _, lit := range []string{"NULL", "1", "0", "'a'"} {
		for _, g := range groups {
			out = append(out, s[:g[0]]+lit+s[g[1]:])
		}
	}
	// Column references and function calls by NULL.
	for _, m := range columnRef.FindAllStringIndex(s, -1) {
		out = append(out, s[:m[0]]+"NULL"+s[m[1]:])
	}
	for _, g := range groups {
		if m := funcName.FindStringIndex(s[:g[0]]); m != nil {
			out = append(out, s[:m[0]]+"NULL"+s[g[1]:])
		}
	}
	// Parenthesized groups by their inside (dropping an operator's other operand).
	for _, g := range groups {
		inner := s[g[0]+1 : g[1]-1]
		for _, part := range splitTopLevelOperands(inner) {
			out = append(out, s[:g[0]]+"("+part+")"+s[g[1]:])
		}
	}
	return out
}

var (
	columnRef = regexp.MustCompile(`\bx\d+\.\w+\b`)
	funcName  = regexp.MustCompile(`\b[a-z_]+$`)
)

// scanSQL calls f for each byte of s outside string literals with the parenthesis depth there.
func scanSQL(s string, f func(i, depth int)) {
	depth := 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\'' {
				inStr = false
			}
			continue
		case c == '\'':
			inStr = true
			continue
		case c == '(':
			f(i, depth)
			depth++
			continue
		case c == ')':
			depth--
		}
		f(i, depth)
	}
}

// topLevel returns the positions of kw in s outside parentheses and literals.
func topLevel(s, kw string) []int {
	var out []int
	scanSQL(s, func(i, depth int) {
		if depth == 0 && strings.HasPrefix(s[i:], kw) {
			out = append(out, i)
		}
	})
	return out
}

// nextTopLevelClause returns where the clause starting at from ends: at the next top-level
// clause keyword or compound operator, or at the end.
func nextTopLevelClause(s string, from int) int {
	end := len(s)
	scanSQL(s, func(i, depth int) {
		if i < from || depth != 0 || i >= end {
			return
		}
		for _, kw := range []string{" WHERE ", " GROUP BY ", " HAVING ", " ORDER BY ", " LIMIT ", " OFFSET ",
			" UNION ", " INTERSECT ", " EXCEPT "} {
			if strings.HasPrefix(s[i:], kw) {
				end = i
			}
		}
	})
	return end
}

// parenGroups returns the [start, end) of each parenthesized group of s, the longest first.
func parenGroups(s string) [][2]int {
	var open []int
	var out [][2]int
	scanSQL(s, func(i, depth int) {
		switch s[i] {
		case '(':
			open = append(open, i)
		case ')':
			if len(open) > 0 {
				start := open[len(open)-1]
				open = open[:len(open)-1]
				out = append(out, [2]int{start, i + 1})
			}
		}
	})
	// Longest first.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j][1]-out[j][0] > out[j-1][1]-out[j-1][0]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// splitTopLevelOperands splits an expression at its top-level binary operators (AND, OR,
// comparisons, arithmetic), returning each operand, when there is more than one.
func splitTopLevelOperands(s string) []string {
	ops := []string{" AND ", " OR ", " = ", " <> ", " < ", " > ", " <= ", " >= ", " IS ", " + ", " - ", " * ",
		" / ", " % ", " || ", " LIKE ", " GLOB ", ", "}
	var cuts []int
	var lens []int
	scanSQL(s, func(i, depth int) {
		if depth != 0 {
			return
		}
		for _, op := range ops {
			if strings.HasPrefix(s[i:], op) {
				cuts = append(cuts, i)
				lens = append(lens, len(op))
				return
			}
		}
	})
	if len(cuts) == 0 || strings.HasPrefix(s, "SELECT ") {
		return nil
	}
	var out []string
	prev := 0
	for k, c := range cuts {
		out = append(out, s[prev:c])
		prev = c + lens[k]
	}
	return append(out, s[prev:])
}

// report renders a reduced case.
func (c failCase) report() string {
	return fmt.Sprintf("reduced:\n  %s;\n  %s;", strings.Join(c.setup, ";\n  "), c.stmt)
}

package difftest

// The generator of the differential test (diff_test.go): a small grammar of SQLite's dialect,
// one function per construct. It makes a schema (tables, indexes), rows, queries and data changes
// from a random source alone, never from what a database answered, so that a seed and a round
// number give the same statements again.
//
// Determinism. Two correct engines may legitimately differ where SQLite leaves a choice open: the
// row a GROUP BY, DISTINCT or compound operator keeps for a set of equal values (1 or 1.0, 'a' or
// 'A' under NOCASE), the value min() and max() keep among equal ones, the order of rows an ORDER BY
// leaves tied, the rows a LIMIT cuts from a tie. The generator keeps track of that (ex.fuzzy,
// ex.singleton): a value that may be any member of a set of equal values is "fuzzy", is only ever
// a result column (compared as equal-under-every-collation, see compare_test.go), and never an
// operand of another expression, where the choice would show. It never generates a scalar subquery
// that may return more than one row, a LIMIT without an ORDER BY, random(), or a text conversion of
// a computed REAL (whose 17th digit SQLite's and cairn's renderings may differ in: sql/value/real.go).

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
)

// gen is the generator's state: its random source and the schema it made.
type gen struct {
	r      *rand.Rand
	tables []*table
	alias  int // the next alias number (x0, x1, ...)
	nest   int // how many subqueries the generator is inside
	// avoid is a table FROM items do not read: the target of an UPDATE, whose SET expressions
	// SQLite 3.54 evaluates with its rows half changed when it reads it through an index
	// (x IN (SELECT c FROM t) "USING INDEX ... FOR IN-OPERATOR"), and on a snapshot otherwise.
	avoid *table
	// inCompound is set while the cores of a compound are generated: SQLite may merge sorted
	// cores, and stop reading one (and computing its rows) once the other is done.
	inCompound bool
}

// maxNest bounds the nesting of subqueries: deeper, cairn's nested loops make some queries run
// for minutes (a correlated subquery runs for each row of each enclosing loop).
const maxNest = 3

func newGen(r *rand.Rand) *gen { return &gen{r: r} }

func (g *gen) n(k int) int      { return g.r.IntN(k) }
func (g *gen) oneIn(k int) bool { return g.r.IntN(k) == 0 }

func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// alt is one alternative of a choice, with its weight.
type alt struct {
	w int
	f func() ex
}

// choose calls one of alts, picked with probability proportional to its weight.
func (g *gen) choose(alts ...alt) ex {
	total := 0
	for _, a := range alts {
		total += a.w
	}
	k := g.n(total)
	for _, a := range alts {
		if k < a.w {
			return a.f()
		}
		k -= a.w
	}
	panic("unreachable")
}

// lazy reports whether the generator is inside a subquery, which SQLite may never evaluate (an
// unused column of a subquery in FROM, an IN list whose left operand is NULL where NULL and false
// lead to the same place): an error there (integer overflow) may then happen in cairn only, so
// no sum() or abs() is generated there.
func (g *gen) lazy() bool { return g.nest > 0 }

func (g *gen) newAlias() string {
	g.alias++
	return fmt.Sprintf("x%d", g.alias-1)
}

// ---- Schema ----

// affinity is a column's type affinity (datatype3.html §3).
type affinity uint8

const (
	affBlob affinity = iota // "none"
	affText
	affNumeric
	affInteger
	affReal
)

// declTypes are the declared types a column may have, of every affinity family (no DATE or
// TIMESTAMP: modernc.org/sqlite would return time.Time for those).
var declTypes = []struct {
	decl string
	aff  affinity
}{
	{"INTEGER", affInteger}, {"INT", affInteger}, {"BIGINT", affInteger},
	{"TEXT", affText}, {"VARCHAR(8)", affText}, {"CLOB", affText},
	{"REAL", affReal}, {"DOUBLE", affReal}, {"FLOAT", affReal},
	{"NUMERIC", affNumeric}, {"DECIMAL(10,2)", affNumeric}, {"BOOLEAN", affNumeric},
	{"BLOB", affBlob}, {"", affBlob},
}

// column is a column of a generated table.
type column struct {
	name    string
	decl    string
	aff     affinity
	coll    string // "", "BINARY", "NOCASE" or "RTRIM"
	notNull bool
	def     string // a DEFAULT literal, or ""
	unique  bool
}

// singleton reports whether two different values of the column are never equal: a column with
// an affinity and the BINARY collation (a column without affinity may hold both 1 and 1.0).
func (c column) singleton() bool { return c.aff != affBlob && binaryColl(c.coll) }

func binaryColl(c string) bool { return c == "" || c == "BINARY" }

// index is a CREATE INDEX of a generated table.
type index struct {
	name   string
	unique bool
	cols   []indexCol
}

type indexCol struct {
	col  int
	coll string
	desc bool
}

// table is a generated table.
type table struct {
	name         string
	cols         []column
	ipk          int   // the INTEGER PRIMARY KEY column (the rowid), or -1
	pk           []int // the PRIMARY KEY columns, when it is not an INTEGER PRIMARY KEY
	pkDesc       bool
	withoutRowid bool
	uniques      [][]int // table UNIQUE constraints
	check        string  // a CHECK constraint's expression, or ""
	indexes      []index
}

func (t *table) hasRowid() bool { return !t.withoutRowid }

// srcCols are t's columns as expressions see them: the INTEGER PRIMARY KEY (the rowid) compares
// with BINARY whatever collation it is declared with.
func (t *table) srcCols() []srcCol {
	var out []srcCol
	for i, c := range t.cols {
		if i == t.ipk {
			c.coll = ""
		}
		out = append(out, srcCol{name: c.name, coll: c.coll, singleton: c.singleton()})
	}
	return out
}

// columnNames are the names columns take: shared between tables, so that USING and NATURAL joins
// find common columns.
var columnNames = []string{"a", "b", "c", "d", "e", "f"}

// schema makes 2 to 4 tables and their indexes and returns the statements that create them.
func (g *gen) schema() []string {
	var out []string
	n := 2 + g.n(3)
	for i := 0; i < n; i++ {
		t := g.table(i)
		g.tables = append(g.tables, t)
		out = append(out, t.createSQL())
		for j := g.n(3); j > 0; j-- {
			ix := g.index(t, len(t.indexes))
			t.indexes = append(t.indexes, ix)
			out = append(out, ix.createSQL(t))
		}
	}
	return out
}

// table makes the definition of table number i.
func (g *gen) table(i int) *table {
	t := &table{name: fmt.Sprintf("t%d", i), ipk: -1}
	names := append([]string(nil), columnNames...)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for _, name := range names[:2+g.n(4)] {
		t.cols = append(t.cols, g.columnDef(name))
	}
	switch g.n(6) {
	case 0, 1: // INTEGER PRIMARY KEY: the rowid (or, declared DESC, an ordinary key)
		c := g.n(len(t.cols))
		t.cols[c].decl, t.cols[c].aff = "INTEGER", affInteger
		if g.oneIn(8) {
			t.pk, t.pkDesc = []int{c}, true
		} else {
			t.ipk = c
		}
	case 2:
		t.pk = []int{g.n(len(t.cols))}
		t.pkDesc = g.oneIn(4)
	case 3:
		p := g.r.Perm(len(t.cols))
		t.pk = p[:2]
	}
	if len(t.pk) > 0 && g.oneIn(2) {
		t.withoutRowid = true
	}
	if g.oneIn(3) {
		p := g.r.Perm(len(t.cols))
		t.uniques = append(t.uniques, p[:1+g.n(2)])
	}
	if g.oneIn(5) {
		c := t.cols[g.n(len(t.cols))].name
		t.check = pick(g, c+" IS NULL OR "+c+" <> 'x'", "length("+c+") < 6", "typeof("+c+") <> 'blob'",
			c+" >= -1000000")
	}
	return t
}

// columnDef makes a column: a declared type of some family, sometimes a collation, NOT NULL, a
// DEFAULT, UNIQUE.
func (g *gen) columnDef(name string) column {
	dt := pick(g, declTypes...)
	c := column{name: name, decl: dt.decl, aff: dt.aff}
	switch g.n(8) {
	case 0, 1:
		c.coll = "NOCASE"
	case 2:
		c.coll = "RTRIM"
	case 3:
		c.coll = "BINARY"
	}
	if g.oneIn(5) {
		c.notNull = true
	}
	if g.oneIn(4) {
		c.def = g.literal()
	}
	if g.oneIn(7) {
		c.unique = true
	}
	return c
}

func (t *table) createSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s(", t.name)
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.name)
		if c.decl != "" {
			b.WriteString(" " + c.decl)
		}
		if i == t.ipk {
			b.WriteString(" PRIMARY KEY")
		}
		if len(t.pk) == 1 && t.pk[0] == i {
			b.WriteString(" PRIMARY KEY")
			if t.pkDesc {
				b.WriteString(" DESC")
			}
		}
		if c.coll != "" {
			b.WriteString(" COLLATE " + c.coll)
		}
		if c.notNull {
			b.WriteString(" NOT NULL")
		}
		if c.def != "" {
			b.WriteString(" DEFAULT " + parenthesize(c.def))
		}
		if c.unique {
			b.WriteString(" UNIQUE")
		}
	}
	if len(t.pk) > 1 {
		fmt.Fprintf(&b, ", PRIMARY KEY(%s)", t.colList(t.pk))
	}
	for _, u := range t.uniques {
		fmt.Fprintf(&b, ", UNIQUE(%s)", t.colList(u))
	}
	if t.check != "" {
		fmt.Fprintf(&b, ", CHECK (%s)", t.check)
	}
	b.WriteString(")")
	if t.withoutRowid {
		b.WriteString(" WITHOUT ROWID")
	}
	return b.String()
}

// parenthesize wraps a negative literal, which a DEFAULT must have in parentheses.
func parenthesize(lit string) string {
	if strings.HasPrefix(lit, "-") {
		return "(" + lit + ")"
	}
	return lit
}

func (t *table) colList(cols []int) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = t.cols[c].name
	}
	return strings.Join(names, ", ")
}

// index makes index number i of t: one to three columns, each with a collation and direction
// sometimes; UNIQUE sometimes.
func (g *gen) index(t *table, i int) index {
	ix := index{name: fmt.Sprintf("%s_i%d", t.name, i), unique: g.oneIn(3)}
	p := g.r.Perm(len(t.cols))
	for _, c := range p[:1+g.n(min(3, len(p)))] {
		ic := indexCol{col: c, desc: g.oneIn(4)}
		if g.oneIn(4) {
			ic.coll = pick(g, "NOCASE", "RTRIM", "BINARY")
		}
		ix.cols = append(ix.cols, ic)
	}
	return ix
}

func (ix index) createSQL(t *table) string {
	var cols []string
	for _, c := range ix.cols {
		s := t.cols[c.col].name
		if c.coll != "" {
			s += " COLLATE " + c.coll
		}
		if c.desc {
			s += " DESC"
		}
		cols = append(cols, s)
	}
	u := ""
	if ix.unique {
		u = "UNIQUE "
	}
	return fmt.Sprintf("CREATE %sINDEX %s ON %s(%s)", u, ix.name, t.name, strings.Join(cols, ", "))
}

// ---- Values ----

var (
	intLiterals = []string{"0", "1", "-1", "2", "3", "5", "10", "-7", "42", "100", "255", "-256", "65536",
		"2147483647", "-2147483648", "4294967296", "9007199254740993", "1000000000000",
		"9223372036854775807", "-9223372036854775808", "9223372036854775806", "-9223372036854775807"}
	realLiterals = []string{"0.0", "-0.0", "0.5", "-0.5", "1.0", "1.5", "-1.5", "2.5", "3.0", "-3.0", "10.0",
		"0.1", "0.25", "123.456", "1e3", "-1e3", "1.0e100", "-1.0e100", "1e-5", "3.5e-7",
		"9.2233720368547758e18", "-9.2233720368547758e18", "1.8446744073709552e19", "1.7976931348623157e308",
		"2.0e20", "4503599627370497.0"}
	textLiterals = []string{"''", "'a'", "'A'", "'b'", "'B'", "'abc'", "'ABC'", "'aBc'", "'abc '", "'abc  '",
		"'a '", "' a'", "'b%'", "'a_c'", "'%'", "'_'", "'1'", "'01'", "'1.0'", "'1.5'", "' 2'", "'2 '", "'-3'",
		"'+4'", "'1e3'", "'1e400'", "'.5'", "'5.'", "'12abc'", "'0x10'", "'9223372036854775807'",
		"'9223372036854775808'", "'-9223372036854775809'", "'NULL'", "'é'", "'É'", "'x''y'", "'1.0e100'", "'inf'"}
	blobLiterals = []string{"X''", "X'00'", "X'41'", "X'61'", "X'616263'", "X'414243'", "X'31'", "X'3130'",
		"X'2D33'", "X'FF'"}
)

// literal returns a literal of any class: NULL, an integer (near the limits sometimes), a real, a
// text (that looks like a number sometimes, or differs from another only in case or trailing
// spaces), a blob.
func (g *gen) literal() string {
	switch g.n(20) {
	case 0, 1:
		return "NULL"
	case 2, 3, 4, 5, 6:
		if g.oneIn(3) {
			return fmt.Sprint(g.n(21) - 10)
		}
		return pick(g, intLiterals...)
	case 7, 8, 9, 10:
		return pick(g, realLiterals...)
	case 11, 12, 13, 14, 15, 16, 17:
		return pick(g, textLiterals...)
	}
	return pick(g, blobLiterals...)
}

// rowidLiteral returns a value for an INTEGER PRIMARY KEY: NULL (the next rowid), a small integer,
// or a value that converts to one (or does not: a datatype mismatch). The largest rowid is left
// out: SQLite then picks random rowids, which cairn does not (it refuses the insert).
func (g *gen) rowidLiteral() string {
	switch g.n(10) {
	case 0, 1:
		return "NULL"
	case 2:
		return pick(g, "'7'", "3.0", "' 4 '", "'abc'", "2.5", "-9223372036854775808", "X'31'")
	}
	return fmt.Sprint(g.n(30) - 5)
}

// ---- Scopes and expressions ----

// srcCol is a column of a FROM item as expressions see it.
type srcCol struct {
	name      string
	coll      string
	singleton bool
	fuzzy     bool // a column of a subquery whose value is one of a set of equal values
	// collUnknown: the collation of a subquery's column is not known to the generator.
	collUnknown bool
	// computed: a subquery's column may hold a REAL computed by arithmetic.
	computed bool
}

// source is a FROM item: a table or a subquery, under an alias.
type source struct {
	alias string
	cols  []srcCol
	rowid bool
}

// scope is the name space of one query: its FROM items, and the enclosing query's scope.
type scope struct {
	sources []*source
	outer   *scope
}

// ex is a generated expression and what the generator knows of it.
type ex struct {
	sql string
	// coll is the collation SQLite gives the expression (a column's, or an explicit COLLATE's),
	// when collKnown; explicit is set when an explicit COLLATE is inside it.
	coll      string
	collKnown bool
	explicit  bool
	// singleton: two different values the expression may take are never equal under its
	// collation (integers only, texts under BINARY, a column with affinity and BINARY).
	singleton bool
	// fuzzy: the value is one of a set of equal values, which one is up to the engine.
	fuzzy bool
	// computed: the value may be a REAL computed by arithmetic (converting it to text may differ).
	computed bool
	// agg: the expression holds an aggregate call.
	agg bool
	// mayFail: the expression may fail on some rows (abs() of the smallest integer).
	mayFail bool
	// kind is what the expression's values are known to be.
	kind kind
	// nullTest: the expression is x IS [NOT] NULL (which SQLite may fold to 0 or 1, taken in a
	// GROUP BY for a column number).
	nullTest bool
}

type kind uint8

const (
	kindAny  kind = iota
	kindInt       // INTEGER or NULL
	kindText      // TEXT or NULL
)

// derived is the information of an expression computed from parts (by an operator or a function
// other than those that pass a collation on): BINARY unless a part has an explicit collation.
func derived(sql string, k kind, parts ...ex) ex {
	e := ex{sql: sql, kind: k, collKnown: true}
	for _, p := range parts {
		e.explicit = e.explicit || p.explicit
		e.computed = e.computed || p.computed
		e.agg = e.agg || p.agg
		e.mayFail = e.mayFail || p.mayFail
	}
	if e.explicit {
		e.collKnown = false
	}
	e.singleton = k == kindInt || k == kindText && e.collKnown
	return e
}

// ctx is where an expression is generated.
type ctx struct {
	sc *scope
	// agg is set in the select list and HAVING of an aggregate query: leaves are the group keys
	// (keys, those that are singletons), literals and aggregate calls.
	agg  bool
	keys []ex
	// noSub forbids subqueries (DEFAULT values and the like).
	noSub bool
	// results is set in the result columns of a top-level query and UPDATE's SET: they are
	// evaluated for the same rows by both engines whatever the plan (a WHERE or ON term may be
	// evaluated for rows of a join that SQLite, joining in another order, never makes).
	results bool
	depth   int
}

const maxDepth = 3

// expr generates an expression of any kind.
func (g *gen) expr(c ctx) ex {
	if c.depth >= maxDepth {
		return g.leaf(c)
	}
	c.depth++
	sub := 2
	if c.noSub || g.nest >= maxNest {
		sub = 0
	}
	aggW := 0
	if c.agg {
		aggW = 12
	}
	return g.choose(
		alt{30, func() ex { return g.leaf(c) }},
		alt{5, func() ex { return g.unary(c) }},
		alt{8, func() ex { return g.arith(c) }},
		alt{3, func() ex { return g.concat(c) }},
		alt{6, func() ex { return g.compare(c) }},
		alt{2, func() ex { return g.between(c) }},
		alt{3, func() ex { return g.inList(c) }},
		alt{sub, func() ex { return g.inSelect(c) }},
		alt{sub / 2, func() ex { return g.exists(c) }},
		alt{sub, func() ex { return g.scalarSelect(c) }},
		alt{4, func() ex { return g.caseExpr(c) }},
		alt{4, func() ex { return g.cast(c) }},
		alt{2, func() ex { return g.like(c) }},
		alt{1, func() ex { return g.glob(c) }},
		alt{2, func() ex { return g.isNull(c) }},
		alt{3, func() ex { return g.logic(c) }},
		alt{10, func() ex { return g.function(c) }},
		alt{2, func() ex { return g.collate(c) }},
		alt{aggW, func() ex { return g.aggregate(c) }},
	)
}

// cond generates a condition (WHERE, ON, HAVING, CASE WHEN): mostly comparisons and logic.
func (g *gen) cond(c ctx) ex {
	if c.depth >= maxDepth {
		return g.compare(c)
	}
	c.depth++
	sub := 3
	if c.noSub || g.nest >= maxNest {
		sub = 0
	}
	return g.choose(
		alt{20, func() ex { return g.compare(c) }},
		alt{4, func() ex { return g.between(c) }},
		alt{5, func() ex { return g.inList(c) }},
		alt{sub, func() ex { return g.inSelect(c) }},
		alt{sub, func() ex { return g.exists(c) }},
		alt{3, func() ex { return g.like(c) }},
		alt{1, func() ex { return g.glob(c) }},
		alt{4, func() ex { return g.isNull(c) }},
		alt{10, func() ex { return g.logic(c) }},
		alt{3, func() ex { return g.expr(c) }},
	)
}

// textOperand generates an expression that is converted to text (by ||, a text function, LIKE):
// never a computed REAL.
func (g *gen) textOperand(c ctx) ex {
	e := g.expr(c)
	if e.computed {
		return g.leaf(c)
	}
	return e
}

// leaf is a column or a literal.
func (g *gen) leaf(c ctx) ex {
	if g.oneIn(3) {
		return g.literalExpr()
	}
	return g.column(c)
}

func (g *gen) literalExpr() ex {
	lit := g.literal()
	k := kindAny
	switch {
	case lit == "NULL" || !strings.ContainsAny(lit, ".e'X"):
		k = kindInt
	case lit[0] == '\'':
		k = kindText
	}
	return ex{sql: lit, collKnown: true, singleton: true, kind: k}
}

// column is a column reference, qualified by its source's alias: of this query, or (in a
// subquery, sometimes) of an enclosing one. In an aggregate query it is a group key.
func (g *gen) column(c ctx) ex {
	if c.agg {
		var keys []ex
		for _, k := range c.keys {
			if k.singleton && !k.fuzzy {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return g.literalExpr()
		}
		return pick(g, keys...)
	}
	sc := c.sc
	for sc.outer != nil && g.oneIn(3) {
		sc = sc.outer
	}
	return g.columnOf(sc, false)
}

// columnOf picks a column of one of sc's sources (a fuzzy one only if allowFuzzy), or a literal
// if there is none.
func (g *gen) columnOf(sc *scope, allowFuzzy bool) ex {
	type cand struct {
		src *source
		col srcCol
	}
	var cands []cand
	for _, s := range sc.sources {
		for _, col := range s.cols {
			if !col.fuzzy || allowFuzzy {
				cands = append(cands, cand{s, col})
			}
		}
	}
	if len(cands) == 0 {
		return g.literalExpr()
	}
	p := pick(g, cands...)
	if p.src.rowid && g.oneIn(25) {
		return ex{sql: p.src.alias + ".rowid", collKnown: true, singleton: true, kind: kindInt}
	}
	return ex{sql: p.src.alias + "." + p.col.name, coll: p.col.coll, collKnown: !p.col.collUnknown,
		singleton: p.col.singleton, fuzzy: p.col.fuzzy, computed: p.col.computed}
}

// unary is -x, +x, ~x or NOT x.
func (g *gen) unary(c ctx) ex {
	x := g.expr(c)
	switch g.n(4) {
	case 0:
		e := derived("-("+x.sql+")", kindAny, x)
		return e
	case 1:
		x.sql = "+(" + x.sql + ")" // keeps the collation, loses the affinity
		return x
	case 2:
		return derived("~("+x.sql+")", kindInt, x)
	}
	return derived("NOT ("+x.sql+")", kindInt, x)
}

// arith is a binary arithmetic or bitwise operator: integer overflow, division by zero, text
// and blob operands included.
func (g *gen) arith(c ctx) ex {
	x, y := g.expr(c), g.expr(c)
	op := pick(g, "+", "-", "*", "/", "%", "+", "-", "*", "&", "|", "<<", ">>")
	k := kindAny
	if op == "&" || op == "|" || op == "<<" || op == ">>" {
		k = kindInt
	}
	e := derived("("+x.sql+" "+op+" "+y.sql+")", k, x, y)
	if k == kindAny {
		e.computed = true
	}
	return e
}

// concat is x || y.
func (g *gen) concat(c ctx) ex {
	x, y := g.textOperand(c), g.textOperand(c)
	return derived("("+x.sql+" || "+y.sql+")", kindText, x, y)
}

// compare is a comparison of two expressions of any classes.
func (g *gen) compare(c ctx) ex {
	x, y := g.expr(c), g.expr(c)
	op := pick(g, "=", "==", "<>", "!=", "<", "<=", ">", ">=", "IS", "IS NOT", "IS DISTINCT FROM",
		"IS NOT DISTINCT FROM", "=", "<", ">")
	return derived("("+x.sql+" "+op+" "+y.sql+")", kindInt, x, y)
}

// between is x [NOT] BETWEEN lo AND hi.
func (g *gen) between(c ctx) ex {
	x, lo, hi := g.expr(c), g.expr(c), g.expr(c)
	not := pick(g, "", "", "NOT ")
	return derived("("+x.sql+" "+not+"BETWEEN "+lo.sql+" AND "+hi.sql+")", kindInt, x, lo, hi)
}

// inList is x [NOT] IN (list), the list empty sometimes.
func (g *gen) inList(c ctx) ex {
	x := g.expr(c)
	parts := []ex{x}
	var items []string
	for i := g.n(5); i >= 0; i-- {
		if i == 0 && g.oneIn(12) {
			break // x IN ()
		}
		it := g.expr(c)
		if g.oneIn(2) {
			it = g.literalExpr()
		}
		parts = append(parts, it)
		items = append(items, it.sql)
	}
	not := pick(g, "", "", "NOT ")
	return derived("("+x.sql+" "+not+"IN ("+strings.Join(items, ", ")+"))", kindInt, parts...)
}

// subParent is the scope a subquery of c is nested in: c's, or, in an aggregate query, the one
// around it (the FROM columns of an aggregate query are not values of its groups).
func subParent(c ctx) *scope {
	if c.agg {
		return c.sc.outer
	}
	return c.sc
}

// inSelect is x [NOT] IN (SELECT y FROM ...), correlated sometimes.
func (g *gen) inSelect(c ctx) ex {
	x := g.expr(c)
	sel := g.subSelect(subParent(c))
	not := pick(g, "", "", "NOT ")
	return derived("("+x.sql+" "+not+"IN ("+sel+"))", kindInt, x)
}

// exists is [NOT] EXISTS (SELECT ...).
func (g *gen) exists(c ctx) ex {
	sel := g.subSelect(subParent(c))
	not := pick(g, "", "NOT ")
	return derived("("+not+"EXISTS ("+sel+"))", kindInt)
}

// subSelect is the select of IN or EXISTS nested in parent: one column, from one or two sources,
// a condition (correlated with the enclosing queries sometimes), grouped sometimes, or two such
// cores under UNION ALL. Its rows are a set, so their order and representatives do not matter.
func (g *gen) subSelect(parent *scope) (sql string) {
	g.nest++
	defer func() { g.nest-- }()
	core := func() string {
		inner := &scope{outer: parent}
		from := g.from(inner, 1+g.n(2))
		c := ctx{sc: inner, depth: 1}
		where := ""
		if g.oneIn(2) {
			where = " WHERE " + g.cond(c).sql
		}
		if g.oneIn(5) {
			key := g.columnOf(inner, false)
			agg := g.safeAggregate(ctx{sc: inner, agg: true, depth: 2})
			return "SELECT " + agg.sql + " FROM " + from + where + " GROUP BY " + key.sql
		}
		return "SELECT " + g.expr(c).sql + " FROM " + from + where
	}
	if g.oneIn(8) {
		return core() + " UNION ALL " + core()
	}
	return core()
}

// scalarSelect is a subquery that returns one row: an aggregate over a FROM (correlated
// sometimes), or a select without FROM.
func (g *gen) scalarSelect(c ctx) ex {
	g.nest++
	defer func() { g.nest-- }()
	inner := &scope{outer: subParent(c)}
	if g.oneIn(4) {
		e := g.expr(ctx{sc: inner, depth: c.depth + 1})
		e.sql = "(SELECT " + e.sql + ")"
		e.collKnown, e.explicit = false, true
		return e
	}
	from := g.from(inner, 1+g.n(2))
	where := ""
	if g.oneIn(2) {
		where = " WHERE " + g.cond(ctx{sc: inner, depth: 1}).sql
	}
	a := g.safeAggregate(ctx{sc: inner, agg: true, depth: 1})
	e := derived("(SELECT "+a.sql+" FROM "+from+where+")", a.kind, a)
	e.agg = false
	e.collKnown, e.explicit = false, true
	return e
}

// caseExpr is CASE WHEN ... or CASE x WHEN ..., with or without ELSE.
func (g *gen) caseExpr(c ctx) ex {
	var b strings.Builder
	var parts []ex
	b.WriteString("CASE")
	operand := !g.oneIn(2)
	if operand {
		x := g.expr(c)
		parts = append(parts, x)
		b.WriteString(" " + x.sql)
	}
	for i := 1 + g.n(3); i > 0; i-- {
		var w ex
		if operand {
			w = g.expr(c)
		} else {
			w = g.cond(c)
		}
		r := g.expr(c)
		parts = append(parts, w, r)
		b.WriteString(" WHEN " + w.sql + " THEN " + r.sql)
	}
	if g.oneIn(2) {
		e := g.expr(c)
		parts = append(parts, e)
		b.WriteString(" ELSE " + e.sql)
	}
	b.WriteString(" END")
	return derived(b.String(), kindAny, parts...)
}

// cast is CAST(x AS type) to a type of each affinity (TEXT only of what is not a computed REAL).
func (g *gen) cast(c ctx) ex {
	typ := pick(g, "INTEGER", "INT", "REAL", "TEXT", "NUMERIC", "BLOB", "VARCHAR(3)", "DOUBLE", "")
	var x ex
	if typ == "TEXT" || typ == "VARCHAR(3)" || typ == "BLOB" || typ == "" {
		x = g.textOperand(c)
	} else {
		x = g.expr(c)
	}
	e := x // CAST keeps the operand's collation
	e.sql = "CAST(" + x.sql + " AS " + typ + ")"
	switch typ {
	case "INTEGER", "INT":
		e.kind = kindInt
	case "TEXT", "VARCHAR(3)":
		e.kind = kindText
	default:
		e.kind = kindAny
	}
	e.singleton = e.kind == kindInt || e.kind == kindText && e.collKnown && binaryColl(e.coll)
	if typ == "REAL" || typ == "NUMERIC" || typ == "DOUBLE" {
		e.computed = true
	}
	return e
}

// likePatterns are LIKE patterns: wildcards, case, an escape character.
var likePatterns = []string{"'a%'", "'%b%'", "'A_C'", "'%'", "'_'", "'%c'", "'1%'", "'%.%'", "'abc'",
	"'a\\%' ESCAPE '\\'", "'%!_%' ESCAPE '!'", "'É%'", "''", "'%e%'", "'__'"}

// likeOperand is an operand of LIKE or GLOB: a text, or another value cast to one. (The SQLite of
// modernc.org/sqlite is built with SQLITE_LIKE_DOESNT_MATCH_BLOBS: a BLOB operand never matches,
// while a stock SQLite, and cairn, match its bytes as text.)
func (g *gen) likeOperand(c ctx) ex {
	x := g.textOperand(c)
	if x.kind != kindText {
		x = derived("CAST("+x.sql+" AS TEXT)", kindText, x)
	}
	return x
}

// like is x [NOT] LIKE pattern [ESCAPE c].
func (g *gen) like(c ctx) ex {
	x := g.likeOperand(c)
	p := pick(g, likePatterns...)
	var parts []ex
	if g.oneIn(4) {
		pe := g.likeOperand(c)
		p, parts = pe.sql, []ex{pe}
	}
	not := pick(g, "", "", "NOT ")
	return derived("("+x.sql+" "+not+"LIKE "+p+")", kindInt, append(parts, x)...)
}

var globPatterns = []string{"'a*'", "'*b*'", "'A?C'", "'*'", "'?'", "'[a-c]*'", "'[^a]*'", "'*[0-9]*'",
	"'abc'", "'[]]*'", "'*.*'"}

// glob is x [NOT] GLOB pattern.
func (g *gen) glob(c ctx) ex {
	x := g.likeOperand(c)
	p := pick(g, globPatterns...)
	not := pick(g, "", "", "NOT ")
	return derived("("+x.sql+" "+not+"GLOB "+p+")", kindInt, x)
}

// isNull is x IS NULL, x IS NOT NULL, x ISNULL or x NOTNULL.
func (g *gen) isNull(c ctx) ex {
	x := g.expr(c)
	op := pick(g, "IS NULL", "IS NOT NULL", "ISNULL", "NOTNULL", "NOT NULL")
	e := derived("("+x.sql+" "+op+")", kindInt, x)
	e.nullTest = true
	return e
}

// logic is AND, OR or NOT of conditions.
func (g *gen) logic(c ctx) ex {
	x := g.cond(c)
	if g.oneIn(5) {
		return derived("NOT "+x.sql, kindInt, x)
	}
	y := g.cond(c)
	op := pick(g, "AND", "OR")
	return derived("("+x.sql+" "+op+" "+y.sql+")", kindInt, x, y)
}

// collate is x COLLATE name.
func (g *gen) collate(c ctx) ex {
	x := g.expr(c)
	coll := pick(g, "NOCASE", "RTRIM", "BINARY")
	x.sql = "(" + x.sql + " COLLATE " + coll + ")"
	x.coll, x.collKnown, x.explicit = coll, true, true
	x.singleton = x.kind == kindInt || x.kind == kindText && binaryColl(coll)
	return x
}

// function is a call of a core scalar function.
func (g *gen) function(c ctx) ex {
	e := func() ex { return g.expr(c) }
	t := func() ex { return g.textOperand(c) }
	smallInt := func() ex { return ex{sql: fmt.Sprint(g.n(9) - 3), collKnown: true, singleton: true, kind: kindInt} }
	call := func(name string, k kind, args ...ex) ex {
		sqls := make([]string, len(args))
		for i, a := range args {
			sqls[i] = a.sql
		}
		return derived(name+"("+strings.Join(sqls, ", ")+")", k, args...)
	}
	// passing returns a call whose value is one of its arguments (its computed flag stays).
	passing := func(name string, args ...ex) ex { return call(name, kindAny, args...) }
	switch g.n(38) {
	case 0:
		if g.lazy() || !c.results || g.inCompound {
			return passing("ifnull", e(), e()) // abs() may overflow, an error SQLite may never reach
		}
		// Of a column only: SQLite evaluates a constant abs() once, before the first row, so
		// abs(-9223372036854775808) fails there even when no row comes.
		a := passing("abs", g.column(c))
		a.mayFail = true
		return a
	case 1:
		return passing("coalesce", e(), e(), e())
	case 2:
		return passing("ifnull", e(), e())
	case 3:
		return passing("nullif", e(), e())
	case 4:
		return passing("iif", g.cond(c), e(), e())
	case 5:
		return call("length", kindInt, t())
	case 6:
		return call("lower", kindText, t())
	case 7:
		return call("upper", kindText, t())
	case 8:
		return call("substr", kindAny, t(), smallInt())
	case 9:
		return call("substr", kindAny, t(), smallInt(), smallInt())
	case 10:
		return call("trim", kindText, t())
	case 11:
		return call(pick(g, "ltrim", "rtrim", "trim"), kindText, t(), ex{sql: pick(g, "' '", "'a'", "'ab'", "'1'", "'x'"), collKnown: true})
	case 12:
		return call("replace", kindText, t(), ex{sql: pick(g, "'a'", "'b'", "''", "'1'"), collKnown: true}, t())
	case 13:
		return call("instr", kindInt, t(), t())
	case 14:
		r := call("round", kindAny, e())
		r.computed = true
		return r
	case 15:
		r := call("round", kindAny, e(), smallInt())
		r.computed = true
		return r
	case 16:
		return passing("min", e(), e())
	case 17:
		return passing("max", e(), e(), e())
	case 18, 19:
		return call("typeof", kindText, e())
	case 20:
		return call("hex", kindText, t())
	case 21:
		return call("quote", kindText, t())
	case 22:
		return call("unicode", kindInt, t())
	case 23:
		return call("char", kindText, ex{sql: pick(g, "65", "97", "233", "0x41", "'66'"), collKnown: true}, smallInt())
	case 24:
		f := pick(g, "'%d'", "'%s'", "'%5s|'", "'%-4d|'", "'%.2f'", "'%x'", "'%c'", "'%%'", "'%q'", "'%3.1f'")
		return call("printf", kindText, ex{sql: f, collKnown: true}, t())
	case 25:
		return call("length", kindInt, ex{sql: "zeroblob(" + fmt.Sprint(g.n(4)) + ")", collKnown: true})
	case 26:
		return passing(pick(g, "coalesce", "ifnull"), e(), g.literalExpr())
	case 27:
		return call("sign", kindInt, e())
	case 28:
		r := call(pick(g, "ceil", "floor", "trunc"), kindAny, e())
		r.computed = true
		return r
	case 29:
		return call("concat", kindText, t(), e())
	case 30:
		return call("concat_ws", kindText, ex{sql: pick(g, "','", "''", "NULL"), collKnown: true}, t(), t())
	case 31:
		return call("octet_length", kindInt, t())
	case 32:
		return passing(pick(g, "likely", "unlikely"), e())
	case 33:
		p := ex{sql: pick(g, "'a%'", "'%b%'", "'_'", "'%'", "'A_c'"), collKnown: true}
		if g.n(2) == 0 {
			p.sql = pick(g, "'a*'", "'*b*'", "'?'", "'[a-c]*'", "'*'")
			return call("glob", kindInt, p, t())
		}
		return call("like", kindInt, p, t())
	case 34:
		r := call("mod", kindAny, e(), smallInt())
		r.computed = true
		return r
	case 35:
		return call("unhex", kindAny, call("hex", kindText, t()))
	case 36:
		return passing("iif", g.cond(c), e(), g.cond(c), e(), e())
	}
	return call("typeof", kindText, g.arith(c))
}

// aggregate is an aggregate call whose value does not depend on the order rows come in (or an
// expression of one): count, sum, total, avg, the byte length of group_concat(...), min and max
// of a singleton, with DISTINCT sometimes.
func (g *gen) aggregate(c ctx) ex {
	return g.safeAggregate(c)
}

func (g *gen) safeAggregate(c ctx) ex {
	arg := aggArgs(c)
	x := g.expr(arg)
	sum := "sum"
	if g.lazy() {
		sum = "total" // sum() may overflow, an error SQLite may never reach
	}
	wrap := func(sql string, k kind, parts ...ex) ex {
		e := derived(sql, k, parts...)
		e.agg = true
		return e
	}
	switch g.n(12) {
	case 0, 1:
		return wrap("count(*)", kindInt)
	case 2:
		return wrap("count("+x.sql+")", kindInt, x)
	case 3:
		return wrap("count(DISTINCT "+x.sql+")", kindInt, x)
	case 4:
		if x.singleton {
			return wrap(sum+"(DISTINCT "+x.sql+")", kindAny, x)
		}
		return wrap(sum+"("+x.sql+")", kindAny, x)
	case 5:
		e := wrap(sum+"("+x.sql+")", kindAny, x)
		e.computed = true
		return e
	case 6:
		e := wrap(pick(g, "total", "avg")+"("+x.sql+")", kindAny, x)
		e.computed = true
		return e
	case 7:
		t := g.textOperand(arg)
		sep := pick(g, "", ", ';'", ", ''", ", NULL")
		// Its length in bytes: in characters it would stop at a NUL, which comes first
		// in no set order.
		return wrap("length(CAST(group_concat("+t.sql+sep+") AS BLOB))", kindInt, t)
	case 8:
		if t := g.textOperand(arg); t.singleton {
			return wrap("length(CAST(group_concat(DISTINCT "+t.sql+") AS BLOB))", kindInt, t)
		}
		return wrap("count(*)", kindInt)
	case 9, 10:
		col := g.columnOf(c.sc, false)
		if col.singleton {
			e := wrap(pick(g, "min", "max")+"("+col.sql+")", kindAny, col)
			e.singleton = true
			return e
		}
		return wrap("count("+col.sql+")", kindInt, col)
	}
	// An expression of aggregates.
	y := g.safeAggregate(c)
	return wrap("("+y.sql+" "+pick(g, "+", "-", "*", "<", "=", "IS NOT")+" "+fmt.Sprint(g.n(5))+")", kindAny, y)
}

// aggArgs is the context of an aggregate's arguments: the FROM of the query, no aggregates, and
// no enclosing query's columns (an aggregate of those alone would belong to the enclosing query,
// turning it into an aggregate query the generator does not know it is).
func aggArgs(c ctx) ctx {
	return ctx{sc: &scope{sources: c.sc.sources}, depth: c.depth + 1}
}

// fuzzyAggregate is min or max of any expression: its value is one of the equal extreme values.
func (g *gen) fuzzyAggregate(c ctx) ex {
	x := g.expr(aggArgs(c))
	e := derived(pick(g, "min", "max")+"("+x.sql+")", kindAny, x)
	e.agg = true
	e.fuzzy = !x.singleton
	e.collKnown = false
	return e
}

// ---- FROM ----

// from generates the FROM clause of a query with n items (tables, or a subquery sometimes),
// joined by commas, [INNER] JOIN ... ON, LEFT JOIN ... ON, CROSS JOIN, JOIN ... USING, NATURAL
// JOIN; it adds the items to sc.
func (g *gen) from(sc *scope, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		src, sql := g.fromItem(sc)
		if i == 0 {
			sc.sources = append(sc.sources, src)
			b.WriteString(sql)
			continue
		}
		using, natural := g.usingColumn(sc, src)
		sc.sources = append(sc.sources, src)
		c := ctx{sc: sc, depth: 1}
		switch k := g.n(10); {
		case k < 2:
			b.WriteString(", " + sql)
		case k < 4:
			b.WriteString(" JOIN " + sql + " ON " + g.cond(c).sql)
		case k < 6:
			b.WriteString(" LEFT JOIN " + sql + " ON " + g.cond(c).sql)
		case k < 7:
			b.WriteString(" CROSS JOIN " + sql)
		case k < 9 && using != "":
			b.WriteString(pick(g, " JOIN ", " LEFT JOIN ") + sql + " USING (" + using + ")")
		case k < 10 && natural:
			b.WriteString(pick(g, " NATURAL JOIN ", " NATURAL LEFT JOIN ") + sql)
		default:
			b.WriteString(" JOIN " + sql + " ON " + g.cond(c).sql)
		}
	}
	return b.String()
}

// usingColumn returns a column name of src that exactly one source of sc has, or "" (and
// natural reports whether every column name src shares with sc is such a name).
func (g *gen) usingColumn(sc *scope, src *source) (using string, natural bool) {
	var names []string
	natural = true
	for _, c := range src.cols {
		n := 0
		for _, s := range sc.sources {
			for _, other := range s.cols {
				if other.name == c.name {
					n++
				}
			}
		}
		if n == 1 {
			names = append(names, c.name)
		}
		natural = natural && n <= 1
	}
	if len(names) == 0 {
		return "", false
	}
	return pick(g, names...), natural
}

// fromItem is a table under an alias, or (sometimes) a subquery.
func (g *gen) fromItem(sc *scope) (*source, string) {
	if g.nest < maxNest && g.oneIn(8) {
		return g.fromSubquery(sc)
	}
	t := pick(g, g.tables...)
	for t == g.avoid {
		t = pick(g, g.tables...)
	}
	src := &source{alias: g.newAlias(), rowid: t.hasRowid()}
	src.cols = t.srcCols()
	return src, t.name + " AS " + src.alias
}

// fromSubquery is (SELECT ...) AS alias: a select whose result columns become the source's.
func (g *gen) fromSubquery(sc *scope) (*source, string) {
	g.nest++
	defer func() { g.nest-- }()
	q := g.selectStmt(&scope{outer: sc.outer}, 1, false)
	src := &source{alias: g.newAlias()}
	for i, col := range q.cols {
		src.cols = append(src.cols, srcCol{name: fmt.Sprintf("r%d", i), coll: col.coll, singleton: col.singleton,
			fuzzy: col.fuzzy, computed: col.computed})
		if !col.collKnown {
			src.cols[i].coll, src.cols[i].singleton, src.cols[i].collUnknown = "", false, true
		}
	}
	if q.compound {
		// LIMIT -1 keeps SQLite 3.54 from pushing the WHERE down into the cores, where it
		// compares with each core's affinity rather than the compound column's (a bug).
		q.sql += " LIMIT -1"
	}
	return src, "(" + q.sql + ") AS " + src.alias
}

// ---- Queries ----

// query is a generated SELECT with what the comparison needs to know of it.
type query struct {
	sql  string
	cols []ex // the result columns (nil for SELECT *)
	// ordered: the ORDER BY gives the order of rows up to ties, by keys (result columns).
	ordered bool
	keys    []orderKey
	// limited: a LIMIT or OFFSET cuts the ordered rows.
	limited bool
	// compound: the query is a compound select.
	compound bool
}

// orderKey is an ORDER BY term on result column col, compared under coll (collKnown false: not
// known to the generator; the comparison then folds values under every collation).
type orderKey struct {
	col       int
	coll      string
	collKnown bool
}

// query generates a top-level query: a simple select, an aggregate, or a compound, with an
// ORDER BY and a LIMIT sometimes.
func (g *gen) query() query {
	return g.selectStmt(&scope{}, 1+g.n(3), true)
}

// selectStmt generates a select of any shape; top allows an ORDER BY and LIMIT.
func (g *gen) selectStmt(sc *scope, nFrom int, top bool) query {
	var q query
	switch k := g.n(10); {
	case k < 6:
		q = g.simpleSelect(sc, nFrom, 0)
	case k < 8:
		q = g.aggregateSelect(sc, nFrom, 0)
	default:
		q = g.compound(sc)
	}
	if top || g.oneIn(4) {
		g.orderBy(&q, top)
	}
	return q
}

// resultColumns renders a select list, with aliases r0, r1, ... sometimes (always in a subquery
// of FROM, whose columns the enclosing query names so).
func resultList(cols []ex, aliases bool) string {
	items := make([]string, len(cols))
	for i, c := range cols {
		items[i] = c.sql
		if aliases {
			items[i] += fmt.Sprintf(" AS r%d", i)
		}
	}
	return strings.Join(items, ", ")
}

// simpleSelect is SELECT [DISTINCT] exprs FROM ... [WHERE ...] (or SELECT * sometimes): ncols
// columns (0: one to four, or *).
func (g *gen) simpleSelect(sc *scope, nFrom, ncols int) query {
	from := g.from(sc, nFrom)
	c := ctx{sc: sc}
	where := ""
	if !g.oneIn(3) {
		where = " WHERE " + g.cond(c).sql
	}
	distinct := g.oneIn(6)
	if !distinct && ncols == 0 && g.oneIn(12) {
		return query{sql: "SELECT * FROM " + from + where}
	}
	if ncols == 0 {
		ncols = 1 + g.n(4)
	}
	var cols []ex
	rc := c
	rc.results = true
	for i := ncols; i > 0; i-- {
		if g.oneIn(4) {
			cols = append(cols, g.columnOf(sc, true)) // a plain column (fuzzy ones of subqueries too)
		} else {
			cols = append(cols, g.expr(rc))
		}
	}
	d := ""
	if distinct {
		d = "DISTINCT "
		for i := range cols {
			cols[i].fuzzy = cols[i].fuzzy || !cols[i].singleton
		}
	}
	return query{sql: "SELECT " + d + resultList(cols, true) + " FROM " + from + where, cols: cols}
}

// aggregateSelect is SELECT ... FROM ... [WHERE] [GROUP BY keys [HAVING]]: its result columns are
// group keys (one of the group's equal values: fuzzy unless a singleton), aggregates, expressions
// of both, min or max of anything (fuzzy). It has ncols columns (0: one to three).
func (g *gen) aggregateSelect(sc *scope, nFrom, ncols int) query {
	from := g.from(sc, nFrom)
	where := ""
	if g.oneIn(2) {
		where = " WHERE " + g.cond(ctx{sc: sc}).sql
	}
	var keys []ex
	for i := g.n(3); i > 0; i-- {
		var k ex
		if g.oneIn(4) {
			k = g.expr(ctx{sc: sc, depth: 2})
		}
		if k.sql == "" || !hasColumnRef(k.sql) || mayFold(k) {
			// A constant may name a result column (GROUP BY 2), and SQLite (3.54) folds a null
			// test it finds never null to 0 or 1, which it then takes for one too.
			k = g.columnOf(sc, false)
		}
		if !hasColumnRef(k.sql) {
			continue
		}
		k.fuzzy = !k.singleton
		keys = append(keys, k)
	}
	c := ctx{sc: sc, agg: true, keys: keys}
	rc := c
	rc.results = true
	if ncols == 0 {
		ncols = 1 + g.n(3)
	}
	var cols []ex
	for i := ncols; i > 0; i-- {
		switch {
		case len(keys) > 0 && g.oneIn(3):
			cols = append(cols, pick(g, keys...))
		case g.oneIn(5):
			cols = append(cols, g.fuzzyAggregate(c))
		default:
			cols = append(cols, g.expr(rc))
		}
	}
	sql := "SELECT "
	if g.oneIn(8) {
		sql += "DISTINCT "
		for i := range cols {
			cols[i].fuzzy = cols[i].fuzzy || !cols[i].singleton
		}
	}
	sql += resultList(cols, true) + " FROM " + from + where
	if len(keys) > 0 {
		ks := make([]string, len(keys))
		for i, k := range keys {
			ks[i] = k.sql
		}
		sql += " GROUP BY " + strings.Join(ks, ", ")
		if g.oneIn(2) {
			sql += " HAVING " + g.cond(c).sql
		}
	}
	return query{sql: sql, cols: cols}
}

// compound is two or three cores (simple or aggregate, the same number of columns) joined by
// UNION [ALL], INTERSECT or EXCEPT. A column of a set operator's result is one of the equal
// values of the cores' rows: fuzzy unless every core's column is integers, or texts under BINARY.
func (g *gen) compound(sc *scope) query {
	n := 1 + g.n(3)
	var cores []query
	defer func(was bool) { g.inCompound = was }(g.inCompound)
	g.inCompound = true
	for i := 2 + g.n(2); i > 0; i-- {
		if g.oneIn(3) {
			cores = append(cores, g.aggregateSelect(&scope{outer: sc.outer}, 1+g.n(2), n))
		} else {
			cores = append(cores, g.simpleSelect(&scope{outer: sc.outer}, 1+g.n(2), n))
		}
	}
	out := query{sql: cores[0].sql, cols: append([]ex(nil), cores[0].cols...), compound: true}
	setOp := false
	for _, q := range cores[1:] {
		op := pick(g, "UNION ALL", "UNION", "INTERSECT", "EXCEPT", "UNION ALL")
		setOp = setOp || op != "UNION ALL"
		out.sql += " " + op + " " + q.sql
	}
	for i := range out.cols {
		for _, q := range cores[1:] {
			out.cols[i].mayFail = out.cols[i].mayFail || q.cols[i].mayFail
			out.cols[i].computed = out.cols[i].computed || q.cols[i].computed
		}
		out.cols[i].collKnown = false // the compound's collation: the leftmost core's with one
		if !setOp {
			for _, q := range cores[1:] {
				out.cols[i].fuzzy = out.cols[i].fuzzy || q.cols[i].fuzzy
			}
			continue
		}
		allInt, allText := true, true
		for _, q := range cores {
			allInt = allInt && q.cols[i].kind == kindInt
			allText = allText && q.cols[i].kind == kindText && q.cols[i].collKnown && binaryColl(q.cols[i].coll) &&
				!q.cols[i].explicit
		}
		out.cols[i].fuzzy = !(allInt || allText)
		out.cols[i].singleton = allInt || allText
	}
	return out
}

// columnRefPattern matches the column references the generator writes (alias.name).
var columnRefPattern = regexp.MustCompile(`\b(x\d+|t\d)\.\w+`)

// hasColumnRef reports whether the expression sql reads a column.
func hasColumnRef(sql string) bool { return columnRefPattern.MatchString(sql) }

// foldPattern matches what SQLite may fold to a constant in an expression with columns: a null
// test (of something never NULL: 0 or 1), x AND 0.
var foldPattern = regexp.MustCompile(`NULL\)|ISNULL|NOTNULL| AND 0\)|\(0 AND `)

// mayFold reports whether SQLite may fold e to a constant integer, which it then reads as a
// result column's number in an ORDER BY or GROUP BY (SQLite 3.54: ('a' ISNULL AND x) DESC is
// "ORDER BY term out of range").
func mayFold(e ex) bool { return e.nullTest || foldPattern.MatchString(e.sql) }

// orderBy adds an ORDER BY to q sometimes: terms on result columns (by number, alias or the
// expression again), each with DESC, NULLS FIRST/LAST and COLLATE sometimes; on every column
// mostly; and then, if no key is fuzzy, a LIMIT and OFFSET sometimes.
func (g *gen) orderBy(q *query, top bool) {
	if q.cols == nil || g.oneIn(3) {
		return
	}
	compound := strings.Contains(q.sql, " UNION ") || strings.Contains(q.sql, " INTERSECT ") ||
		strings.Contains(q.sql, " EXCEPT ")
	perm := g.r.Perm(len(q.cols))
	if g.oneIn(4) {
		perm = perm[:1+g.n(len(perm))]
	}
	var terms []string
	fuzzyKey, mayFail := false, false
	for _, i := range perm {
		col := q.cols[i]
		var term string
		switch {
		case g.oneIn(3) || !hasColumnRef(col.sql) || mayFold(col):
			// A constant may name a result column, and so may an expression SQLite folds to 0
			// or 1 (SQLite 3.54 then reads it as a column number).
			term = fmt.Sprint(i + 1)
		case compound || g.oneIn(2):
			term = fmt.Sprintf("r%d", i)
		default:
			term = col.sql
		}
		k := orderKey{col: i, coll: col.coll, collKnown: col.collKnown}
		// No COLLATE on the ORDER BY of a compound with a GROUP BY: SQLite 3.54 then fails to
		// resolve the GROUP BY ("no such column"; cairn runs it).
		if !col.fuzzy && g.oneIn(4) && !(compound && strings.Contains(q.sql, " GROUP BY ")) {
			k.coll, k.collKnown = pick(g, "NOCASE", "RTRIM", "BINARY"), true
			term += " COLLATE " + k.coll
		}
		if g.oneIn(2) {
			term += " DESC"
		}
		if g.oneIn(4) {
			term += pick(g, " NULLS FIRST", " NULLS LAST")
		}
		terms = append(terms, term)
		q.keys = append(q.keys, k)
		fuzzyKey = fuzzyKey || col.fuzzy
	}
	for _, col := range q.cols {
		mayFail = mayFail || col.mayFail
	}
	q.sql += " ORDER BY " + strings.Join(terms, ", ")
	q.ordered = top && !fuzzyKey
	if !q.ordered {
		q.keys = nil
		return
	}
	// No LIMIT when a result column may fail: SQLite computes the result columns of a row only
	// once it knows the row makes the LIMIT, and skips the failing row so.
	if !mayFail && g.oneIn(3) {
		q.limited = true
		q.sql += " LIMIT " + pick(g, "0", "1", "2", "3", "5", "-1", "'2'", "2.0", "1+1")
		if g.oneIn(2) {
			q.sql += " OFFSET " + pick(g, "0", "1", "2", "-1", "'1'")
		}
	}
}

// ---- Data changes ----

// change is a generated INSERT, UPDATE or DELETE on table.
type change struct {
	sql    string
	table  *table
	insert bool
}

// conflictClause returns an OR clause (or none).
func (g *gen) conflictClause() string {
	switch g.n(10) {
	case 0:
		return " OR IGNORE"
	case 1:
		return " OR REPLACE"
	case 2:
		return " OR FAIL"
	case 3:
		return " OR ABORT"
	case 4:
		return " OR ROLLBACK"
	}
	return ""
}

// rows returns single-row INSERTs that fill the tables at the start of a round.
func (g *gen) rows() []change {
	var out []change
	for _, t := range g.tables {
		for i := 3 + g.n(8); i > 0; i-- {
			out = append(out, change{sql: "INSERT INTO " + t.name + " VALUES (" + g.valueRow(t) + ")",
				table: t, insert: true})
		}
	}
	return out
}

// valueRow returns the literals of one row of t.
func (g *gen) valueRow(t *table) string {
	vals := make([]string, len(t.cols))
	for i := range t.cols {
		vals[i] = g.valueFor(t, i)
	}
	return strings.Join(vals, ", ")
}

// valueFor returns a literal for column i of t; a NULL is rarer in a NOT NULL column, and an
// INTEGER PRIMARY KEY gets rowid-like values.
func (g *gen) valueFor(t *table, i int) string {
	if i == t.ipk {
		return g.rowidLiteral()
	}
	v := g.literal()
	for v == "NULL" && t.cols[i].notNull && !g.oneIn(4) {
		v = g.literal()
	}
	return v
}

// change generates an INSERT (VALUES, SELECT, DEFAULT VALUES, REPLACE), UPDATE or DELETE.
func (g *gen) change() change {
	t := pick(g, g.tables...)
	switch k := g.n(20); {
	case k < 6:
		return g.insertValues(t)
	case k < 8:
		return g.insertSelect(t)
	case k < 9:
		return change{sql: "INSERT" + g.conflictClause() + " INTO " + t.name + " DEFAULT VALUES", table: t, insert: true}
	case k < 15:
		return g.update(t)
	}
	return g.delete(t)
}

// insertValues is INSERT [OR ...] INTO t [(columns)] VALUES (...), ... or REPLACE INTO.
func (g *gen) insertValues(t *table) change {
	verb := "INSERT" + g.conflictClause()
	if g.oneIn(8) {
		verb = "REPLACE"
	}
	cols := ""
	var idx []int
	if g.oneIn(3) {
		idx = g.r.Perm(len(t.cols))[:1+g.n(len(t.cols))]
		cols = "(" + t.colList(idx) + ")"
	} else {
		for i := range t.cols {
			idx = append(idx, i)
		}
	}
	var rows []string
	for r := 1 + g.n(3); r > 0; r-- {
		vals := make([]string, len(idx))
		for j, c := range idx {
			vals[j] = g.valueFor(t, c)
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return change{sql: verb + " INTO " + t.name + cols + " VALUES " + strings.Join(rows, ", "), table: t, insert: true}
}

// insertSelect is INSERT [OR ...] INTO t (columns) SELECT ... FROM another table, in a total
// order (the rows' order decides their rowids and which of two conflicting rows stays).
func (g *gen) insertSelect(t *table) change {
	idx := g.r.Perm(len(t.cols))[:1+g.n(len(t.cols))]
	from := pick(g, g.tables...)
	src := &source{alias: g.newAlias(), rowid: from.hasRowid()}
	src.cols = from.srcCols()
	sc := &scope{sources: []*source{src}}
	c := ctx{sc: sc}
	exprs := make([]string, len(idx))
	var order []string
	for i := range idx {
		e := g.expr(c)
		for e.computed {
			e = g.expr(c)
		}
		exprs[i] = e.sql
		order = append(order, fmt.Sprint(i+1))
	}
	// Then the rowid, or the primary key of a WITHOUT ROWID table (unique under its collations).
	if src.rowid {
		order = append(order, src.alias+".rowid")
	} else {
		for _, i := range from.pk {
			order = append(order, src.alias+"."+from.cols[i].name)
		}
	}
	where := ""
	if g.oneIn(2) {
		where = " WHERE " + g.cond(c).sql
	}
	return change{sql: fmt.Sprintf("INSERT%s INTO %s(%s) SELECT %s FROM %s AS %s%s ORDER BY %s", g.conflictClause(),
		t.name, t.colList(idx), strings.Join(exprs, ", "), from.name, src.alias, where, strings.Join(order, ", ")), table: t, insert: true}
}

// tableScope is the scope of an UPDATE or DELETE: the table under its own name.
func tableScope(t *table) *scope {
	src := &source{alias: t.name, rowid: t.hasRowid()}
	src.cols = t.srcCols()
	return &scope{sources: []*source{src}}
}

// update is UPDATE [OR ...] t SET col = expr, ... [WHERE ...] (no computed REALs stored: their
// text may differ when a TEXT column stores them).
func (g *gen) update(t *table) change {
	c := ctx{sc: tableScope(t), results: true}
	cols := g.r.Perm(len(t.cols))
	conflict := g.conflictClause()
	if t.scanOrderUnknown() {
		// No column of a PRIMARY KEY or UNIQUE constraint, and not OR FAIL: the outcome then
		// does not depend on the order the rows are changed in.
		cols = slices.DeleteFunc(cols, t.inUniqueKey)
		if len(cols) == 0 {
			return g.delete(t)
		}
		for conflict == " OR FAIL" {
			conflict = g.conflictClause()
		}
	}
	var sets []string
	g.avoid = t
	defer func() { g.avoid = nil }()
	for _, i := range cols[:min(len(cols), 1+g.n(2))] {
		var e ex
		switch {
		case g.oneIn(3):
			e = ex{sql: g.valueFor(t, i)}
		default:
			e = g.expr(c)
			for e.computed {
				e = g.expr(c)
			}
		}
		sets = append(sets, t.cols[i].name+" = "+e.sql)
	}
	where := ""
	if !g.oneIn(4) {
		// +(...): no index serves the WHERE, so both engines change the rows in rowid (or
		// primary key) order; which row of several a conflict hits first depends on it.
		where = " WHERE +(" + g.cond(ctx{sc: c.sc}).sql + ")"
	}
	return change{sql: "UPDATE" + conflict + " " + t.name + " SET " + strings.Join(sets, ", ") + where, table: t}
}

// scanOrderUnknown reports whether SQLite may change the rows of t in an order the generator
// cannot tell: that of a secondary index, which it may scan for the rows of a WITHOUT ROWID
// table whatever the WHERE.
func (t *table) scanOrderUnknown() bool {
	if !t.withoutRowid {
		return false
	}
	if len(t.indexes) > 0 || len(t.uniques) > 0 {
		return true
	}
	for _, c := range t.cols {
		if c.unique {
			return true
		}
	}
	return false
}

// inUniqueKey reports whether column i is in t's PRIMARY KEY or in a UNIQUE constraint or index.
func (t *table) inUniqueKey(i int) bool {
	if i == t.ipk || slices.Contains(t.pk, i) || t.cols[i].unique {
		return true
	}
	for _, u := range t.uniques {
		if slices.Contains(u, i) {
			return true
		}
	}
	for _, ix := range t.indexes {
		for _, c := range ix.cols {
			if ix.unique && c.col == i {
				return true
			}
		}
	}
	return false
}

// delete is DELETE FROM t [WHERE ...].
func (g *gen) delete(t *table) change {
	where := ""
	if !g.oneIn(6) {
		where = " WHERE " + g.cond(ctx{sc: tableScope(t)}).sql
	}
	return change{sql: "DELETE FROM " + t.name + where, table: t}
}

// contents is the query that reads all of t (with its rowid) after a change.
func (t *table) contents() string {
	if t.hasRowid() {
		return "SELECT rowid, * FROM " + t.name
	}
	return "SELECT * FROM " + t.name
}

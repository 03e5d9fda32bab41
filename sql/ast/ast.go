// Package ast is the SQL layer's statement tree: what the parser adapter (package parse) makes of
// SQL text and what the engine binds, plans and runs. It depends on no parser; names are as
// written (dequoted), and every node keeps the byte offset in the SQL text where it starts, for
// error messages.
package ast

import "github.com/cairndb/cairn/sql/value"

// Pos is a byte offset in the SQL text of a statement.
type Pos int

// Stmt is a statement.
type Stmt interface{ stmtNode() }

// Expr is an expression.
type Expr interface{ Offset() Pos }

// Statements.

// Select is a query: one or more cores joined by compound operators, then an ORDER BY and LIMIT
// that apply to the whole.
type Select struct {
	At      Pos
	With    *With // nil: no WITH clause
	Cores   []*SelectCore
	Ops     []CompoundOp // len(Cores)-1 operators
	OrderBy []OrderTerm
	Limit   Expr // nil: no limit
	Offset  Expr // nil: no offset
}

// CompoundOp joins two cores of a compound select.
type CompoundOp uint8

// Compound operators.
const (
	Union CompoundOp = iota
	UnionAll
	Intersect
	Except
)

// SelectCore is one SELECT ... FROM ... WHERE ... GROUP BY ... HAVING, or a VALUES list (Values
// set, the rest empty).
type SelectCore struct {
	At       Pos
	Distinct bool
	Columns  []ResultColumn
	From     []FromItem
	Where    Expr
	GroupBy  []Expr
	Having   Expr
	Values   [][]Expr
	Windows  []NamedWindow // the WINDOW clause
}

// ResultColumn is one item of a select list: an expression with an optional alias, or * or
// table.* (Star set, Table naming the table or empty).
type ResultColumn struct {
	Expr  Expr
	Alias string
	Star  bool
	Table string
	// Text is the expression as written, the column's name when it has no alias (SQLite names
	// such a column by its text).
	Text string
}

// JoinKind says how a FROM item joins the items before it.
type JoinKind uint8

// Join kinds. The first item of a FROM clause has JoinNone.
const (
	JoinNone  JoinKind = iota
	JoinInner          // JOIN, INNER JOIN, or a comma
	JoinLeft           // LEFT [OUTER] JOIN
	JoinCross          // CROSS JOIN
	JoinRight          // RIGHT [OUTER] JOIN
	JoinFull           // FULL [OUTER] JOIN
)

// FromItem is a table, view or subquery in a FROM clause.
type FromItem struct {
	At       Pos
	Join     JoinKind
	Natural  bool
	Table    string  // table or view name; empty for a subquery
	Schema   string  // the schema before Table as written ("main"); empty when unqualified
	Subquery *Select // nil for a table
	Alias    string
	On       Expr
	Using    []string
	// NotIndexed forbids indexes for this table (NOT INDEXED); IndexedBy names the one index
	// to use (INDEXED BY).
	NotIndexed bool
	IndexedBy  string
	// Func is set for a table-valued function, Table(FuncArgs...): Table is its name.
	Func     bool
	FuncArgs []Expr
}

// OrderTerm is one ORDER BY term.
type OrderTerm struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool // NULLS FIRST
	NullsLast  bool // NULLS LAST
}

// ColumnDef is a column of CREATE TABLE.
type ColumnDef struct {
	Name        string
	Type        string
	PrimaryKey  bool
	PKDesc      bool
	AutoInc     bool
	PKConflict  Conflict
	NotNull     bool
	NotNullConf Conflict
	Unique      bool
	UniqueConf  Conflict
	Default     Expr // nil: NULL
	// DefaultText is the DEFAULT expression's text as written, outer parentheses removed.
	DefaultText string
	Checks      []Check
	Collation   string
	// Generated is the expression of a generated column (AS (expr)), nil for a stored value;
	// Stored is set for STORED, else it is VIRTUAL.
	Generated Expr
	Stored    bool
	// DefaultSet records a DEFAULT clause (with Generated, an error).
	DefaultSet bool
}

// Check is a CHECK constraint: its expression, its text (for the error message of an unnamed
// one) and its name (CONSTRAINT name), if any.
type Check struct {
	Expr Expr
	Text string
	Name string
}

// TableConstraint is a PRIMARY KEY, UNIQUE or CHECK clause of CREATE TABLE.
type TableConstraint struct {
	Name     string
	Kind     ConstraintKind
	Columns  []IndexedColumn
	Check    *Check
	Conflict Conflict
	// AutoInc is set for PRIMARY KEY(col AUTOINCREMENT).
	AutoInc bool
}

// ConstraintKind is the kind of a table constraint.
type ConstraintKind uint8

// Table constraint kinds.
const (
	PrimaryKey ConstraintKind = iota
	UniqueKey
	CheckConstraint
)

// IndexedColumn is a column of an index, a PRIMARY KEY or a UNIQUE clause.
type IndexedColumn struct {
	At        Pos
	Name      string
	Collation string
	Desc      bool
	// Expr is the expression of an index on an expression (Name is then empty); nil for a column.
	Expr Expr
}

// Conflict is an ON CONFLICT / OR clause's algorithm.
type Conflict uint8

// Conflict algorithms; ConflictDefault means ABORT.
const (
	ConflictDefault Conflict = iota
	ConflictRollback
	ConflictAbort
	ConflictFail
	ConflictIgnore
	ConflictReplace
)

// CreateTable is CREATE TABLE.
type CreateTable struct {
	At           Pos
	Temp         bool // CREATE TEMP TABLE: a table of the connection
	Name         string
	IfNotExists  bool
	Columns      []ColumnDef
	Constraints  []TableConstraint
	WithoutRowid bool
	// ForeignKeys are the REFERENCES and FOREIGN KEY clauses, in the order written.
	ForeignKeys []ForeignKey
	AsSelect    *Select
	SQL         string // the statement's text, kept in the schema
}

// CreateIndex is CREATE [UNIQUE] INDEX.
type CreateIndex struct {
	At          Pos
	Name        string
	Table       string
	Unique      bool
	IfNotExists bool
	Columns     []IndexedColumn
	SQL         string
	// Where is the condition of a partial index, or nil.
	Where Expr
}

// CreateView is CREATE [TEMP] VIEW. A TEMP view exists for its connection only.
type CreateView struct {
	At          Pos
	Temp        bool
	Name        string
	IfNotExists bool
	Columns     []string
	Select      *Select
	SQL         string
}

// ObjectKind is what a DROP statement drops.
type ObjectKind uint8

// Object kinds.
const (
	TableObject ObjectKind = iota
	IndexObject
	ViewObject
)

// Drop is DROP TABLE, DROP INDEX or DROP VIEW.
type Drop struct {
	At       Pos
	Kind     ObjectKind
	Name     string
	IfExists bool
}

// Reindex is REINDEX [name].
type Reindex struct {
	At   Pos
	Name string
}

// Insert is INSERT or REPLACE.
type Insert struct {
	At            Pos
	With          *With // WITH before INSERT; nil: none
	Conflict      Conflict
	Table         string
	Columns       []string
	Select        *Select // VALUES lists are a Select of one VALUES core
	DefaultValues bool
	// Alias is the table's alias (INSERT INTO t AS a), which upsert expressions may use.
	Alias string
	// Upserts are the ON CONFLICT clauses, in order (upsert.go).
	Upserts []Upsert
	// Returning is the RETURNING list (nil: none).
	Returning []ResultColumn
}

// Assignment is one SET item of UPDATE.
type Assignment struct {
	Columns []string // more than one for (a, b) = (...)
	Expr    Expr
}

// Update is UPDATE.
type Update struct {
	At       Pos
	With     *With // WITH before UPDATE; nil: none
	Conflict Conflict
	Table    string
	Alias    string
	Set      []Assignment
	// From is UPDATE ... FROM's list (nil: none): its items join the target, whose item comes
	// first (the first of From joins it as a comma does).
	From  []FromItem
	Where Expr
	// Returning is the RETURNING list (nil: none).
	Returning []ResultColumn
}

// Delete is DELETE.
type Delete struct {
	At    Pos
	With  *With // WITH before DELETE; nil: none
	Table string
	Alias string
	Where Expr
	// Returning is the RETURNING list (nil: none).
	Returning []ResultColumn
}

// TxMode is BEGIN's mode.
type TxMode uint8

// Transaction modes.
const (
	Deferred TxMode = iota
	Immediate
	Exclusive
)

// Begin is BEGIN [DEFERRED|IMMEDIATE|EXCLUSIVE] [TRANSACTION].
type Begin struct {
	At   Pos
	Mode TxMode
}

// Commit is COMMIT or END.
type Commit struct{ At Pos }

// Rollback is ROLLBACK, or ROLLBACK TO [SAVEPOINT] name when Savepoint is set.
type Rollback struct {
	At        Pos
	Savepoint string
}

// Savepoint is SAVEPOINT name.
type Savepoint struct {
	At   Pos
	Name string
}

// Release is RELEASE [SAVEPOINT] name.
type Release struct {
	At   Pos
	Name string
}

// Explain is EXPLAIN [QUERY PLAN] stmt.
type Explain struct {
	At        Pos
	QueryPlan bool
	Stmt      Stmt
}

func (*Select) stmtNode()      {}
func (*CreateTable) stmtNode() {}
func (*CreateIndex) stmtNode() {}
func (*CreateView) stmtNode()  {}
func (*Drop) stmtNode()        {}
func (*Reindex) stmtNode()     {}
func (*Insert) stmtNode()      {}
func (*Update) stmtNode()      {}
func (*Delete) stmtNode()      {}
func (*Begin) stmtNode()       {}
func (*Commit) stmtNode()      {}
func (*Rollback) stmtNode()    {}
func (*Savepoint) stmtNode()   {}
func (*Release) stmtNode()     {}
func (*Explain) stmtNode()     {}

// Expressions.

// Literal is a constant: NULL, an integer, a real, a string or a blob.
type Literal struct {
	At    Pos
	Value value.Value
	// TrueFalse is set for SQLite's boolean literals (1 or 0): the TRUE and FALSE keywords, and
	// x IN () and x NOT IN (), which SQLite's parser turns into them. x IS TRUE and its kin test
	// the truth of x.
	TrueFalse bool
}

// ColumnRef is a column name, optionally qualified by a table name or alias. DoubleQuoted is set
// for an unqualified name written in double quotes: SQLite reads it as a string literal when no
// column has that name.
type ColumnRef struct {
	At           Pos
	Table        string
	Column       string
	DoubleQuoted bool
}

// Param is a bind parameter, numbered as SQLite numbers them (1-based); Name is its name with
// the sigil (":a", "@a", "$a"), or empty for ? and ?NNN.
type Param struct {
	At    Pos
	Index int
	Name  string
}

// UnaryOp is a prefix operator.
type UnaryOp uint8

// Unary operators.
const (
	Neg UnaryOp = iota
	Plus
	Not
	BitNot
)

// Unary is a prefix operator applied to X.
type Unary struct {
	At Pos
	Op UnaryOp
	X  Expr
}

// BinaryOp is an infix operator.
type BinaryOp uint8

// Binary operators.
const (
	Or BinaryOp = iota
	And
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	Is
	IsNot
	BitAnd
	BitOr
	ShiftLeft
	ShiftRight
	Add
	Sub
	Mul
	Div
	Rem
	Concat
)

// Binary is X Op Y.
type Binary struct {
	At Pos
	Op BinaryOp
	X  Expr
	Y  Expr
}

// Like is X [NOT] LIKE|GLOB Pattern [ESCAPE Escape].
type Like struct {
	At      Pos
	Glob    bool
	Not     bool
	X       Expr
	Pattern Expr
	Escape  Expr
}

// IsNull is X ISNULL / X IS NULL (Not false) or X NOTNULL / X NOT NULL (Not true).
type IsNull struct {
	At  Pos
	Not bool
	X   Expr
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	At     Pos
	Not    bool
	X      Expr
	Lo, Hi Expr
}

// In is X [NOT] IN (List...) or X [NOT] IN (Select).
type In struct {
	At     Pos
	Not    bool
	X      Expr
	List   []Expr
	Select *Select
}

// When is one WHEN ... THEN ... of a CASE.
type When struct {
	Cond, Result Expr
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE Else] END.
type Case struct {
	At      Pos
	Operand Expr
	Whens   []When
	Else    Expr
}

// Cast is CAST(X AS Type).
type Cast struct {
	At   Pos
	X    Expr
	Type string
}

// Collate is X COLLATE Collation.
type Collate struct {
	At        Pos
	X         Expr
	Collation string
}

// Call is a function call; Star is set for f(*). Filter is its FILTER (WHERE ...) condition and
// Over its window (window.go), each nil when absent.
type Call struct {
	At       Pos
	Name     string
	Distinct bool
	Star     bool
	Args     []Expr
	Filter   Expr
	Over     *Window
	// OrderBy is the ORDER BY inside an aggregate's parentheses (group_concat(x, ',' ORDER BY
	// y)), nil when absent: the order in which the aggregate takes its rows.
	OrderBy []OrderTerm
}

// Exists is [NOT] EXISTS (Select); NOT EXISTS arrives as Unary Not of an Exists.
type Exists struct {
	At     Pos
	Select *Select
}

// Subquery is a scalar subquery (SELECT ...).
type Subquery struct {
	At     Pos
	Select *Select
}

// Offset implementations.

func (e *Literal) Offset() Pos   { return e.At }
func (e *ColumnRef) Offset() Pos { return e.At }
func (e *Param) Offset() Pos     { return e.At }
func (e *Unary) Offset() Pos     { return e.At }
func (e *Binary) Offset() Pos    { return e.At }
func (e *Like) Offset() Pos      { return e.At }
func (e *IsNull) Offset() Pos    { return e.At }
func (e *Between) Offset() Pos   { return e.At }
func (e *In) Offset() Pos        { return e.At }
func (e *Case) Offset() Pos      { return e.At }
func (e *Cast) Offset() Pos      { return e.At }
func (e *Collate) Offset() Pos   { return e.At }
func (e *Call) Offset() Pos      { return e.At }
func (e *Exists) Offset() Pos    { return e.At }
func (e *Subquery) Offset() Pos  { return e.At }

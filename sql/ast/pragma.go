package ast

// Statements of introspection and maintenance: PRAGMA, VACUUM and ANALYZE.

// Pragma is PRAGMA [schema.]name [= value | (value)]. Value is the argument with its quotes
// removed (a string, a name, a number or a keyword, as written: "-3", "ON", "t").
type Pragma struct {
	At       Pos
	Schema   string // "" when not qualified
	Name     string
	Value    string
	HasValue bool
	// Call is set for the name(value) spelling.
	Call bool
}

// Vacuum is VACUUM [schema] [INTO expr].
type Vacuum struct {
	At     Pos
	Schema string // "" when not named
	Into   Expr   // nil without INTO
}

// Analyze is ANALYZE [name]: name is a table or index (or "main"), "" for all.
type Analyze struct {
	At   Pos
	Name string
}

func (*Pragma) stmtNode()  {}
func (*Vacuum) stmtNode()  {}
func (*Analyze) stmtNode() {}

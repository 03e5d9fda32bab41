package ast

// With is a WITH clause: common table expressions that the statement (and the queries inside
// it) may name like tables. RECURSIVE is kept as written; a CTE that names itself is recursive
// with or without it, as in SQLite.
type With struct {
	At        Pos
	Recursive bool
	CTEs      []*CTE
}

// CTE is one common table expression: name[(columns)] AS [[NOT] MATERIALIZED] (select).
type CTE struct {
	At      Pos
	Name    string
	Columns []string // nil: the select's column names
	// Materialized is the hint as written; the engine accepts it and decides for itself.
	Materialized Materialized
	Select       *Select
}

// Materialized is a CTE's MATERIALIZED hint.
type Materialized uint8

// MATERIALIZED hints.
const (
	MaterializedAny Materialized = iota // no hint
	MaterializedYes                     // AS MATERIALIZED
	MaterializedNo                      // AS NOT MATERIALIZED
)

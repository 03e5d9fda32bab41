package ast

// ForeignKey is a REFERENCES clause of a column or a FOREIGN KEY constraint of CREATE TABLE.
type ForeignKey struct {
	Columns    []string // the child columns
	Table      string   // the parent table
	RefColumns []string // the parent columns as written; nil: the parent's primary key
	// OnDelete and OnUpdate are the actions in SQLite's words: "NO ACTION" (the default),
	// "RESTRICT", "SET NULL", "SET DEFAULT" or "CASCADE". Match is the MATCH name, "NONE" if
	// none.
	OnDelete, OnUpdate, Match string
	Deferred                  bool // DEFERRABLE INITIALLY DEFERRED
}

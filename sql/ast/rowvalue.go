package ast

// RowValue is a row value, (X1, X2, ...) with two or more items (sqlite.org/rowvalue.html). It
// may stand only where SQLite allows one: an operand of a comparison (= <> < <= > >= IS IS
// NOT), of BETWEEN, the left side of IN and an item of an IN list; anywhere else the engine
// reports "row value misused".
type RowValue struct {
	At    Pos
	Items []Expr
}

// Offset returns where the row value starts.
func (e *RowValue) Offset() Pos { return e.At }

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

// RowColumn is column Index (0-based) of the first row of Select, NULL when it yields none:
// UPDATE ... SET (a, b) = (SELECT x, y ...) assigns a RowColumn to each of the Width columns,
// all sharing one Select, which must yield Width columns.
type RowColumn struct {
	At     Pos
	Select *Select
	Index  int
	Width  int
}

// Offset returns where the subquery starts.
func (e *RowColumn) Offset() Pos { return e.At }

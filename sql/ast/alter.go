package ast

// AlterKind is the form of an ALTER TABLE statement.
type AlterKind uint8

// ALTER TABLE forms.
const (
	RenameTable  AlterKind = iota // RENAME TO NewName
	RenameColumn                  // RENAME [COLUMN] Column TO NewName
	AddColumn                     // ADD [COLUMN] Def
	DropColumn                    // DROP [COLUMN] Column
)

// AlterTable is ALTER TABLE.
type AlterTable struct {
	At      Pos
	Table   string
	Kind    AlterKind
	Column  string // RenameColumn, DropColumn: the column
	NewName string // RenameTable, RenameColumn
	// Def is the column ADD COLUMN adds, DefSQL its definition's text as written (without a
	// trailing semicolon or spaces), which SQLite appends to the table's CREATE text.
	Def    *ColumnDef
	DefSQL string
}

func (*AlterTable) stmtNode() {}

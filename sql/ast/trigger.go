package ast

// Triggers (lang_createtrigger.html): CREATE TRIGGER, DROP TRIGGER and the RAISE function of
// trigger programs.

// TriggerTime is when a trigger fires: BEFORE, AFTER or INSTEAD OF the row's change.
type TriggerTime uint8

// The trigger times.
const (
	TriggerBefore TriggerTime = iota
	TriggerAfter
	TriggerInsteadOf
)

// TriggerEvent is the statement a trigger fires for.
type TriggerEvent uint8

// The trigger events.
const (
	TriggerInsert TriggerEvent = iota
	TriggerUpdate
	TriggerDelete
)

// CreateTrigger is CREATE [TEMP] TRIGGER [IF NOT EXISTS] name time event ON table [FOR EACH
// ROW] [WHEN expr] BEGIN body END. Body holds INSERT, UPDATE, DELETE and SELECT statements,
// whose expressions may read NEW.col and OLD.col (ColumnRef with Table "new" or "old") and
// call RAISE.
type CreateTrigger struct {
	At          Pos
	Temp        bool
	IfNotExists bool
	Name        string
	Time        TriggerTime
	Event       TriggerEvent
	UpdateOf    []string // UPDATE OF these columns; nil: any UPDATE
	Table       string
	When        Expr // nil: always
	Body        []Stmt
	SQL         string // the statement's text, kept in the schema
}

// DropTrigger is DROP TRIGGER [IF EXISTS] [schema.]name.
type DropTrigger struct {
	At       Pos
	Schema   string // "main", "temp", or "" (a TEMP trigger of that name first, else main's)
	Name     string
	IfExists bool
}

func (*CreateTrigger) stmtNode() {}
func (*DropTrigger) stmtNode()   {}

// RaiseAction is the first argument of RAISE.
type RaiseAction uint8

// The RAISE actions.
const (
	RaiseIgnore RaiseAction = iota
	RaiseRollback
	RaiseAbort
	RaiseFail
)

// Raise is RAISE(IGNORE) or RAISE(ROLLBACK|ABORT|FAIL, message), valid in trigger programs only.
type Raise struct {
	At      Pos
	Action  RaiseAction
	Message Expr // nil for IGNORE
}

// Offset returns the position of RAISE.
func (e *Raise) Offset() Pos { return e.At }

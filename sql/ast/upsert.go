package ast

// Upsert is one ON CONFLICT clause of an INSERT (lang_upsert.html): a conflict target (the
// columns of a UNIQUE index or the PRIMARY KEY, with an optional WHERE; none for the last
// clause) and DO NOTHING or DO UPDATE SET ... [WHERE ...]. The SET and WHERE expressions read the
// existing row by the table's name (or the INSERT's alias) and the row that was to be inserted as
// excluded.COLUMN.
type Upsert struct {
	At          Pos
	Target      []IndexedColumn // nil: any uniqueness constraint
	TargetWhere Expr            // the target's WHERE (matches a partial index), or nil
	DoNothing   bool
	Set         []Assignment // DO UPDATE SET
	Where       Expr         // DO UPDATE's WHERE, or nil
}

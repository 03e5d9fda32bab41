package engine

import (
	"cmp"
	"slices"
)

// Object is a table, index, view or trigger of the schema, as SQLite's sqlite_schema table lists it.
type Object struct {
	// Type is "table", "index", "view" or "trigger".
	Type string
	// Name is the object's name as created; Table is the table an index or trigger is on (a
	// table's or view's own name).
	Name, Table string
	// SQL is the CREATE statement's text as it was given, without the final semicolon; empty for
	// the automatic index of a UNIQUE or PRIMARY KEY constraint.
	SQL string
	// Temp is set for a TEMP table, its indexes, a TEMP view and a TEMP trigger, which only its
	// session sees.
	Temp bool
	// Unique is set for an index that enforces uniqueness.
	Unique bool
}

// Objects returns the tables, indexes and views this session sees: those of its open
// transaction (its own DDL included), or of the newest snapshot, and its TEMP views. Each table
// comes in the order of creation, followed by its indexes (the automatic ones first, then the
// explicit ones in the order of creation); then the session's TEMP tables in the same way; then
// the views, by name; then the triggers, in the order of creation (the TEMP ones last). The order is one that
// re-creates the schema when the SQL texts are run again, views on views aside.
func (s *Session) Objects() ([]Object, error) {
	read, err := s.readTx(nil)
	if err != nil {
		return nil, err
	}
	defer read.end()
	tx := read.tx
	schema, err := s.schemaOf(tx)
	if err != nil {
		return nil, err
	}
	tables := make([]*Table, 0, len(schema.tables))
	for _, t := range schema.tables {
		tables = append(tables, t)
	}
	slices.SortFunc(tables, func(a, b *Table) int { return cmp.Compare(a.ID, b.ID) })
	var out []Object
	for _, t := range tables {
		out = append(out, Object{Type: "table", Name: t.Name, Table: t.Name, SQL: t.SQL})
		ixs := slices.Clone(t.Indexes)
		slices.SortFunc(ixs, func(a, b *Index) int { return cmp.Compare(a.ID, b.ID) })
		for _, ix := range ixs {
			out = append(out, Object{Type: "index", Name: ix.Name, Table: t.Name, SQL: ix.SQL, Unique: ix.Unique})
		}
	}
	temps := make([]*Table, 0)
	if s.temp != nil {
		for _, t := range s.temp.tables {
			temps = append(temps, t)
		}
	}
	slices.SortFunc(temps, func(a, b *Table) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range temps {
		out = append(out, Object{Type: "table", Name: t.Name, Table: t.Name, SQL: t.SQL, Temp: true})
		ixs := slices.Clone(t.Indexes)
		slices.SortFunc(ixs, func(a, b *Index) int { return cmp.Compare(a.ID, b.ID) })
		for _, ix := range ixs {
			out = append(out, Object{Type: "index", Name: ix.Name, Table: t.Name, SQL: ix.SQL, Unique: ix.Unique, Temp: true})
		}
	}
	var views []Object
	for _, v := range schema.views {
		views = append(views, Object{Type: "view", Name: v.Name, Table: v.Name, SQL: v.SQL})
	}
	for _, v := range s.tempViews {
		views = append(views, Object{Type: "view", Name: v.Name, Table: v.Name, SQL: v.SQL, Temp: true})
	}
	slices.SortFunc(views, func(a, b Object) int {
		return cmp.Or(cmp.Compare(fold(a.Name), fold(b.Name)), compareBool(a.Temp, b.Temp))
	})
	out = append(out, views...)
	var triggers []*Trigger
	for _, tr := range schema.triggers {
		triggers = append(triggers, tr)
	}
	slices.SortFunc(triggers, func(a, b *Trigger) int { return cmp.Compare(a.ID, b.ID) })
	for _, tr := range triggers {
		table := tr.Table
		if t := schema.table(tr.Table); t != nil {
			table = t.Name
		} else if v := schema.view(tr.Table); v != nil {
			table = v.Name
		}
		out = append(out, Object{Type: "trigger", Name: tr.Name, Table: table, SQL: tr.SQL})
	}
	if s.tempTrigs() != nil {
		triggers = triggers[:0]
		for _, tr := range s.tempTrigs().triggers {
			triggers = append(triggers, tr)
		}
		slices.SortFunc(triggers, func(a, b *Trigger) int { return cmp.Compare(b.ID, a.ID) }) // creation order
		for _, tr := range triggers {
			out = append(out, Object{Type: "trigger", Name: tr.Name, Table: tr.Table, SQL: tr.SQL, Temp: true})
		}
	}
	return out, nil
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

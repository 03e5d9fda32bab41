package engine

// The schema: tables, indexes and views, kept in the database itself. Invariants:
//   - The schema bucket (schemaBucket) holds one entry per object, keyed by its name folded to
//     lower case, whose value is a record (type, name, table name, id, SQL text); the text is
//     what CREATE said, and re-parsing it gives the object back. The entry cookieKey holds a
//     counter that every schema change increments in the same transaction, so a transaction
//     knows from one Get whether its cached Schema is the one its snapshot holds.
//   - Each table's rows are in bucket tableBucket(id), each index's entries in indexBucket(id);
//     ids are never reused (nextIDKey).
// FORMAT.md, "SQL schema", gives the bytes.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/parse"
	"github.com/cairndb/cairn/sql/value"
)

// Names of the SQL layer's cairn buckets (on-disk format). They start with 0x00 so that they sort
// before, and do not collide with, the buckets an application names in text.
var (
	schemaBucket = []byte("\x00sql/schema")
	cookieKey    = []byte("\x00cookie")
	nextIDKey    = []byte("\x00next-id")
	versionKey   = []byte("\x00version")
)

// schemaVersionOf decodes a stored layout version (0 if malformed).
func schemaVersionOf(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// formatVersion is the version of the SQL layer's layout (schema entries, keys, records) that
// this build writes: FORMAT.md, "SQL schema". It also reads version 2, which differs only in
// having no records shorter than their table (version 3's ALTER TABLE ADD COLUMN leaves them, and
// they read the column's default); a version-2 database becomes version 3 at its first ADD
// COLUMN, so that a build reading version 2 only refuses it instead of reading NULLs.
const (
	formatVersion    = 3
	oldFormatVersion = 2
)

func tableBucket(id int64) []byte { return fmt.Appendf(nil, "\x00sql/t/%d", id) }
func indexBucket(id int64) []byte { return fmt.Appendf(nil, "\x00sql/i/%d", id) }

// Column is a column of a table.
type Column struct {
	Name      string
	Type      string // as declared
	Affinity  value.Affinity
	Collation value.Collation
	NotNull   bool
	// NotNullConflict is the ON CONFLICT clause of NOT NULL.
	NotNullConflict ast.Conflict
	Default         ast.Expr // nil: NULL
	DefaultText     string   // the DEFAULT expression as written (PRAGMA table_info)
	// PK is the column's position in the primary key plus one (0: not in it).
	PK int
	// unique is set for a column with a UNIQUE constraint of its own (ALTER TABLE DROP COLUMN
	// refuses it).
	unique bool
	// Generated is the expression of a generated column (generated.go), nil for others;
	// Stored is set for a STORED one.
	Generated ast.Expr
	Stored    bool
}

// Table is a table of the schema.
type Table struct {
	Name    string
	ID      int64
	SQL     string
	Columns []Column
	// RowidColumn is the column that is an alias of the rowid (INTEGER PRIMARY KEY), or -1.
	RowidColumn int
	// WithoutRowid tables are clustered by their primary key, PrimaryKey.
	WithoutRowid bool
	PrimaryKey   []IndexColumn // for WITHOUT ROWID (and informative for others)
	// PKConflict is the ON CONFLICT clause of the PRIMARY KEY (the rowid's, for an INTEGER
	// PRIMARY KEY).
	PKConflict ast.Conflict
	Checks     []ast.Check
	// ForeignKeys are the table's foreign keys as declared (PRAGMA foreign_key_list).
	ForeignKeys []ast.ForeignKey
	Indexes     []*Index // every index of the table, the automatic ones of UNIQUE included
	// AutoInc is set for an INTEGER PRIMARY KEY declared AUTOINCREMENT (autoinc.go).
	AutoInc bool
	bucket  []byte
	// missing holds, per column, the value a row whose record ends before the column reads: its
	// constant DEFAULT with the column's affinity applied, else NULL. ALTER TABLE ADD COLUMN
	// leaves the existing records as they are, as SQLite does.
	missing []value.Value
	// temp marks a TEMP table (temp.go), which is no part of the schema.
	temp bool
	// gen lists the generated columns in the order they are computed (generated.go).
	gen []genColumn
	// autoOrder lists the automatic indexes (positions in Indexes, -1 for the primary key of a
	// WITHOUT ROWID table) in the order SQLite makes them: the order of the constraints in
	// CREATE TABLE. SQLite checks UNIQUE constraints newest index first (uniqueCheckOrder).
	autoOrder []int
}

// uniqueCheckOrder returns the UNIQUE constraints of t in the order SQLite checks them, which
// decides the message when a row violates several: the newest index first (explicit UNIQUE
// indexes from the last made, then the constraints of CREATE TABLE from the last declared).
// Each is a position in t.Indexes, or -1 for the primary key of a WITHOUT ROWID table.
func (t *Table) uniqueCheckOrder() []int {
	var out []int
	for i := len(t.Indexes) - 1; i >= 0; i-- {
		if t.Indexes[i].SQL != "" && t.Indexes[i].Unique {
			out = append(out, i)
		}
	}
	for i := len(t.autoOrder) - 1; i >= 0; i-- {
		out = append(out, t.autoOrder[i])
	}
	return out
}

// IndexColumn is a column of an index or primary key.
type IndexColumn struct {
	Column    int // the table column, or exprColumn for an expression (expr)
	Desc      bool
	Collation value.Collation
	expr      *indexExpr
}

// Index is an index of a table (explicit, or made for a UNIQUE or PRIMARY KEY constraint).
type Index struct {
	Name    string
	ID      int64
	SQL     string // empty for an automatic index
	Table   *Table
	Columns []IndexColumn
	Unique  bool
	// Conflict is the ON CONFLICT clause of the UNIQUE or PRIMARY KEY constraint it enforces.
	Conflict ast.Conflict
	bucket   []byte
	// primary marks the primary key of a WITHOUT ROWID table seen as an index (choose.go): its
	// entries are the table's rows.
	primary bool
	// where is the condition of a partial index (exprindex.go), or nil.
	where *indexExpr
}

// View is a view of the schema.
type View struct {
	Name    string
	SQL     string
	Columns []string // the column list of CREATE VIEW, or nil
	Select  *ast.Select
}

// Schema is the set of objects of one version of the database. A Schema is immutable once
// loaded; a DDL statement works on a copy (clone).
type Schema struct {
	cookie  int64
	tables  map[string]*Table // by lower-case name
	indexes map[string]*Index
	views   map[string]*View
	// triggers by lower-case name, and by the lower-case name of their table or view, newest
	// first (trigger.go); nil when there is none.
	triggers      map[string]*Trigger
	tableTriggers map[string][]*Trigger
}

// fold folds a name for lookups: ASCII letters to lower case, as SQLite compares identifiers
// (other characters are compared as they are).
func fold(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

func (s *Schema) table(name string) *Table { return s.tables[fold(name)] }
func (s *Schema) index(name string) *Index { return s.indexes[fold(name)] }
func (s *Schema) view(name string) *View   { return s.views[fold(name)] }

// objectExists reports whether name is taken by a table, index or view.
func (s *Schema) objectExists(name string) bool {
	n := fold(name)
	return s.tables[n] != nil || s.indexes[n] != nil || s.views[n] != nil
}

// clone returns a copy of s whose maps can be changed; the objects are shared (a DDL statement
// replaces an object rather than changing it).
func (s *Schema) clone() *Schema {
	c := &Schema{cookie: s.cookie, tables: make(map[string]*Table, len(s.tables)),
		indexes: make(map[string]*Index, len(s.indexes)), views: make(map[string]*View, len(s.views))}
	for k, v := range s.tables {
		c.tables[k] = v
	}
	for k, v := range s.indexes {
		c.indexes[k] = v
	}
	for k, v := range s.views {
		c.views[k] = v
	}
	s.cloneTriggers(c)
	return c
}

func emptySchema() *Schema {
	return &Schema{tables: map[string]*Table{}, indexes: map[string]*Index{}, views: map[string]*View{}}
}

// readCookie returns the schema cookie of tx's snapshot (0 for a database without SQL objects).
func readCookie(tx *cairn.Tx) (int64, error) { return readSchemaInt(tx, cookieKey) }

// readSchemaInt reads the 8-byte integer entry key of the schema bucket (the cookie,
// user_version, application_id): 0 when the bucket or the entry does not exist.
func readSchemaInt(tx *cairn.Tx, key []byte) (int64, error) {
	b, err := tx.Bucket(schemaBucket)
	if errors.Is(err, cairn.ErrBucketNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	v, err := b.Get(key)
	switch {
	case errors.Is(err, cairn.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	case len(v) != 8:
		return 0, fmt.Errorf("sql: schema entry %q of %d bytes: %w", key[1:], len(v), cairn.ErrCorrupt)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// schemaEntry is one object's entry in the schema bucket.
type schemaEntry struct {
	kind, name, table, sql string
	id                     int64
}

// loadSchema reads the schema of tx's snapshot, whose cookie is cookie.
func loadSchema(tx *cairn.Tx, cookie int64) (*Schema, error) {
	s := emptySchema()
	s.cookie = cookie
	b, err := tx.Bucket(schemaBucket)
	if errors.Is(err, cairn.ErrBucketNotFound) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if v, err := b.Get(versionKey); err == nil {
		if n := schemaVersionOf(v); n != formatVersion && n != oldFormatVersion && n != triggerFormatVersion {
			return nil, fmt.Errorf("sql: schema layout version %d is not supported (this build reads versions %d to %d): %w",
				n, oldFormatVersion, triggerFormatVersion, cairn.ErrCorrupt)
		}
	}
	var entries []schemaEntry
	for k, v := range b.Range(nil, nil) {
		if len(k) > 0 && k[0] == 0 {
			continue // cookie, next id, version
		}
		vals, err := codec.DecodeRecord(v, nil)
		if err != nil || len(vals) != 5 {
			return nil, fmt.Errorf("sql: schema entry %q: %w", k, cairn.ErrCorrupt)
		}
		entries = append(entries, schemaEntry{kind: string(vals[0].Bytes()), name: string(vals[1].Bytes()),
			table: string(vals[2].Bytes()), id: vals[3].Int(), sql: string(vals[4].Bytes())})
	}
	if err := tx.Err(); err != nil {
		return nil, err
	}
	// Tables first: indexes and views refer to them.
	for _, pass := range []string{"table", "index", "view", "trigger"} {
		for _, e := range entries {
			if e.kind != pass {
				continue
			}
			if err := s.addEntry(e); err != nil {
				return nil, fmt.Errorf("sql: schema entry %s %s: %w", e.kind, e.name, err)
			}
		}
	}
	return s, nil
}

// addEntry re-creates the object of e in s from its SQL text.
func (s *Schema) addEntry(e schemaEntry) error {
	if e.sql == "" {
		return nil // an automatic index: made with its table
	}
	stmts, err := parse.Parse(e.sql)
	if err != nil {
		return err
	}
	if len(stmts) != 1 {
		return fmt.Errorf("not one statement: %w", cairn.ErrCorrupt)
	}
	switch st := stmts[0].Stmt.(type) {
	case *ast.CreateTable:
		t, err := newTable(st, e.id)
		if err != nil {
			return err
		}
		s.addTable(t)
	case *ast.CreateIndex:
		t := s.table(st.Table)
		if t == nil {
			return fmt.Errorf("no such table: %s: %w", st.Table, cairn.ErrCorrupt)
		}
		ix, err := newIndex(st, t, e.id)
		if err != nil {
			return err
		}
		s.addIndex(ix)
	case *ast.CreateView:
		s.views[fold(st.Name)] = &View{Name: st.Name, SQL: e.sql, Columns: st.Columns, Select: st.Select}
	case *ast.CreateTrigger:
		s.addTrigger(newTrigger(st, e.id))
	default:
		return fmt.Errorf("unexpected statement: %w", cairn.ErrCorrupt)
	}
	return nil
}

// addTable adds t and its automatic indexes to s (replacing any table of that name).
func (s *Schema) addTable(t *Table) {
	s.tables[fold(t.Name)] = t
	for _, ix := range t.Indexes {
		s.indexes[fold(ix.Name)] = ix
	}
}

// addIndex adds an explicit index, giving its table a new Table value that lists it.
func (s *Schema) addIndex(ix *Index) {
	t := *ix.Table
	t.Indexes = append(append([]*Index(nil), t.Indexes...), ix)
	s.replaceTable(&t)
	ix.Table = &t
	s.indexes[fold(ix.Name)] = ix
}

// replaceTable puts t in place of the table of the same name, pointing its indexes at it.
func (s *Schema) replaceTable(t *Table) {
	for i, ix := range t.Indexes {
		c := *ix
		c.Table = t
		t.Indexes[i] = &c
		s.indexes[fold(c.Name)] = &c
	}
	s.tables[fold(t.Name)] = t
}

// newTable builds a table from its CREATE TABLE statement.
func newTable(st *ast.CreateTable, id int64) (*Table, error) {
	t := &Table{Name: st.Name, ID: id, SQL: st.SQL, RowidColumn: -1, WithoutRowid: st.WithoutRowid,
		bucket: tableBucket(id), ForeignKeys: st.ForeignKeys}
	seen := map[string]bool{}
	var pk []IndexColumn
	pkSeen := false
	pkPos := 0 // where the primary key's automatic index goes among the UNIQUE ones (declaration order)
	var uniques [][]IndexColumn
	var conflicts []ast.Conflict
	for i, cd := range st.Columns {
		if seen[fold(cd.Name)] {
			return nil, fmt.Errorf("duplicate column name: %s", cd.Name)
		}
		seen[fold(cd.Name)] = true
		col := Column{Name: cd.Name, Type: cd.Type, Affinity: value.AffinityOf(cd.Type), NotNull: cd.NotNull,
			NotNullConflict: cd.NotNullConf, Default: cd.Default, DefaultText: cd.DefaultText, unique: cd.Unique,
			Generated: cd.Generated, Stored: cd.Stored}
		if cd.Collation != "" {
			c, ok := value.CollationByName(cd.Collation)
			if !ok {
				return nil, fmt.Errorf("no such collation sequence: %s", cd.Collation)
			}
			col.Collation = c
		}
		t.Checks = append(t.Checks, cd.Checks...)
		t.Columns = append(t.Columns, col)
		if cd.PrimaryKey {
			if pkSeen {
				return nil, fmt.Errorf("table %q has more than one primary key", st.Name)
			}
			pkSeen, pkPos = true, len(uniques)
			pk = []IndexColumn{{Column: i, Desc: cd.PKDesc, Collation: col.Collation}}
			t.PKConflict = cd.PKConflict
		}
		if cd.Unique {
			uniques = append(uniques, []IndexColumn{{Column: i, Collation: col.Collation}})
			conflicts = append(conflicts, cd.UniqueConf)
		}
	}
	for _, tc := range st.Constraints {
		switch tc.Kind {
		case ast.CheckConstraint:
			if tc.Check != nil {
				t.Checks = append(t.Checks, *tc.Check)
			}
		case ast.PrimaryKey, ast.UniqueKey:
			cols, err := t.indexColumns(tc.Columns)
			if err != nil {
				return nil, err
			}
			if tc.Kind == ast.UniqueKey {
				uniques = append(uniques, cols)
				conflicts = append(conflicts, tc.Conflict)
				continue
			}
			if pkSeen {
				return nil, fmt.Errorf("table %q has more than one primary key", st.Name)
			}
			pkSeen, pk, t.PKConflict, pkPos = true, cols, tc.Conflict, len(uniques)
		}
	}
	t.missing = make([]value.Value, len(t.Columns))
	for i, c := range t.Columns {
		if v, ok := literalDefault(c.Default); ok {
			t.missing[i] = c.Affinity.Apply(v)
		}
	}
	t.PrimaryKey = pk
	for i, c := range pk {
		t.Columns[c.Column].PK = i + 1
	}
	isInteger := len(pk) == 1 && strings.EqualFold(t.Columns[pk[0].Column].Type, "INTEGER") && !pk[0].Desc
	switch {
	case t.WithoutRowid && len(pk) == 0:
		return nil, fmt.Errorf("PRIMARY KEY missing on table %s", st.Name)
	case t.WithoutRowid:
		for _, c := range pk {
			t.Columns[c.Column].NotNull = true
		}
	case isInteger:
		// INTEGER PRIMARY KEY (exactly that type name, ascending) is the rowid (lang_createtable.html).
		t.RowidColumn = pk[0].Column
		t.AutoInc = autoIncOf(st)
	case len(pk) > 0:
		uniques = append(uniques[:pkPos], append([][]IndexColumn{pk}, uniques[pkPos:]...)...)
		conflicts = append(conflicts[:pkPos], append([]ast.Conflict{t.PKConflict}, conflicts[pkPos:]...)...)
	}
	if len(uniques) >= idStep {
		return nil, fmt.Errorf("too many UNIQUE constraints on table %s (at most %d)", st.Name, idStep-1)
	}
	for i, cols := range uniques {
		name := fmt.Sprintf("sqlite_autoindex_%s_%d", st.Name, i+1)
		t.Indexes = append(t.Indexes, &Index{Name: name, ID: autoIndexID(id, i), Table: t, Columns: cols,
			Unique: true, Conflict: conflicts[i], bucket: indexBucket(autoIndexID(id, i))})
	}
	// The order in which SQLite makes the constraints' indexes: as CREATE TABLE declares them
	// (a rowid table's primary key index is already at its place, pkPos), but a WITHOUT ROWID
	// table's INTEGER PRIMARY KEY last (when the table is complete).
	for i := range uniques {
		t.autoOrder = append(t.autoOrder, i)
	}
	switch {
	case t.WithoutRowid && isInteger:
		t.autoOrder = append(t.autoOrder, -1)
	case t.WithoutRowid:
		t.autoOrder = slices.Insert(t.autoOrder, pkPos, -1)
	}
	// SQLite makes no index for a constraint on the columns (and collations) of an earlier one,
	// so only the earlier one is checked.
	var kept []int
	for _, k := range t.autoOrder {
		dup := false
		for _, j := range kept {
			dup = dup || sameKeyColumns(t.constraintColumns(k), t.constraintColumns(j))
		}
		if !dup {
			kept = append(kept, k)
		}
	}
	t.autoOrder = kept
	if err := t.bindGenerated(st.Columns); err != nil {
		return nil, err
	}
	return t, nil
}

// constraintColumns returns the columns of an entry of autoOrder.
func (t *Table) constraintColumns(k int) []IndexColumn {
	if k < 0 {
		return t.PrimaryKey
	}
	return t.Indexes[k].Columns
}

// sameKeyColumns reports whether two constraints have the same columns, in the same order, with
// the same collations (their directions do not matter).
func sameKeyColumns(a, b []IndexColumn) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Column != b[i].Column || a[i].Collation != b[i].Collation {
			return false
		}
	}
	return true
}

// autoIndexID is the id of the i-th automatic index of table id: ids of tables and explicit
// indexes are multiples of 1024 (nextID steps by 1024), so a table's automatic indexes take the
// ids after its own.
func autoIndexID(table int64, i int) int64 { return table + 1 + int64(i) }

// idStep is how far apart object ids are: room for a table's automatic indexes.
const idStep = 1024

// indexColumns resolves the columns of an index or constraint.
func (t *Table) indexColumns(cols []ast.IndexedColumn) ([]IndexColumn, error) {
	var out []IndexColumn
	for _, ic := range cols {
		i := t.columnIndex(ic.Name)
		if i < 0 {
			return nil, fmt.Errorf("no such column: %s", ic.Name)
		}
		coll, err := indexCollation(ic, t.Columns[i].Collation)
		if err != nil {
			return nil, err
		}
		out = append(out, IndexColumn{Column: i, Desc: ic.Desc, Collation: coll})
	}
	return out, nil
}

// indexCollation is the collation of an index column: its COLLATE's, else def (the column's or
// the expression's).
func indexCollation(ic ast.IndexedColumn, def value.Collation) (value.Collation, error) {
	if ic.Collation == "" {
		return def, nil
	}
	coll, ok := value.CollationByName(ic.Collation)
	if !ok {
		return 0, fmt.Errorf("no such collation sequence: %s", ic.Collation)
	}
	return coll, nil
}

// columnIndex returns the index of the column called name, or -1.
func (t *Table) columnIndex(name string) int {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return i
		}
	}
	return -1
}

// newIndex builds an index from its CREATE INDEX statement.
func newIndex(st *ast.CreateIndex, t *Table, id int64) (*Index, error) {
	cols, err := exprIndexColumns(t, st.Columns)
	if err != nil {
		return nil, err
	}
	ix := &Index{Name: st.Name, ID: id, SQL: st.SQL, Table: t, Columns: cols, Unique: st.Unique,
		bucket: indexBucket(id)}
	if st.Where != nil {
		if ix.where, err = bindIndexExpr(t, st.Where, "partial index WHERE clauses"); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

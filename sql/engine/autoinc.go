package engine

// AUTOINCREMENT (autoinc.html). A table whose INTEGER PRIMARY KEY is declared AUTOINCREMENT never
// reuses a rowid, not even that of its largest row after it is deleted: the largest rowid it has
// ever held is kept in the table sqlite_sequence(name, seq), one row per table, as SQLite keeps it.
//   - sqlite_sequence is an ordinary table of the schema (no layout of its own), made by the
//     first CREATE TABLE with AUTOINCREMENT, in the same transaction, and never dropped. Programs
//     may read it and change its rows; they may not drop it, index it or create a table of that
//     name.
//   - An INSERT into an AUTOINCREMENT table reads the first row of sqlite_sequence (in rowid
//     order) whose name is the table's (seq as CAST(seq AS INTEGER); 0 without a row). A new
//     rowid is one more than the larger of seq and the largest rowid (1 for an empty table);
//     seq then takes it, and an explicit rowid larger than seq raises seq to it. Rowids given to
//     rows that IGNORE or an upsert then skip count too. When the statement ends, seq is written
//     back to that row, or to a new row when there was none (even if the statement inserted
//     nothing). seq at 9223372036854775807 is "database or disk is full".
//   - DROP TABLE deletes the table's rows of sqlite_sequence; UPDATE leaves seq alone.
//   - A database whose AUTOINCREMENT tables were made before cairn kept sqlite_sequence has no
//     such table; its inserts take the largest rowid plus one, as before, until a CREATE TABLE
//     with AUTOINCREMENT makes it.

import (
	"errors"
	"math"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/parse"
	"github.com/cairndb/cairn/sql/value"
)

const (
	seqTableName = "sqlite_sequence"
	seqTableSQL  = "CREATE TABLE sqlite_sequence(name,seq)"
)

// errFull is SQLite's SQLITE_FULL, for an AUTOINCREMENT table whose rowids are used up.
var errFull = errors.New("database or disk is full")

// autoIncOf validates the AUTOINCREMENT of CREATE TABLE st, whose table is t: it must be on the
// INTEGER PRIMARY KEY of a rowid table.
func autoIncOf(st *ast.CreateTable) bool {
	for _, c := range st.Columns {
		if c.AutoInc {
			return true
		}
	}
	for _, tc := range st.Constraints {
		if tc.Kind == ast.PrimaryKey && tc.AutoInc {
			return true
		}
	}
	return false
}

// checkAutoInc returns SQLite's error for an AUTOINCREMENT that is not on the rowid.
func checkAutoInc(st *ast.CreateTable, t *Table) error {
	if !autoIncOf(st) {
		return nil
	}
	intPK := len(t.PrimaryKey) == 1 && !t.PrimaryKey[0].Desc &&
		strings.EqualFold(t.Columns[t.PrimaryKey[0].Column].Type, "INTEGER")
	if !intPK {
		return errors.New("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY")
	}
	if t.WithoutRowid {
		return errors.New("AUTOINCREMENT not allowed on WITHOUT ROWID tables")
	}
	return nil
}

// addSeqTable makes sqlite_sequence in s, the schema being built by CREATE TABLE, if s has none.
func (x *execCtx) addSeqTable(b *cairn.Bucket, s *Schema) error {
	if s.table(seqTableName) != nil {
		return nil
	}
	stmts, err := parse.Parse(seqTableSQL)
	if err != nil {
		return err
	}
	st := stmts[0].Stmt.(*ast.CreateTable)
	st.SQL = seqTableSQL
	id, err := x.newID(b)
	if err != nil {
		return err
	}
	t, err := newTable(st, id)
	if err != nil {
		return err
	}
	if _, err := x.tx.CreateBucket(t.bucket); err != nil {
		return err
	}
	if err := putEntry(b, schemaEntry{kind: "table", name: t.Name, table: t.Name, id: id, sql: seqTableSQL}); err != nil {
		return err
	}
	s.addTable(t)
	return nil
}

// seqState is the sqlite_sequence entry of one AUTOINCREMENT table during an INSERT.
type seqState struct {
	seqT *Table // sqlite_sequence; nil if the database has none
	t    *Table
	// row is the entry found (nil: none), at rowid rowid.
	row   []value.Value
	rowid int64
	seq   int64
}

// loadSeq reads t's entry of sqlite_sequence.
func (x *execCtx) loadSeq(t *Table) (*seqState, error) {
	st := &seqState{seqT: x.schema.table(seqTableName), t: t}
	if st.seqT == nil {
		return st, nil
	}
	b, err := x.bucket(st.seqT.bucket)
	if err != nil {
		return nil, err
	}
	for k, v := range b.Range(nil, nil) {
		rowid, err := codec.Rowid(k)
		if err != nil {
			return nil, err
		}
		row, err := decodeRow(st.seqT, rowid, v, nil)
		if err != nil {
			return nil, err
		}
		if name := row[0]; name.Kind() == value.Text && string(name.Bytes()) == t.Name {
			st.row, st.rowid, st.seq = cloneRow(row), rowid, value.ToInt(row[1])
			break
		}
	}
	return st, x.tx.Err()
}

// next returns the rowid of a new row without an explicit one.
func (s *seqState) next(x *execCtx) (int64, error) {
	b, err := x.bucket(s.t.bucket)
	if err != nil {
		return 0, err
	}
	id := int64(1)
	if k, _ := b.Cursor().Last(); k != nil {
		last, err := codec.Rowid(k)
		if err != nil {
			return 0, err
		}
		if last == math.MaxInt64 {
			return 0, errFull
		}
		id = last + 1
	}
	if s.seq >= id {
		if s.seq == math.MaxInt64 {
			return 0, errFull
		}
		id = s.seq + 1
	}
	s.seq = id
	return id, nil
}

// saw records an explicit rowid.
func (s *seqState) saw(id int64) {
	if id > s.seq {
		s.seq = id
	}
}

// store writes seq back to sqlite_sequence at the end of the INSERT.
func (s *seqState) store(x *execCtx) error {
	if s.seqT == nil {
		return nil
	}
	if x.trg != nil {
		// A trigger program may have inserted into the table, and written its entry, since
		// loadSeq: keep the larger seq, in the one entry.
		fresh, err := x.loadSeq(s.t)
		if err != nil {
			return err
		}
		if fresh.row != nil {
			s.row, s.rowid, s.seq = fresh.row, fresh.rowid, max(s.seq, fresh.seq)
		}
	}
	if s.row != nil {
		if old := s.row[1]; old.Kind() == value.Integer && old.Int() == s.seq {
			return nil
		}
		row := cloneRow(s.row)
		row[1] = value.Int(s.seq)
		return x.writeRow(s.seqT, row, s.rowid)
	}
	rowid, err := x.nextRowid(s.seqT)
	if err != nil {
		return err
	}
	row := []value.Value{value.TextString(s.t.Name), value.Int(s.seq), value.Int(rowid)}
	return x.writeRow(s.seqT, row, rowid)
}

// dropSeq deletes the entries of t, a dropped AUTOINCREMENT table, from sqlite_sequence.
func (x *execCtx) dropSeq(t *Table) error {
	seqT := x.schema.table(seqTableName)
	if seqT == nil {
		return nil
	}
	b, err := x.bucket(seqT.bucket)
	if err != nil {
		return err
	}
	var keys [][]byte
	for k, v := range b.Range(nil, nil) {
		rowid, err := codec.Rowid(k)
		if err != nil {
			return err
		}
		row, err := decodeRow(seqT, rowid, v, nil)
		if err != nil {
			return err
		}
		if name := row[0]; name.Kind() == value.Text && string(name.Bytes()) == t.Name {
			keys = append(keys, append([]byte(nil), k...))
		}
	}
	if err := x.tx.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

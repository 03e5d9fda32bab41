package engine

// PRAGMA integrity_check and quick_check: cairn's storage check (cairn.DB.Check) and the SQL
// layer's own, over the session's snapshot: every row's record decodes and its NOT NULL columns
// hold values, every index has one entry per row (quick_check counts them; integrity_check also
// looks up each row's entry and compares its value). The result is one row 'ok', or one row per
// problem, at most N (the argument, default 100).

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// integrityCheck runs PRAGMA integrity_check or quick_check [(N | table)].
func (s *Session) integrityCheck(ctx context.Context, name string, p *ast.Pragma) (pragmaResult, error) {
	limit, table := 100, ""
	if p.HasValue {
		if n, err := strconv.Atoi(p.Value); err == nil {
			if n > 0 {
				limit = n
			}
		} else {
			table = p.Value
		}
	}
	if table != "" {
		exists := false
		if err := s.reading(ctx, func(cx *execCtx) error { exists = cx.table(table) != nil; return nil }); err != nil {
			return pragmaResult{}, err
		}
		if !exists {
			return pragmaResult{}, fmt.Errorf("no such table: %s", table)
		}
	}
	var problems []string
	// cairn's check takes the writer slot: a session that holds it (its own write transaction)
	// checks the SQL layer only.
	if s.tx == nil || !s.tx.Writable() {
		if err := s.eng.database().Check(); err != nil {
			var joined interface{ Unwrap() []error }
			if errors.As(err, &joined) {
				for _, e := range joined.Unwrap() {
					problems = append(problems, e.Error())
				}
			} else {
				if !errors.Is(err, cairn.ErrCorrupt) {
					return pragmaResult{}, err
				}
				problems = append(problems, err.Error())
			}
		}
	}
	err := s.reading(ctx, func(cx *execCtx) error {
		tables := make([]*Table, 0, len(cx.schema.tables))
		for _, t := range cx.schema.tables {
			tables = append(tables, t)
		}
		slices.SortFunc(tables, func(a, b *Table) int { return cmp.Compare(a.ID, b.ID) })
		tables = append(tables, s.tempTables()...)
		for _, t := range tables {
			if table != "" && fold(table) != fold(t.Name) {
				continue
			}
			more, err := checkTable(cx, t, name == "integrity_check")
			if err != nil {
				return err
			}
			problems = append(problems, more...)
		}
		return nil
	})
	if err != nil {
		return pragmaResult{}, err
	}
	res := pragmaResult{names: []string{name}}
	if len(problems) == 0 {
		problems = []string{"ok"}
	}
	for i, pr := range problems {
		if i == limit {
			break
		}
		res.rows = append(res.rows, []value.Value{value.TextString(pr)})
	}
	return res, nil
}

// checkTable checks t's rows and index entries (each row's entry only if full; the number of
// entries always, a partial index counting the rows its WHERE admits) and returns the problems,
// in SQLite's words where SQLite has them.
func checkTable(cx *execCtx, t *Table, full bool) ([]string, error) {
	var problems []string
	b, err := cx.tx.Bucket(t.bucket)
	if err != nil {
		return []string{fmt.Sprintf("storage of table %s: %v", t.Name, err)}, nil
	}
	type ixState struct {
		ix   *Index
		b    *cairn.Bucket
		want int64 // the entries the rows call for (a partial index: those meeting its WHERE)
	}
	var ixs []ixState
	for _, ix := range t.Indexes {
		ib, err := cx.tx.Bucket(ix.bucket)
		if err != nil {
			problems = append(problems, fmt.Sprintf("storage of index %s: %v", ix.Name, err))
			continue
		}
		ixs = append(ixs, ixState{ix: ix, b: ib})
	}
	var rows int64
	var row []value.Value
	for k, v := range b.Range(nil, nil) {
		rows++
		if err := cx.tick(); err != nil {
			return nil, err
		}
		var rowid int64
		if !t.WithoutRowid {
			id, err := codec.Rowid(k)
			if err != nil {
				problems = append(problems, fmt.Sprintf("row %d of %s: malformed key", rows, t.Name))
				continue
			}
			rowid = id
		}
		row, err = decodeRow(t, rowid, v, row)
		if err != nil {
			problems = append(problems, fmt.Sprintf("row %d of %s: malformed record", rows, t.Name))
			continue
		}
		for i, c := range t.Columns {
			if c.NotNull && row[i].IsNull() {
				problems = append(problems, fmt.Sprintf("NULL value in %s.%s", t.Name, c.Name))
			}
		}
		for i := range ixs {
			is := &ixs[i]
			key, want, err := is.ix.entry(row, rowid)
			if err != nil {
				problems = append(problems, fmt.Sprintf("row %d of %s: index %s: %v", rows, t.Name, is.ix.Name, err))
				continue
			}
			if key == nil {
				continue // not in this partial index
			}
			is.want++
			if !full {
				continue
			}
			got, err := is.b.Get(key)
			switch {
			case errors.Is(err, cairn.ErrNotFound):
				problems = append(problems, fmt.Sprintf("row %d missing from index %s", rows, is.ix.Name))
			case err != nil:
				return nil, err
			case !bytes.Equal(got, want):
				problems = append(problems, fmt.Sprintf("row %d has a wrong entry in index %s", rows, is.ix.Name))
			}
		}
	}
	if err := cx.tx.Err(); err != nil {
		return nil, err
	}
	for _, is := range ixs {
		var n int64
		for range is.b.Range(nil, nil) {
			n++
		}
		if err := cx.tx.Err(); err != nil {
			return nil, err
		}
		if n != is.want {
			problems = append(problems, fmt.Sprintf("wrong # of entries in index %s", is.ix.Name))
		}
	}
	return problems, nil
}

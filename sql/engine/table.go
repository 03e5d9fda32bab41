package engine

// Writing rows: a table's row and its index entries change together. A rowid table's row is at
// key AppendRowid(rowid) with the record of its columns (the rowid alias column stored as NULL,
// as SQLite does); a WITHOUT ROWID table's at the key of its primary key columns. An index entry's
// key is the index columns' key components followed by the row's key as components (the rowid as
// an INTEGER component, or the primary key's), so that entries are unique; its value is the
// record of the indexed columns' values (keys may lose case or the INTEGER/REAL class).

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// rowKey returns the table key of a row with values vals and rowid.
func (t *Table) rowKey(vals []value.Value, rowid int64) []byte {
	return t.appendRowKey(nil, vals, rowid)
}

// appendRowKey appends the key of a row (rowKey's) to dst.
func (t *Table) appendRowKey(dst []byte, vals []value.Value, rowid int64) []byte {
	if !t.WithoutRowid {
		return codec.AppendRowid(dst, rowid)
	}
	for _, c := range t.PrimaryKey {
		dst = codec.AppendKey(dst, vals[c.Column], c.Desc, c.Collation)
	}
	return dst
}

// record returns the stored record of a row.
func (t *Table) record(vals []value.Value) []byte { return t.appendRecord(nil, vals) }

// appendRecord appends the stored record of a row (record's) to dst.
func (t *Table) appendRecord(dst []byte, vals []value.Value) []byte {
	if t.RowidColumn < 0 {
		return codec.AppendRecord(dst, vals[:len(t.Columns)])
	}
	saved := vals[t.RowidColumn]
	vals[t.RowidColumn] = value.Value{}
	dst = codec.AppendRecord(dst, vals[:len(t.Columns)])
	vals[t.RowidColumn] = saved
	return dst
}

// entryPrefix returns the index columns' key components of a row (ok false if one is NULL, which
// UNIQUE does not compare).
func (ix *Index) entryPrefix(vals []value.Value) ([]byte, bool, error) {
	return ix.appendEntryPrefix(nil, vals)
}

// appendEntryPrefix appends the index columns' key components of a row (entryPrefix's) to k.
func (ix *Index) appendEntryPrefix(k []byte, vals []value.Value) ([]byte, bool, error) {
	ok := true
	for i, c := range ix.Columns {
		v, err := ix.columnValue(i, vals)
		if err != nil {
			return nil, false, err
		}
		if v.IsNull() {
			ok = false
		}
		k = codec.AppendKey(k, v, c.Desc, c.Collation)
	}
	return k, ok, nil
}

// entry returns an index entry's key and value for a row; a nil key when the row has no entry
// (a partial index whose condition the row does not meet).
func (ix *Index) entry(vals []value.Value, rowid int64) ([]byte, []byte, error) {
	b, kn, err := ix.appendEntry(nil, vals, rowid)
	if b == nil || err != nil {
		return nil, nil, err
	}
	return b[:kn:kn], b[kn:], nil
}

// appendEntry appends an index entry's key and then its value for a row to dst, and returns
// the bytes and the key's length; nil when the row has no entry (entry's).
func (ix *Index) appendEntry(dst []byte, vals []value.Value, rowid int64) ([]byte, int, error) {
	if in, err := ix.hasEntry(vals); !in || err != nil {
		return nil, 0, err
	}
	k, _, err := ix.appendEntryPrefix(dst, vals)
	if err != nil {
		return nil, 0, err
	}
	t := ix.Table
	if t.WithoutRowid {
		k = t.appendRowKey(k, vals, rowid)
	} else {
		k = codec.AppendKey(k, value.Int(rowid), false, value.Binary)
	}
	kn := len(k)
	var small [4]value.Value // the columns of most indexes, without an allocation
	cols := small[:0]
	if len(ix.Columns) > len(small) {
		cols = make([]value.Value, 0, len(ix.Columns))
	}
	for i := range ix.Columns {
		v, err := ix.columnValue(i, vals)
		if err != nil {
			return nil, 0, err
		}
		cols = append(cols, v)
	}
	return codec.AppendRecord(k, cols), kn, nil
}

// setRowid puts the rowid of a row about to be written into vals (its last slot, and its
// INTEGER PRIMARY KEY column) before the row is checked, because CHECK constraints see it; a
// WITHOUT ROWID table has none.
func (t *Table) setRowid(vals []value.Value, rowid int64) {
	if t.WithoutRowid {
		return
	}
	vals[len(t.Columns)] = value.Int(rowid)
	if t.RowidColumn >= 0 {
		vals[t.RowidColumn] = value.Int(rowid)
	}
}

// writeRow stores a row and its index entries.
func (x *execCtx) writeRow(t *Table, vals []value.Value, rowid int64) error {
	b, err := x.bucket(t.bucket)
	if err != nil {
		return err
	}
	// The keys and values are encoded into the session's buffer: Put copies them.
	buf := t.appendRowKey(x.sess.rowBuf[:0], vals, rowid)
	kn := len(buf)
	buf = t.appendRecord(buf, vals)
	x.sess.rowBuf = buf
	if err := b.Put(buf[:kn:kn], buf[kn:]); err != nil {
		return rowError(err)
	}
	for _, ix := range t.Indexes {
		ib, err := x.bucket(ix.bucket)
		if err != nil {
			return err
		}
		e, kn, err := ix.appendEntry(x.sess.rowBuf[:0], vals, rowid)
		if err != nil {
			return err
		}
		if e == nil {
			continue
		}
		x.sess.rowBuf = e
		if err := ib.Put(e[:kn:kn], e[kn:]); err != nil {
			return rowError(err)
		}
	}
	return nil
}

// deleteRow removes a row and its index entries.
func (x *execCtx) deleteRow(t *Table, vals []value.Value, rowid int64) error {
	b, err := x.bucket(t.bucket)
	if err != nil {
		return err
	}
	if err := b.Delete(t.rowKey(vals, rowid)); err != nil {
		return err
	}
	for _, ix := range t.Indexes {
		ib, err := x.bucket(ix.bucket)
		if err != nil {
			return err
		}
		k, _, err := ix.entry(vals, rowid)
		if err != nil {
			return err
		}
		if k == nil {
			continue
		}
		if err := ib.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// rowError turns cairn's size errors into SQLite's words.
func rowError(err error) error {
	if errors.Is(err, cairn.ErrKeyTooLarge) || errors.Is(err, cairn.ErrValueTooLarge) {
		return fmt.Errorf("string or blob too big: %w", err)
	}
	return err
}

// readRow reads the row at key, or ok false.
func (x *execCtx) readRow(t *Table, key []byte) ([]value.Value, bool, error) {
	b, err := x.bucket(t.bucket)
	if err != nil {
		return nil, false, err
	}
	rec, err := b.Get(key)
	if errors.Is(err, cairn.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var rowid int64
	if !t.WithoutRowid {
		rowid, _ = codec.Rowid(key)
	}
	row, err := decodeRow(t, rowid, rec, nil)
	return row, err == nil, err
}

// conflicting returns the key of a row other than self (its table key) whose values equal vals
// on ix's columns (by each column's collation), or nil. The entries with vals' key prefix are
// candidates; their stored values decide, so that values too long for a whole key (compared by a
// hash of their tail) are compared exactly.
func (x *execCtx) conflicting(ix *Index, vals []value.Value, self []byte) ([]byte, error) {
	if in, err := ix.hasEntry(vals); !in || err != nil {
		return nil, err // a partial index constrains only the rows it holds
	}
	prefix, ok, err := ix.entryPrefix(vals)
	if err != nil || !ok {
		return nil, err // NULLs are distinct
	}
	ib, err := x.bucket(ix.bucket)
	if err != nil {
		return nil, err
	}
	c := ib.Cursor()
	var stored []value.Value
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		rowKey, err := indexRowKey(nil, ix, k)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(rowKey, self) {
			continue
		}
		if stored, err = codec.DecodeRecord(v, stored); err != nil || len(stored) != len(ix.Columns) {
			return nil, fmt.Errorf("sql: index %s: %w", ix.Name, cairn.ErrCorrupt)
		}
		same := true
		for i, col := range ix.Columns {
			v, err := ix.columnValue(i, vals)
			if err != nil {
				return nil, err
			}
			if value.Compare(stored[i], v, col.Collation) != 0 {
				same = false
				break
			}
		}
		if same {
			return rowKey, nil
		}
	}
	return nil, c.Err()
}

// uniqueIndexError is SQLite's message for a violated UNIQUE index: uniqueError's, or for an
// index on an expression the index's name.
func uniqueIndexError(ix *Index) error {
	for _, c := range ix.Columns {
		if c.Column == exprColumn {
			return fmt.Errorf("UNIQUE constraint failed: index '%s'", ix.Name)
		}
	}
	return uniqueError(ix.Table, ix.Columns)
}

// uniqueError is SQLite's message for a violated UNIQUE or PRIMARY KEY constraint.
func uniqueError(t *Table, cols []IndexColumn) error {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = t.Name + "." + t.Columns[c.Column].Name
	}
	return fmt.Errorf("UNIQUE constraint failed: %s", strings.Join(names, ", "))
}

// nextRowid returns the rowid of a new row: one more than the largest (1 for an empty table).
func (x *execCtx) nextRowid(t *Table) (int64, error) {
	b, err := x.bucket(t.bucket)
	if err != nil {
		return 0, err
	}
	k, _ := b.Cursor().Last()
	if k == nil {
		return 1, nil
	}
	max, err := codec.Rowid(k)
	if err != nil {
		return 0, fmt.Errorf("sql: table %s: %w", t.Name, cairn.ErrCorrupt)
	}
	if max == 1<<63-1 {
		return 0, errors.New("database or disk is full (the largest rowid is taken)")
	}
	return max + 1, nil
}

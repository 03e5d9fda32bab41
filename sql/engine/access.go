package engine

// Access paths: how one source of a query produces its candidate rows. Every path produces a
// superset of the rows that satisfy the terms it was chosen for (the terms are evaluated again
// on each row), so an access path changes speed, never results.

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// execCtx is what the execution of one statement needs of the database.
type execCtx struct {
	ctx     context.Context
	tx      *cairn.Tx
	schema  *Schema
	buckets map[string]*cairn.Bucket
	sess    *Session
	steps   int // rows read, for context checks
}

// bucket returns the bucket called name in the statement's transaction (cached).
func (x *execCtx) bucket(name []byte) (*cairn.Bucket, error) {
	if b := x.buckets[string(name)]; b != nil {
		return b, nil
	}
	b, err := x.tx.Bucket(name)
	if err != nil {
		if errors.Is(err, cairn.ErrBucketNotFound) {
			return nil, fmt.Errorf("sql: storage of %q missing: %w", name, cairn.ErrCorrupt)
		}
		return nil, err
	}
	if x.buckets == nil {
		x.buckets = map[string]*cairn.Bucket{}
	}
	x.buckets[string(name)] = b
	return b, nil
}

// tick counts a row read and checks the context every 256 rows.
func (x *execCtx) tick() error {
	x.steps++
	if x.steps&255 == 0 {
		return x.ctx.Err()
	}
	return nil
}

// candidates iterates the candidate rows of one source: each successful next has set the
// source's row in the env.
type candidates interface {
	next() (bool, error)
}

// accessPath opens candidates for a source given the env (whose earlier sources' rows are set).
type accessPath interface {
	open(e *env, src int) (candidates, error)
	explain() string
}

// decodeRow decodes a table record into row (reusing it), filling the rowid slot and the rowid
// alias column. Columns missing from an old record read as their default (a constant default,
// evaluated once when the table is loaded; NULL for now).
func decodeRow(t *Table, rowid int64, rec []byte, row []value.Value) ([]value.Value, error) {
	vals, err := codec.DecodeRecord(rec, row[:0])
	if err != nil {
		return nil, fmt.Errorf("sql: row %d of %s: %w", rowid, t.Name, cairn.ErrCorrupt)
	}
	n := len(t.Columns)
	for len(vals) < n {
		vals = append(vals, value.Value{})
	}
	vals = vals[:n]
	if !t.WithoutRowid {
		vals = append(vals, value.Int(rowid))
		if t.RowidColumn >= 0 {
			vals[t.RowidColumn] = value.Int(rowid)
		}
	}
	return vals, nil
}

// tableRange scans a table's rows with keys in [lo, hi) (nil: unbounded).
type tableRange struct {
	table  *Table
	lo, hi func(e *env) ([]byte, bool, error) // nil: unbounded; false: no rows
	desc   string
}

func (p *tableRange) explain() string { return p.desc }

type tableRangeIter struct {
	e     *env
	src   int
	t     *Table
	c     *cairn.Cursor
	hi    []byte
	first bool
	lo    []byte
	empty bool
	buf   []value.Value
}

func (p *tableRange) open(e *env, src int) (candidates, error) {
	x := e.run.cx
	b, err := x.bucket(p.table.bucket)
	if err != nil {
		return nil, err
	}
	it := &tableRangeIter{e: e, src: src, t: p.table, c: b.Cursor(), first: true}
	if p.lo != nil {
		lo, ok, err := p.lo(e)
		if err != nil {
			return nil, err
		}
		it.lo, it.empty = lo, !ok
	}
	if p.hi != nil {
		hi, ok, err := p.hi(e)
		if err != nil {
			return nil, err
		}
		it.hi = hi
		it.empty = it.empty || !ok
	}
	return it, nil
}

func (it *tableRangeIter) next() (bool, error) {
	if it.empty {
		return false, nil
	}
	var k, v []byte
	if it.first {
		it.first = false
		if it.lo != nil {
			k, v = it.c.Seek(it.lo)
		} else {
			k, v = it.c.First()
		}
	} else {
		k, v = it.c.Next()
	}
	if k == nil {
		return false, it.c.Err()
	}
	if it.hi != nil && bytes.Compare(k, it.hi) >= 0 {
		return false, nil
	}
	if err := it.e.run.cx.tick(); err != nil {
		return false, err
	}
	var rowid int64
	if !it.t.WithoutRowid {
		id, err := codec.Rowid(k)
		if err != nil {
			return false, fmt.Errorf("sql: table %s: %w", it.t.Name, cairn.ErrCorrupt)
		}
		rowid = id
	}
	row, err := decodeRow(it.t, rowid, v, it.buf)
	if err != nil {
		return false, err
	}
	it.buf = row
	it.e.rows[it.src] = row
	return true, nil
}

// rowidLookup reads the one row whose rowid a term gives.
type rowidLookup struct {
	table *Table
	key   expr // the rowid value, before INTEGER affinity
}

func (p *rowidLookup) explain() string {
	return "SEARCH " + p.table.Name + " USING INTEGER PRIMARY KEY (rowid=?)"
}

type onceIter struct {
	done bool
	fn   func() (bool, error)
}

func (o *onceIter) next() (bool, error) {
	if o.done {
		return false, nil
	}
	o.done = true
	return o.fn()
}

func (p *rowidLookup) open(e *env, src int) (candidates, error) {
	return &onceIter{fn: func() (bool, error) {
		v, err := p.key.eval(e)
		if err != nil {
			return false, err
		}
		id, ok := rowidOf(v)
		if !ok {
			return false, nil
		}
		b, err := e.run.cx.bucket(p.table.bucket)
		if err != nil {
			return false, err
		}
		rec, err := b.Get(codec.AppendRowid(nil, id))
		if errors.Is(err, cairn.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		row, err := decodeRow(p.table, id, rec, nil)
		if err != nil {
			return false, err
		}
		e.rows[src] = row
		return true, nil
	}}, nil
}

// rowidOf returns the rowid a value selects when compared with = against a rowid: the value
// with INTEGER affinity, if that is an integer (a REAL that is an integer counts).
func rowidOf(v value.Value) (int64, bool) {
	v = value.AffinityInteger.ApplyForCompare(v)
	switch v.Kind() {
	case value.Integer:
		return v.Int(), true
	case value.Real:
		f := v.Float()
		if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
			if i := int64(f); float64(i) == f {
				return i, true
			}
		}
	}
	return 0, false
}

// indexScan reads the rows whose index entries have the key prefix of eq (values of the index's
// first columns) and, on the next column, lie between lo and hi.
type indexScan struct {
	index  *Index
	eq     []expr
	eqAff  []value.Affinity
	lo, hi *bound
	desc   string
}

// bound is one end of a range on an index column.
type bound struct {
	x         expr
	aff       value.Affinity
	inclusive bool
}

func (p *indexScan) explain() string { return p.desc }

type indexScanIter struct {
	e     *env
	src   int
	p     *indexScan
	c     *cairn.Cursor
	start []byte
	end   []byte // exclusive end of the keys to read (nil: to the end of the index)
	first bool
	empty bool
	tb    *cairn.Bucket
	buf   []value.Value
}

func (p *indexScan) open(e *env, src int) (candidates, error) {
	x := e.run.cx
	ib, err := x.bucket(p.index.bucket)
	if err != nil {
		return nil, err
	}
	tb, err := x.bucket(p.index.Table.bucket)
	if err != nil {
		return nil, err
	}
	it := &indexScanIter{e: e, src: src, p: p, c: ib.Cursor(), first: true, tb: tb}
	var prefix []byte
	for i, ex := range p.eq {
		v, err := ex.eval(e)
		if err != nil {
			return nil, err
		}
		v = p.eqAff[i].ApplyForCompare(v)
		if v.IsNull() {
			it.empty = true // col = NULL is never true
			return it, nil
		}
		ic := p.index.Columns[i]
		prefix = codec.AppendKey(prefix, v, ic.Desc, ic.Collation)
	}
	it.start, it.end = prefix, prefixEnd(prefix)
	if p.lo != nil || p.hi != nil {
		ic := p.index.Columns[len(p.eq)]
		lo, hi := p.lo, p.hi
		if ic.Desc { // a descending column stores the bounds the other way round
			lo, hi = hi, lo
		}
		if lo != nil {
			k, ok, err := boundKey(e, prefix, lo, ic, !lo.inclusive)
			if err != nil {
				return nil, err
			}
			if ok {
				it.start = k
			}
		}
		if hi != nil {
			k, ok, err := boundKey(e, prefix, hi, ic, hi.inclusive)
			if err != nil {
				return nil, err
			}
			if ok {
				it.end = k
			}
		}
	}
	return it, nil
}

// boundKey returns the key where a range on column ic starts or ends: the prefix and the bound's
// value; past is set to go past every key of that value (an exclusive start, an inclusive end).
// A NULL bound selects nothing but is left to the filter (ok false: no bound).
func boundKey(e *env, prefix []byte, b *bound, ic IndexColumn, past bool) ([]byte, bool, error) {
	v, err := b.x.eval(e)
	if err != nil {
		return nil, false, err
	}
	v = b.aff.ApplyForCompare(v)
	if v.IsNull() {
		return nil, false, nil
	}
	k := codec.AppendKey(append([]byte(nil), prefix...), v, ic.Desc, ic.Collation)
	if past {
		k = prefixEnd(k)
	}
	return k, true, nil
}

// prefixEnd returns the smallest key greater than every key starting with prefix (nil: none, or
// an empty prefix).
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func (it *indexScanIter) next() (bool, error) {
	if it.empty {
		return false, nil
	}
	for {
		var k []byte
		if it.first {
			it.first = false
			if len(it.start) > 0 {
				k, _ = it.c.Seek(it.start)
			} else {
				k, _ = it.c.First()
			}
		} else {
			k, _ = it.c.Next()
		}
		if k == nil {
			return false, it.c.Err()
		}
		if it.end != nil && bytes.Compare(k, it.end) >= 0 {
			return false, nil
		}
		if err := it.e.run.cx.tick(); err != nil {
			return false, err
		}
		t := it.p.index.Table
		rowKey, err := indexRowKey(it.p.index, k)
		if err != nil {
			return false, err
		}
		rec, err := it.tb.Get(rowKey)
		if err != nil {
			if errors.Is(err, cairn.ErrNotFound) {
				return false, fmt.Errorf("sql: index %s names a missing row: %w", it.p.index.Name, cairn.ErrCorrupt)
			}
			return false, err
		}
		var rowid int64
		if !t.WithoutRowid {
			rowid, _ = codec.Rowid(rowKey)
		}
		row, err := decodeRow(t, rowid, rec, it.buf)
		if err != nil {
			return false, err
		}
		it.buf = row
		it.e.rows[it.src] = row
		return true, nil
	}
}

// indexRowKey returns the table key of the row an index entry names: the entry's key after the
// index columns (a rowid component for a rowid table, the primary key's components otherwise).
func indexRowKey(ix *Index, key []byte) ([]byte, error) {
	rest := key
	for _, c := range ix.Columns {
		var err error
		if rest, err = codec.SkipKey(rest, c.Desc); err != nil {
			return nil, fmt.Errorf("sql: index %s: %w", ix.Name, cairn.ErrCorrupt)
		}
	}
	if ix.Table.WithoutRowid {
		return rest, nil
	}
	v, tail, _, err := codec.DecodeKey(rest, false)
	if err != nil || len(tail) != 0 || v.Kind() != value.Integer {
		return nil, fmt.Errorf("sql: index %s: bad row id: %w", ix.Name, cairn.ErrCorrupt)
	}
	return codec.AppendRowid(nil, v.Int()), nil
}

// rowsIter iterates materialized rows (a subquery or view in FROM).
type rowsIter struct {
	e    *env
	src  int
	rows [][]value.Value
	i    int
}

func (r *rowsIter) next() (bool, error) {
	if r.i >= len(r.rows) {
		return false, nil
	}
	r.e.rows[r.src] = r.rows[r.i]
	r.i++
	return true, nil
}

// subqueryScan materializes a subquery (or view) of FROM and iterates its rows.
type subqueryScan struct {
	plan *selectPlan
	name string
}

func (p *subqueryScan) explain() string { return "SCAN " + p.name }

func (p *subqueryScan) open(e *env, src int) (candidates, error) {
	rows, err := p.plan.collect(e.run, e.outer)
	if err != nil {
		return nil, err
	}
	// An integer of a compound's column with REAL affinity is read as a REAL, as SQLite reads
	// a column of REAL affinity (OP_RealAffinity; the column may have the affinity of another
	// core than the value's). No other affinity changes a value read.
	if len(p.plan.cores) > 1 {
		for i := 0; i < p.plan.ncols; i++ {
			if aff, ok := p.plan.columnAffinity(i); !ok || aff != value.AffinityReal {
				continue
			}
			for _, r := range rows {
				if r[i].Kind() == value.Integer {
					r[i] = value.Float(float64(r[i].Int()))
				}
			}
		}
	}
	return &rowsIter{e: e, src: src, rows: rows}, nil
}

package engine

// Access paths: how one source of a query produces its candidate rows. Every path produces a
// superset of the rows that satisfy the terms it was chosen for (the terms are evaluated again
// on each row), so an access path changes speed, never results. One exception: a rowid range
// selects exactly the rows of the terms its bounds come from, and the loop does not check those
// (choose.go, servedBy).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// execCtx is what the execution of one statement needs of the database.
type execCtx struct {
	ctx     context.Context
	tx      *cairn.Tx
	schema  *Schema
	buckets []namedBucket // the buckets opened so far (a statement uses a few)
	sess    *Session
	steps   int // rows read, for context checks
	// ret receives the rows of a RETURNING clause when the statement runs as a query (nil:
	// they are dropped).
	ret *returnSink
	// ran is set when an INSERT, UPDATE or DELETE has been planned and starts to run.
	ran bool
	// fk is the statement's foreign key state, nil when it pays nothing for them (fkey.go).
	fk *fkStmt
	// bucketBuf backs buckets for the usual statement (a table and an index), so that a query's
	// execution state, which holds the execCtx, holds them too.
	bucketBuf [2]namedBucket
	// now is the statement's current time for the date functions (a julian day in
	// milliseconds), read at its first use; 0 until then (datetime.go).
	now int64
	// trg is the state of the triggers the statement fires (trigger.go), nil until it meets one.
	trg *trigRun
}

// namedBucket is a bucket the statement opened, by name.
type namedBucket struct {
	name []byte
	b    *cairn.Bucket
}

// bucket returns the bucket called name in the statement's transaction (cached).
func (x *execCtx) bucket(name []byte) (*cairn.Bucket, error) {
	for _, nb := range x.buckets {
		if bytes.Equal(nb.name, name) {
			return nb.b, nil
		}
	}
	b, err := x.tx.Bucket(name)
	if err != nil {
		if errors.Is(err, cairn.ErrBucketNotFound) {
			return nil, fmt.Errorf("sql: storage of %q missing: %w", name, cairn.ErrCorrupt)
		}
		return nil, err
	}
	if x.buckets == nil {
		x.buckets = x.bucketBuf[:0]
	}
	x.buckets = append(x.buckets, namedBucket{name: name, b: b})
	return b, nil
}

// forgetBucket drops the cached bucket called name (it was deleted).
func (x *execCtx) forgetBucket(name []byte) {
	x.buckets = slices.DeleteFunc(x.buckets, func(nb namedBucket) bool { return bytes.Equal(nb.name, name) })
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
	return decodeColumns(t, rowid, rec, row, codec.AllColumns)
}

// decodeColumns is decodeRow for the columns in need (codec.DecodeColumns' set; the rowid slot
// and the rowid alias column are always filled): the others read as NULL.
func decodeColumns(t *Table, rowid int64, rec []byte, row []value.Value, need uint64) ([]value.Value, error) {
	vals, err := codec.DecodeColumns(rec, row[:0], need)
	if err != nil {
		return nil, fmt.Errorf("sql: row %d of %s: %w", rowid, t.Name, cairn.ErrCorrupt)
	}
	n := len(t.Columns)
	for len(vals) < n {
		vals = append(vals, t.missing[len(vals)])
	}
	vals = vals[:n]
	if !t.WithoutRowid {
		if len(vals) < cap(vals) {
			vals = vals[:n+1]
		} else {
			vals = append(vals, value.Value{})
		}
		vals[n].SetInt(rowid) // in place: value.Value's setters say why
		if t.RowidColumn >= 0 {
			vals[t.RowidColumn].SetInt(rowid)
		}
	}
	return vals, nil
}

// tableRange scans a table's rows with keys in [lo, hi) (nil: unbounded), backward if reverse.
type tableRange struct {
	table   *Table
	lo, hi  func(e *env) ([]byte, bool, error) // nil: unbounded; false: no rows
	desc    string
	reverse bool
	// noColumns skips decoding: the query reads no column of the rows, only counts them
	// (cover.go); the row is all NULL.
	noColumns bool
	// skip has bit c set for column c that the query never reads (cover.go; bit 63 for every
	// column from 63 on): it is left NULL, not decoded. 0 for UPDATE and DELETE.
	skip uint64
	// filter are the loop's terms when the scan checks them (cover.go: the loop's where is then
	// empty); filterCols the columns they read, which it decodes first: the others only for
	// the rows that pass.
	filter     []expr
	filterCols uint64
	// from are the terms a rowid range takes its bounds from (choose.go, servedBy).
	from []exprAST
}

func (p *tableRange) explain() string { return p.desc }

type tableRangeIter struct {
	e         *env
	src       int
	t         *Table
	c         *cairn.Cursor
	hi        []byte
	first     bool
	lo        []byte
	empty     bool
	reverse   bool
	noColumns bool
	need      uint64 // the columns to decode
	filter    []expr
	early     uint64 // the columns filter reads
	buf       []value.Value
}

func (p *tableRange) open(e *env, src int) (candidates, error) {
	x := e.run.cx
	b, err := x.bucket(p.table.bucket)
	if err != nil {
		return nil, err
	}
	it := &tableRangeIter{e: e, src: src, t: p.table, c: b.Cursor(), first: true, reverse: p.reverse,
		noColumns: p.noColumns, need: ^p.skip, filter: p.filter, early: p.filterCols}
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
	for {
		k, v := step(it.c, &it.first, it.reverse, it.lo, it.hi)
		if k == nil {
			return false, it.c.Err()
		}
		if outside(k, it.lo, it.hi) {
			return false, nil
		}
		if err := it.e.run.cx.tick(); err != nil {
			return false, err
		}
		if it.noColumns {
			if it.buf == nil {
				it.buf = make([]value.Value, len(it.t.Columns)+1)
			}
			it.e.rows[it.src] = it.buf
			return true, nil
		}
		var rowid int64
		if !it.t.WithoutRowid {
			id, err := codec.Rowid(k)
			if err != nil {
				return false, fmt.Errorf("sql: table %s: %w", it.t.Name, cairn.ErrCorrupt)
			}
			rowid = id
		}
		need := it.need
		if it.filter != nil {
			need = it.early
		}
		row, err := decodeColumns(it.t, rowid, v, it.buf, need)
		if err != nil {
			return false, err
		}
		it.buf = row
		it.e.rows[it.src] = row
		if it.filter == nil {
			return true, nil
		}
		pass, err := allTrue(it.filter, it.e)
		if err != nil {
			return false, err
		}
		if !pass {
			continue
		}
		if need != it.need {
			if it.buf, err = decodeColumns(it.t, rowid, v, it.buf, it.need); err != nil {
				return false, err
			}
			it.e.rows[it.src] = it.buf
		}
		return true, nil
	}
}

// step moves c to the next key of the range [lo, hi) (nil: unbounded) in its direction: the
// first one when *first is set, which it clears.
func step(c *cairn.Cursor, first *bool, reverse bool, lo, hi []byte) ([]byte, []byte) {
	switch {
	case !*first && reverse:
		return c.Prev()
	case !*first:
		return c.Next()
	}
	*first = false
	if !reverse {
		if len(lo) > 0 {
			return c.Seek(lo)
		}
		return c.First()
	}
	if hi != nil {
		if k, _ := c.Seek(hi); k != nil {
			return c.Prev()
		}
	}
	return c.Last()
}

// outside reports whether k lies outside [lo, hi) (nil: unbounded).
func outside(k, lo, hi []byte) bool {
	return hi != nil && bytes.Compare(k, hi) >= 0 || lo != nil && bytes.Compare(k, lo) < 0
}

// rowidLookup reads the one row whose rowid a term gives.
type rowidLookup struct {
	table *Table
	name  string // the source's name in the query (its alias, if it has one)
	key   expr   // the rowid value, before INTEGER affinity
}

func (p *rowidLookup) explain() string {
	return "SEARCH " + p.name + " USING INTEGER PRIMARY KEY (rowid=?)"
}

// rowidIter reads the row of a rowidLookup when first advanced.
type rowidIter struct {
	p    *rowidLookup
	e    *env
	src  int
	done bool
	buf  [8]value.Value // the decoded row of a table of up to 7 columns
	key  [8]byte        // backs the rowid's key
}

func (p *rowidLookup) open(e *env, src int) (candidates, error) {
	if sc := e.run.scratch; sc != nil && !sc.rowidTaken {
		sc.rowidTaken = true
		sc.rowid = rowidIter{p: p, e: e, src: src}
		return &sc.rowid, nil
	}
	return &rowidIter{p: p, e: e, src: src}, nil
}

func (it *rowidIter) next() (bool, error) {
	if it.done {
		return false, nil
	}
	it.done = true
	p, e := it.p, it.e
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
	rec, err := b.Get(codec.AppendRowid(it.key[:0], id))
	if errors.Is(err, cairn.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	row, err := decodeRow(p.table, id, rec, it.buf[:0])
	if err != nil {
		return false, err
	}
	e.rows[it.src] = row
	return true, nil
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
	// primary scans a WITHOUT ROWID table's own rows by their primary key.
	primary bool
	// in are the IN terms some of eq read through slots (withPoints runs the scan per value).
	in []inColumn
	// reverse reads the entries backward (an ORDER BY against the index's order).
	reverse bool
	// covering builds the row from the entry, without reading the table (cover.go).
	covering bool
}

// inColumn is an IN term an indexScan's equality on column col reads through slot.
type inColumn struct {
	term *colTerm
	slot *pointSlot
	col  IndexColumn
}

// bound is one end of a range on an index column.
type bound struct {
	x         expr
	aff       value.Affinity
	inclusive bool
	// more are the values of the next index columns of a row-value bound ((c, k) > (x, y)):
	// the key continues with them (rowvalue_access.go).
	more []moreBound
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
	ibuf  []value.Value // an entry's values (covering)
	// rowBuf and keyBuf back buf and the key range of the usual lookup (a table of up to 7
	// columns, keys of up to 32 bytes), so that opening one allocates nothing more.
	rowBuf [8]value.Value
	keyBuf [64]byte
	// rowKeyBuf backs the table key of the entry's row (a rowid's 8 bytes).
	rowKeyBuf [8]byte
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
	var it *indexScanIter
	if sc := e.run.scratch; sc != nil && !sc.indexTaken {
		sc.indexTaken = true
		it = &sc.index
	} else {
		it = &indexScanIter{}
	}
	return p.openInto(e, src, it, ib.Cursor(), tb)
}

// reopen opens the scan again into it, an iterator p opened before in the same statement (a
// join's inner loop, opened once per outer row), reusing its memory and its cursor: the
// statement's buckets and cursors stay valid until it ends.
func (p *indexScan) reopen(e *env, src int, it *indexScanIter) (candidates, error) {
	return p.openInto(e, src, it, it.c, it.tb)
}

// openInto opens the scan into it with cursor c over the index and tb, the table's bucket.
func (p *indexScan) openInto(e *env, src int, it *indexScanIter, c *cairn.Cursor, tb *cairn.Bucket) (candidates, error) {
	*it = indexScanIter{e: e, src: src, p: p, c: c, first: true, tb: tb}
	it.buf = it.rowBuf[:0]
	prefix := it.keyBuf[: 0 : len(it.keyBuf)/2]
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
	it.start, it.end = prefix, appendPrefixEnd(it.keyBuf[len(it.keyBuf)/2:len(it.keyBuf)/2], prefix)
	if p.lo != nil || p.hi != nil {
		ic := p.index.Columns[len(p.eq)]
		lo, hi := p.lo, p.hi
		if ic.Desc { // a descending column stores the bounds the other way round
			lo, hi = hi, lo
		}
		if lo != nil {
			k, ok, err := boundKey(e, prefix, lo, ic, !lo.inclusive, false)
			if err != nil {
				return nil, err
			}
			if ok {
				it.start = k
			}
		}
		if hi != nil {
			k, ok, err := boundKey(e, prefix, hi, ic, hi.inclusive, true)
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

// boundKey returns the key where a range on column ic starts (end false) or ends: the prefix and
// the bound's value; past is set to go past every key of that value (an exclusive start, an
// inclusive end). A value too long for its whole key (codec.AppendKeyBound) bounds the range by its
// prefix, taking in every value that shares it. A NULL bound selects nothing but is left to the
// filter (ok false: no bound).
func boundKey(e *env, prefix []byte, b *bound, ic IndexColumn, past, end bool) ([]byte, bool, error) {
	v, err := b.x.eval(e)
	if err != nil {
		return nil, false, err
	}
	v = b.aff.ApplyForCompare(v)
	if v.IsNull() {
		return nil, false, nil
	}
	k, truncated := codec.AppendKeyBound(append([]byte(nil), prefix...), v, ic.Desc, ic.Collation)
	if len(b.more) > 0 && !truncated {
		var whole bool
		if k, whole, err = appendMore(e, k, b.more); err != nil {
			return nil, false, err
		}
		if !whole { // a bound on fewer columns, taken inclusive: a superset
			past = end
		}
	}
	switch {
	case truncated && end: // past the whole group of values sharing the prefix
		k = prefixEnd(k)
	case truncated: // at the start of that group
	case past:
		k = prefixEnd(k)
	}
	return k, true, nil
}

// prefixEnd returns the smallest key greater than every key starting with prefix (nil: none, or
// an empty prefix).
func prefixEnd(prefix []byte) []byte { return appendPrefixEnd(nil, prefix) }

// appendPrefixEnd is prefixEnd appending to dst[:0] (which must not overlap prefix).
func appendPrefixEnd(dst, prefix []byte) []byte {
	end := append(dst[:0], prefix...)
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
		k, v := step(it.c, &it.first, it.p.reverse, it.start, it.end)
		if k == nil {
			return false, it.c.Err()
		}
		if outside(k, it.start, it.end) {
			return false, nil
		}
		if err := it.e.run.cx.tick(); err != nil {
			return false, err
		}
		t := it.p.index.Table
		if it.p.primary { // the entry is the row
			row, err := decodeRow(t, 0, v, it.buf)
			if err != nil {
				return false, err
			}
			it.buf = row
			it.e.rows[it.src] = row
			return true, nil
		}
		rowKey, err := indexRowKey(it.rowKeyBuf[:0], it.p.index, k)
		if err != nil {
			return false, err
		}
		if it.p.covering {
			return it.coveredRow(rowKey, v)
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

// coveredRow sets the source's row from an index entry's value (the index columns' values) and
// the rowid in its table key rowKey (none for a WITHOUT ROWID table); the columns the index lacks, which the query does not read,
// are NULL.
func (it *indexScanIter) coveredRow(rowKey, rec []byte) (bool, error) {
	ix := it.p.index
	t := ix.Table
	vals, err := codec.DecodeRecord(rec, it.ibuf[:0])
	if err != nil || len(vals) != len(ix.Columns) {
		return false, fmt.Errorf("sql: index %s: bad entry: %w", ix.Name, cairn.ErrCorrupt)
	}
	it.ibuf = vals
	n := len(t.Columns) + 1 // the columns and the rowid
	if cap(it.buf) < n {
		it.buf = make([]value.Value, n)
	}
	row := it.buf[:n]
	clear(row)
	for i, ic := range ix.Columns {
		if ic.Column >= 0 { // not an expression's value
			row[ic.Column] = vals[i]
		}
	}
	if !t.WithoutRowid { // a WITHOUT ROWID table's key is its primary key, which covers() skips
		rowid, err := codec.Rowid(rowKey)
		if err != nil {
			return false, fmt.Errorf("sql: index %s: %w", ix.Name, cairn.ErrCorrupt)
		}
		row[len(t.Columns)] = value.Int(rowid)
		if t.RowidColumn >= 0 {
			row[t.RowidColumn] = value.Int(rowid)
		}
	}
	it.e.rows[it.src] = row
	return true, nil
}

// indexRowKey returns the table key of the row an index entry names: the entry's key after the
// index columns (a rowid component for a rowid table, the primary key's components otherwise).
// The rowid key is appended to dst[:0].
func indexRowKey(dst []byte, ix *Index, key []byte) ([]byte, error) {
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
	return codec.AppendRowid(dst[:0], v.Int()), nil
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
	if err := r.e.run.cx.tick(); err != nil {
		return false, err
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
	if c, ok := p.plan.cte.(*cteRow); ok { // a recursive CTE's current row, as it is
		return &rowsIter{e: e, src: src, rows: c.rows[:]}, nil
	}
	memo := e.run.cteMemo(p.plan)
	if memo != nil && memo.rows != nil {
		return &rowsIter{e: e, src: src, rows: memo.rows}, nil
	}
	if _, ok := p.plan.cte.(*recursiveCTE); ok && (memo == nil || memo.opens == 1 && p.plan.shared.uses == 1) {
		// Its rows come one at a time, as the loop reads them: it may not end.
		it, err := p.plan.open(e.run, e.outer)
		if err != nil {
			return nil, err
		}
		return &iterRows{e: e, src: src, it: it}, nil
	}
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
	if memo != nil {
		if rows == nil {
			rows = [][]value.Value{}
		}
		memo.rows = rows
	}
	return &rowsIter{e: e, src: src, rows: rows}, nil
}

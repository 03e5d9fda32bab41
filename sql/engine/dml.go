package engine

// INSERT, UPDATE and DELETE, with SQLite's constraint checks and conflict algorithms
// (lang_conflict.html): NOT NULL, CHECK, then the rowid or primary key, then each UNIQUE index;
// ABORT (the default) undoes the statement, FAIL keeps its earlier rows, IGNORE skips the row,
// REPLACE deletes the rows in the way (or uses the column's default for NOT NULL), ROLLBACK ends
// the transaction.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// conflictError is a constraint violation with the algorithm that handles it.
type conflictError struct {
	err  error
	algo ast.Conflict
}

func (c *conflictError) Error() string { return c.err.Error() }
func (c *conflictError) Unwrap() error { return c.err }

// effective returns the conflict algorithm in force: the statement's OR clause, else the
// constraint's ON CONFLICT, else ABORT.
func effective(stmt, constraint ast.Conflict) ast.Conflict {
	switch {
	case stmt != ast.ConflictDefault:
		return stmt
	case constraint != ast.ConflictDefault:
		return constraint
	}
	return ast.ConflictAbort
}

// errSkipRow tells the caller that IGNORE skipped the row.
var errSkipRow = errors.New("row skipped")

// rowWriter checks and writes the rows of one INSERT or UPDATE.
type rowWriter struct {
	cx      *execCtx
	t       *Table
	algo    ast.Conflict // the statement's OR clause
	checks  []expr
	e       *env
	uniques []int // t's UNIQUE constraints in the order they are checked (uniqueOrder)
	// sets are the SET columns of the UPDATE the writer runs, which decide the foreign keys
	// it checks (fkey.go); nil for an INSERT.
	sets []setColumn
}

func newRowWriter(cx *execCtx, t *Table, algo ast.Conflict, params []value.Value) (*rowWriter, error) {
	checks, err := bindChecks(&planCtx{schema: cx.schema, sess: cx.sess}, t)
	if err != nil {
		return nil, err
	}
	return newPlannedRowWriter(cx, t, algo, params, checks, uniqueOrder(t)), nil
}

// newPlannedRowWriter returns the row writer of t with its CHECK constraints bound and its
// UNIQUE check order made (an insertPlan's).
func newPlannedRowWriter(cx *execCtx, t *Table, algo ast.Conflict, params []value.Value, checks []expr, uniques []int) *rowWriter {
	w := &rowWriter{cx: cx, t: t, algo: algo, checks: checks, uniques: uniques}
	if len(checks) > 0 {
		w.e = &env{rows: make([][]value.Value, 1), params: params, run: &runState{cx: cx, params: params,
			subqCache: map[*subquery]*subqResult{}}}
	}
	return w
}

// bindChecks binds t's CHECK constraints over a row of t.
func bindChecks(pc *planCtx, t *Table) ([]expr, error) {
	if len(t.Checks) == 0 {
		return nil, nil
	}
	sc := &scope{sources: []*source{tableSource(t, t.Name)}}
	b := &binder{pc: pc, sc: sc, noAgg: "CHECK"}
	var out []expr
	for _, c := range t.Checks {
		x, _, err := b.bind(c.Expr)
		if err != nil {
			return nil, err
		}
		shortCircuit(x) // a CHECK is a condition
		out = append(out, x)
	}
	return out, nil
}

// uniqueOrder returns t's UNIQUE constraints in the order SQLite checks them (each a position in
// t.Indexes, or -1 for a WITHOUT ROWID table's primary key): newest first (uniqueCheckOrder),
// except that those whose ON CONFLICT is REPLACE come after all others, as
// sqlite3CreateIndex keeps a table's index list. So the error names the constraint SQLite names
// when a row violates several, and an ABORT, FAIL or IGNORE constraint is decided before a
// REPLACE one deletes rows.
func uniqueOrder(t *Table) []int {
	conflict := func(i int) ast.Conflict {
		if i < 0 {
			return t.PKConflict
		}
		return t.Indexes[i].Conflict
	}
	order := t.uniqueCheckOrder()
	out := make([]int, 0, len(order))
	for _, replace := range []bool{false, true} {
		for _, i := range order {
			if (conflict(i) == ast.ConflictReplace) == replace {
				out = append(out, i)
			}
		}
	}
	return out
}

// tableColumns are the columns of table t as expressions see them: the INTEGER PRIMARY KEY, the
// rowid, has no collation whatever it is declared with (SQLite's expressions read it as the
// rowid).
func tableColumns(t *Table) []srcColumn {
	cols := make([]srcColumn, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = srcColumn{name: c.Name, affinity: c.Affinity, collation: c.Collation, declType: c.Type}
		if i == t.RowidColumn {
			cols[i].collation, cols[i].noCollation = value.Binary, true
		}
	}
	return cols
}

// tableSource is a source for one table, as name.
func tableSource(t *Table, name string) *source {
	src := &source{name: name, table: t, rowidSlot: -1}
	src.cols = tableColumns(t)
	if !t.WithoutRowid {
		src.rowidSlot = len(t.Columns)
	}
	return src
}

// prepare applies affinities and the NOT NULL and CHECK constraints to vals (a full row, its
// rowid in the last slot for a rowid table). It returns errSkipRow for IGNORE.
func (w *rowWriter) prepare(vals []value.Value) error {
	t := w.t
	for i := range t.Columns {
		if i == t.RowidColumn {
			continue
		}
		vals[i] = t.Columns[i].Affinity.Apply(vals[i])
	}
	if len(t.gen) > 0 {
		if err := t.computeGenerated(vals); err != nil {
			return err
		}
	}
	// NOT NULL in SQLite's two passes (sqlite3GenerateConstraintChecks): on the first, a NULL
	// in a column whose algorithm is REPLACE takes the column's DEFAULT, if it has one, and any
	// other NULL fails at once (or skips the row, for IGNORE); on the second, a REPLACE column
	// still NULL fails as with ABORT.
	replaced := false
	for pass := 0; pass < 2; pass++ {
		for i, c := range t.Columns {
			if !c.NotNull || !vals[i].IsNull() || i == t.RowidColumn {
				continue
			}
			algo := effective(w.algo, c.NotNullConflict)
			switch {
			case algo == ast.ConflictReplace && pass == 0 && c.Default != nil:
				v, err := constDefault(c.Default, w.cx)
				if err != nil {
					return err
				}
				vals[i] = c.Affinity.Apply(v)
				replaced = true
				continue
			case algo == ast.ConflictReplace:
				algo = ast.ConflictAbort
			case pass == 1:
				continue
			}
			if algo == ast.ConflictIgnore {
				return errSkipRow
			}
			return &conflictError{err: fmt.Errorf("NOT NULL constraint failed: %s.%s", t.Name, c.Name), algo: algo}
		}
		if !replaced {
			break
		}
	}
	for i, x := range w.checks {
		w.e.rows[0] = vals
		v, err := x.eval(w.e)
		if err != nil {
			return err
		}
		if ok, known := value.Truth(v); known && !ok {
			if w.algo == ast.ConflictIgnore {
				return errSkipRow
			}
			c := t.Checks[i]
			name := c.Name
			if name == "" {
				name = c.Text
			}
			return &conflictError{err: fmt.Errorf("CHECK constraint failed: %s", name), algo: effective(w.algo, ast.ConflictAbort)}
		}
	}
	return nil
}

// resolveUnique handles the rows a new row (at key self, with rowid) would conflict with: an error
// for ABORT, FAIL and ROLLBACK, errSkipRow for IGNORE, their deletion for REPLACE.
func (w *rowWriter) resolveUnique(vals []value.Value, rowid int64, self []byte, isUpdate bool) error {
	t := w.t
	// SQLite's order, which decides the message when a row violates several: the rowid first,
	// then the UNIQUE constraints newest first, among them a WITHOUT ROWID table's primary key.
	// An UPDATE that keeps the row's key does not check the key.
	if !t.WithoutRowid && !isUpdate {
		if err := w.resolveKey(self); err != nil {
			return err
		}
	}
	for _, i := range w.uniques {
		if i < 0 {
			if !isUpdate {
				if err := w.resolveKey(self); err != nil {
					return err
				}
			}
			continue
		}
		ix := t.Indexes[i]
		// Every other row counts, the one at the same key too (the row being written is not
		// there: an INSERT has not written it, an UPDATE has deleted its old version).
		other, err := w.cx.conflicting(ix, vals, nil)
		if err != nil {
			return err
		}
		if other == nil {
			continue
		}
		if err := w.resolveIndex(ix, other); err != nil {
			return err
		}
	}
	return nil
}

// resolveIndex handles the row at key other that has the new row's values in the UNIQUE index
// ix, by the algorithm in force.
func (w *rowWriter) resolveIndex(ix *Index, other []byte) error {
	t := w.t
	algo := effective(w.algo, ix.Conflict)
	switch algo {
	case ast.ConflictIgnore:
		return errSkipRow
	case ast.ConflictReplace:
		row, ok, err := w.cx.readRow(t, other)
		if err != nil {
			return err
		}
		if ok {
			return w.cx.removeRow(t, row, rowidOfRow(t, row))
		}
		return nil
	}
	return &conflictError{err: uniqueIndexError(ix), algo: algo}
}

// resolveKey handles a row already at the new row's table key self (its rowid, or a WITHOUT
// ROWID table's primary key), as resolveUnique does the rows of a UNIQUE index.
func (w *rowWriter) resolveKey(self []byte) error {
	t := w.t
	existing, ok, err := w.cx.readRow(t, self)
	if err != nil || !ok {
		return err
	}
	algo := effective(w.algo, t.PKConflict)
	switch algo {
	case ast.ConflictIgnore:
		return errSkipRow
	case ast.ConflictReplace:
		return w.cx.removeRow(t, existing, rowidOfRow(t, existing))
	}
	if t.RowidColumn < 0 && !t.WithoutRowid {
		return &conflictError{err: fmt.Errorf("UNIQUE constraint failed: %s.rowid", t.Name), algo: algo}
	}
	return &conflictError{err: uniqueError(t, t.PrimaryKey), algo: algo}
}

// rowidOfRow returns the rowid in a decoded row (0 for WITHOUT ROWID).
func rowidOfRow(t *Table, row []value.Value) int64 {
	if t.WithoutRowid {
		return 0
	}
	return row[len(t.Columns)].Int()
}

// constDefault evaluates a DEFAULT expression (constant: no columns).
func constDefault(x exprAST, cx *execCtx) (value.Value, error) {
	b := &binder{pc: &planCtx{schema: cx.schema, sess: cx.sess}, sc: &scope{}, noAgg: "DEFAULT"}
	e, _, err := b.bind(x)
	if err != nil {
		return value.Value{}, err
	}
	return e.eval(&env{run: &runState{cx: cx, subqCache: map[*subquery]*subqResult{}}})
}

// insertPlan is what an INSERT needs that depends on the schema alone: made once per Schema
// and kept on the statement (Stmt.ins), so that a prepared INSERT run again binds nothing.
type insertPlan struct {
	schema   *Schema
	temp     *tempState // the session's TEMP tables it was planned with
	t        *Table
	targets  []int       // the target columns (len(t.Columns) for the rowid itself)
	source   *selectPlan // the rows: VALUES or a SELECT; nil for DEFAULT VALUES
	defaults []expr      // each column's DEFAULT (nil: NULL), evaluated once per execution
	checks   []expr      // t's CHECK constraints
	uniques  []int       // uniqueOrder(t)
	ret      *returningPlan
	up       *upsertPlan // the ON CONFLICT clauses, or nil
	// streamValues: the source is a VALUES list evaluated a row at a time, each row just before
	// it is inserted (streamableValues).
	streamValues bool
}

// planInsert plans st against x's schema.
func (x *execCtx) planInsert(st *ast.Insert) (*insertPlan, error) {
	t := x.table(st.Table)
	if t == nil {
		if x.schema.view(st.Table) != nil {
			return nil, fmt.Errorf("cannot modify %s because it is a view", st.Table)
		}
		if err := masterWriteError(st.Table, "modified"); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("no such table: %s", st.Table)
	}
	p := &insertPlan{schema: x.schema, temp: x.sess.temp, t: t, uniques: uniqueOrder(t)}
	// Target columns (none for DEFAULT VALUES: every column takes its default).
	switch {
	case st.DefaultValues:
	case st.Columns == nil:
		for i := range t.Columns {
			if !t.isGenerated(i) {
				p.targets = append(p.targets, i)
			}
		}
	default:
		for _, name := range st.Columns {
			i := t.columnIndex(name)
			if i < 0 {
				if isRowidName(name) && !t.WithoutRowid {
					i = len(t.Columns) // the rowid itself
				} else {
					return nil, fmt.Errorf("table %s has no column named %s", t.Name, name)
				}
			}
			if t.isGenerated(i) {
				return nil, fmt.Errorf("cannot INSERT into generated column %q", t.Columns[i].Name)
			}
			p.targets = append(p.targets, i)
		}
	}
	pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
	pop, err := pc.pushWith(st.With)
	if err != nil {
		return nil, err
	}
	defer pop()
	if !st.DefaultValues && st.Select != nil {
		plan, err := planSelect(pc, st.Select, &scope{})
		if err != nil {
			return nil, err
		}
		if n := len(p.targets); plan.ncols != n {
			if st.Columns == nil {
				return nil, fmt.Errorf("table %s has %d columns but %d values were supplied", t.Name, n, plan.ncols)
			}
			return nil, fmt.Errorf("%d values for %d columns", plan.ncols, n)
		}
		p.source = plan
		p.streamValues = plan.plainValues() != nil && streamableValues(st.Select)
	}
	p.defaults = make([]expr, len(t.Columns))
	for i, c := range t.Columns {
		if c.Default == nil {
			continue
		}
		b := &binder{pc: pc, sc: &scope{}, noAgg: "DEFAULT"}
		d, _, err := b.bind(c.Default)
		if err != nil {
			return nil, err
		}
		p.defaults[i] = d
	}
	checks, err := bindChecks(pc, t)
	if err != nil {
		return nil, err
	}
	p.checks = checks
	if len(st.Upserts) > 0 {
		if p.up, err = planUpsert(pc, t, st); err != nil {
			return nil, err
		}
	}
	if p.ret, err = planReturning(pc, t, st.Returning); err != nil {
		return nil, err
	}
	return p, nil
}

// insert runs an INSERT, with the plan cached in stmt (nil: plan for this run only).
func (x *execCtx) insert(st *ast.Insert, params []value.Value, stmt *Stmt) (Result, error) {
	var p *insertPlan
	if stmt != nil && stmt.ins != nil && stmt.ins.schema == x.schema && stmt.ins.temp == x.sess.temp {
		p = stmt.ins
	} else {
		if v := x.viewTarget(st.Table, ast.TriggerInsert); v != nil {
			return x.insertView(st, v, params)
		}
		var err error
		if p, err = x.planInsert(st); err != nil {
			return Result{}, err
		}
		if stmt != nil {
			stmt.ins = p
		}
	}
	t := p.t
	var ts *trigSet
	if x.hasTriggers() {
		var err error
		cols, rowidSlot := tableTriggerCols(t)
		if ts, err = x.triggersFor(t.Name, ast.TriggerInsert, cols, rowidSlot, nil); err != nil {
			return Result{}, err
		}
	}
	if x.sess.foreignKeys {
		op := fkInsert
		if (p.source == nil || len(p.source.plainValues()) == 1) && p.up == nil && st.Conflict != ast.ConflictReplace &&
			ts == nil && (x.trg == nil || len(x.trg.active) == 0) {
			op = fkInsertOne
		}
		if err := x.fkBegin(t, op, nil); err != nil {
			return Result{}, err
		}
	}
	x.ran = true
	var rows [][]value.Value
	var stream *valuesStream
	if p.streamValues {
		stream = newValuesStream(x, p, params)
	} else {
		var err error
		if rows, err = x.insertSource(p, params); err != nil {
			return Result{}, err
		}
	}
	defaults, err := x.defaults(p)
	if err != nil {
		return Result{}, err
	}
	w := newPlannedRowWriter(x, t, st.Conflict, params, p.checks, p.uniques)
	ret := x.newReturner(p.ret, params)
	var ups *upserter
	if p.up != nil {
		ups = x.newUpserter(p.up, t, params, ret)
	}
	var seq *seqState
	if t.AutoInc {
		if seq, err = x.loadSeq(t); err != nil {
			return Result{}, err
		}
	}
	var res Result
	nrows := len(rows)
	if stream != nil {
		nrows = len(stream.values)
	}
	for r := 0; r < nrows; r++ {
		var src []value.Value
		if stream != nil {
			if src, err = stream.row(r); err != nil {
				return res, err
			}
		} else {
			src = rows[r]
		}
		vals := defaults // a one-row INSERT's row is its defaults' slice, made for this run
		if nrows > 1 {
			vals = make([]value.Value, len(t.Columns)+1)
			copy(vals, defaults)
		}
		explicitRowid := false
		for i, col := range p.targets {
			vals[col] = src[i]
			if col == len(t.Columns) || col == t.RowidColumn {
				explicitRowid = !src[i].IsNull()
			}
		}
		if ts != nil && len(ts.before) > 0 {
			if err := x.fire(ts.before, beforeInsertRow(t, vals, explicitRowid), nil); err != nil {
				if errors.Is(err, errSkipRow) {
					continue
				}
				return res, err
			}
		}
		rowid, err := x.rowidFor(t, vals, explicitRowid, seq)
		if err != nil {
			return res, err
		}
		if ups != nil {
			inserted, err := ups.insertRow(w, vals, rowid)
			if errors.Is(err, errSkipRow) { // RAISE(IGNORE) in an UPDATE trigger
				ups.updated = 0
				continue
			}
			if err != nil {
				return res, err
			}
			if !inserted {
				res.RowsAffected += ups.updated
				ups.updated = 0
				continue
			}
		} else if err := x.insertRow(w, vals, rowid); err != nil {
			if errors.Is(err, errSkipRow) {
				continue
			}
			return res, err
		}
		res.RowsAffected++
		if !t.WithoutRowid {
			res.LastInsertID = rowid
			x.sess.lastInsertID = rowid
		}
		if ts != nil && len(ts.after) > 0 {
			if err := x.fire(ts.after, vals, nil); err != nil && !errors.Is(err, errSkipRow) {
				return res, err
			}
		}
		if ret != nil {
			if err := ret.add(vals); err != nil {
				return res, err
			}
		}
	}
	if seq != nil {
		if err := seq.store(x); err != nil {
			return res, err
		}
	}
	return res, nil
}

// insertRow checks and writes one new row.
func (x *execCtx) insertRow(w *rowWriter, vals []value.Value, rowid int64) error {
	t := w.t
	t.setRowid(vals, rowid)
	if err := w.prepare(vals); err != nil {
		return err
	}
	self := t.rowKey(vals, rowid)
	if err := w.resolveUnique(vals, rowid, self, false); err != nil {
		return err
	}
	if err := x.writeRow(t, vals, rowid); err != nil {
		return err
	}
	return x.fkInserted(t, vals, rowid)
}

// rowidFor returns the rowid of a new row: the given one (which must be an integer), or the next
// (seq: the sqlite_sequence entry of an AUTOINCREMENT table, else nil).
func (x *execCtx) rowidFor(t *Table, vals []value.Value, explicit bool, seq *seqState) (int64, error) {
	if t.WithoutRowid {
		return 0, nil
	}
	slot := len(t.Columns)
	if t.RowidColumn >= 0 && !vals[t.RowidColumn].IsNull() {
		slot = t.RowidColumn
	}
	if explicit && !vals[slot].IsNull() {
		id, ok := value.MustBeInt(vals[slot])
		if !ok {
			return 0, errors.New("datatype mismatch")
		}
		if seq != nil {
			seq.saw(id)
		}
		return id, nil
	}
	if seq != nil {
		return seq.next(x)
	}
	return x.nextRowid(t)
}

// defaults returns the default value of each column of p's table (a row of len(columns)+1).
func (x *execCtx) defaults(p *insertPlan) ([]value.Value, error) {
	out := make([]value.Value, len(p.t.Columns)+1)
	var e *env
	for i, d := range p.defaults {
		if d == nil {
			continue
		}
		if e == nil {
			e = &env{run: &runState{cx: x, subqCache: map[*subquery]*subqResult{}}}
		}
		v, err := d.eval(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// plainValues returns the rows of a select that is only VALUES (no compound, ORDER BY or
// LIMIT), which INSERT evaluates without running the select; nil otherwise.
func (p *selectPlan) plainValues() [][]expr {
	if cp := p.cores[0]; len(p.cores) == 1 && len(p.order) == 0 && p.limit == nil && p.offset == nil {
		return cp.values
	}
	return nil
}

// streamableValues reports whether the VALUES list of an INSERT may be evaluated a row at a time,
// each just before it is inserted, as SQLite's co-routine does (so that last_insert_rowid() in a
// row sees the row before): when its expressions hold no subquery (SQLite evaluates every row
// first when one reads the target table, and cairn does so for any subquery) and only nodes whose
// parts walkAST knows.
func streamableValues(sel *ast.Select) bool {
	if len(sel.Cores) != 1 || len(sel.Cores[0].Values) < 2 {
		return false // one row: nothing to interleave
	}
	ok := true
	for _, row := range sel.Cores[0].Values {
		for _, e := range row {
			walkAST(e, func(n exprAST) bool {
				switch n := n.(type) {
				case *ast.Literal, *ast.Param:
					return true
				case *ast.In:
					ok = n.Select == nil
					return ok
				}
				_, ok = astChildren(n)
				return ok
			})
			if !ok {
				return false
			}
		}
	}
	return true
}

// valuesStream evaluates the rows of a streamed VALUES list one at a time.
type valuesStream struct {
	values [][]expr
	e      *env
	buf    []value.Value // the row, overwritten by the next
}

func newValuesStream(x *execCtx, p *insertPlan, params []value.Value) *valuesStream {
	return &valuesStream{values: p.source.plainValues(), buf: make([]value.Value, len(p.targets)),
		e: &env{params: params, run: &runState{cx: x, params: params}}}
}

// row evaluates row r (its values copied: they outlive the statement's buffers).
func (s *valuesStream) row(r int) ([]value.Value, error) {
	for i, ex := range s.values[r] {
		v, err := ex.eval(s.e)
		if err != nil {
			return nil, err
		}
		s.buf[i] = v.Clone()
	}
	return s.buf, nil
}

// insertSource returns the rows p inserts (one value per target each), materialized first so
// that an INSERT ... SELECT from the same table reads it as it was.
func (x *execCtx) insertSource(p *insertPlan, params []value.Value) ([][]value.Value, error) {
	if p.source == nil {
		return [][]value.Value{make([]value.Value, len(p.targets))}, nil
	}
	values := p.source.plainValues()
	if values == nil {
		return p.source.collect(&runState{cx: x, params: params}, nil)
	}
	n := len(p.targets)
	var (
		e    *env
		rows [][]value.Value
		flat []value.Value
	)
	if len(values) == 1 && n <= len(oneRowSource{}.flat) { // the usual INSERT: one allocation
		o := &oneRowSource{run: runState{cx: x, params: params}}
		o.e = env{params: params, run: &o.run}
		e, rows, flat = &o.e, o.rows[:], o.flat[:n]
	} else {
		e = &env{params: params, run: &runState{cx: x, params: params}}
		rows = make([][]value.Value, len(values))
		flat = make([]value.Value, len(values)*n)
	}
	for r, exprs := range values {
		row := flat[r*n : (r+1)*n : (r+1)*n]
		for i, ex := range exprs {
			v, err := ex.eval(e)
			if err != nil {
				return nil, err
			}
			row[i] = v.Clone()
		}
		rows[r] = row
	}
	return rows, nil
}

// oneRowSource is insertSource's memory for a VALUES list of one row of up to 8 values.
type oneRowSource struct {
	run  runState
	e    env
	rows [1][]value.Value
	flat [8]value.Value
}

// targetPlan is what an UPDATE or DELETE needs that depends on the schema alone, kept on the
// statement (Stmt.dml) as an INSERT keeps its insertPlan: the loop over the target table with
// its WHERE, and for UPDATE the bound SET expressions, CHECK constraints and UNIQUE order.
type targetPlan struct {
	schema  *Schema
	temp    *tempState // the session's TEMP tables it was planned with
	t       *Table
	cp      *corePlan
	sets    []setColumn
	checks  []expr
	uniques []int
	ret     *returningPlan
}

// setColumn is one column = expression of an UPDATE (the column len(t.Columns): the rowid).
type setColumn struct {
	col int
	x   expr
}

// cachedTarget returns stmt's targetPlan for x's schema, planning it with plan when there is
// none (stmt nil: for this run only).
func (x *execCtx) cachedTarget(stmt *Stmt, plan func() (*targetPlan, error)) (*targetPlan, error) {
	if stmt != nil && stmt.dml != nil && stmt.dml.schema == x.schema && stmt.dml.temp == x.sess.temp {
		return stmt.dml, nil
	}
	p, err := plan()
	if err != nil {
		return nil, err
	}
	if stmt != nil {
		stmt.dml = p
	}
	return p, nil
}

// planTarget plans a single-table WHERE for UPDATE and DELETE, and returns the scope SET
// expressions bind in.
func (x *execCtx) planTarget(table, alias string, where exprAST, with *ast.With, from []ast.FromItem) (*targetPlan, *scope, error) {
	t := x.table(table)
	if t == nil {
		if x.schema.view(table) != nil {
			return nil, nil, fmt.Errorf("cannot modify %s because it is a view", table)
		}
		if err := masterWriteError(table, "modified"); err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("no such table: %s", table)
	}
	pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
	pop, err := pc.pushWith(with)
	if err != nil {
		return nil, nil, err
	}
	defer pop()
	name := t.Name
	if alias != "" {
		name = alias
	}
	sc := &scope{sources: []*source{tableSource(t, name)}}
	core := &ast.SelectCore{From: []ast.FromItem{{Table: table, Alias: alias}}, Where: where}
	if len(from) > 0 {
		// UPDATE ... FROM: the FROM items join the target; the target's table may be one of
		// them under another name only (SQLite's rule).
		for _, item := range from {
			n := item.Alias
			if n == "" {
				n = item.Table
			}
			if item.Subquery == nil && !item.Func && strings.EqualFold(item.Table, t.Name) && strings.EqualFold(n, name) {
				return nil, nil, fmt.Errorf("target object/alias may not appear in FROM clause: %s", name)
			}
		}
		for _, item := range from {
			// SQLite joins the target with the FROM's join as a whole; cairn's loops would
			// make the target part of a RIGHT or FULL join's left side.
			if item.Join == ast.JoinRight || item.Join == ast.JoinFull {
				return nil, nil, errors.New("unsupported: RIGHT or FULL join in UPDATE ... FROM")
			}
		}
		sc.updateTarget = true
		if err := addSources(pc, from, where, sc); err != nil {
			return nil, nil, err
		}
		core.From = append(core.From, from...)
	}
	cp := &corePlan{sources: sc.sources}
	if err := planJoin(pc, core, sc, cp); err != nil {
		return nil, nil, err
	}
	return &targetPlan{schema: x.schema, temp: x.sess.temp, t: t, cp: cp}, sc, nil
}

// planUpdate plans st: its target loop, SET expressions, CHECK constraints and UNIQUE order.
func (x *execCtx) planUpdate(st *ast.Update) (*targetPlan, error) {
	p, sc, err := x.planTarget(st.Table, st.Alias, st.Where, st.With, st.From)
	if err != nil {
		return nil, err
	}
	t := p.t
	pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
	pop, err := pc.pushWith(st.With)
	if err != nil {
		return nil, err
	}
	defer pop()
	b := &binder{pc: pc, sc: sc, noAgg: "SET"}
	for _, a := range st.Set {
		col := t.columnIndex(a.Columns[0])
		if col < 0 {
			if isRowidName(a.Columns[0]) && !t.WithoutRowid {
				col = len(t.Columns)
			} else {
				return nil, fmt.Errorf("no such column: %s", a.Columns[0])
			}
		}
		if t.isGenerated(col) {
			return nil, fmt.Errorf("cannot UPDATE generated column %q", t.Columns[col].Name)
		}
		ex, _, err := b.bind(a.Expr)
		if err != nil {
			return nil, err
		}
		p.sets = append(p.sets, setColumn{col, ex})
	}
	if p.checks, err = bindChecks(pc, t); err != nil {
		return nil, err
	}
	p.uniques = uniqueOrder(t)
	if p.ret, err = planReturning(pc, t, st.Returning); err != nil {
		return nil, err
	}
	return p, nil
}

// targetRows returns the rows p's WHERE selects (copied), in rowid or key order, all of them
// before the statement changes any.
func (x *execCtx) targetRows(p *targetPlan, params []value.Value) ([][]value.Value, error) {
	run := &runState{cx: x, params: params}
	e := &env{rows: make([][]value.Value, 1), run: run, params: params}
	j := &joinIter{cp: p.cp, e: e}
	var rows [][]value.Value
	for {
		ok, err := j.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return rows, nil
		}
		rows = append(rows, cloneRow(e.rows[0]))
	}
}

// targetRowsFrom returns, for UPDATE ... FROM, the target rows p's join selects (copied), each
// once (with the rows of the other sources of its first match), all of them before the
// statement changes any. others[i][k] is source k's row for rows[i] (k 0 unused).
func (x *execCtx) targetRowsFrom(p *targetPlan, params []value.Value) (rows [][]value.Value, others [][][]value.Value, err error) {
	run := &runState{cx: x, params: params}
	e := &env{rows: make([][]value.Value, len(p.cp.sources)), run: run, params: params}
	j := &joinIter{cp: p.cp, e: e}
	defer j.close()
	seen := map[string]struct{}{}
	for {
		ok, err := j.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return rows, others, nil
		}
		key := string(p.t.rowKey(e.rows[0], rowidOfRow(p.t, e.rows[0])))
		if _, dup := seen[key]; dup {
			continue // SQLite updates a target row once, with one of its matches
		}
		seen[key] = struct{}{}
		rows = append(rows, cloneRow(e.rows[0]))
		o := make([][]value.Value, len(e.rows))
		for k := 1; k < len(e.rows); k++ {
			o[k] = cloneRow(e.rows[k])
		}
		others = append(others, o)
	}
}

// planDelete plans st: its target loop and RETURNING.
func (x *execCtx) planDelete(st *ast.Delete) (*targetPlan, error) {
	p, _, err := x.planTarget(st.Table, st.Alias, st.Where, st.With, nil)
	if err != nil {
		return nil, err
	}
	pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
	if p.ret, err = planReturning(pc, p.t, st.Returning); err != nil {
		return nil, err
	}
	return p, nil
}

func (x *execCtx) delete(st *ast.Delete, params []value.Value, stmt *Stmt) (Result, error) {
	if stmt == nil || stmt.dml == nil || stmt.dml.schema != x.schema {
		if v := x.viewTarget(st.Table, ast.TriggerDelete); v != nil {
			return x.deleteView(st, v, params)
		}
	}
	p, err := x.cachedTarget(stmt, func() (*targetPlan, error) { return x.planDelete(st) })
	if err != nil {
		return Result{}, err
	}
	t := p.t
	var ts *trigSet
	if x.hasTriggers() {
		cols, rowidSlot := tableTriggerCols(t)
		if ts, err = x.triggersFor(t.Name, ast.TriggerDelete, cols, rowidSlot, nil); err != nil {
			return Result{}, err
		}
	}
	if err := x.fkBegin(t, fkDelete, nil); err != nil {
		return Result{}, err
	}
	x.ran = true
	rows, err := x.targetRows(p, params)
	if err != nil {
		return Result{}, err
	}
	ret := x.newReturner(p.ret, params)
	var res Result
	for _, row := range rows {
		if ts != nil {
			// The row as it is now: a trigger may have deleted or changed it.
			var ok bool
			if row, ok, err = x.triggerDeleteBefore(t, ts, row); err != nil {
				return res, err
			}
			if !ok {
				continue
			}
		} else if x.fk != nil { // a foreign key action may have deleted the row
			_, ok, err := x.readRow(t, t.rowKey(row, rowidOfRow(t, row)))
			if err != nil {
				return res, err
			}
			if !ok {
				continue
			}
		}
		if err := x.removeRow(t, row, rowidOfRow(t, row)); err != nil {
			return res, err
		}
		res.RowsAffected++
		if ts != nil && len(ts.after) > 0 {
			if err := x.fire(ts.after, nil, row); err != nil && !errors.Is(err, errSkipRow) {
				return res, err
			}
		}
		if ret != nil {
			if err := ret.add(row); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// update runs an UPDATE.
func (x *execCtx) update(st *ast.Update, params []value.Value, stmt *Stmt) (Result, error) {
	if stmt == nil || stmt.dml == nil || stmt.dml.schema != x.schema {
		if v := x.viewTarget(st.Table, ast.TriggerUpdate); v != nil {
			if len(st.From) > 0 {
				return Result{}, errors.New("unsupported: UPDATE ... FROM of a view")
			}
			return x.updateView(st, v, params)
		}
	}
	p, err := x.cachedTarget(stmt, func() (*targetPlan, error) { return x.planUpdate(st) })
	if err != nil {
		return Result{}, err
	}
	t, sets := p.t, p.sets
	var ts *trigSet
	if x.hasTriggers() {
		cols, rowidSlot := tableTriggerCols(t)
		if ts, err = x.triggersFor(t.Name, ast.TriggerUpdate, cols, rowidSlot, updateOfFunc(t, sets)); err != nil {
			return Result{}, err
		}
	}
	if err := x.fkBegin(t, fkUpdate, sets); err != nil {
		return Result{}, err
	}
	x.ran = true
	var rows [][]value.Value
	var others [][][]value.Value // UPDATE ... FROM: the other sources' rows of each target row
	if len(p.cp.sources) > 1 {
		rows, others, err = x.targetRowsFrom(p, params)
	} else {
		rows, err = x.targetRows(p, params)
	}
	if err != nil {
		return Result{}, err
	}
	w := newPlannedRowWriter(x, t, st.Conflict, params, p.checks, p.uniques)
	w.sets = sets
	ret := x.newReturner(p.ret, params)
	run := &runState{cx: x, params: params}
	e := &env{rows: make([][]value.Value, len(p.cp.sources)), run: run, params: params}
	slot := rowidSetSlot(t, sets)
	var res Result
	for i, target := range rows {
		if others != nil {
			copy(e.rows[1:], others[i][1:])
		}
		// The row as it is now at the target's key: REPLACE may have deleted it, or moved an
		// updated row there, which SQLite then updates (it does not test WHERE again).
		old, ok, err := x.readRow(t, t.rowKey(target, rowidOfRow(t, target)))
		if err != nil {
			return res, err
		}
		if !ok {
			continue
		}
		old = cloneRow(old)
		e.rows[0] = old
		vals := append([]value.Value(nil), old...)
		for _, s := range sets {
			v, err := s.x.eval(e)
			if err != nil {
				return res, err
			}
			vals[s.col] = v.Clone()
		}
		if ts != nil && len(ts.before) > 0 {
			if old, ok, err = x.triggerUpdateBefore(t, ts, old, vals, sets, slot); err != nil {
				return res, err
			}
			if !ok {
				continue
			}
		}
		written, err := x.updateRow(w, old, vals, slot)
		if err != nil {
			return res, err
		}
		if !written {
			continue
		}
		res.RowsAffected++
		if ts != nil && len(ts.after) > 0 {
			if err := x.fire(ts.after, vals, old); err != nil && !errors.Is(err, errSkipRow) {
				return res, err
			}
		}
		if ret != nil {
			if err := ret.add(vals); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// rowidSetSlot returns the slot of a row of t from which an UPDATE with sets takes the new
// rowid: the last SET of the rowid or its alias column, else the rowid slot (len(t.Columns)).
func rowidSetSlot(t *Table, sets []setColumn) int {
	slot := len(t.Columns)
	for _, s := range sets {
		if s.col == t.RowidColumn || s.col == len(t.Columns) {
			slot = s.col
		}
	}
	return slot
}

// updateRow replaces the row old of w's table by vals (old with the SET values applied; the new
// rowid, for a rowid table, from vals[slot]), checking the constraints. It reports false when
// IGNORE skipped the row.
func (x *execCtx) updateRow(w *rowWriter, old, vals []value.Value, slot int) (bool, error) {
	t := w.t
	oldRowid := rowidOfRow(t, old)
	rowid := oldRowid
	if !t.WithoutRowid {
		if slot != len(t.Columns) || vals[slot].Int() != oldRowid || vals[slot].Kind() != value.Integer {
			id, ok := value.MustBeInt(vals[slot])
			if !ok {
				return false, errors.New("datatype mismatch")
			}
			rowid = id
		}
		t.setRowid(vals, rowid)
	}
	if err := w.prepare(vals); err != nil {
		if errors.Is(err, errSkipRow) {
			return false, nil
		}
		return false, err
	}
	oldKey := t.rowKey(old, oldRowid)
	newKey := t.rowKey(vals, rowid)
	if err := x.deleteRow(t, old, oldRowid); err != nil {
		return false, err
	}
	keyMoved := string(oldKey) != string(newKey)
	if err := w.resolveUnique(vals, rowid, newKey, !keyMoved); err != nil {
		// The row stays as it was: skipped by IGNORE, or left by FAIL (which keeps the
		// rows changed before it).
		if werr := x.writeRow(t, old, oldRowid); werr != nil {
			return false, werr
		}
		if errors.Is(err, errSkipRow) {
			return false, nil
		}
		return false, err
	}
	if err := x.fkUpdating(t, old, vals, oldKey, w.sets); err != nil {
		return false, err
	}
	if err := x.writeRow(t, vals, rowid); err != nil {
		return false, err
	}
	return true, x.fkUpdated(t, old, vals, newKey, w.sets)
}

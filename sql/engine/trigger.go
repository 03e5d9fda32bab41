package engine

// Triggers (lang_createtrigger.html), with SQLite's behaviour:
//   - A trigger is a schema entry of kind "trigger" (FORMAT.md, "SQL schema"): its CREATE
//     TRIGGER text, re-parsed when the schema loads, and an id from next-id that orders the
//     triggers by creation. Several triggers of one table and event fire newest first, as
//     SQLite's do. Dropping a table or view drops its triggers.
//   - Triggers fire for each row: BEFORE ones before the row's constraints are checked (an
//     INSERT's NEW has its defaults and affinities applied, and NEW.rowid -1 unless the row
//     gives one), AFTER ones after the row is written, INSTEAD OF ones (on views) in place of
//     the change. An UPDATE fires only the UPDATE OF triggers one of whose columns it sets. An
//     upsert fires the INSERT triggers, and for a row DO UPDATE changes the UPDATE triggers
//     instead of AFTER INSERT. REPLACE's deletions fire nothing (recursive_triggers is off).
//   - A trigger never fires while it runs (recursive_triggers off); other triggers fire in the
//     statements of a trigger program, nested.
//   - The programs are bound once per statement, when the statement starts, over NEW and OLD
//     (trigBind): NEW.col reads the row being written, OLD.col the row before, through
//     execCtx.trg.frame. A statement on a table without triggers pays one map lookup (none
//     when the schema has no trigger at all).
//   - RAISE(IGNORE) abandons the trigger program and the row that fired it (errSkipRow);
//     RAISE(ABORT|FAIL|ROLLBACK, msg) fails the statement with msg as the error, handled as a
//     conflict with that algorithm (conflictError). A trigger program's changes do not count
//     in the statement's changes, and last_insert_rowid is restored when a program ends.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// triggerFormatVersion is the schema layout version of a database holding triggers: version 3
// (formatVersion) with entries of kind "trigger". The first CREATE TRIGGER writes it, so that
// builds that do not know triggers refuse the database instead of failing on the entry.
const triggerFormatVersion = 4

// Trigger is a trigger of the schema.
type Trigger struct {
	Name     string
	Table    string // the table or view it is on, as CREATE TRIGGER names it
	SQL      string
	ID       int64 // orders triggers by creation
	Time     ast.TriggerTime
	Event    ast.TriggerEvent
	UpdateOf []string
	When     ast.Expr
	Body     []ast.Stmt
}

// triggerKey is the schema bucket key of trigger name: triggers have a name space of their own
// (a trigger may share its name with a table), and no object name holds a zero byte.
func triggerKey(name string) []byte { return []byte("trigger\x00" + fold(name)) }

func newTrigger(st *ast.CreateTrigger, id int64) *Trigger {
	return &Trigger{Name: st.Name, Table: st.Table, SQL: st.SQL, ID: id, Time: st.Time, Event: st.Event,
		UpdateOf: st.UpdateOf, When: st.When, Body: st.Body}
}

// addTrigger adds tr to s (whose maps are s's own).
func (s *Schema) addTrigger(tr *Trigger) {
	if s.triggers == nil {
		s.triggers = map[string]*Trigger{}
		s.tableTriggers = map[string][]*Trigger{}
	}
	s.triggers[fold(tr.Name)] = tr
	k := fold(tr.Table)
	list := append(slices.Clone(s.tableTriggers[k]), tr)
	slices.SortFunc(list, func(a, b *Trigger) int { return cmp.Compare(b.ID, a.ID) }) // newest first
	s.tableTriggers[k] = list
}

// removeTrigger removes tr from s (whose maps are s's own).
func (s *Schema) removeTrigger(tr *Trigger) {
	delete(s.triggers, fold(tr.Name))
	k := fold(tr.Table)
	list := slices.DeleteFunc(slices.Clone(s.tableTriggers[k]), func(o *Trigger) bool { return o == tr })
	if len(list) == 0 {
		delete(s.tableTriggers, k)
	} else {
		s.tableTriggers[k] = list
	}
}

func (s *Schema) trigger(name string) *Trigger { return s.triggers[fold(name)] }

// cloneTriggers gives c copies of s's trigger maps.
func (s *Schema) cloneTriggers(c *Schema) {
	if len(s.triggers) == 0 {
		return
	}
	c.triggers = make(map[string]*Trigger, len(s.triggers))
	c.tableTriggers = make(map[string][]*Trigger, len(s.tableTriggers))
	for k, v := range s.triggers {
		c.triggers[k] = v
	}
	for k, v := range s.tableTriggers {
		c.tableTriggers[k] = v
	}
}

// hasTriggers reports whether the statement may fire any trigger: the schema or the session
// has one. Statements check it once, so that tables without triggers pay nothing per row.
func (x *execCtx) hasTriggers() bool {
	return len(x.schema.triggers) > 0 || x.sess.tempTrigs() != nil && len(x.sess.tempTrigs().triggers) > 0
}

// createTrigger runs CREATE TRIGGER. A TEMP trigger, and any trigger on a TEMP table or view,
// belongs to the session (Session.tempTrigs): it fires for the session's statements only, before
// the database's triggers, and goes with the session.
func (x *execCtx) createTrigger(st *ast.CreateTrigger) error {
	if len(st.Name) > 7 && equalFoldPrefix(st.Name, "sqlite_") {
		return fmt.Errorf("object name reserved for internal use: %s", st.Name)
	}
	t := x.schema.table(st.Table)
	v := x.schema.view(st.Table)
	temp := st.Temp
	if tv := x.sess.tempViews[fold(st.Table)]; tv != nil { // TEMP objects come first
		t, v, temp = nil, tv, true
	} else if tt := x.sess.temp.table(st.Table); tt != nil {
		t, v, temp = tt, nil, true
	}
	exists := x.schema.trigger(st.Name) != nil
	if temp {
		exists = x.sess.tempTrigs() != nil && x.sess.tempTrigs().trigger(st.Name) != nil
	}
	switch {
	case t == nil && v == nil:
		return fmt.Errorf("no such table: main.%s", st.Table)
	case exists:
		if st.IfNotExists {
			return nil
		}
		return fmt.Errorf("trigger %s already exists", st.Name)
	case t != nil && equalFoldPrefix(t.Name, "sqlite_"):
		return fmt.Errorf("cannot create trigger on system table")
	case v != nil && st.Time != ast.TriggerInsteadOf:
		what := "BEFORE"
		if st.Time == ast.TriggerAfter {
			what = "AFTER"
		}
		return fmt.Errorf("cannot create %s trigger on view: %s", what, st.Table)
	case t != nil && st.Time == ast.TriggerInsteadOf:
		return fmt.Errorf("cannot create INSTEAD OF trigger on table: %s", st.Table)
	}
	if temp {
		x.editTempTriggers(func(tt *Schema) {
			// TEMP triggers fire in creation order: their ids count down (cookie counts them).
			tt.cookie++
			tr := newTrigger(st, -tt.cookie)
			if t != nil {
				tr.Table = t.Name
			} else {
				tr.Table = v.Name
			}
			tt.addTrigger(tr)
		})
		return nil
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	if err := raiseVersion(b, triggerFormatVersion); err != nil {
		return err
	}
	id, err := x.newID(b)
	if err != nil {
		return err
	}
	tr := newTrigger(st, id)
	tname := st.Table
	if t != nil {
		tname = t.Name
	} else {
		tname = v.Name
	}
	if err := putSchemaEntry(b, schemaEntry{kind: "trigger", name: tr.Name, table: tname, id: id, sql: st.SQL}); err != nil {
		return err
	}
	s := x.schema.clone()
	s.addTrigger(tr)
	return x.changed(b, s)
}

// dropTrigger runs DROP TRIGGER: of the TEMP trigger of that name if there is one (or
// temp.name), else of the database's.
func (x *execCtx) dropTrigger(st *ast.DropTrigger) error {
	if tt := x.sess.tempTrigs(); tt != nil && st.Schema != "main" {
		if tr := tt.trigger(st.Name); tr != nil {
			x.editTempTriggers(func(tt *Schema) { tt.removeTrigger(tt.trigger(st.Name)) })
			return nil
		}
	}
	var tr *Trigger
	if st.Schema != "temp" {
		tr = x.schema.trigger(st.Name)
	}
	if tr == nil {
		if st.IfExists {
			return nil
		}
		if st.Schema != "" {
			return fmt.Errorf("no such trigger: %s.%s", st.Schema, st.Name)
		}
		return fmt.Errorf("no such trigger: %s", st.Name)
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	if err := b.Delete(triggerKey(tr.Name)); err != nil {
		return err
	}
	s := x.schema.clone()
	s.removeTrigger(tr)
	return x.changed(b, s)
}

// dropTriggersOn deletes the schema entries of the triggers on the table or view name and
// removes them from s (DROP TABLE, DROP VIEW).
func (x *execCtx) dropTriggersOn(s *Schema, name string) error {
	x.dropTempTriggersOn(name)
	list := s.tableTriggers[fold(name)]
	if len(list) == 0 {
		return nil
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	for _, tr := range list {
		if err := b.Delete(triggerKey(tr.Name)); err != nil {
			return err
		}
		s.removeTrigger(tr)
	}
	return nil
}

// dropTempTriggersOn removes the session's TEMP triggers on the table or view name.
func (x *execCtx) dropTempTriggersOn(name string) {
	if tt := x.sess.tempTrigs(); tt != nil && len(tt.tableTriggers[fold(name)]) > 0 {
		x.editTempTriggers(func(tt *Schema) {
			for _, tr := range tt.tableTriggers[fold(name)] {
				tt.removeTrigger(tr)
			}
		})
	}
}

// tempTrigs returns the session's TEMP triggers (a Schema holding only trigger maps), nil
// before the first. They are part of its TEMP state (temp.go), so the statement, savepoint and
// transaction rollbacks that put an older TEMP state back undo their changes too.
func (s *Session) tempTrigs() *Schema {
	if s.temp == nil {
		return nil
	}
	return s.temp.trig
}

// editTempTriggers gives the session a new TEMP state whose TEMP triggers are a copy of its
// own, changed by fn (TEMP states are never changed in place).
func (x *execCtx) editTempTriggers(fn func(tt *Schema)) {
	tt := emptySchema()
	if old := x.sess.tempTrigs(); old != nil {
		old.cloneTriggers(tt)
		tt.cookie = old.cookie
	}
	fn(tt)
	next := x.sess.temp.with("", nil) // a copy
	next.trig = tt
	x.sess.temp = next
}

// trigBind is what NEW and OLD name while a trigger program is bound.
type trigBind struct {
	cols           []srcColumn
	rowidSlot      int // -1: none (a view, a WITHOUT ROWID table)
	hasNew, hasOld bool
}

// trigFrame is the rows NEW and OLD of the trigger program that runs.
type trigFrame struct {
	new, old []value.Value
}

// trigRun is an execution's trigger state (execCtx.trg), made when a statement first meets a
// trigger.
type trigRun struct {
	frame  *trigFrame
	bind   *trigBind
	active []*Trigger // the programs running, outermost first
	progs  map[*Trigger]*trigProg
}

// trigColExpr reads column col of NEW or OLD.
type trigColExpr struct {
	old bool
	col int
}

func (c *trigColExpr) eval(e *env) (value.Value, error) {
	f := e.run.cx.trg.frame
	if c.old {
		return f.old[c.col], nil
	}
	return f.new[c.col], nil
}

// trigColumn binds NEW.col or OLD.col in a trigger program; ok false when e names neither.
func (b *binder) trigColumn(e *ast.ColumnRef) (expr, exprInfo, bool) {
	if b.pc.cx == nil || b.pc.cx.trg == nil || b.pc.cx.trg.bind == nil {
		return nil, exprInfo{}, false
	}
	tb := b.pc.cx.trg.bind
	isNew, isOld := strings.EqualFold(e.Table, "new"), strings.EqualFold(e.Table, "old")
	if !(isNew && tb.hasNew || isOld && tb.hasOld) {
		return nil, exprInfo{}, false
	}
	for i, c := range tb.cols {
		if strings.EqualFold(c.name, e.Column) {
			info := exprInfo{hasAff: !c.noAffinity, aff: c.affinity, coll: c.collation, hasColl: !c.noCollation}
			return &trigColExpr{old: isOld, col: i}, info, true
		}
	}
	if isRowidName(e.Column) && tb.rowidSlot >= 0 {
		return &trigColExpr{old: isOld, col: tb.rowidSlot}, exprInfo{hasAff: true, aff: value.AffinityInteger}, true
	}
	return nil, exprInfo{}, false
}

// raiseExpr is RAISE(...).
type raiseExpr struct {
	action ast.RaiseAction
	msg    expr
}

func (r *raiseExpr) eval(e *env) (value.Value, error) {
	if r.action == ast.RaiseIgnore {
		return value.Value{}, errSkipRow
	}
	v, err := r.msg.eval(e)
	if err != nil {
		return value.Value{}, err
	}
	algo := map[ast.RaiseAction]ast.Conflict{ast.RaiseAbort: ast.ConflictAbort, ast.RaiseFail: ast.ConflictFail,
		ast.RaiseRollback: ast.ConflictRollback}[r.action]
	return value.Value{}, &conflictError{err: errors.New(string(v.AppendText(nil))), algo: algo}
}

func (b *binder) raise(e *ast.Raise) (expr, exprInfo, error) {
	if b.pc.cx == nil || b.pc.cx.trg == nil || b.pc.cx.trg.bind == nil {
		return nil, exprInfo{}, errors.New("RAISE() may only be used within a trigger-program")
	}
	r := &raiseExpr{action: e.Action}
	if e.Message != nil {
		m, _, err := b.bind(e.Message)
		if err != nil {
			return nil, exprInfo{}, err
		}
		r.msg = m
	}
	return r, exprInfo{}, nil
}

// trigProg is a trigger bound for one execution of a statement.
type trigProg struct {
	tr    *Trigger
	bind  *trigBind
	when  expr // nil: always
	steps []trigStep
}

// trigStep is one statement of a trigger program: an INSERT, UPDATE or DELETE with its plan
// cache, or a SELECT's plan.
type trigStep struct {
	st    ast.Stmt
	cache *Stmt
	sel   *selectPlan
}

// trigSet is the programs of the triggers one statement fires on one table, in firing order.
type trigSet struct {
	before, after, instead []*trigProg
}

// triggersFor returns the programs of the triggers on the table or view name for event, bound
// over NEW and OLD of cols (rowidSlot -1: none); nil when there is none (updateOf, for an
// UPDATE, reports whether the statement sets a column a trigger's UPDATE OF lists). Bound
// once per statement: an error in a program is the statement's before it changes anything.
func (x *execCtx) triggersFor(name string, event ast.TriggerEvent, cols []srcColumn, rowidSlot int,
	updateOf func(col string) bool) (*trigSet, error) {
	if !x.hasTriggers() {
		return nil, nil
	}
	list := x.schema.tableTriggers[fold(name)]
	if x.sess.temp.table(name) != nil || x.sess.tempViews[fold(name)] != nil {
		list = nil // a TEMP table or view hides the database's object of that name
	}
	if tt := x.sess.tempTrigs(); tt != nil && len(tt.tableTriggers[fold(name)]) > 0 {
		list = append(slices.Clone(tt.tableTriggers[fold(name)]), list...) // TEMP ones first
	}
	if len(list) == 0 {
		return nil, nil
	}
	var ts *trigSet
	for _, tr := range list {
		if tr.Event != event {
			continue
		}
		if event == ast.TriggerUpdate && len(tr.UpdateOf) > 0 && updateOf != nil &&
			!slices.ContainsFunc(tr.UpdateOf, updateOf) {
			continue
		}
		if x.trg != nil && slices.Contains(x.trg.active, tr) {
			continue // recursive_triggers is off
		}
		p, err := x.program(tr, cols, rowidSlot)
		if err != nil {
			return nil, err
		}
		if ts == nil {
			ts = &trigSet{}
		}
		switch tr.Time {
		case ast.TriggerBefore:
			ts.before = append(ts.before, p)
		case ast.TriggerAfter:
			ts.after = append(ts.after, p)
		default:
			ts.instead = append(ts.instead, p)
		}
	}
	return ts, nil
}

// program binds tr's WHEN and statements (once per execution of the outer statement).
func (x *execCtx) program(tr *Trigger, cols []srcColumn, rowidSlot int) (*trigProg, error) {
	if x.trg == nil {
		x.trg = &trigRun{}
	}
	if p := x.trg.progs[tr]; p != nil {
		return p, nil
	}
	tb := &trigBind{cols: cols, rowidSlot: rowidSlot, hasNew: tr.Event != ast.TriggerDelete,
		hasOld: tr.Event != ast.TriggerInsert}
	p := &trigProg{tr: tr, bind: tb}
	saved := x.trg.bind
	x.trg.bind = tb
	defer func() { x.trg.bind = saved }()
	pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
	if tr.When != nil {
		w, _, err := (&binder{pc: pc, sc: &scope{}, noAgg: "WHEN"}).bind(tr.When)
		if err != nil {
			return nil, err
		}
		shortCircuit(w)
		p.when = w
	}
	for _, st := range tr.Body {
		step := trigStep{st: st, cache: &Stmt{sess: x.sess}}
		if name := writeTarget(st); name != "" && x.schema.table(name) == nil && x.schema.view(name) == nil {
			return nil, fmt.Errorf("no such table: main.%s", name)
		}
		var err error
		switch st := st.(type) {
		case *ast.Select:
			step.sel, err = planSelect(pc, st, &scope{})
			if msg, ok := strings.CutPrefix(fmt.Sprint(err), "no such table: "); ok && !strings.Contains(msg, ".") {
				err = fmt.Errorf("no such table: main.%s", msg) // SQLite names the database in triggers
			}
		case *ast.Insert:
			if x.schema.table(st.Table) != nil {
				step.cache.ins, err = x.planInsert(st)
			}
		case *ast.Update:
			if x.schema.table(st.Table) != nil {
				step.cache.dml, err = x.planUpdate(st)
			}
		case *ast.Delete:
			if x.schema.table(st.Table) != nil {
				step.cache.dml, err = x.planDelete(st)
			}
		}
		if err != nil {
			return nil, err
		}
		p.steps = append(p.steps, step)
	}
	if x.trg.progs == nil {
		x.trg.progs = map[*Trigger]*trigProg{}
	}
	x.trg.progs[tr] = p
	return p, nil
}

// fire runs the programs progs for one row (new or old nil where the event has none). It
// returns errSkipRow when one of them ran RAISE(IGNORE): the row and the programs after it
// are abandoned.
func (x *execCtx) fire(progs []*trigProg, newRow, oldRow []value.Value) error {
	for _, p := range progs {
		if err := x.runProgram(p, newRow, oldRow); err != nil {
			return err
		}
	}
	return nil
}

func (x *execCtx) runProgram(p *trigProg, newRow, oldRow []value.Value) error {
	tg := x.trg
	// Inside the program, last_insert_rowid() and changes() follow its own statements; both
	// are back to the outer values when it ends. total_changes() counts its rows.
	savedFrame, savedBind, savedID, savedChanges := tg.frame, tg.bind, x.sess.lastInsertID, x.sess.changes
	tg.frame, tg.bind = &trigFrame{new: newRow, old: oldRow}, p.bind
	tg.active = append(tg.active, p.tr)
	defer func() {
		tg.frame, tg.bind = savedFrame, savedBind
		tg.active = tg.active[:len(tg.active)-1]
		x.sess.lastInsertID, x.sess.changes = savedID, savedChanges
	}()
	run := &runState{cx: x}
	if p.when != nil {
		v, err := p.when.eval(&env{run: run})
		if err != nil {
			return err
		}
		if ok, known := value.Truth(v); !known || !ok {
			return nil
		}
	}
	for _, step := range p.steps {
		var err error
		var res Result
		switch st := step.st.(type) {
		case *ast.Select:
			err = x.runTriggerSelect(step.sel)
		case *ast.Insert:
			res, err = x.insert(st, nil, step.cache)
		case *ast.Update:
			res, err = x.update(st, nil, step.cache)
		case *ast.Delete:
			res, err = x.delete(st, nil, step.cache)
		}
		if err != nil {
			return err
		}
		if _, isSelect := step.st.(*ast.Select); !isSelect {
			x.sess.changes = res.RowsAffected
			x.sess.totalChanges += res.RowsAffected
		}
	}
	return nil
}

// runTriggerSelect runs a SELECT of a trigger program to its end, for its RAISE calls and
// errors; its rows are dropped.
func (x *execCtx) runTriggerSelect(p *selectPlan) error {
	it, err := p.open(&runState{cx: x}, nil)
	if err != nil {
		return err
	}
	defer it.close()
	for {
		ok, err := it.next()
		if err != nil || !ok {
			return err
		}
	}
}

// beforeInsertRow returns NEW for BEFORE INSERT triggers: vals with the columns' affinities
// applied and the rowid -1 unless the row gives one.
func beforeInsertRow(t *Table, vals []value.Value, explicitRowid bool) []value.Value {
	row := slices.Clone(vals)
	for i := range t.Columns {
		if i != t.RowidColumn {
			row[i] = t.Columns[i].Affinity.Apply(row[i])
		}
	}
	if t.WithoutRowid {
		return row
	}
	rowid := value.Int(-1)
	if explicitRowid {
		slot := len(t.Columns)
		if t.RowidColumn >= 0 && !vals[t.RowidColumn].IsNull() {
			slot = t.RowidColumn
		}
		rowid = value.AffinityInteger.Apply(vals[slot])
	}
	row[len(t.Columns)] = rowid
	if t.RowidColumn >= 0 {
		row[t.RowidColumn] = rowid
	}
	return row
}

// beforeUpdateRow returns NEW for BEFORE UPDATE triggers: vals (the row with the SET values)
// with affinities applied and the new rowid (from slot) in the rowid slot and its alias.
func beforeUpdateRow(t *Table, vals []value.Value, slot int) []value.Value {
	row := slices.Clone(vals)
	for i := range t.Columns {
		if i != t.RowidColumn {
			row[i] = t.Columns[i].Affinity.Apply(row[i])
		}
	}
	if !t.WithoutRowid {
		rowid := value.AffinityInteger.Apply(vals[slot])
		row[len(t.Columns)] = rowid
		if t.RowidColumn >= 0 {
			row[t.RowidColumn] = rowid
		}
	}
	return row
}

// tableTriggerCols returns what NEW and OLD name for a table: its columns and rowid.
func tableTriggerCols(t *Table) ([]srcColumn, int) {
	if t.WithoutRowid {
		return tableColumns(t), -1
	}
	return tableColumns(t), len(t.Columns)
}

// updateOfFunc returns, for an UPDATE of t setting sets, whether a column name is set.
func updateOfFunc(t *Table, sets []setColumn) func(string) bool {
	return func(name string) bool {
		c := t.columnIndex(name)
		if c < 0 && isRowidName(name) {
			c = len(t.Columns)
		}
		for _, s := range sets {
			if s.col == c {
				return true
			}
		}
		return false
	}
}

// reloadUnset re-reads the row at old's key after BEFORE triggers ran (they may have changed
// it) and takes into vals the columns the UPDATE does not set; ok false if the row is gone.
func (x *execCtx) reloadUnset(t *Table, old, vals []value.Value, sets []setColumn) ([]value.Value, bool, error) {
	fresh, ok, err := x.readRow(t, t.rowKey(old, rowidOfRow(t, old)))
	if err != nil || !ok {
		return nil, false, err
	}
	fresh = cloneRow(fresh)
	set := make([]bool, len(vals))
	for _, s := range sets {
		set[s.col] = true
	}
	for i := range vals {
		if !set[i] {
			vals[i] = fresh[i]
		}
	}
	return fresh, true, nil
}

// beUint64 is v as 8 big-endian bytes.
func beUint64(v uint64) []byte {
	return []byte{byte(v >> 56), byte(v >> 48), byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// triggerUpdateBefore fires the BEFORE UPDATE programs of ts for the row old, to become vals
// (new rowid in vals[slot]), then reads the row again, as SQLite does, since a trigger may have
// changed it: the columns the UPDATE does not set come from the row as it is now. It returns
// that row, or ok false when RAISE(IGNORE) skipped the row or a trigger deleted it.
func (x *execCtx) triggerUpdateBefore(t *Table, ts *trigSet, old, vals []value.Value, sets []setColumn, slot int) ([]value.Value, bool, error) {
	if err := x.fire(ts.before, beforeUpdateRow(t, vals, slot), old); err != nil {
		if errors.Is(err, errSkipRow) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return x.reloadUnset(t, old, vals, sets)
}

// triggerDeleteBefore reads a row a DELETE is about to delete as it is now (an earlier row's
// triggers may have changed or deleted it), fires the BEFORE DELETE programs of ts for it and
// reads it again. ok is false when the row is gone or RAISE(IGNORE) skipped it.
func (x *execCtx) triggerDeleteBefore(t *Table, ts *trigSet, row []value.Value) ([]value.Value, bool, error) {
	key := t.rowKey(row, rowidOfRow(t, row))
	cur, ok, err := x.readRow(t, key)
	if err != nil || !ok {
		return nil, false, err
	}
	row = cloneRow(cur)
	if len(ts.before) == 0 {
		return row, true, nil
	}
	if err := x.fire(ts.before, nil, row); err != nil {
		if errors.Is(err, errSkipRow) {
			return nil, false, nil
		}
		return nil, false, err
	}
	cur, ok, err = x.readRow(t, key)
	if err != nil || !ok {
		return nil, false, err
	}
	return cloneRow(cur), true, nil
}

// upsertTriggers returns the UPDATE triggers a DO UPDATE setting sets fires on t.
func (x *execCtx) upsertTriggers(t *Table, sets []setColumn) (*trigSet, error) {
	if !x.hasTriggers() {
		return nil, nil
	}
	cols, rowidSlot := tableTriggerCols(t)
	return x.triggersFor(t.Name, ast.TriggerUpdate, cols, rowidSlot, updateOfFunc(t, sets))
}

// viewTarget returns the view an INSERT, UPDATE or DELETE of name changes through its INSTEAD
// OF triggers for event: nil when name is not a view or the view has no such trigger (the
// statement then fails as on any view).
func (x *execCtx) viewTarget(name string, event ast.TriggerEvent) *View {
	if !x.hasTriggers() {
		return nil
	}
	v := x.sess.tempViews[fold(name)]
	list := x.schema.tableTriggers[fold(name)]
	switch {
	case v != nil:
		list = nil
		if tt := x.sess.tempTrigs(); tt != nil {
			list = tt.tableTriggers[fold(name)]
		}
	case x.table(name) != nil:
		return nil
	default:
		v = x.schema.view(name)
		if tt := x.sess.tempTrigs(); tt != nil {
			list = append(slices.Clone(tt.tableTriggers[fold(name)]), list...)
		}
	}
	if v == nil {
		return nil
	}
	for _, tr := range list {
		if tr.Event == event && tr.Time == ast.TriggerInsteadOf {
			return v
		}
	}
	return nil
}

// viewRows plans SELECT *, extra... FROM view [AS alias] [WHERE where] and returns the view's
// columns as NEW and OLD name them, with the plan.
func (x *execCtx) viewRows(v *View, alias string, where ast.Expr, extra []ast.Expr) ([]srcColumn, *selectPlan, error) {
	core := &ast.SelectCore{Columns: []ast.ResultColumn{{Star: true}},
		From: []ast.FromItem{{Table: v.Name, Alias: alias}}, Where: where}
	for _, e := range extra {
		core.Columns = append(core.Columns, ast.ResultColumn{Expr: e})
	}
	pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
	plan, err := planSelect(pc, &ast.Select{Cores: []*ast.SelectCore{core}}, &scope{})
	if err != nil {
		return nil, nil, err
	}
	n := plan.ncols - len(extra)
	cols := make([]srcColumn, n)
	for i := range cols {
		cols[i] = srcColumn{name: plan.names[i], noAffinity: true, noCollation: true}
		if aff, has := plan.columnAffinity(i); has {
			cols[i].affinity, cols[i].noAffinity = aff, false
		}
	}
	return cols, plan, nil
}

func viewColumn(cols []srcColumn, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// insertView runs an INSERT into view v: its INSTEAD OF INSERT triggers, once per row, with
// NEW the row (NULL for the columns the INSERT does not name). It changes no row itself, so
// it counts none, as in SQLite.
func (x *execCtx) insertView(st *ast.Insert, v *View, params []value.Value) (Result, error) {
	if len(st.Upserts) > 0 {
		return Result{}, errors.New("cannot UPSERT a view")
	}
	if len(st.Returning) > 0 {
		return Result{}, fmt.Errorf("cannot modify %s because it is a view", v.Name)
	}
	cols, _, err := x.viewRows(v, "", nil, nil)
	if err != nil {
		return Result{}, err
	}
	var targets []int
	switch {
	case st.DefaultValues:
	case st.Columns == nil:
		for i := range cols {
			targets = append(targets, i)
		}
	default:
		for _, name := range st.Columns {
			i := viewColumn(cols, name)
			if i < 0 {
				return Result{}, fmt.Errorf("table %s has no column named %s", v.Name, name)
			}
			targets = append(targets, i)
		}
	}
	rows := [][]value.Value{nil}
	if !st.DefaultValues && st.Select != nil {
		pc := &planCtx{schema: x.schema, sess: x.sess, cx: x}
		plan, err := planSelect(pc, st.Select, &scope{})
		if err != nil {
			return Result{}, err
		}
		if plan.ncols != len(targets) {
			if st.Columns == nil {
				return Result{}, fmt.Errorf("table %s has %d columns but %d values were supplied", v.Name, len(cols), plan.ncols)
			}
			return Result{}, fmt.Errorf("%d values for %d columns", plan.ncols, len(targets))
		}
		if rows, err = plan.collect(&runState{cx: x, params: params}, nil); err != nil {
			return Result{}, err
		}
	}
	ts, err := x.triggersFor(v.Name, ast.TriggerInsert, cols, -1, nil)
	if err != nil {
		return Result{}, err
	}
	if ts == nil || len(ts.instead) == 0 {
		return Result{}, fmt.Errorf("cannot modify %s because it is a view", v.Name)
	}
	x.ran = true
	for _, src := range rows {
		row := make([]value.Value, len(cols))
		for i, c := range targets {
			row[c] = src[i]
		}
		if err := x.fire(ts.instead, row, nil); err != nil && !errors.Is(err, errSkipRow) {
			return Result{}, err
		}
	}
	return Result{}, nil
}

// updateView runs an UPDATE of view v: its INSTEAD OF UPDATE triggers for each row of the view
// the WHERE selects, with OLD the row and NEW the row with the SET values.
func (x *execCtx) updateView(st *ast.Update, v *View, params []value.Value) (Result, error) {
	if len(st.Returning) > 0 {
		return Result{}, fmt.Errorf("cannot modify %s because it is a view", v.Name)
	}
	extra := make([]ast.Expr, len(st.Set))
	for i, a := range st.Set {
		extra[i] = a.Expr
	}
	cols, plan, err := x.viewRows(v, st.Alias, st.Where, extra)
	if err != nil {
		return Result{}, err
	}
	// Only the triggers whose UPDATE OF names a column the statement sets count; without one
	// the view cannot be updated so.
	ts, err := x.triggersFor(v.Name, ast.TriggerUpdate, cols, -1, func(name string) bool {
		return slices.ContainsFunc(st.Set, func(a ast.Assignment) bool { return strings.EqualFold(a.Columns[0], name) })
	})
	if err != nil {
		return Result{}, err
	}
	if ts == nil || len(ts.instead) == 0 {
		return Result{}, fmt.Errorf("cannot modify %s because it is a view", v.Name)
	}
	setCols := make([]int, len(st.Set))
	for i, a := range st.Set {
		if setCols[i] = viewColumn(cols, a.Columns[0]); setCols[i] < 0 {
			return Result{}, fmt.Errorf("no such column: %s", a.Columns[0])
		}
	}
	x.ran = true
	rows, err := plan.collect(&runState{cx: x, params: params}, nil)
	if err != nil {
		return Result{}, err
	}
	n := len(cols)
	for _, r := range rows {
		old := r[:n:n]
		row := slices.Clone(old)
		for i, c := range setCols {
			row[c] = r[n+i]
		}
		if err := x.fire(ts.instead, row, old); err != nil && !errors.Is(err, errSkipRow) {
			return Result{}, err
		}
	}
	return Result{}, nil
}

// deleteView runs a DELETE from view v: its INSTEAD OF DELETE triggers for each row of the
// view the WHERE selects, with OLD the row.
func (x *execCtx) deleteView(st *ast.Delete, v *View, params []value.Value) (Result, error) {
	if len(st.Returning) > 0 {
		return Result{}, fmt.Errorf("cannot modify %s because it is a view", v.Name)
	}
	cols, plan, err := x.viewRows(v, st.Alias, st.Where, nil)
	if err != nil {
		return Result{}, err
	}
	ts, err := x.triggersFor(v.Name, ast.TriggerDelete, cols, -1, nil)
	if err != nil {
		return Result{}, err
	}
	if ts == nil || len(ts.instead) == 0 {
		return Result{}, fmt.Errorf("cannot modify %s because it is a view", v.Name)
	}
	x.ran = true
	rows, err := plan.collect(&runState{cx: x, params: params}, nil)
	if err != nil {
		return Result{}, err
	}
	for _, r := range rows {
		if err := x.fire(ts.instead, nil, r); err != nil && !errors.Is(err, errSkipRow) {
			return Result{}, err
		}
	}
	return Result{}, nil
}

// writeTarget returns the table an INSERT, UPDATE or DELETE writes ("" for a SELECT).
func writeTarget(st ast.Stmt) string {
	switch st := st.(type) {
	case *ast.Insert:
		return st.Table
	case *ast.Update:
		return st.Table
	case *ast.Delete:
		return st.Table
	}
	return ""
}

// raiseVersion writes version into the schema bucket b's version entry unless it holds a later
// one: each version reads the ones before it (FORMAT.md, "Versions").
func raiseVersion(b *cairn.Bucket, version uint64) error {
	if v, err := b.Get(versionKey); err == nil && schemaVersionOf(v) >= version {
		return nil
	}
	return b.Put(versionKey, beUint64(version))
}

// triggerNaming returns a trigger that is on the table name or whose text names it, or nil: of
// the session (TEMP) only when tempOnly is set, else of the database too. ALTER TABLE RENAME TO
// and RENAME COLUMN rewrite the database's triggers as they do views (alter.go), but no TEMP
// trigger, and DROP COLUMN rewrites no trigger; so they refuse what such a trigger may use (a
// conservative test: the name as a word of the text).
func (x *execCtx) triggerNaming(name string, tempOnly bool) *Trigger {
	if !x.hasTriggers() {
		return nil
	}
	lname := strings.ToLower(name)
	var all []*Schema
	if !tempOnly {
		all = append(all, x.schema)
	}
	if x.sess.tempTrigs() != nil {
		all = append(all, x.sess.tempTrigs())
	}
	for _, s := range all {
		for _, tr := range s.triggers {
			if fold(tr.Table) == fold(name) || containsWord(strings.ToLower(tr.SQL), lname) {
				return tr
			}
		}
	}
	return nil
}

// triggerOrder is the sign that sorts triggers by id into creation order: the database's ids
// grow, a session's TEMP triggers' ids count down.
func triggerOrder(temp bool) int {
	if temp {
		return -1
	}
	return 1
}

// containsWord reports whether text holds word with no identifier character right before or
// after it.
func containsWord(text, word string) bool {
	isIdent := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 || word == "" {
			return false
		}
		i += from
		end := i + len(word)
		if (i == 0 || !isIdent(text[i-1])) && (end == len(text) || !isIdent(text[end])) {
			return true
		}
		from = i + 1
	}
}

// putSchemaEntry writes an object's schema entry: a trigger's under triggerKey, any other's by
// its name (putEntry).
func putSchemaEntry(b *cairn.Bucket, e schemaEntry) error {
	if e.kind != "trigger" {
		return putEntry(b, e)
	}
	rec := codec.AppendRecord(nil, []value.Value{value.TextString(e.kind), value.TextString(e.name),
		value.TextString(e.table), value.Int(e.id), value.TextString(e.sql)})
	return b.Put(triggerKey(e.name), rec)
}

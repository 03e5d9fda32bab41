package engine

// CREATE and DROP: each changes the schema bucket and bumps the cookie in the statement's
// transaction, and gives the execution context a new Schema (the old one stays valid for readers
// of older snapshots).

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// schemaStore returns the schema bucket, creating it (with the format version) on first use.
func (x *execCtx) schemaStore() (*cairn.Bucket, error) {
	b, err := x.tx.Bucket(schemaBucket)
	if errors.Is(err, cairn.ErrBucketNotFound) {
		if b, err = x.tx.CreateBucket(schemaBucket); err != nil {
			return nil, err
		}
		if err := b.Put(versionKey, binary.BigEndian.AppendUint64(nil, formatVersion)); err != nil {
			return nil, err
		}
	}
	return b, err
}

// newID returns a fresh object id.
func (x *execCtx) newID(b *cairn.Bucket) (int64, error) {
	id := int64(idStep)
	v, err := b.Get(nextIDKey)
	switch {
	case err == nil && len(v) == 8:
		id = int64(binary.BigEndian.Uint64(v))
	case err != nil && !errors.Is(err, cairn.ErrNotFound):
		return 0, err
	}
	return id, b.Put(nextIDKey, binary.BigEndian.AppendUint64(nil, uint64(id+idStep)))
}

// putEntry writes an object's schema entry.
func putEntry(b *cairn.Bucket, e schemaEntry) error {
	rec := codec.AppendRecord(nil, []value.Value{value.TextString(e.kind), value.TextString(e.name),
		value.TextString(e.table), value.Int(e.id), value.TextString(e.sql)})
	return b.Put([]byte(fold(e.name)), rec)
}

// changed bumps the cookie and makes s the context's schema.
func (x *execCtx) changed(b *cairn.Bucket, s *Schema) error {
	s.cookie = x.schema.cookie + 1
	if err := b.Put(cookieKey, binary.BigEndian.AppendUint64(nil, uint64(s.cookie))); err != nil {
		return err
	}
	x.schema = s
	return nil
}

func (x *execCtx) createTable(st *ast.CreateTable, params []value.Value) error {
	// The name is checked before whether it exists, as SQLite does (sqlite_sequence exists).
	if len(st.Name) > 7 && equalFoldPrefix(st.Name, "sqlite_") {
		return fmt.Errorf("object name reserved for internal use: %s", st.Name)
	}
	if st.Temp {
		return x.createTable2(st, params)
	}
	if x.schema.objectExists(st.Name) {
		if st.IfNotExists && x.schema.table(st.Name) != nil {
			return nil
		}
		kind := "table"
		if x.schema.index(st.Name) != nil {
			kind = "index"
		} else if x.schema.view(st.Name) != nil {
			kind = "view"
		}
		return fmt.Errorf("%s %s already exists", kind, st.Name)
	}
	return x.createTable2(st, params)
}

// createTable2 makes the table of st (a TEMP one checks its name in the session; a table of
// the schema was checked by createTable) and fills it with the rows of AS SELECT.
func (x *execCtx) createTable2(st *ast.CreateTable, params []value.Value) error {
	var rows [][]value.Value
	if st.AsSelect != nil {
		def, data, err := x.tableFromSelect(st, params)
		if err != nil {
			return err
		}
		def.Temp = st.Temp
		st, rows = def, data
	}
	var t *Table
	var err error
	if st.Temp {
		if t, err = x.createTempTable(st); t == nil || err != nil {
			return err
		}
	} else if t, err = x.createSchemaTable(st); err != nil {
		return err
	}
	// A CHECK that names no column of the table, or holds an aggregate, fails CREATE TABLE, as in
	// SQLite (the statement's savepoint undoes the table).
	if _, err := bindChecks(&planCtx{schema: x.schema, sess: x.sess}, t); err != nil {
		return err
	}
	if rows != nil {
		w, err := newRowWriter(x, t, ast.ConflictAbort, params)
		if err != nil {
			return err
		}
		for _, r := range rows {
			rowid, err := x.nextRowid(t)
			if err != nil {
				return err
			}
			vals := append(r, value.Value{})
			if err := x.insertRow(w, vals, rowid); err != nil {
				return err
			}
		}
	}
	return nil
}

// createSchemaTable makes a table of the schema.
func (x *execCtx) createSchemaTable(st *ast.CreateTable) (*Table, error) {
	b, err := x.schemaStore()
	if err != nil {
		return nil, err
	}
	id, err := x.newID(b)
	if err != nil {
		return nil, err
	}
	t, err := newTable(st, id)
	if err != nil {
		return nil, err
	}
	if err := checkAutoInc(st, t); err != nil {
		return nil, err
	}
	if _, err := x.tx.CreateBucket(t.bucket); err != nil {
		return nil, err
	}
	for i, ix := range t.Indexes {
		if _, err := x.tx.CreateBucket(ix.bucket); err != nil {
			return nil, err
		}
		if err := putEntry(b, schemaEntry{kind: "index", name: ix.Name, table: t.Name, id: autoIndexID(id, i)}); err != nil {
			return nil, err
		}
	}
	if err := putEntry(b, schemaEntry{kind: "table", name: t.Name, table: t.Name, id: id, sql: st.SQL}); err != nil {
		return nil, err
	}
	s := x.schema.clone()
	s.addTable(t)
	if t.AutoInc {
		if err := x.addSeqTable(b, s); err != nil {
			return nil, err
		}
	}
	if err := x.changed(b, s); err != nil {
		return nil, err
	}
	return t, nil
}

func equalFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && fold(s[:len(prefix)]) == prefix
}

// tableFromSelect makes the definition of CREATE TABLE ... AS SELECT: a column per result column,
// typed by its affinity, as SQLite writes it; and the rows to insert.
func (x *execCtx) tableFromSelect(st *ast.CreateTable, params []value.Value) (*ast.CreateTable, [][]value.Value, error) {
	pc := &planCtx{schema: x.schema, sess: x.sess}
	plan, err := planSelect(pc, st.AsSelect, &scope{})
	if err != nil {
		return nil, nil, err
	}
	run := &runState{cx: x, params: params, subqCache: map[*subquery]*subqResult{}}
	rows, err := plan.collect(run, nil)
	if err != nil {
		return nil, nil, err
	}
	def := &ast.CreateTable{Name: st.Name}
	sql := "CREATE TABLE " + quoteIdent(st.Name) + "("
	for i, name := range plan.names {
		typ := ""
		if aff, has := plan.columnAffinity(i); has {
			typ = [...]string{"", "TEXT", "NUM", "INT", "REAL"}[aff]
		}
		def.Columns = append(def.Columns, ast.ColumnDef{Name: name, Type: typ})
		if i > 0 {
			sql += ","
		}
		sql += quoteIdent(name)
		if typ != "" {
			sql += " " + typ
		}
	}
	def.SQL = sql + ")"
	return def, rows, nil
}

func quoteIdent(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}

func (x *execCtx) createIndex(st *ast.CreateIndex) error {
	if t := x.sess.temp.table(st.Table); t != nil {
		return x.createTempIndex(st, t)
	}
	if x.schema.objectExists(st.Name) {
		if st.IfNotExists && x.schema.index(st.Name) != nil {
			return nil
		}
		return fmt.Errorf("index %s already exists", st.Name)
	}
	t := x.schema.table(st.Table)
	if t == nil {
		if err := masterWriteError(st.Table, "indexed"); err != nil {
			return err
		}
		return fmt.Errorf("no such table: main.%s", st.Table)
	}
	if fold(t.Name) == seqTableName {
		return fmt.Errorf("table %s may not be indexed", t.Name)
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	id, err := x.newID(b)
	if err != nil {
		return err
	}
	ix, err := newIndex(st, t, id)
	if err != nil {
		return err
	}
	if _, err := x.tx.CreateBucket(ix.bucket); err != nil {
		return err
	}
	if err := x.fillIndex(ix); err != nil {
		return err
	}
	if err := putEntry(b, schemaEntry{kind: "index", name: ix.Name, table: t.Name, id: id, sql: st.SQL}); err != nil {
		return err
	}
	s := x.schema.clone()
	s.addIndex(ix)
	return x.changed(b, s)
}

// fillIndex writes ix's entries for every row of its table, refusing duplicates of a UNIQUE one.
func (x *execCtx) fillIndex(ix *Index) error {
	t := ix.Table
	ib, err := x.bucket(ix.bucket)
	if err != nil {
		return err
	}
	tb, err := x.bucket(t.bucket)
	if err != nil {
		return err
	}
	c := tb.Cursor()
	var row []value.Value
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var rowid int64
		if !t.WithoutRowid {
			rowid, _ = codec.Rowid(k)
		}
		if row, err = decodeRow(t, rowid, v, row); err != nil {
			return err
		}
		if ix.Unique {
			other, err := x.conflicting(ix, row, k)
			if err != nil {
				return err
			}
			if other != nil {
				return uniqueIndexError(ix)
			}
		}
		ek, ev, err := ix.entry(row, rowid)
		if err != nil {
			return err
		}
		if ek == nil {
			continue
		}
		if err := ib.Put(ek, ev); err != nil {
			return rowError(err)
		}
	}
	return c.Err()
}

func (x *execCtx) createView(st *ast.CreateView) error {
	if st.Temp {
		if x.sess.tempViews[fold(st.Name)] != nil {
			if st.IfNotExists {
				return nil
			}
			return fmt.Errorf("view %s already exists", st.Name)
		}
		if x.sess.tempViews == nil {
			x.sess.tempViews = map[string]*View{}
		}
		x.sess.tempViews[fold(st.Name)] = &View{Name: st.Name, SQL: st.SQL, Columns: st.Columns, Select: st.Select}
		return nil
	}
	if x.schema.objectExists(st.Name) {
		if st.IfNotExists && x.schema.view(st.Name) != nil {
			return nil
		}
		return fmt.Errorf("%s %s already exists", x.schema.kindOf(st.Name), st.Name)
	}
	// Plan it once now, so that a view naming a missing table or column is refused.
	pc := &planCtx{schema: x.schema, sess: x.sess}
	if _, err := planSelect(pc, st.Select, &scope{}); err != nil {
		return err
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	if err := putEntry(b, schemaEntry{kind: "view", name: st.Name, table: st.Name, sql: st.SQL}); err != nil {
		return err
	}
	s := x.schema.clone()
	s.views[fold(st.Name)] = &View{Name: st.Name, SQL: st.SQL, Columns: st.Columns, Select: st.Select}
	return x.changed(b, s)
}

func (s *Schema) kindOf(name string) string {
	switch {
	case s.table(name) != nil:
		return "table"
	case s.index(name) != nil:
		return "index"
	}
	return "view"
}

func (x *execCtx) drop(st *ast.Drop) error {
	switch st.Kind {
	case ast.TableObject:
		return x.dropTable(st)
	case ast.IndexObject:
		return x.dropIndex(st)
	}
	return x.dropView(st)
}

func (x *execCtx) dropTable(st *ast.Drop) error {
	if t := x.sess.temp.table(st.Name); t != nil {
		if err := x.fkDropTable(t); err != nil {
			return err
		}
		return x.dropTempTable(t)
	}
	t := x.schema.table(st.Name)
	if t == nil {
		if err := masterWriteError(st.Name, "dropped"); err != nil {
			return err
		}
		if st.IfExists {
			return nil
		}
		if x.schema.view(st.Name) != nil {
			return fmt.Errorf("use DROP VIEW to delete view %s", st.Name)
		}
		return fmt.Errorf("no such table: %s", st.Name)
	}
	if fold(t.Name) == seqTableName {
		return fmt.Errorf("table %s may not be dropped", t.Name)
	}
	if err := x.fkDropTable(t); err != nil {
		return err
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	if t.AutoInc {
		if err := x.dropSeq(t); err != nil {
			return err
		}
	}
	s := x.schema.clone()
	for _, ix := range t.Indexes {
		if err := x.tx.DeleteBucket(ix.bucket); err != nil {
			return err
		}
		if err := b.Delete([]byte(fold(ix.Name))); err != nil {
			return err
		}
		delete(s.indexes, fold(ix.Name))
	}
	if err := x.tx.DeleteBucket(t.bucket); err != nil {
		return err
	}
	if err := b.Delete([]byte(fold(t.Name))); err != nil {
		return err
	}
	delete(s.tables, fold(t.Name))
	x.forgetBucket(t.bucket)
	if err := x.dropTriggersOn(s, t.Name); err != nil {
		return err
	}
	return x.changed(b, s)
}

func (x *execCtx) dropIndex(st *ast.Drop) error {
	if ix := x.sess.temp.index(st.Name); ix != nil {
		return x.dropTempIndex(ix)
	}
	ix := x.schema.index(st.Name)
	if ix == nil {
		if st.IfExists {
			return nil
		}
		return fmt.Errorf("no such index: %s", st.Name)
	}
	if ix.SQL == "" {
		return fmt.Errorf("index associated with UNIQUE or PRIMARY KEY constraint cannot be dropped")
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	if err := x.tx.DeleteBucket(ix.bucket); err != nil {
		return err
	}
	if err := b.Delete([]byte(fold(ix.Name))); err != nil {
		return err
	}
	s := x.schema.clone()
	t := *ix.Table
	t.Indexes = nil
	for _, other := range ix.Table.Indexes {
		if other.Name != ix.Name {
			t.Indexes = append(t.Indexes, other)
		}
	}
	delete(s.indexes, fold(ix.Name))
	s.replaceTable(&t)
	return x.changed(b, s)
}

func (x *execCtx) dropView(st *ast.Drop) error {
	if x.sess.tempViews[fold(st.Name)] != nil {
		delete(x.sess.tempViews, fold(st.Name))
		return nil
	}
	v := x.schema.view(st.Name)
	if v == nil {
		if st.IfExists {
			return nil
		}
		if x.schema.table(st.Name) != nil {
			return fmt.Errorf("use DROP TABLE to delete table %s", st.Name)
		}
		return fmt.Errorf("no such view: %s", st.Name)
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	if err := b.Delete([]byte(fold(v.Name))); err != nil {
		return err
	}
	s := x.schema.clone()
	delete(s.views, fold(v.Name))
	if err := x.dropTriggersOn(s, v.Name); err != nil {
		return err
	}
	return x.changed(b, s)
}

// reindex rebuilds the indexes of the named table, the named index, or all.
func (x *execCtx) reindex(st *ast.Reindex) error {
	var list []*Index
	switch {
	case st.Name == "":
		for _, t := range x.schema.tables {
			list = append(list, t.Indexes...)
		}
	case x.schema.table(st.Name) != nil:
		list = x.schema.table(st.Name).Indexes
	case x.schema.index(st.Name) != nil:
		list = []*Index{x.schema.index(st.Name)}
	default:
		if _, ok := value.CollationByName(st.Name); ok {
			for _, t := range x.schema.tables {
				list = append(list, t.Indexes...)
			}
			break
		}
		return fmt.Errorf("unable to identify the object to be reindexed")
	}
	for _, ix := range list {
		if err := x.tx.DeleteBucket(ix.bucket); err != nil {
			return err
		}
		x.forgetBucket(ix.bucket)
		if _, err := x.tx.CreateBucket(ix.bucket); err != nil {
			return err
		}
		if err := x.fillIndex(ix); err != nil {
			return err
		}
	}
	return nil
}

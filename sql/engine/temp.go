package engine

// TEMP tables (CREATE TEMP TABLE): tables of one session, which it alone sees and which go when it
// closes. Invariants:
//   - A TEMP table's rows and indexes are cairn buckets named "\x00sql/tmp/" + the session's
//     random id + "/t/N" (or "/i/N"), written in the session's transactions like any table, so
//     they follow its transactions, savepoints and statement rollbacks; they are not in the
//     schema bucket, and Session.Close deletes them. A process that dies leaves them, and the
//     next Engine on the database deletes them (an Engine assumes it is the only one on its
//     database, as cairnsql and kvsh use it).
//   - The session's TEMP tables are a tempState that is never changed: a change makes a new one,
//     so that undoing a statement, a savepoint or a transaction puts the old one back, and a
//     plan made for one state is planned again for another (as for Schema).
//   - Name lookup finds a TEMP table before a table of the schema (SQLite searches temp first).

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/ast"
)

// tempBucketPrefix starts the names of the buckets of TEMP tables.
var tempBucketPrefix = []byte("\x00sql/tmp/")

// tempState is a session's set of TEMP tables (with their indexes), by folded name, and its
// TEMP triggers (trigger.go; nil before the first).
type tempState struct {
	tables map[string]*Table
	nextID int64
	trig   *Schema
}

// with returns a copy of st with t in place of the table of its name (nil t: without name).
func (st *tempState) with(name string, t *Table) *tempState {
	out := &tempState{tables: map[string]*Table{}, nextID: 1}
	if st != nil {
		for k, v := range st.tables {
			out.tables[k] = v
		}
		out.nextID, out.trig = st.nextID, st.trig
	}
	if t == nil {
		delete(out.tables, fold(name))
	} else {
		out.tables[fold(name)] = t
	}
	return out
}

func (st *tempState) table(name string) *Table {
	if st == nil {
		return nil
	}
	return st.tables[fold(name)]
}

// index returns the TEMP index called name, or nil.
func (st *tempState) index(name string) *Index {
	if st == nil {
		return nil
	}
	for _, t := range st.tables {
		for _, ix := range t.Indexes {
			if fold(ix.Name) == fold(name) {
				return ix
			}
		}
	}
	return nil
}

// tempBucket is the name of bucket kind ("t" or "i") number id of the session's TEMP objects.
func (s *Session) tempBucket(kind string, id int64) []byte {
	if s.tempID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.tempID = hex.EncodeToString(b[:])
	}
	return fmt.Appendf(append([]byte(nil), tempBucketPrefix...), "%s/%s/%d", s.tempID, kind, id)
}

// table returns the table called name that statements of the session see: a TEMP table, else
// the schema's.
func (pc *planCtx) table(name string) *Table {
	if pc.sess != nil {
		if t := pc.sess.temp.table(name); t != nil {
			return t
		}
	}
	return pc.schema.table(name)
}

// table is planCtx.table for an execution.
func (x *execCtx) table(name string) *Table {
	if x.sess != nil {
		if t := x.sess.temp.table(name); t != nil {
			return t
		}
	}
	return x.schema.table(name)
}

// createTempTable runs CREATE TEMP TABLE (rows: those of AS SELECT).
func (x *execCtx) createTempTable(st *ast.CreateTable) (*Table, error) {
	s := x.sess
	if s.temp.table(st.Name) != nil || s.temp.index(st.Name) != nil || s.tempViews[fold(st.Name)] != nil {
		if st.IfNotExists && s.temp.table(st.Name) != nil {
			return nil, nil
		}
		kind := "table"
		if s.temp.index(st.Name) != nil {
			kind = "index"
		} else if s.tempViews[fold(st.Name)] != nil {
			kind = "view"
		}
		return nil, fmt.Errorf("%s %s already exists", kind, st.Name)
	}
	next := s.temp.with("", nil)
	id := next.nextID * idStep
	next.nextID++
	t, err := newTable(st, id)
	if err != nil {
		return nil, err
	}
	if t.AutoInc {
		return nil, fmt.Errorf("unsupported: AUTOINCREMENT on TEMP table %s", t.Name)
	}
	t.bucket = s.tempBucket("t", id)
	if _, err := x.tx.CreateBucket(t.bucket); err != nil {
		return nil, err
	}
	for i, ix := range t.Indexes {
		ix.bucket = s.tempBucket("i", autoIndexID(id, i))
		if _, err := x.tx.CreateBucket(ix.bucket); err != nil {
			return nil, err
		}
	}
	t.temp = true
	s.temp = next.with(t.Name, t)
	return t, nil
}

// createTempIndex runs CREATE INDEX on a TEMP table.
func (x *execCtx) createTempIndex(st *ast.CreateIndex, t *Table) error {
	s := x.sess
	if s.temp.index(st.Name) != nil || s.temp.table(st.Name) != nil {
		if st.IfNotExists && s.temp.index(st.Name) != nil {
			return nil
		}
		return fmt.Errorf("index %s already exists", st.Name)
	}
	next := s.temp.with("", nil)
	id := next.nextID * idStep
	next.nextID++
	ix, err := newIndex(st, t, id)
	if err != nil {
		return err
	}
	ix.bucket = s.tempBucket("i", id)
	if _, err := x.tx.CreateBucket(ix.bucket); err != nil {
		return err
	}
	if err := x.fillIndex(ix); err != nil {
		return err
	}
	nt := *t
	nt.Indexes = append(append([]*Index(nil), t.Indexes...), ix)
	for i, other := range nt.Indexes {
		c := *other
		c.Table = &nt
		nt.Indexes[i] = &c
	}
	s.temp = next.with(t.Name, &nt)
	return nil
}

// dropTempTable runs DROP TABLE of a TEMP table.
func (x *execCtx) dropTempTable(t *Table) error {
	for _, ix := range t.Indexes {
		if err := x.tx.DeleteBucket(ix.bucket); err != nil {
			return err
		}
		x.forgetBucket(ix.bucket)
	}
	if err := x.tx.DeleteBucket(t.bucket); err != nil {
		return err
	}
	x.forgetBucket(t.bucket)
	x.sess.temp = x.sess.temp.with(t.Name, nil)
	x.dropTempTriggersOn(t.Name)
	return nil
}

// dropTempIndex runs DROP INDEX of an index of a TEMP table.
func (x *execCtx) dropTempIndex(ix *Index) error {
	if ix.SQL == "" {
		return errors.New("index associated with UNIQUE or PRIMARY KEY constraint cannot be dropped")
	}
	if err := x.tx.DeleteBucket(ix.bucket); err != nil {
		return err
	}
	x.forgetBucket(ix.bucket)
	nt := *ix.Table
	nt.Indexes = nil
	for _, other := range ix.Table.Indexes {
		if other != ix {
			c := *other
			c.Table = &nt
			nt.Indexes = append(nt.Indexes, &c)
		}
	}
	x.sess.temp = x.sess.temp.with(nt.Name, &nt)
	return nil
}

// dropTempBuckets deletes the buckets of the session's TEMP tables (Session.Close).
func (s *Session) dropTempBuckets() error {
	if s.temp == nil || len(s.temp.tables) == 0 {
		return nil
	}
	prefix := append(append([]byte(nil), tempBucketPrefix...), s.tempID+"/"...)
	s.temp = nil
	if err := s.eng.writeAllowed(); err != nil {
		return err // a hosted engine's node lost the leader's role: the buckets stay
	}
	return deleteBuckets(s.eng.database(), prefix)
}

// deleteBuckets deletes every bucket of db whose name starts with prefix, in one write
// transaction taken only if there is one.
func deleteBuckets(db *cairn.DB, prefix []byte) error {
	var names [][]byte
	err := db.View(func(tx *cairn.Tx) error {
		return tx.ForEachBucket(func(name []byte) error {
			if bytes.HasPrefix(name, prefix) {
				names = append(names, append([]byte(nil), name...))
			}
			return nil
		})
	})
	if err != nil || len(names) == 0 {
		return err
	}
	return db.Update(func(tx *cairn.Tx) error {
		for _, n := range names {
			if err := tx.DeleteBucket(n); err != nil && !errors.Is(err, cairn.ErrBucketNotFound) {
				return err
			}
		}
		return nil
	})
}

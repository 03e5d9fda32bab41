package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// TestTriggersSurviveReopen: triggers are schema entries, so a database closed and opened
// again (another process) fires them, in the same order (newest first), and lists them.
func TestTriggersSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trig.db")
	db, err := cairn.Open(path, &cairn.Options{Sync: cairn.SyncNone})
	require.NoError(t, err)
	s := New(db).NewSession()
	mustExec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, a);
		CREATE TABLE log(seq INTEGER PRIMARY KEY, x);
		CREATE TRIGGER first AFTER INSERT ON t BEGIN INSERT INTO log(x) VALUES ('first ' || NEW.a); END;
		CREATE TRIGGER t AFTER INSERT ON t BEGIN INSERT INTO log(x) VALUES ('second ' || NEW.a); END;
		CREATE VIEW v AS SELECT id, a FROM t;
		CREATE TRIGGER v_ins INSTEAD OF INSERT ON v BEGIN INSERT INTO t VALUES (NEW.id, NEW.a || '!'); END`)
	// The layout version says the database holds triggers.
	require.NoError(t, db.View(func(tx *cairn.Tx) error {
		b, err := tx.Bucket(schemaBucket)
		require.NoError(t, err)
		v, err := b.Get(versionKey)
		require.NoError(t, err)
		require.Equal(t, uint64(triggerFormatVersion), schemaVersionOf(v))
		return nil
	}))
	s.Close()
	require.NoError(t, db.Close())

	db, err = cairn.Open(path, &cairn.Options{Sync: cairn.SyncNone})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	s = New(db).NewSession()
	defer s.Close()
	mustExec(t, s, `INSERT INTO v VALUES (1, 'x')`)
	require.Equal(t, []string{"second x!", "first x!"}, texts(query(t, s, `SELECT x FROM log ORDER BY seq`)))
	objs, err := s.Objects()
	require.NoError(t, err)
	var triggers []Object
	for _, o := range objs {
		if o.Type == "trigger" {
			triggers = append(triggers, o)
		}
	}
	require.Equal(t, []Object{
		{Type: "trigger", Name: "first", Table: "t", SQL: "CREATE TRIGGER first AFTER INSERT ON t BEGIN INSERT INTO log(x) VALUES ('first ' || NEW.a); END"},
		{Type: "trigger", Name: "t", Table: "t", SQL: "CREATE TRIGGER t AFTER INSERT ON t BEGIN INSERT INTO log(x) VALUES ('second ' || NEW.a); END"},
		{Type: "trigger", Name: "v_ins", Table: "v", SQL: "CREATE TRIGGER v_ins INSTEAD OF INSERT ON v BEGIN INSERT INTO t VALUES (NEW.id, NEW.a || '!'); END"},
	}, triggers)
	// DROP TABLE drops the table's triggers, also from the stored schema.
	mustExec(t, s, `DROP TABLE t`)
	s2 := New(db).NewSession()
	defer s2.Close()
	_, err = s2.Exec(context.Background(), `DROP TRIGGER first`, nil)
	require.EqualError(t, err, "no such trigger: first")
}

// TestTriggerPreparedStatements: a prepared INSERT, UPDATE or DELETE plans again after CREATE
// and DROP TRIGGER, so it fires the triggers the schema has when it runs.
func TestTriggerPreparedStatements(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(id INTEGER PRIMARY KEY, a); CREATE TABLE log(x);
		INSERT INTO log VALUES ('start'), ('start')`)
	ins, err := s.Prepare(`INSERT INTO t(a) VALUES (?)`)
	require.NoError(t, err)
	upd, err := s.Prepare(`UPDATE t SET a = a + 1 WHERE id = ?`)
	require.NoError(t, err)
	del, err := s.Prepare(`DELETE FROM t WHERE id = ?`)
	require.NoError(t, err)
	ctx := context.Background()
	exec := func(st *Stmt, v int64) Result {
		res, err := st.Exec(ctx, []value.Value{value.Int(v)})
		require.NoError(t, err)
		return res
	}
	exec(ins, 1)
	exec(upd, 1)
	exec(del, 1)
	mustExec(t, s, `CREATE TRIGGER ti AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('i' || NEW.a); END;
		CREATE TRIGGER tu AFTER UPDATE ON t BEGIN INSERT INTO log VALUES ('u' || NEW.a); END;
		CREATE TRIGGER td AFTER DELETE ON t BEGIN INSERT INTO log VALUES ('d' || OLD.a); END`)
	res := exec(ins, 10)
	require.Equal(t, Result{LastInsertID: 1, RowsAffected: 1}, res, "the trigger's row (rowid 3 of log) counts neither")
	require.Equal(t, int64(1), exec(upd, 1).RowsAffected)
	require.Equal(t, int64(1), exec(del, 1).RowsAffected)
	require.Equal(t, []string{"i10", "u11", "d11"}, texts(query(t, s, `SELECT x FROM log WHERE rowid > 2`)))
	mustExec(t, s, `DROP TRIGGER ti; DROP TRIGGER tu; DROP TRIGGER td`)
	exec(ins, 20)
	exec(upd, 1)
	exec(del, 1)
	require.Len(t, query(t, s, `SELECT x FROM log`), 5)
}

// TestTriggerDDLInTransaction: CREATE and DROP TRIGGER are transactional like other DDL.
func TestTriggerDDLInTransaction(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a); CREATE TABLE log(x)`)
	mustExec(t, s, `BEGIN; CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END;
		INSERT INTO t VALUES (1); ROLLBACK`)
	mustExec(t, s, `INSERT INTO t VALUES (2)`)
	require.Empty(t, query(t, s, `SELECT x FROM log`))
	mustExec(t, s, `CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END;
		BEGIN; DROP TRIGGER tr; INSERT INTO t VALUES (3); ROLLBACK; INSERT INTO t VALUES (4)`)
	require.Equal(t, [][]value.Value{{value.Int(4)}}, query(t, s, `SELECT x FROM log`))
}

// TestTempTriggersArePerSession: a TEMP trigger fires for its own session's statements only,
// and goes with the session.
func TestTempTriggersArePerSession(t *testing.T) {
	db, err := cairn.Open(t.Name()+".db", &cairn.Options{InMemory: true, Sync: cairn.SyncNone})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	eng := New(db)
	s1, s2 := eng.NewSession(), eng.NewSession()
	defer s2.Close()
	mustExec(t, s1, `CREATE TABLE t(a); CREATE TABLE log(x);
		CREATE TEMP TRIGGER tt AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('s1 ' || NEW.a); END`)
	mustExec(t, s2, `INSERT INTO t VALUES (2)`)
	mustExec(t, s1, `INSERT INTO t VALUES (1)`)
	require.Equal(t, []string{"s1 1"}, texts(query(t, s2, `SELECT x FROM log`)))
	objs, err := s1.Objects()
	require.NoError(t, err)
	require.Contains(t, objs, Object{Type: "trigger", Name: "tt", Table: "t", Temp: true,
		SQL: "CREATE TEMP TRIGGER tt AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('s1 ' || NEW.a); END"})
	s1.Close()
	s3 := eng.NewSession()
	defer s3.Close()
	mustExec(t, s3, `INSERT INTO t VALUES (3)`)
	require.Len(t, query(t, s3, `SELECT x FROM log`), 1)
	_, err = s3.Exec(context.Background(), `DROP TRIGGER tt`, nil)
	require.EqualError(t, err, "no such trigger: tt")
}

// TestTriggerAlterTable: ADD COLUMN keeps the table's triggers (in the schema it rebuilds, and
// the stored one); RENAME TO and RENAME COLUMN edit the texts of the triggers (difftest's
// triggers.sql compares them with SQLite's); DROP COLUMN is refused while a trigger names the
// table, and the renames while a TEMP trigger does, since they do not edit those texts.
func TestTriggerAlterTable(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a); CREATE TABLE log(x); CREATE TABLE other(y);
		CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END;
		CREATE TRIGGER tr2 AFTER INSERT ON other BEGIN INSERT INTO log VALUES (NEW.y); END;
		ALTER TABLE t ADD COLUMN b DEFAULT 2;
		INSERT INTO t(a) VALUES (1)`)
	require.Equal(t, [][]value.Value{{value.Int(1)}}, query(t, s, `SELECT x FROM log`))
	for _, q := range []string{`ALTER TABLE t DROP COLUMN b`, `ALTER TABLE log DROP COLUMN x`} {
		_, err := s.Exec(context.Background(), q, nil)
		require.ErrorContains(t, err, "unsupported: ALTER TABLE of table", q)
	}
	mustExec(t, s, `ALTER TABLE t RENAME TO u; ALTER TABLE log RENAME TO journal; INSERT INTO u(a) VALUES (5)`)
	require.Equal(t, [][]value.Value{{value.Int(1)}, {value.Int(5)}}, query(t, s, `SELECT x FROM journal`))
	mustExec(t, s, `ALTER TABLE u RENAME COLUMN a TO c; INSERT INTO u(c) VALUES (6)`)
	require.Equal(t, [][]value.Value{{value.Int(1)}, {value.Int(5)}, {value.Int(6)}}, query(t, s, `SELECT x FROM journal`))
	mustExec(t, s, `DROP TRIGGER tr; ALTER TABLE u DROP COLUMN b`)
	require.Len(t, query(t, s, `SELECT name FROM sqlite_schema WHERE type = 'trigger'`), 1)
	// A TEMP trigger's text is not edited: RENAME TO is refused while one names the table.
	mustExec(t, s, `CREATE TEMP TRIGGER tt AFTER DELETE ON u BEGIN SELECT 1; END`)
	_, err := s.Exec(context.Background(), `ALTER TABLE u RENAME TO v`, nil)
	require.ErrorContains(t, err, "unsupported: ALTER TABLE of table u, which trigger tt names")
}

// TestTriggerChangeCounters: a trigger program's rows count in total_changes() (as SQLite's
// do), never in the statement's changes().
func TestTriggerChangeCounters(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, `CREATE TABLE t(a); CREATE TABLE log(x); CREATE TABLE other(y);
		INSERT INTO other VALUES (1), (2), (3);
		CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); UPDATE other SET y = y + 1; END`)
	before := query(t, s, `SELECT total_changes()`)[0][0].Int()
	res := mustExec(t, s, `INSERT INTO t VALUES (1), (2)`)
	require.Equal(t, int64(2), res.RowsAffected)
	require.Equal(t, [][]value.Value{{value.Int(2), value.Int(before + 2 + 2*(1+3))}},
		query(t, s, `SELECT changes(), total_changes()`))
}

-- Triggers (lang_createtrigger.html): BEFORE, AFTER and INSTEAD OF, on INSERT, UPDATE [OF]
-- and DELETE, WHEN, NEW and OLD, RAISE, nested firing, DROP TRIGGER.

CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT UNIQUE, qty INTEGER DEFAULT 0, updated_at TEXT)

CREATE TABLE audit(seq INTEGER PRIMARY KEY, what TEXT, item INTEGER, detail TEXT)

-- an audit log: one row per change

CREATE TRIGGER item_ins AFTER INSERT ON item BEGIN
  INSERT INTO audit(what, item, detail) VALUES ('insert', NEW.id, NEW.name || ' x' || NEW.qty);
END

CREATE TRIGGER item_upd AFTER UPDATE ON item BEGIN
  INSERT INTO audit(what, item, detail) VALUES ('update', NEW.id, OLD.qty || '->' || NEW.qty);
END

CREATE TRIGGER item_del AFTER DELETE ON item BEGIN
  INSERT INTO audit(what, item, detail) VALUES ('delete', OLD.id, OLD.name);
END

-- exec
INSERT INTO item(name, qty) VALUES ('apple', 3), ('pear', 5)

-- exec
UPDATE item SET qty = qty + 1

-- exec
DELETE FROM item WHERE name = 'pear'

SELECT what, item, detail FROM audit ORDER BY seq

SELECT * FROM item ORDER BY id

-- updated_at maintenance: an AFTER UPDATE trigger that updates its own row does not fire itself

CREATE TRIGGER item_touch AFTER UPDATE OF qty ON item BEGIN
  UPDATE item SET updated_at = 'touched ' || NEW.qty WHERE id = NEW.id;
END

-- exec
UPDATE item SET qty = 10 WHERE name = 'apple'

SELECT * FROM item ORDER BY id

-- UPDATE OF qty does not fire for an UPDATE of name only

-- exec
UPDATE item SET name = 'green apple'

SELECT * FROM item ORDER BY id

SELECT what, item, detail FROM audit ORDER BY seq

-- several triggers on one event fire newest first

CREATE TABLE ev(n INTEGER)

CREATE TABLE seen(seq INTEGER PRIMARY KEY, tag TEXT)

CREATE TRIGGER ev_a BEFORE INSERT ON ev BEGIN INSERT INTO seen(tag) VALUES ('a ' || NEW.n); END

CREATE TRIGGER ev_b BEFORE INSERT ON ev BEGIN INSERT INTO seen(tag) VALUES ('b ' || NEW.n); END

CREATE TRIGGER ev_c AFTER INSERT ON ev BEGIN INSERT INTO seen(tag) VALUES ('c ' || NEW.n); END

CREATE TRIGGER ev_d AFTER INSERT ON ev BEGIN INSERT INTO seen(tag) VALUES ('d ' || NEW.n); END

-- exec
INSERT INTO ev VALUES (1), (2)

SELECT tag FROM seen ORDER BY seq

-- NEW in a BEFORE INSERT trigger: defaults and affinities applied, rowid -1 until it is chosen

CREATE TABLE nb(id INTEGER PRIMARY KEY, a INTEGER, b TEXT DEFAULT 'dflt')

CREATE TRIGGER nb_before BEFORE INSERT ON nb BEGIN
  INSERT INTO seen(tag) VALUES ('nb ' || typeof(NEW.a) || ' ' || NEW.b || ' ' || NEW.id || ' ' || NEW.rowid);
END

CREATE TRIGGER nb_bu BEFORE UPDATE ON nb BEGIN
  INSERT INTO seen(tag) VALUES ('nbu ' || typeof(NEW.a) || ' ' || NEW.id || ' ' || OLD.id || ' ' || OLD.rowid);
END

-- exec
INSERT INTO nb(a) VALUES ('5')

-- exec
INSERT INTO nb(id, a) VALUES ('9', '6')

-- exec
UPDATE nb SET a = '7', id = id + 10 WHERE id = 1

SELECT tag FROM seen WHERE tag LIKE 'nb%' ORDER BY seq

SELECT * FROM nb ORDER BY id

-- WHEN conditions

CREATE TABLE acct(id INTEGER PRIMARY KEY, balance INTEGER)

CREATE TABLE alert(msg TEXT)

CREATE TRIGGER low AFTER UPDATE OF balance ON acct WHEN NEW.balance < 0 AND OLD.balance >= 0 BEGIN
  INSERT INTO alert VALUES ('account ' || NEW.id || ' overdrawn: ' || NEW.balance);
END

INSERT INTO acct VALUES (1, 10), (2, 20)

-- exec
UPDATE acct SET balance = balance - 15

-- exec
UPDATE acct SET balance = balance - 1

SELECT msg FROM alert

-- RAISE: the message is the error

CREATE TRIGGER no_neg BEFORE INSERT ON acct WHEN NEW.balance < 0 BEGIN
  SELECT RAISE(ABORT, 'negative opening balance');
END

INSERT INTO acct VALUES (3, -5)

INSERT INTO acct VALUES (4, 5), (5, -5)

SELECT * FROM acct ORDER BY id

CREATE TRIGGER no_big BEFORE INSERT ON acct BEGIN
  SELECT RAISE(FAIL, 'too big: ' || NEW.balance) WHERE NEW.balance > 1000;
END

-- FAIL keeps the rows written before the failing one

INSERT INTO acct VALUES (6, 1), (7, 2000), (8, 3)

SELECT * FROM acct ORDER BY id

CREATE TRIGGER skip_zero BEFORE INSERT ON acct BEGIN
  SELECT RAISE(IGNORE) WHERE NEW.balance = 0;
END

-- exec
INSERT INTO acct VALUES (9, 0), (10, 7), (11, 0)

SELECT * FROM acct ORDER BY id

CREATE TRIGGER no_del BEFORE DELETE ON acct WHEN OLD.balance > 5 BEGIN
  SELECT RAISE(ABORT, 'account ' || OLD.id || ' is not empty');
END

DELETE FROM acct

-- exec
DELETE FROM acct WHERE balance <= 5

SELECT * FROM acct ORDER BY id

-- RAISE(IGNORE) in a BEFORE UPDATE trigger skips the row

CREATE TRIGGER frozen BEFORE UPDATE ON acct WHEN OLD.id = 2 BEGIN SELECT RAISE(IGNORE); END

-- exec
UPDATE acct SET balance = balance * 2

SELECT * FROM acct ORDER BY id

-- RAISE with a number or NULL

CREATE TABLE r(n)

CREATE TRIGGER r98 BEFORE INSERT ON r WHEN NEW.n = 98 BEGIN SELECT RAISE(ABORT, 98); END

CREATE TRIGGER r97 BEFORE INSERT ON r WHEN NEW.n = 97 BEGIN SELECT RAISE(ABORT, NULL); END

INSERT INTO r VALUES (98)

INSERT INTO r VALUES (97)

-- RAISE(ROLLBACK) ends the transaction

BEGIN

INSERT INTO r VALUES (10)

CREATE TRIGGER r99 BEFORE INSERT ON r WHEN NEW.n = 99 BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END

INSERT INTO r VALUES (99)

COMMIT

SELECT count(*) FROM r

SELECT RAISE(ABORT, 'outside')

-- cascades: a trigger's statements fire other triggers; a trigger does not fire itself

CREATE TABLE c(n INTEGER)

CREATE TRIGGER c_rec AFTER INSERT ON c WHEN NEW.n < 5 BEGIN INSERT INTO c VALUES (NEW.n + 1); END

-- exec
INSERT INTO c VALUES (1)

SELECT n FROM c ORDER BY n

CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT)

CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT)

CREATE TABLE grandchild(id INTEGER PRIMARY KEY, child INTEGER)

CREATE TRIGGER parent_del AFTER DELETE ON parent BEGIN DELETE FROM child WHERE parent = OLD.id; END

CREATE TRIGGER child_del AFTER DELETE ON child BEGIN
  DELETE FROM grandchild WHERE child = OLD.id;
  INSERT INTO seen(tag) VALUES ('child ' || OLD.name || ' gone');
END

INSERT INTO parent VALUES (1, 'p1'), (2, 'p2')

INSERT INTO child VALUES (10, 1, 'c10'), (11, 1, 'c11'), (20, 2, 'c20')

INSERT INTO grandchild VALUES (100, 10), (101, 11), (200, 20)

-- exec
DELETE FROM parent WHERE id = 1

SELECT * FROM child ORDER BY id

SELECT * FROM grandchild ORDER BY id

SELECT tag FROM seen WHERE tag LIKE 'child%' ORDER BY seq

-- UPSERT fires the INSERT triggers, or for DO UPDATE the UPDATE triggers

CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER)

CREATE TABLE kvlog(seq INTEGER PRIMARY KEY, e TEXT)

CREATE TRIGGER kv_bi BEFORE INSERT ON kv BEGIN INSERT INTO kvlog(e) VALUES ('bi ' || NEW.k || '=' || NEW.v); END

CREATE TRIGGER kv_ai AFTER INSERT ON kv BEGIN INSERT INTO kvlog(e) VALUES ('ai ' || NEW.k || '=' || NEW.v); END

CREATE TRIGGER kv_bu BEFORE UPDATE ON kv BEGIN INSERT INTO kvlog(e) VALUES ('bu ' || OLD.v || '->' || NEW.v); END

CREATE TRIGGER kv_au AFTER UPDATE OF v ON kv BEGIN INSERT INTO kvlog(e) VALUES ('au ' || OLD.v || '->' || NEW.v); END

-- exec
INSERT INTO kv VALUES ('a', 1) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v

-- exec
INSERT INTO kv VALUES ('a', 5) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v

-- exec
INSERT INTO kv VALUES ('a', 7) ON CONFLICT(k) DO NOTHING

-- exec
INSERT OR REPLACE INTO kv VALUES ('a', 9)

SELECT e FROM kvlog ORDER BY seq

SELECT * FROM kv

-- INSTEAD OF triggers make a view writable

CREATE VIEW item_view AS SELECT id, name, qty FROM item

INSERT INTO item_view VALUES (50, 'plum', 1)

CREATE TRIGGER iv_ins INSTEAD OF INSERT ON item_view BEGIN
  INSERT INTO item(id, name, qty) VALUES (NEW.id, upper(NEW.name), NEW.qty);
END

CREATE TRIGGER iv_upd INSTEAD OF UPDATE ON item_view BEGIN
  UPDATE item SET qty = NEW.qty WHERE id = OLD.id;
END

CREATE TRIGGER iv_del INSTEAD OF DELETE ON item_view FOR EACH ROW BEGIN
  DELETE FROM item WHERE id = OLD.id;
END

-- exec
INSERT INTO item_view VALUES (50, 'plum', 1), (51, 'fig', 2)

-- exec
INSERT INTO item_view(id, name) VALUES (52, 'kiwi')

-- exec
UPDATE item_view SET qty = qty * 10 WHERE id >= 51

SELECT * FROM item_view ORDER BY id

-- exec
DELETE FROM item_view WHERE name = 'FIG'

SELECT id, name, qty FROM item ORDER BY id

INSERT INTO item_view VALUES (60, 'x', 1) ON CONFLICT DO NOTHING

DROP TRIGGER iv_upd

UPDATE item_view SET qty = 0

-- errors SQLite gives

CREATE TRIGGER item_ins AFTER INSERT ON item BEGIN SELECT 1; END

CREATE TRIGGER IF NOT EXISTS item_ins AFTER INSERT ON item BEGIN SELECT 1; END

CREATE TRIGGER t1 AFTER INSERT ON nosuch BEGIN SELECT 1; END

CREATE TRIGGER t1 BEFORE INSERT ON item_view BEGIN SELECT 1; END

CREATE TRIGGER t1 AFTER DELETE ON item_view BEGIN SELECT 1; END

CREATE TRIGGER t1 INSTEAD OF INSERT ON item BEGIN SELECT 1; END

CREATE TRIGGER t1 AFTER INSERT ON item BEGIN INSERT INTO main.audit(what) VALUES ('x'); END

CREATE TRIGGER t1 AFTER INSERT ON item BEGIN DELETE FROM main.audit; END

CREATE TRIGGER t1 AFTER INSERT ON item BEGIN INSERT INTO audit(what) VALUES (?); END

CREATE TRIGGER t1 AFTER INSERT ON item BEGIN INSERT INTO audit(what) VALUES ('x') RETURNING seq; END

CREATE TRIGGER sqlite_t AFTER INSERT ON item BEGIN SELECT 1; END

-- a trigger may share its name with a table

CREATE TRIGGER item AFTER INSERT ON r BEGIN SELECT 1; END

DROP TRIGGER item

DROP TRIGGER nosuch

DROP TRIGGER IF EXISTS nosuch

-- a body naming what does not exist fails when the trigger is used

CREATE TABLE bad(n)

CREATE TRIGGER bad_old AFTER INSERT ON bad BEGIN SELECT OLD.n; END

INSERT INTO bad VALUES (1)

DROP TRIGGER bad_old

CREATE TRIGGER bad_new AFTER DELETE ON bad BEGIN SELECT NEW.n; END

DELETE FROM bad

DROP TRIGGER bad_new

CREATE TRIGGER bad_col AFTER INSERT ON bad BEGIN SELECT NEW.zz; END

INSERT INTO bad VALUES (1)

DROP TRIGGER bad_col

CREATE TRIGGER bad_tab AFTER INSERT ON bad BEGIN INSERT INTO nosuch VALUES (1); END

INSERT INTO bad VALUES (1)

SELECT count(*) FROM bad

-- dropping a table drops its triggers

DROP TABLE bad

CREATE TRIGGER bad_tab AFTER INSERT ON r BEGIN SELECT 1; END

DROP TRIGGER bad_tab

-- a WITHOUT ROWID table

CREATE TABLE wr(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID

CREATE TRIGGER wr_ai AFTER INSERT ON wr BEGIN INSERT INTO seen(tag) VALUES ('wr ' || NEW.k || ' ' || NEW.v); END

CREATE TRIGGER wr_au AFTER UPDATE ON wr BEGIN INSERT INTO seen(tag) VALUES ('wru ' || OLD.v || ' ' || NEW.v); END

-- exec
INSERT INTO wr VALUES ('x', '1')

-- exec
UPDATE wr SET v = v + 1

SELECT tag FROM seen WHERE tag LIKE 'wr%' ORDER BY seq

-- NEW and OLD in subqueries, joins and expressions of the trigger's statements

CREATE TABLE prod(id INTEGER PRIMARY KEY, name TEXT, price REAL)

CREATE TABLE ord(id INTEGER PRIMARY KEY, prod INTEGER, n INTEGER, total REAL)

CREATE TRIGGER ord_total AFTER INSERT ON ord BEGIN
  UPDATE ord SET total = NEW.n * (SELECT price FROM prod WHERE id = NEW.prod) WHERE id = NEW.id;
END

CREATE TRIGGER ord_check BEFORE INSERT ON ord WHEN NOT EXISTS (SELECT 1 FROM prod WHERE id = NEW.prod) BEGIN
  SELECT RAISE(ABORT, 'no such product');
END

INSERT INTO prod VALUES (1, 'pen', 1.5), (2, 'ink', 4.0)

-- exec
INSERT INTO ord(prod, n) VALUES (1, 4), (2, 3)

INSERT INTO ord(prod, n) VALUES (9, 1)

SELECT * FROM ord ORDER BY id

CREATE TRIGGER ord_upd AFTER UPDATE OF n ON ord BEGIN
  INSERT INTO seen(tag) SELECT 'ord ' || o.id || ' ' || p.name || ' ' || OLD.n || '->' || NEW.n
    FROM ord AS o JOIN prod AS p ON p.id = o.prod WHERE o.id = NEW.id;
END

-- exec
UPDATE ord SET n = n + 1

SELECT tag FROM seen WHERE tag LIKE 'ord%' ORDER BY seq

SELECT * FROM ord ORDER BY id

-- RAISE(IGNORE) in an AFTER trigger keeps the row but stops the triggers after it

CREATE TABLE ig(n INTEGER)

CREATE TRIGGER ig_a AFTER INSERT ON ig BEGIN INSERT INTO seen(tag) VALUES ('ig a ' || NEW.n); END

CREATE TRIGGER ig_b AFTER INSERT ON ig BEGIN SELECT RAISE(IGNORE) WHERE NEW.n = 2; INSERT INTO seen(tag) VALUES ('ig b ' || NEW.n); END

-- exec
INSERT INTO ig VALUES (1), (2), (3)

SELECT n FROM ig ORDER BY n

SELECT tag FROM seen WHERE tag LIKE 'ig%' ORDER BY seq

-- a RAISE in a nested trigger fails the outer statement, which is undone

CREATE TABLE outer_t(n INTEGER)

CREATE TABLE inner_t(n INTEGER)

CREATE TRIGGER outer_ai AFTER INSERT ON outer_t BEGIN INSERT INTO inner_t VALUES (NEW.n * 10); END

CREATE TRIGGER inner_bi BEFORE INSERT ON inner_t WHEN NEW.n > 100 BEGIN SELECT RAISE(ABORT, 'inner too big: ' || NEW.n); END

INSERT INTO outer_t VALUES (1), (20)

SELECT count(*) FROM outer_t

SELECT count(*) FROM inner_t

-- exec
INSERT INTO outer_t VALUES (2), (3)

SELECT n FROM inner_t ORDER BY n

-- RAISE(IGNORE) in a nested trigger skips the nested row only

CREATE TRIGGER inner_ig BEFORE INSERT ON inner_t WHEN NEW.n = 40 BEGIN SELECT RAISE(IGNORE); END

-- exec
INSERT INTO outer_t VALUES (4), (5)

SELECT n FROM outer_t ORDER BY n

SELECT n FROM inner_t ORDER BY n

-- a BEFORE DELETE trigger that deletes other rows the statement selected

CREATE TABLE dd(id INTEGER PRIMARY KEY, grp INTEGER)

INSERT INTO dd VALUES (1, 1), (2, 1), (3, 2), (4, 2)

CREATE TRIGGER dd_grp BEFORE DELETE ON dd BEGIN DELETE FROM dd WHERE grp = OLD.grp AND id != OLD.id; END

-- exec
DELETE FROM dd WHERE id IN (1, 2, 3)

SELECT * FROM dd ORDER BY id

-- a BEFORE UPDATE trigger that changes a column the UPDATE does not set

CREATE TABLE bu(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)

INSERT INTO bu VALUES (1, 1, 1), (2, 2, 2)

CREATE TRIGGER bu_b BEFORE UPDATE OF a ON bu BEGIN UPDATE bu SET b = b + 100 WHERE id = OLD.id; END

-- exec
UPDATE bu SET a = a * 10

SELECT * FROM bu ORDER BY id

-- UPDATE through a view, with a WHERE on the view's columns and an alias

CREATE TABLE emp(id INTEGER PRIMARY KEY, name TEXT, dept TEXT, salary INTEGER)

INSERT INTO emp VALUES (1, 'ann', 'eng', 100), (2, 'bob', 'ops', 80), (3, 'cy', 'eng', 90)

CREATE VIEW eng AS SELECT id, name, salary * 12 AS yearly FROM emp WHERE dept = 'eng'

CREATE TRIGGER eng_upd INSTEAD OF UPDATE OF yearly ON eng BEGIN
  UPDATE emp SET salary = NEW.yearly / 12 WHERE id = OLD.id;
END

-- exec
UPDATE eng SET yearly = eng.yearly + 120 WHERE eng.name != 'cy'

-- exec
UPDATE eng SET name = 'x'

SELECT * FROM emp ORDER BY id

SELECT * FROM eng ORDER BY id

UPDATE eng SET nosuch = 1

INSERT INTO eng(nosuch) VALUES (1)

INSERT INTO eng VALUES (1)

DELETE FROM eng

-- a trigger reading NEW.rowid and OLD.oid

CREATE TABLE rw(a)

CREATE TRIGGER rw_u AFTER UPDATE ON rw BEGIN INSERT INTO seen(tag) VALUES ('rw ' || OLD.oid || ' ' || NEW._rowid_ || ' ' || NEW.rowid); END

INSERT INTO rw VALUES ('x')

-- exec
UPDATE rw SET rowid = 7

SELECT tag FROM seen WHERE tag LIKE 'rw%'

-- the triggers of the table a REPLACE conflict deletes from do not fire

CREATE TABLE rp(k INTEGER PRIMARY KEY, v TEXT)

CREATE TRIGGER rp_d AFTER DELETE ON rp BEGIN INSERT INTO seen(tag) VALUES ('rp deleted ' || OLD.k); END

INSERT INTO rp VALUES (1, 'a')

-- exec
REPLACE INTO rp VALUES (1, 'b')

SELECT count(*) FROM seen WHERE tag LIKE 'rp%'

-- TEMP triggers: the connection's own, fired before the database's

CREATE TABLE tp(a INTEGER)

CREATE TABLE tplog(seq INTEGER PRIMARY KEY, x TEXT)

CREATE TRIGGER tp_main1 AFTER INSERT ON tp BEGIN INSERT INTO tplog(x) VALUES ('main1 ' || NEW.a); END

CREATE TEMP TRIGGER tp_temp AFTER INSERT ON tp BEGIN INSERT INTO tplog(x) VALUES ('temp ' || NEW.a); END

CREATE TRIGGER tp_main2 AFTER INSERT ON tp BEGIN INSERT INTO tplog(x) VALUES ('main2 ' || NEW.a); END

CREATE TEMPORARY TRIGGER tp_tb BEFORE INSERT ON tp BEGIN INSERT INTO tplog(x) VALUES ('temp before ' || NEW.a); END

-- exec
INSERT INTO tp VALUES (1)

SELECT x FROM tplog ORDER BY seq

-- TEMP and main triggers have name spaces of their own

CREATE TEMP TRIGGER tp_main1 AFTER DELETE ON tp BEGIN INSERT INTO tplog(x) VALUES ('temp delete ' || OLD.a); END

CREATE TRIGGER temp.tp_q AFTER UPDATE ON tp BEGIN INSERT INTO tplog(x) VALUES ('temp update ' || NEW.a); END

CREATE TEMP TRIGGER main.tp_bad AFTER INSERT ON tp BEGIN SELECT 1; END

CREATE TEMP TRIGGER tp_temp AFTER INSERT ON tp BEGIN SELECT 1; END

-- exec
UPDATE tp SET a = 2

-- exec
DELETE FROM tp

SELECT x FROM tplog ORDER BY seq

DROP TRIGGER main.tp_temp

DROP TRIGGER temp.tp_main2

DROP TRIGGER tp_main1

DROP TRIGGER tp_main1

DROP TRIGGER temp.tp_temp

-- exec
INSERT INTO tp VALUES (3)

SELECT x FROM tplog WHERE seq > 6 ORDER BY seq

-- a trigger on a TEMP view is a TEMP trigger

CREATE TEMP VIEW tpv AS SELECT a FROM tp

CREATE TRIGGER tpv_ins INSTEAD OF INSERT ON tpv BEGIN INSERT INTO tp VALUES (NEW.a * 100); END

-- exec
INSERT INTO tpv VALUES (4)

SELECT a FROM tp ORDER BY a

-- dropping the table drops its TEMP triggers too

DROP TABLE tp

DROP TRIGGER tp_tb

-- more errors

CREATE TABLE ai(id INTEGER PRIMARY KEY AUTOINCREMENT, v)

CREATE TRIGGER on_seq AFTER INSERT ON sqlite_sequence BEGIN SELECT 1; END

CREATE TABLE sel(n)

CREATE TRIGGER sel_missing AFTER INSERT ON sel BEGIN SELECT * FROM nosuch; END

INSERT INTO sel VALUES (1)

DROP TRIGGER sel_missing

CREATE TRIGGER sel_agg AFTER INSERT ON sel BEGIN SELECT count(*) FROM sel WHERE n = NEW.n HAVING RAISE(ABORT, 'dup ' || NEW.n); END

-- exec
INSERT INTO sel VALUES (1)

-- an AUTOINCREMENT table written by its own trigger

CREATE TRIGGER ai_copy AFTER INSERT ON ai WHEN NEW.v < 3 BEGIN INSERT INTO ai(v) VALUES (NEW.v + 10); END

-- exec
INSERT INTO ai(v) VALUES (1), (2), (3)

SELECT * FROM ai ORDER BY id

SELECT * FROM sqlite_sequence

-- triggers in sqlite_schema

SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name

-- ALTER TABLE ADD COLUMN keeps a table's triggers

CREATE TABLE al(a INTEGER)

CREATE TRIGGER al_ai AFTER INSERT ON al BEGIN INSERT INTO seen(tag) VALUES ('al ' || NEW.a); END

ALTER TABLE al ADD COLUMN b TEXT DEFAULT 'x'

-- exec
INSERT INTO al(a) VALUES (1)

SELECT tag FROM seen WHERE tag LIKE 'al%'

-- a trigger on a TEMP table is a TEMP trigger

CREATE TEMP TABLE tmp_t(a)

CREATE TRIGGER tmp_ai AFTER INSERT ON tmp_t BEGIN INSERT INTO seen(tag) VALUES ('tmp ' || NEW.a); END

-- exec
INSERT INTO tmp_t VALUES (5)

SELECT tag FROM seen WHERE tag LIKE 'tmp%'

SELECT name FROM sqlite_schema WHERE name = 'tmp_ai'

DROP TABLE tmp_t

DROP TRIGGER tmp_ai

CREATE TABLE Foo(a)

CREATE TRIGGER foo_case AFTER INSERT ON fOO BEGIN SELECT 1; END

SELECT type, name, tbl_name, rootpage FROM sqlite_schema WHERE name = 'foo_case'

-- last_insert_rowid(), changes() and total_changes() inside and after trigger programs

CREATE TABLE lt(id INTEGER PRIMARY KEY, a)

CREATE TABLE llog(seq INTEGER PRIMARY KEY, x)

CREATE TABLE lother(id INTEGER PRIMARY KEY, y)

INSERT INTO lother VALUES (100, 1), (101, 2), (102, 3), (103, 4), (104, 5)

CREATE TRIGGER lt_b BEFORE INSERT ON lt BEGIN
  INSERT INTO llog(x) VALUES ('before lir=' || last_insert_rowid() || ' ch=' || changes());
END

CREATE TRIGGER lt_a AFTER INSERT ON lt BEGIN
  INSERT INTO llog(x) VALUES ('a lir=' || last_insert_rowid() || ' ch=' || changes());
  UPDATE lother SET y = y + 1 WHERE id < 102;
  INSERT INTO llog(x) VALUES ('b lir=' || last_insert_rowid() || ' ch=' || changes());
  INSERT INTO llog(x) SELECT 'c ch=' || changes();
END

SELECT total_changes() > 0

-- exec
INSERT INTO lt(a) VALUES (1), (2)

SELECT last_insert_rowid(), changes()

SELECT x FROM llog ORDER BY seq

-- exec
UPDATE lother SET y = 0 WHERE id = 104

SELECT changes()

-- the statements of a trigger: WITH inside INSERT, upserts with an alias; not INDEXED BY

CREATE TABLE wt(a)

CREATE TABLE wlog(x UNIQUE)

CREATE TRIGGER wt_with AFTER INSERT ON wt BEGIN INSERT INTO wlog WITH c(v) AS (SELECT NEW.a * 2) SELECT v FROM c; END

CREATE TRIGGER wt_up AFTER INSERT ON wt BEGIN INSERT INTO wlog AS l VALUES (NEW.a) ON CONFLICT(x) DO UPDATE SET x = l.x + 100; END

-- exec
INSERT INTO wt VALUES (3), (6)

SELECT x FROM wlog ORDER BY x

CREATE TRIGGER wt_ix AFTER INSERT ON wt BEGIN UPDATE wlog INDEXED BY foo SET x = 1; END

CREATE TRIGGER wt_nix AFTER INSERT ON wt BEGIN DELETE FROM wlog NOT INDEXED; END

SELECT type, name FROM sqlite_schema WHERE type IN ('table', 'trigger') AND name IN ('lt', 'llog', 'lother', 'lt_b', 'lt_a', 'wt', 'wlog', 'wt_with', 'wt_up')

-- a BEFORE INSERT trigger that inserts into its own table: the new row's rowid is chosen after it

CREATE TABLE self(id INTEGER PRIMARY KEY, v TEXT)

CREATE TRIGGER self_b BEFORE INSERT ON self WHEN NEW.v != 'shadow' BEGIN INSERT INTO self(v) VALUES ('shadow'); END

-- exec
INSERT INTO self(v) VALUES ('a'), ('b')

SELECT * FROM self ORDER BY id

-- WHEN with IS NOT, and INSERT OR IGNORE: BEFORE triggers fire for rows then ignored

CREATE TABLE chg(id INTEGER PRIMARY KEY, v TEXT UNIQUE)

CREATE TABLE chglog(seq INTEGER PRIMARY KEY, e TEXT)

CREATE TRIGGER chg_u AFTER UPDATE ON chg WHEN OLD.v IS NOT NEW.v BEGIN INSERT INTO chglog(e) VALUES (OLD.v || '>' || NEW.v); END

CREATE TRIGGER chg_bi BEFORE INSERT ON chg BEGIN INSERT INTO chglog(e) VALUES ('bi ' || NEW.v); END

CREATE TRIGGER chg_ai AFTER INSERT ON chg BEGIN INSERT INTO chglog(e) VALUES ('ai ' || NEW.v); END

-- exec
INSERT OR IGNORE INTO chg(v) VALUES ('x'), ('x'), ('y')

-- exec
UPDATE chg SET v = v

-- exec
UPDATE chg SET v = upper(v) WHERE v = 'x'

-- exec
UPDATE chg SET v = NULL WHERE v = 'y'

SELECT e FROM chglog ORDER BY seq

-- ALTER TABLE RENAME TO edits the triggers' texts where they name the table (SQLite checks every
-- trigger and view then, and fails on an upsert's alias in a trigger and on the TEMP view of a
-- dropped table: both go first)

DROP TRIGGER wt_up

DROP VIEW tpv

CREATE TABLE rn(a INTEGER, b TEXT)

CREATE TABLE rnlog(x)

CREATE TRIGGER rn_ai AFTER INSERT ON rn BEGIN
  INSERT INTO rnlog SELECT a FROM rn WHERE rn.a = NEW.a;
  UPDATE rn SET b = 'seen' WHERE a = NEW.a AND rn.b IS NULL;
  DELETE FROM rn WHERE rn.a < 0;
END

CREATE TRIGGER rnlog_ai AFTER INSERT ON rnlog WHEN NEW.x > 100 BEGIN INSERT INTO rn(a) VALUES (NEW.x - 100) ON CONFLICT DO NOTHING; END

ALTER TABLE rn RENAME TO rn2

SELECT name, tbl_name, sql FROM sqlite_schema WHERE name IN ('rn_ai', 'rnlog_ai') ORDER BY name

-- exec
INSERT INTO rn2(a) VALUES (7)

-- exec
INSERT INTO rnlog VALUES (150)

SELECT * FROM rn2 ORDER BY a

SELECT x FROM rnlog ORDER BY x

ALTER TABLE rnlog RENAME TO rnjournal

SELECT name, tbl_name, sql FROM sqlite_schema WHERE name IN ('rn_ai', 'rnlog_ai') ORDER BY name

-- ALTER TABLE RENAME COLUMN edits NEW.col, OLD.col, UPDATE OF and the body's names

CREATE TABLE rc(a, b)

CREATE TABLE rclog(x, y)

CREATE TRIGGER rc_u AFTER UPDATE OF a ON rc WHEN NEW.a > OLD.a BEGIN
  INSERT INTO rclog(x) SELECT a FROM rc WHERE rc.a = NEW.a;
  UPDATE rc SET a = NEW.a + 1 WHERE a = OLD.a AND b IS NULL;
  INSERT INTO rclog(x, y) VALUES (NEW.b, (SELECT max(a) FROM rc));
END

ALTER TABLE rc RENAME COLUMN a TO aa

SELECT sql FROM sqlite_schema WHERE name = 'rc_u'

ALTER TABLE rclog RENAME COLUMN x TO xx

SELECT sql FROM sqlite_schema WHERE name = 'rc_u'

INSERT INTO rc VALUES (1, NULL), (5, 'b')

-- exec
UPDATE rc SET aa = aa + 1 WHERE aa = 1

SELECT * FROM rc ORDER BY aa

SELECT * FROM rclog ORDER BY xx

-- TEMP triggers follow transactions, as TEMP tables do

CREATE TABLE tx_t(a)

BEGIN

CREATE TEMP TRIGGER tx_tt AFTER INSERT ON tx_t BEGIN SELECT 1; END

ROLLBACK

DROP TRIGGER tx_tt

CREATE TEMP TRIGGER tx_tt AFTER INSERT ON tx_t BEGIN SELECT 1; END

BEGIN

DROP TRIGGER tx_tt

ROLLBACK

SELECT name FROM sqlite_temp_schema WHERE name = 'tx_tt'

SAVEPOINT sp

DROP TRIGGER tx_tt

ROLLBACK TO sp

RELEASE sp

DROP TRIGGER tx_tt

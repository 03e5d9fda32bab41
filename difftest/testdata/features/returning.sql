-- RETURNING on INSERT, UPDATE and DELETE (lang_returning.html).

CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b REAL, c DEFAULT 'dflt')

INSERT INTO t(a, b) VALUES ('x', 1), ('y', '2') RETURNING id, a, b, typeof(b), id * 2 AS dbl

-- exec
INSERT INTO t(a, b) VALUES ('z', 3) RETURNING id

INSERT INTO t(a, b) VALUES ('z', 3) RETURNING *

INSERT INTO t(a, b) VALUES ('z', 3) RETURNING t.a, c

INSERT INTO t(a, b) VALUES ('z', 3) RETURNING t.*

INSERT INTO t AS o (a, b) VALUES ('z', 3) RETURNING o.a

INSERT INTO t(a, b) VALUES ('w', 4) RETURNING rowid, oid, _rowid_, (SELECT count(*) FROM t)

INSERT INTO t(a) VALUES ('q') RETURNING nosuch

INSERT INTO t(a) VALUES ('q') RETURNING max(id)

INSERT INTO t(a) VALUES ('q') RETURNING id AS "my id", *, 'lit', NULL, upper(a) || '!'

INSERT INTO t(a) SELECT a FROM t WHERE id < 3 RETURNING id, a

INSERT INTO t DEFAULT VALUES RETURNING *

SELECT * FROM t ORDER BY id

UPDATE t SET b = b + 1 WHERE id <= 2 RETURNING *

UPDATE t SET b = b + 1 WHERE id > 100 RETURNING *

-- exec
UPDATE t SET b = 0 WHERE a = 'z' RETURNING id

UPDATE t AS u SET b = 0 RETURNING u.id

UPDATE t SET id = id + 100 WHERE id = 1 RETURNING id, a, typeof(b)

UPDATE t SET a = 'r' WHERE id = 101 RETURNING (SELECT a FROM t WHERE id = 101)

DELETE FROM t WHERE id = 101 RETURNING *, b * 10

DELETE FROM t WHERE a = 'z' RETURNING id

-- exec
DELETE FROM t WHERE a = 'q' RETURNING id

DELETE FROM t WHERE id = 2 RETURNING (SELECT count(*) FROM t WHERE id = 2)

DELETE FROM t RETURNING id

SELECT count(*) FROM t

-- errors leave no rows behind

CREATE TABLE u(id INTEGER PRIMARY KEY, v TEXT UNIQUE NOT NULL)

INSERT INTO u(v) VALUES ('a'), ('b') RETURNING *

INSERT INTO u(v) VALUES ('c'), ('a') RETURNING *

INSERT INTO u(v) VALUES (NULL) RETURNING *

INSERT OR IGNORE INTO u(v) VALUES ('c'), ('a'), ('d') RETURNING *

UPDATE u SET v = 'a' WHERE v = 'b' RETURNING *

UPDATE OR REPLACE u SET v = 'a' WHERE v = 'b' RETURNING *

SELECT * FROM u ORDER BY id

INSERT INTO u(v) VALUES ('e') RETURNING v + 0, abs('x'), 1 / 0, id % 0

-- in an explicit transaction

BEGIN

INSERT INTO u(v) VALUES ('tx') RETURNING id, v

UPDATE u SET v = v || '!' WHERE v = 'tx' RETURNING v

DELETE FROM u WHERE v = 'tx!' RETURNING id

ROLLBACK

SELECT * FROM u ORDER BY id

-- WITHOUT ROWID

CREATE TABLE w(k TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID

INSERT INTO w VALUES ('b', 2), ('a', '1') RETURNING k, n, typeof(n)

INSERT INTO w VALUES ('c', 3) RETURNING rowid

UPDATE w SET n = n * 10 RETURNING *

DELETE FROM w WHERE k > 'a' RETURNING *

-- a subquery of RETURNING runs for each row and sees the changes so far

CREATE TABLE s(a)

INSERT INTO s VALUES (1), (2), (3) RETURNING a, (SELECT count(*) FROM s)

UPDATE s SET a = a + 10 RETURNING a, (SELECT max(a) FROM s)

DELETE FROM s RETURNING a, (SELECT count(*) FROM s)

-- row values in SET, in UPDATE and DO UPDATE

CREATE TABLE rv(a, b, c UNIQUE)

INSERT INTO rv VALUES (1, 2, 3)

UPDATE rv SET (a, b) = (b, a) RETURNING *

UPDATE rv SET (a, b) = ((b), a + 10), c = 4 RETURNING *

UPDATE rv SET (a, zz) = (1, 2)

INSERT INTO rv VALUES (0, 0, 4) ON CONFLICT(c) DO UPDATE SET (a, b) = (excluded.a - 1, b * 2) RETURNING *

-- Name resolution: sources of the same name, rowid of several tables.

CREATE TABLE t(a)

CREATE TABLE u(b)

CREATE TABLE w(k PRIMARY KEY, v) WITHOUT ROWID

INSERT INTO t VALUES (1)

INSERT INTO u VALUES (2)

INSERT INTO w VALUES (3, 4)

SELECT 1 FROM t, t

SELECT count(*) FROM t AS x, t AS x

SELECT a FROM t, t

SELECT x.a FROM t AS x, t AS x

SELECT x.rowid FROM t AS x, t AS x

SELECT rowid FROM t AS x, t AS x

SELECT rowid FROM t, u

SELECT oid FROM t, u

SELECT t.rowid, u.oid, _rowid_ FROM t, u, w

SELECT rowid FROM t, (SELECT 1)

SELECT rowid FROM w

SELECT count(*) FROM t, t AS t

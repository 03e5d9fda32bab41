-- Aggregates where SQLite allows none, and CHECK constraints checked by CREATE TABLE.

CREATE TABLE t(a)

INSERT INTO t VALUES (1), (2)

SELECT group_concat(sum(1))

SELECT a FROM t WHERE sum(a) > 1

SELECT count(max(a)) FROM t

SELECT a FROM t GROUP BY sum(a)

SELECT 1 FROM t LIMIT sum(1)

SELECT a FROM t ORDER BY sum(a)

SELECT a FROM t GROUP BY a HAVING sum(a) > 0 ORDER BY count(sum(a))

UPDATE t SET a = sum(a)

SELECT 1 FROM t JOIN t AS u ON sum(u.a)

SELECT (SELECT sum(t.a) FROM t AS x WHERE sum(t.a) > 0) FROM t

SELECT * FROM t WHERE a IN (SELECT sum(a) FROM t AS u WHERE sum(t.a))

SELECT count(*) FROM t WHERE sum(a) FILTER (WHERE a > 1) > 0

CREATE INDEX i ON t(sum(a))

CREATE TABLE t2(a CHECK (sum(a) > 0))

CREATE TABLE t3(a CHECK (b > 0))

CREATE TABLE t4(a, CONSTRAINT c CHECK (nosuch(a)))

SELECT name FROM sqlite_schema ORDER BY name

CREATE TABLE d(a CHECK (a < datetime('now')))

INSERT INTO d VALUES (1)

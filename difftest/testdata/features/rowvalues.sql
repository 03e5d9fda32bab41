-- Row values (rowvalue.html): comparisons of rows with = <> < <= > >= IS IS NOT and BETWEEN,
-- rows from subqueries, IN with a subquery or a list of rows, keyset pagination, and SQLite's
-- errors.

CREATE TABLE t(a INTEGER, b TEXT, c)

CREATE TABLE ev(id INTEGER PRIMARY KEY, created_at TEXT, title TEXT)

CREATE INDEX ev_created ON ev(created_at, id)

CREATE TABLE p(x, y)

CREATE TABLE n(k TEXT COLLATE NOCASE, v INTEGER)

INSERT INTO t VALUES (1, 'a', 10), (1, 'b', NULL), (2, 'a', 5), (2, NULL, 7), (3, 'c', 1), (NULL, 'a', 2)

INSERT INTO ev VALUES (1, '2024-01-01', 'a'), (2, '2024-01-01', 'b'), (3, '2024-01-02', 'c'), (4, '2024-01-02', 'd'), (5, '2024-01-02', 'e'), (6, '2024-01-03', 'f'), (7, NULL, 'g')

INSERT INTO p VALUES (1, 'a'), (2, NULL), (3, 'c')

INSERT INTO n VALUES ('Abc', 1), ('def', 2)

SELECT (1, 2) = (1, 2), (1, 2) = (1, 3), (1, 2) <> (1, 3), (1, 2) != (1, 2)

SELECT (1, 2) < (1, 3), (1, 2) < (1, 2), (1, 2) <= (1, 2), (2, 0) > (1, 9), (1, 2) >= (1, 3)

SELECT (1, NULL) < (2, 0), (1, NULL) < (1, 3), (NULL, 1) < (1, 2), (2, NULL) > (1, NULL), (1, 2, 3) < (1, NULL, 4)

SELECT (1, 2, 3) = (1, NULL, 4), (1, 2, 3) = (1, NULL, 3), (1, 2, 3) <> (1, NULL, 4), (1, 2, 3) <> (1, NULL, 3)

SELECT (1, 2) IS (1, 2), (1, NULL) IS (1, NULL), (1, NULL) IS (1, 2), (1, NULL) IS NOT (1, 2), (NULL, NULL) IS NOT (NULL, NULL)

SELECT (1, 2) IS DISTINCT FROM (1, 2), (1, NULL) IS NOT DISTINCT FROM (1, NULL)

SELECT (2, 3) BETWEEN (1, 1) AND (3, 3), (2, 3) BETWEEN (2, 4) AND (3, 3), (2, 3) NOT BETWEEN (2, 4) AND (3, 3)

SELECT (1, 'a') = (1, 'A' COLLATE NOCASE), (1, 'a' COLLATE NOCASE) < (1, 'B')

SELECT ((1, 2)) = ((1, 2)), (1 + 1, 'x' || 'y') = (2, 'xy')

SELECT (1, 2) = (SELECT 1, 2), (SELECT 1, 2) = (1, 2), (1, 3) > (SELECT 1, 2), (SELECT 1, 2) = (SELECT 1, 2)

SELECT (1, 2) < (SELECT 1, 3 WHERE 0), (SELECT 1) = (SELECT 1)

SELECT (1, 2) IN (SELECT 1, 2), (1, 2) IN (SELECT 1, 3), (1, 2) NOT IN (SELECT 1, 3), (1, 2) IN (SELECT 1, 2 WHERE 0)

SELECT (1, 2) NOT IN (SELECT 1, 3 UNION SELECT NULL, 2), (1, 2) IN (SELECT 1, 3 UNION SELECT NULL, 2), (1, 2) IN (SELECT 5, 3 UNION SELECT NULL, 2)

SELECT (1, NULL) IN (SELECT 1, 3), (1, NULL) IN (SELECT 2, 3), (NULL, NULL) NOT IN (SELECT 2, 3), (NULL, 1) IN (SELECT 1, 2 WHERE 0)

SELECT (1, 2) IN ((1, 2), (3, 4)), (1, 2) IN ((3, 4), (5, 6)), (1, 2) NOT IN ((3, 4)), (1, NULL) IN ((1, 2), (3, 4)), (1, NULL) IN ((2, 2))

SELECT (1, 2) IN (VALUES (1, 2), (3, 4)), (3, 5) IN (VALUES (1, 2), (3, 4))

SELECT a, b FROM t WHERE (a, b) = (1, 'b')

-- unordered
SELECT a, b FROM t WHERE (a, b) > (1, 'a')

-- unordered
SELECT a, b FROM t WHERE (a, b) IN (SELECT x, y FROM p)

-- unordered
SELECT a, b FROM t WHERE (a, b) NOT IN (SELECT x, y FROM p)

-- unordered
SELECT a, b FROM t WHERE (a, b) IN ((1, 'a'), (2, NULL), (3, 'c'))

-- unordered
SELECT x, y FROM p WHERE (x, y) = (SELECT a, b FROM t WHERE t.a = p.x ORDER BY b LIMIT 1)

-- unordered
SELECT a, c FROM t WHERE (a, c) < (2, 6)

-- unordered
SELECT x FROM p WHERE EXISTS (SELECT 1 FROM t WHERE (t.a, t.b) IS (p.x, p.y))

SELECT k FROM n WHERE (k, v) = ('abc', 1)

SELECT k FROM n WHERE (v, k) > (1, 'ABC') ORDER BY v

SELECT ('1', 2) = (1, 2), (a, b) = ('1', 'a') FROM t WHERE rowid = 1

SELECT CASE WHEN (1, 2) < (1, 3) THEN 'lt' ELSE 'ge' END

SELECT count(*) FROM t WHERE (a, c) >= (2, 0)

SELECT id, created_at FROM ev WHERE (created_at, id) > ('2024-01-01', 2) ORDER BY created_at, id LIMIT 3

SELECT id, created_at FROM ev WHERE (created_at, id) > ('2024-01-02', 4) ORDER BY created_at, id LIMIT 3

SELECT id, created_at FROM ev WHERE (created_at, id) < ('2024-01-02', 4) ORDER BY created_at DESC, id DESC LIMIT 3

SELECT id, created_at FROM ev WHERE (created_at, id) >= ('2024-01-02', 4) ORDER BY created_at, id

SELECT id FROM ev WHERE (created_at, id) <= ('2024-01-02', 3) ORDER BY created_at, id

SELECT id FROM ev WHERE (created_at, id) > (NULL, 1) ORDER BY created_at, id

SELECT id FROM ev WHERE (created_at, id) > ('2024-01-02', NULL) ORDER BY created_at, id

SELECT id FROM ev WHERE (created_at, id) BETWEEN ('2024-01-01', 2) AND ('2024-01-02', 4) ORDER BY created_at, id

CREATE TABLE e2(id INTEGER PRIMARY KEY, c TEXT, k INT, t)

CREATE INDEX i2 ON e2(c, k)

CREATE TABLE d2(c TEXT, k INT)

CREATE INDEX d2i ON d2(c DESC, k DESC)

CREATE TABLE m2(c TEXT, k INT)

CREATE INDEX m2i ON m2(c, k DESC)

INSERT INTO e2(c, k, t) VALUES ('a', 1, 'x'), ('a', 2, 'y'), ('a', 3, 'z'), ('b', 1, 'x'), ('b', 2, NULL), ('c', NULL, 'w'), (NULL, 5, 'v'), ('b', 3, 'u'), ('c', 0, 't'), ('a', NULL, 's')

INSERT INTO d2 SELECT c, k FROM e2

INSERT INTO m2 SELECT c, k FROM e2

SELECT c, k FROM e2 WHERE (c, k) > ('a', 2) ORDER BY c, k LIMIT 4

SELECT c, k FROM e2 WHERE (c, k) >= ('a', 2) ORDER BY c, k

SELECT c, k FROM e2 WHERE (c, k) < ('b', 2) ORDER BY c DESC, k DESC

SELECT c, k FROM e2 WHERE (c, k) <= ('b', 2) ORDER BY c, k

SELECT c, k FROM e2 WHERE (c, k) > ('a', 2) AND (c, k) < ('c', 0) ORDER BY c, k

SELECT c, k FROM e2 WHERE (c, k) > ('a', NULL) ORDER BY c, k

SELECT c, k FROM e2 WHERE (c, k) < ('b', NULL) ORDER BY c, k

SELECT c, k FROM e2 WHERE ('a', 2) < (c, k) ORDER BY c, k LIMIT 3

SELECT c, k FROM e2 WHERE (c, k) > ('a', '2') ORDER BY c, k LIMIT 3

SELECT c, k, t FROM e2 WHERE (c, k) = ('b', 2)

SELECT c, k FROM e2 WHERE (c, k) BETWEEN ('a', 2) AND ('b', 2) ORDER BY c, k

SELECT c, k FROM d2 WHERE (c, k) > ('a', 2) ORDER BY c DESC, k DESC

SELECT c, k FROM d2 WHERE (c, k) < ('b', 2) ORDER BY c, k

SELECT c, k FROM m2 WHERE (c, k) > ('a', 2) ORDER BY c, k

SELECT c, k FROM m2 WHERE (c, k) <= ('b', 1) ORDER BY c, k

SELECT c, k FROM e2 WHERE (c, k) > (SELECT 'a', 2) ORDER BY c, k LIMIT 2

SELECT a.c, b.k FROM e2 AS a, e2 AS b WHERE a.id = 2 AND (b.c, b.k) > (a.c, a.k) ORDER BY b.c, b.k LIMIT 3

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (c, k) > ('a', 1) ORDER BY c, k LIMIT 20

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (c, k) < ('a', 1) ORDER BY c DESC, k DESC LIMIT 20

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (c, k) >= ('a', 1) AND (c, k) < ('b', 1)

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (c, k) BETWEEN ('a', 2) AND ('b', 4)

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (c, k) = ('a', 1)

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (c, t) > ('a', 1)

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (id, c) > (1, 'a')

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE (k, c) > (1, 'a')

EXPLAIN QUERY PLAN SELECT * FROM e2 WHERE c = 'x' AND (k, id) > (1, 2)

UPDATE t SET (b, c) = (SELECT y, x FROM p WHERE p.x = t.a) WHERE a = 2

SELECT a, b, c FROM t ORDER BY rowid

UPDATE t SET (b, c) = (SELECT 'z', 99) WHERE a = 3

SELECT a, b, c FROM t ORDER BY rowid

UPDATE t SET (b, c) = (SELECT 1) WHERE a = 3

UPDATE t SET (b, c) = (SELECT 1, 2, 3) WHERE a = 3

SELECT (1, 2)

SELECT (1, 2) + 1

SELECT -(1, 2)

SELECT (1, 2) = (1, 2, 3)

SELECT (1, 2) = 1

SELECT 1 = (1, 2)

SELECT (1, 2) IS NULL

SELECT (1, (2, 3)) = (1, (2, 3))

SELECT (1, 2) = (SELECT 1, 2, 3)

SELECT (1, 2) IN (SELECT 1)

SELECT 1 IN (SELECT 1, 2)

SELECT (SELECT 1, 2)

SELECT max((1, 2))

SELECT a FROM t WHERE (a, b) IN (SELECT x FROM p)

SELECT a FROM t ORDER BY (a, b)

EXPLAIN QUERY PLAN SELECT * FROM ev WHERE created_at > 'a' ORDER BY created_at, id

EXPLAIN QUERY PLAN SELECT * FROM ev WHERE (created_at, id) = ('a', 1)

SELECT 1 = (SELECT 1, 2)

SELECT (SELECT 1, 2) IN (SELECT 1, 2), (SELECT 1, 3) NOT IN (SELECT 1, 2), (SELECT 1, 2 WHERE 0) IN (SELECT 1, 2)

SELECT (SELECT a, b FROM t WHERE a = 3) = (3, 'z')

SELECT (SELECT 1) = (SELECT 1), (SELECT 2) IN (SELECT 2), (SELECT 1) IS TRUE, 1 < (SELECT 2), (SELECT 'a') IN ('a', 'b')

SELECT (SELECT 1, 2) IN ((1, 2), (3, 4))

SELECT (1, 2) IN ((SELECT 1, 2)), (1, 3) IN ((SELECT 1, 2))

SELECT (1, 2) IN ((1, 2), 3)

SELECT (1, 2) IN ((1, 2, 3))

SELECT (1, 2, 3) IN ((1, 2))

SELECT (1, 2) IN ((1, 2), (SELECT 1, 2))

SELECT 1 IN ((1, 2))

SELECT (1, 2) = (1, 2) AS r FROM t GROUP BY (a, b)

CREATE VIEW vr AS SELECT a, (a, b) < (2, 'b') AS lt FROM t

SELECT a, lt FROM vr ORDER BY rowid

-- unordered
SELECT x.a, y.b FROM t AS x JOIN t AS y ON (x.a, x.b) = (y.a, y.b)

SELECT (1, 2) == (1, 2), (1, 2) IS NOT DISTINCT FROM (1, 2), ((1), 2) > (0, 9)

CREATE TABLE log(k, v)

CREATE TRIGGER tr AFTER UPDATE ON t WHEN (new.a, new.b) IS NOT (old.a, old.b) BEGIN INSERT INTO log VALUES (new.a, new.b); END

UPDATE t SET b = b WHERE a = 1

UPDATE t SET (a, b) = (SELECT a + 10, 'n') WHERE a = 1

SELECT k, v FROM log ORDER BY rowid

SELECT CASE (1, 2) WHEN (1, 3) THEN 'a' WHEN (1, 2) THEN 'b' END, CASE (1, NULL) WHEN (1, NULL) THEN 'a' ELSE 'n' END, CASE (SELECT 1, 2) WHEN (1, 2) THEN 'y' END

SELECT CASE 1 WHEN (1, 2) THEN 1 END

SELECT CASE (1, 2) WHEN 1 THEN 1 END

SELECT CASE WHEN (1, 2) THEN 1 END

CREATE TABLE up(k INTEGER PRIMARY KEY, a, b)

INSERT INTO up VALUES (1, 'x', 'y')

INSERT INTO up VALUES (1, 'p', 'q') ON CONFLICT(k) DO UPDATE SET (a, b) = (SELECT excluded.b, up.a)

SELECT k, a, b FROM up

CREATE TABLE ck(a, b, CHECK ((a, b) > (0, 0)))

INSERT INTO ck VALUES (0, 1)

INSERT INTO ck VALUES (0, 0)

CREATE TABLE gc(a, b, c AS ((a, b) < (1, 2)))

INSERT INTO gc(a, b) VALUES (1, 1), (1, 2), (0, 9)

SELECT a, b, c FROM gc ORDER BY rowid

CREATE INDEX gc_part ON gc(a) WHERE (a, b) <> (1, 2)

SELECT a, b FROM gc WHERE (a, b) <> (1, 2) AND a = 1

ALTER TABLE t RENAME COLUMN b TO bb

SELECT sql FROM sqlite_schema WHERE name = 'vr'

SELECT a, lt FROM vr ORDER BY rowid

CREATE TRIGGER tr2 AFTER INSERT ON up BEGIN UPDATE up SET (a, b) = (SELECT 'tr', new.k) WHERE k = new.k; END

INSERT INTO up VALUES (2, 'm', 'n')

SELECT k, a, b FROM up ORDER BY k

CREATE TABLE wr(c TEXT, k INT, v, PRIMARY KEY (c, k)) WITHOUT ROWID

INSERT INTO wr SELECT c, k, t FROM e2 WHERE c IS NOT NULL AND k IS NOT NULL

SELECT c, k, v FROM wr WHERE (c, k) > ('a', 2) ORDER BY c, k LIMIT 3

SELECT c, k FROM wr WHERE (c, k) <= ('b', 2) ORDER BY c DESC, k DESC

EXPLAIN QUERY PLAN SELECT c, k, v FROM wr WHERE (c, k) > ('a', 2) ORDER BY c, k LIMIT 3

CREATE TABLE nc(c TEXT COLLATE NOCASE, k INT)

CREATE INDEX nc_ck ON nc(c, k)

INSERT INTO nc VALUES ('a', 1), ('A', 2), ('b', 1), ('B', 0)

SELECT c, k FROM nc WHERE (c, k) > ('A', 1) ORDER BY c, k

SELECT c, k FROM nc WHERE (c, k) > ('A' COLLATE BINARY, 1) ORDER BY c, k

EXPLAIN QUERY PLAN SELECT c, k FROM nc WHERE (c, k) > ('A', 1) ORDER BY c, k

EXPLAIN QUERY PLAN SELECT c, k FROM nc WHERE (c, k) > ('A' COLLATE BINARY, 1)

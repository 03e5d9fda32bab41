-- Common table expressions (lang_with.html): WITH before SELECT, INSERT, UPDATE and DELETE;
-- column lists; recursion with UNION and UNION ALL, ORDER BY and LIMIT in the recursive select;
-- the errors SQLite gives.

CREATE TABLE t(a INTEGER, b TEXT)

CREATE TABLE node(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT)

CREATE INDEX node_parent ON node(parent)

CREATE TABLE edge(src INTEGER, dst INTEGER)

CREATE TABLE w(n INTEGER, note TEXT)

CREATE TABLE n(v TEXT, r REAL)

CREATE VIEW v AS SELECT a FROM t WHERE a < 3

CREATE VIEW series AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4) SELECT x FROM c

CREATE TABLE squares AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4) SELECT x, x * x AS sq FROM c

INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')

INSERT INTO n VALUES ('5', 1.5)

WITH c AS (SELECT a, b FROM t WHERE a > 1) SELECT * FROM c ORDER BY a

WITH c(x, y) AS (SELECT a, b FROM t) SELECT y, x FROM c ORDER BY x DESC

WITH c(x) AS (SELECT 1), d(y) AS (SELECT x + 1 FROM c) SELECT * FROM c, d

WITH a AS (SELECT * FROM b), b AS (SELECT 7 AS v) SELECT v FROM a

WITH c AS (SELECT a FROM t) SELECT (SELECT count(*) FROM c), (SELECT max(a) FROM c)

WITH c AS (SELECT a FROM t) SELECT x.a, y.a FROM c AS x JOIN c AS y ON y.a = x.a + 1 ORDER BY 1

WITH c AS (SELECT a FROM t) SELECT * FROM c UNION ALL SELECT * FROM c ORDER BY 1

WITH c AS (SELECT 2 AS v) SELECT a FROM t WHERE a IN c

WITH c AS (SELECT 2 AS v) SELECT a FROM t WHERE a IN (SELECT v FROM c) OR a = 3 ORDER BY a

WITH c AS (SELECT a AS v FROM t) SELECT a, EXISTS (SELECT 1 FROM c WHERE v > t.a) FROM t ORDER BY a

-- A CTE's body may read a column of the query that names it, as a subquery in FROM would.
WITH c AS (SELECT a AS v) SELECT (SELECT v FROM c) FROM t ORDER BY 1

-- A CTE shadows a table of the same name, inside the statement only.
WITH t(a) AS (SELECT 'shadow') SELECT * FROM t

SELECT count(*) FROM t

SELECT * FROM (WITH c AS (SELECT 9 AS n) SELECT n FROM c)

-- An inner WITH shadows an outer one.
WITH c(x) AS (SELECT 1) SELECT * FROM (WITH c(x) AS (SELECT 2) SELECT x FROM c), c

WITH c(x) AS (SELECT 1) SELECT * FROM (WITH d(y) AS (SELECT x + 1 FROM c) SELECT y FROM d)

WITH c AS MATERIALIZED (SELECT a FROM t) SELECT sum(a) FROM c

WITH c AS NOT MATERIALIZED (SELECT a FROM t) SELECT sum(a) FROM c

WITH c(x, y) AS (VALUES (1, 'a'), (2, 'b')) SELECT * FROM c ORDER BY x

WITH c AS (SELECT a, b FROM t) SELECT b, count(*) FROM c GROUP BY b ORDER BY b

-- Column types and affinity come from the CTE's select.
WITH c AS (SELECT a, b FROM t) SELECT typeof(a), typeof(b) FROM c WHERE a = '2'

WITH c(x) AS (SELECT b FROM t) SELECT x FROM c WHERE x < 'p' ORDER BY x

-- The errors of WITH.
WITH c(x, y) AS (SELECT 1) SELECT * FROM c

WITH c(x) AS (SELECT 1, 2) SELECT * FROM c

WITH c AS (SELECT 1), c AS (SELECT 2) SELECT * FROM c

WITH t AS (SELECT * FROM t) SELECT * FROM t

WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT * FROM a

WITH c AS (SELECT nope FROM t) SELECT * FROM c

WITH c AS (SELECT 1) SELECT * FROM d

WITH c(x) AS (SELECT 1) SELECT y FROM c

-- Recursive CTEs: series.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 5

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x % 7 = 0 LIMIT 3

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*), sum(x) FROM (SELECT x FROM c LIMIT 1000)

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 4) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3 OFFSET 2) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 LIMIT -1) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 0) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 LIMIT 'a') SELECT x FROM c

-- Without RECURSIVE, a CTE that names itself is recursive too.
WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT typeof(x), x FROM c

-- Several setup rows and several columns.
WITH RECURSIVE c(x, y) AS (VALUES (1, 'a'), (2, 'b') UNION ALL SELECT x + 10, y || 'x' FROM c WHERE x < 20) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT x + 10 FROM c WHERE x < 10) SELECT * FROM c

-- Two recursive selects.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 UNION ALL SELECT x + 10 FROM c WHERE x < 2) SELECT * FROM c

-- UNION stops cycles: a row seen before is not queued again.
WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT (x % 4) + 1 FROM c) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 'A' UNION SELECT 'a' FROM c) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 'A' COLLATE NOCASE UNION SELECT 'a' FROM c) SELECT * FROM c

-- ORDER BY makes the queue a priority queue.
WITH RECURSIVE c(x) AS (SELECT 5 UNION ALL SELECT 3 UNION ALL SELECT x - 1 FROM c WHERE x > 1 ORDER BY 1) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 5 UNION ALL SELECT 3 UNION ALL SELECT x - 1 FROM c WHERE x > 1 ORDER BY 1 DESC) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c ORDER BY 1 DESC LIMIT 5) SELECT * FROM c

-- A tree: depth-first and breadth-first walks.
INSERT INTO node VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'a1'), (5, 2, 'a2'), (6, 3, 'b1'), (7, 6, 'b1x')

WITH RECURSIVE sub(id, name, depth) AS (SELECT id, name, 0 FROM node WHERE id = 1 UNION ALL SELECT node.id, node.name, sub.depth + 1 FROM node JOIN sub ON node.parent = sub.id ORDER BY 3 DESC, 1) SELECT id, name, depth FROM sub

WITH RECURSIVE sub(id, name, depth) AS (SELECT id, name, 0 FROM node WHERE id = 1 UNION ALL SELECT node.id, node.name, sub.depth + 1 FROM node JOIN sub ON node.parent = sub.id ORDER BY 3, 1) SELECT id, name, depth FROM sub

WITH RECURSIVE sub(id) AS (SELECT 2 UNION ALL SELECT node.id FROM sub JOIN node ON node.parent = sub.id) SELECT count(*) FROM sub

-- The path from a leaf to the root.
WITH RECURSIVE up(id, path) AS (SELECT id, name FROM node WHERE id = 7 UNION ALL SELECT node.parent, (SELECT name FROM node n WHERE n.id = node.parent) || '/' || up.path FROM up JOIN node ON node.id = up.id WHERE node.parent IS NOT NULL) SELECT path FROM up ORDER BY length(path) DESC LIMIT 1

-- A graph with a cycle: UNION ends the walk.
INSERT INTO edge VALUES (1, 2), (2, 3), (3, 1), (3, 4), (5, 6)

-- unordered
WITH RECURSIVE reach(n) AS (SELECT 1 UNION SELECT dst FROM edge JOIN reach ON edge.src = reach.n) SELECT n FROM reach

WITH RECURSIVE reach(n) AS (SELECT 1 UNION SELECT dst FROM edge JOIN reach ON edge.src = reach.n) SELECT count(*) FROM reach

-- A recursive CTE read by another CTE and twice by the query.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3), d AS (SELECT x * 2 AS y FROM c) SELECT * FROM d

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT a.x, b.x FROM c AS a JOIN c AS b ON a.x = b.x

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4) SELECT (SELECT count(*) FROM c), (SELECT max(x) FROM c)

-- The recursive table inside a join, on either side of LEFT JOIN.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LEFT JOIN t ON t.a = c.x WHERE x < 5) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT DISTINCT x + 1 FROM c, t WHERE x < 3) SELECT x FROM c

-- Fibonacci, factorials, and dates as text.
WITH RECURSIVE fib(n, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, b, a + b FROM fib WHERE n < 20) SELECT n, a FROM fib WHERE n > 15

WITH RECURSIVE f(n, v) AS (SELECT 1, 1 UNION ALL SELECT n + 1, v * (n + 1) FROM f WHERE n < 25) SELECT n, v, typeof(v) FROM f WHERE n > 18

-- Rows are pulled: the step after the last row read does not run.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT CASE WHEN x < 5 THEN x + 1 ELSE abs(-9223372036854775807 - 1) END FROM c) SELECT x FROM c LIMIT 5

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT CASE WHEN x < 5 THEN x + 1 ELSE abs(-9223372036854775807 - 1) END FROM c) SELECT x FROM c LIMIT 6

-- A recursive CTE that reads a column of the query around it.
SELECT a, (WITH RECURSIVE c(x) AS (SELECT t.a UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT group_concat(x) FROM c) FROM t ORDER BY a

SELECT a FROM t WHERE a = (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < t.a) SELECT max(x) FROM c) ORDER BY a

-- Views, CREATE TABLE ... AS and WITH.
SELECT * FROM series

WITH series(x) AS (SELECT 'cte') SELECT * FROM series

SELECT * FROM squares

-- The Mandelbrot set of lang_with.html.
WITH RECURSIVE xaxis(x) AS (VALUES (-2.0) UNION ALL SELECT x + 0.05 FROM xaxis WHERE x < 1.2), yaxis(y) AS (VALUES (-1.0) UNION ALL SELECT y + 0.1 FROM yaxis WHERE y < 1.0), m(iter, cx, cy, x, y) AS (SELECT 0, x, y, 0.0, 0.0 FROM xaxis, yaxis UNION ALL SELECT iter + 1, cx, cy, x * x - y * y + cx, 2.0 * x * y + cy FROM m WHERE (x * x + y * y) < 4.0 AND iter < 28), m2(iter, cx, cy) AS (SELECT max(iter), cx, cy FROM m GROUP BY cx, cy), a(t) AS (SELECT group_concat(substr(' .+*#', 1 + min(iter / 7, 4), 1), '') FROM m2 GROUP BY cy) SELECT group_concat(rtrim(t), x'0a') FROM a

-- Names, affinity and storage classes of a recursive CTE's columns.
WITH RECURSIVE c(n) AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 3 ORDER BY n) SELECT * FROM c

WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 ORDER BY n) SELECT * FROM c

WITH c AS (SELECT v FROM n) SELECT v = 5, typeof(v) FROM c

WITH c(x) AS (SELECT v FROM n) SELECT x = 5 FROM c

WITH RECURSIVE c(x) AS (SELECT v FROM n UNION ALL SELECT x + 1 FROM c WHERE x < 7) SELECT x, typeof(x), x = '5', x = 6 FROM c

WITH RECURSIVE c(x) AS (SELECT r FROM n UNION ALL SELECT 2 FROM c WHERE x < 2) SELECT x, typeof(x) FROM c

WITH RECURSIVE c(x) AS (SELECT 2 UNION ALL SELECT r FROM c, n WHERE x > 1.6) SELECT x, typeof(x) FROM c

WITH RECURSIVE c(x) AS (SELECT r FROM n UNION ALL SELECT 2 FROM c WHERE x < 2 UNION ALL SELECT typeof(x) FROM c WHERE x = 2) SELECT x, typeof(x) FROM c

WITH RECURSIVE c(x) AS (SELECT v FROM n UNION ALL SELECT x + 1 FROM c WHERE x = 5) SELECT x FROM c

-- The step reads the row as queued, not as the REAL column converts it for the query.
WITH RECURSIVE c(x) AS (SELECT r FROM n UNION ALL SELECT 2 FROM c WHERE x < 2 UNION ALL SELECT x + 0.5 FROM c WHERE typeof(x) = 'integer') SELECT x, typeof(x) FROM c

WITH RECURSIVE c(x) AS (SELECT v FROM n UNION ALL SELECT x FROM c WHERE 0) SELECT x = 5, x < 7 FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT * FROM c NATURAL JOIN c AS d

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT c.x FROM c WHERE c.x IN (SELECT x FROM c WHERE x > 1)

WITH c AS (SELECT 1 AS x) SELECT * FROM c AS c1, c AS c2, c AS c3

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT rowid FROM c

WITH c(x) AS (SELECT 1) SELECT c.* FROM c

WITH c(x) AS (SELECT 1) SELECT d.* FROM c

WITH c AS (SELECT 1 AS q) SELECT * FROM main.c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c ORDER BY x DESC

WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT x + 1 FROM c WHERE x < 3 LIMIT 2) SELECT x FROM c

WITH RECURSIVE c(x, y) AS (SELECT 1, 1 UNION SELECT x + 1, y FROM c WHERE x < 3 UNION SELECT x, y + 1 FROM c WHERE y < 2) SELECT * FROM c

-- A recursive CTE whose step reads another recursive CTE.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3), d(y) AS (SELECT 10 UNION ALL SELECT y + x FROM d, c WHERE y < 16) SELECT count(*), sum(y), max(y) FROM d

WITH RECURSIVE d(y) AS (SELECT 1 UNION ALL SELECT y + 1 FROM d WHERE y < (WITH k AS (SELECT 3) SELECT * FROM k)) SELECT y FROM d

-- A CTE read more than once is computed once here: every use sees the same random(). (SQLite
-- decides per query: it may fold a CTE with FROM into each use instead.)
WITH c AS (SELECT random() AS r) SELECT a.r = b.r FROM c AS a, c AS b

WITH c AS (SELECT random() AS r) SELECT (SELECT r FROM c) = (SELECT r FROM c)

WITH RECURSIVE c(x, r) AS (SELECT 1, random() UNION ALL SELECT x + 1, random() FROM c WHERE x < 3) SELECT count(*) FROM c AS a JOIN c AS b ON a.r = b.r

WITH RECURSIVE c(x, r) AS (SELECT 1, random() UNION ALL SELECT x + 1, random() FROM c WHERE x < 3) SELECT count(*) FROM t, c WHERE c.r IN (SELECT r FROM c)

-- More shapes: CTEs in joins, IN, USING, subqueries and compounds.
WITH c AS (SELECT 1 AS z) SELECT * FROM (WITH c AS (SELECT * FROM c) SELECT * FROM c)

WITH c(x, y) AS (SELECT * FROM t) SELECT x, y FROM c ORDER BY x

WITH c(x) AS (SELECT * FROM t) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT * FROM t WHERE a IN c ORDER BY a

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT * FROM t JOIN c ON c.x = t.a ORDER BY a

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT * FROM t LEFT JOIN c ON c.x = t.a + 1 ORDER BY a

WITH c AS (SELECT a FROM t) SELECT * FROM c WHERE a > (SELECT min(a) FROM c) ORDER BY 1

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 ORDER BY 1 LIMIT 10 OFFSET 1) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c ORDER BY 1 LIMIT 3) SELECT group_concat(x) FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c, t WHERE x < 3 AND t.a = 1 ORDER BY x) SELECT * FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c ORDER BY c.x) SELECT * FROM c LIMIT 2

WITH RECURSIVE c(x) AS (SELECT 1 AS x UNION ALL SELECT x + 1 FROM c ORDER BY x + 0) SELECT * FROM c LIMIT 2

WITH c AS (SELECT 1) SELECT * FROM c JOIN t USING (a)

WITH c(a) AS (SELECT 2) SELECT * FROM c JOIN t USING (a)

WITH c(a) AS (SELECT 2) SELECT * FROM c NATURAL JOIN t

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT count(*), sum(x) FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT x + 1 FROM c WHERE x < 1000) SELECT count(*), sum(x) FROM c

SELECT (WITH c AS (SELECT b FROM t WHERE a = t2.a) SELECT b FROM c) FROM t AS t2 ORDER BY 1

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c UNION SELECT x * 10 FROM c ORDER BY 1

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT DISTINCT x % 2 FROM c ORDER BY 1

-- Recursion errors.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT count(*) FROM c) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 GROUP BY x) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c, c AS d) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x IN (SELECT x FROM c)) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c, (SELECT x FROM c)) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM (SELECT x FROM c)) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT x FROM c) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c JOIN c AS e ON 1) SELECT x FROM c LIMIT 1

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT (SELECT x FROM c)) SELECT x FROM c LIMIT 5

WITH RECURSIVE c(x) AS (SELECT (SELECT 1 FROM c) UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 5

WITH RECURSIVE c(x) AS (SELECT x FROM c UNION ALL SELECT x + 1 FROM c) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 UNION ALL SELECT 5) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 INTERSECT SELECT x + 1 FROM c) SELECT x FROM c

WITH RECURSIVE c(x, y) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1, 2 FROM c) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 ORDER BY x) SELECT x FROM c

-- WITH before INSERT, UPDATE and DELETE, and inside INSERT ... SELECT.
-- exec
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) INSERT INTO w(n) SELECT x FROM c

INSERT INTO w(n, note) WITH c(x) AS (SELECT 10) SELECT x, 'ten' FROM c

-- exec
WITH c(x) AS (SELECT 20) INSERT INTO w(n, note) VALUES ((SELECT x FROM c), 'twenty')

-- exec
WITH big(v) AS (SELECT n FROM w WHERE n > 3) UPDATE w SET note = 'big' WHERE n IN big

-- exec
WITH c(v) AS (SELECT 2) UPDATE w SET note = (SELECT 'two:' || v FROM c) WHERE n = 2

-- exec
WITH odd(v) AS (SELECT 1 UNION ALL SELECT 3) DELETE FROM w WHERE n IN (SELECT v FROM odd)

SELECT n, note FROM w ORDER BY n

-- exec
WITH m AS (SELECT max(n) AS mx FROM w) UPDATE w SET n = n + (SELECT mx FROM m) WHERE n < (SELECT mx FROM m)

-- exec
WITH m AS (SELECT max(n) AS mx FROM w) UPDATE w SET n = n - (SELECT mx FROM m) + (SELECT count(*) FROM m, w AS w2 WHERE w2.n > w.n)

SELECT n, note FROM w ORDER BY n

WITH c(v) AS (SELECT max(n) FROM w) UPDATE w SET note = 'max' WHERE n IN c RETURNING n, note

-- exec
WITH w(n) AS (SELECT 1) DELETE FROM w WHERE n = 2

SELECT count(*) FROM w

-- The target of a write is a table, whatever CTE has its name.
-- exec
WITH w(n) AS (SELECT 99) INSERT INTO w(n) SELECT n + 1 FROM w

SELECT n, note FROM w ORDER BY n

-- exec
WITH c AS (SELECT 1), c AS (SELECT 2) DELETE FROM w

-- exec
WITH c(x, y) AS (SELECT 1) INSERT INTO w SELECT * FROM c

-- A view's select does not see the statement's CTEs.
WITH t(a) AS (SELECT 100) SELECT * FROM v ORDER BY a

WITH v(a) AS (SELECT 100) SELECT * FROM v

-- The sudoku solver of lang_with.html.
WITH RECURSIVE input(sud) AS (VALUES ('53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79')), digits(z, lp) AS (VALUES ('1', 1) UNION ALL SELECT CAST(lp + 1 AS TEXT), lp + 1 FROM digits WHERE lp < 9), x(s, ind) AS (SELECT sud, instr(sud, '.') FROM input UNION ALL SELECT substr(s, 1, ind - 1) || z || substr(s, ind + 1), instr(substr(s, 1, ind - 1) || z || substr(s, ind + 1), '.') FROM x, digits AS z WHERE ind > 0 AND NOT EXISTS (SELECT 1 FROM digits AS lp WHERE z.z = substr(s, ((ind - 1) / 9) * 9 + lp, 1) OR z.z = substr(s, ((ind - 1) % 9) + (lp - 1) * 9 + 1, 1) OR z.z = substr(s, (((ind - 1) / 3) % 3) * 3 + ((ind - 1) / 27) * 27 + lp + ((lp - 1) / 3) * 6, 1))) SELECT s FROM x WHERE ind = 0

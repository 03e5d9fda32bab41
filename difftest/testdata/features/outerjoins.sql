-- RIGHT and FULL [OUTER] JOIN (SQLite 3.39+): the rows of the right side that match nothing
-- come with NULLs for the left side, after the matched rows when there is no ORDER BY.

CREATE TABLE emp(id INTEGER PRIMARY KEY, name TEXT, dept INTEGER)

CREATE TABLE dept(id INTEGER PRIMARY KEY, title TEXT)

CREATE TABLE proj(pid INTEGER, dept INTEGER, label TEXT)

CREATE INDEX proj_dept ON proj(dept)

CREATE TABLE tag(name TEXT PRIMARY KEY, color TEXT) WITHOUT ROWID

INSERT INTO emp VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', NULL), (4, 'di', 99)

INSERT INTO dept VALUES (10, 'eng'), (20, 'ops'), (30, 'law'), (40, 'art')

INSERT INTO proj VALUES (100, 10, 'p1'), (101, 30, 'p2'), (102, NULL, 'p3'), (103, 50, 'p4')

INSERT INTO tag VALUES ('ann', 'red'), ('zed', 'blue')

SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id

SELECT e.name, d.title FROM emp AS e RIGHT OUTER JOIN dept AS d ON e.dept = d.id ORDER BY d.id

SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id

SELECT e.name, d.title FROM emp AS e FULL OUTER JOIN dept AS d ON e.dept = d.id ORDER BY e.name, d.title

-- the right side's own ON terms: rows that fail them are unmatched
SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id AND d.title <> 'eng'

-- WHERE filters the joined rows, NULL-filled ones included
SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id WHERE e.id IS NULL

SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id WHERE e.name IS NOT 'ann'

SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id WHERE d.id IS NULL OR e.id IS NULL

SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id WHERE 0

SELECT count(*) FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id WHERE 1

-- RIGHT JOIN on an indexed column, from either side
SELECT d.title, p.label FROM dept AS d RIGHT JOIN proj AS p ON p.dept = d.id

SELECT d.title, p.label FROM proj AS p RIGHT JOIN dept AS d ON p.dept = d.id

SELECT d.title, p.label FROM proj AS p FULL JOIN dept AS d ON p.dept = d.id ORDER BY 1, 2

-- three tables: a join on the left side, then a RIGHT JOIN
SELECT e.name, d.title, p.label FROM emp AS e JOIN dept AS d ON e.dept = d.id RIGHT JOIN proj AS p ON p.dept = d.id

-- an inner join's constant ON term on the left side empties the left side only
SELECT e.name, d.title, p.label FROM emp AS e JOIN dept AS d ON 0 RIGHT JOIN proj AS p ON p.dept = d.id

-- RIGHT then LEFT, LEFT then RIGHT
SELECT e.name, d.title, p.label FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id LEFT JOIN proj AS p ON p.dept = d.id

SELECT e.name, d.title, p.label FROM emp AS e LEFT JOIN dept AS d ON e.dept = d.id RIGHT JOIN proj AS p ON p.dept = d.id

-- two RIGHT joins, two FULL joins
SELECT e.name, d.title, p.label FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id RIGHT JOIN proj AS p ON p.dept = d.id

SELECT e.name, d.title, p.label FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id FULL JOIN proj AS p ON p.dept = coalesce(d.id, e.dept)

-- RIGHT then an inner join: its ON filters the result
SELECT e.name, d.title, p.label FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id JOIN proj AS p ON p.dept = d.id

SELECT e.name, d.title, p.label FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id, proj AS p WHERE p.pid = 101

-- USING and NATURAL: the merged column is coalesce() of both sides
CREATE TABLE l(k INTEGER, a TEXT)

CREATE TABLE r(k INTEGER, b TEXT)

INSERT INTO l VALUES (1, 'l1'), (2, 'l2'), (NULL, 'ln')

INSERT INTO r VALUES (2, 'r2'), (3, 'r3'), (NULL, 'rn')

SELECT * FROM l RIGHT JOIN r USING (k)

SELECT * FROM l FULL JOIN r USING (k)

SELECT k, a, b FROM l NATURAL FULL JOIN r ORDER BY k, a, b

SELECT k, l.k, r.k FROM l NATURAL RIGHT JOIN r

SELECT * FROM l FULL JOIN r USING (k) WHERE k > 1

SELECT * FROM l LEFT JOIN r USING (k)

-- subqueries, views, CTEs and WITHOUT ROWID tables as the right side
SELECT e.name, s.n FROM emp AS e RIGHT JOIN (SELECT 10 AS d, 1 AS n UNION ALL SELECT 77, 2 UNION ALL SELECT 77, 2) AS s ON s.d = e.dept

CREATE VIEW depts AS SELECT id, upper(title) AS t FROM dept

SELECT e.name, v.t FROM emp AS e FULL JOIN depts AS v ON v.id = e.dept

WITH c(x) AS (VALUES (1), (3), (5)) SELECT e.name, c.x FROM emp AS e RIGHT JOIN c ON c.x = e.id

SELECT e.name, t.name, t.color FROM emp AS e FULL JOIN tag AS t ON t.name = e.name

SELECT t.name, e.name FROM tag AS t RIGHT JOIN emp AS e ON t.name = e.name

-- aggregates, DISTINCT, ORDER BY, LIMIT over an outer join
SELECT d.title, count(e.id) FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id GROUP BY d.title ORDER BY d.title

SELECT DISTINCT e.id IS NULL FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id ORDER BY 1

SELECT d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id ORDER BY d.id DESC LIMIT 2

SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id LIMIT 3 OFFSET 2

-- a correlated subquery reading an outer join
SELECT d.title, (SELECT count(*) FROM emp AS e RIGHT JOIN proj AS p ON p.dept = e.dept WHERE p.dept = d.id) FROM dept AS d ORDER BY d.id

-- empty sides
CREATE TABLE nothing(id INTEGER PRIMARY KEY, v)

SELECT n.v, d.title FROM nothing AS n RIGHT JOIN dept AS d ON n.id = d.id

SELECT n.v, d.title FROM dept AS d RIGHT JOIN nothing AS n ON n.id = d.id

SELECT n.v, d.title FROM nothing AS n FULL JOIN dept AS d ON n.id = d.id

-- rowids of a NULL-filled side
SELECT e.rowid, d.rowid FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id

-- in INSERT ... SELECT and UPDATE ... FROM
CREATE TABLE report(name TEXT, title TEXT)

INSERT INTO report SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id

SELECT * FROM report ORDER BY name, title

-- their query plans
EXPLAIN QUERY PLAN SELECT * FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id

EXPLAIN QUERY PLAN SELECT * FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id

EXPLAIN QUERY PLAN SELECT * FROM proj AS p RIGHT JOIN dept AS d ON p.dept = d.id

EXPLAIN QUERY PLAN SELECT * FROM emp RIGHT JOIN dept ON emp.id = dept.id RIGHT JOIN tag ON tag.name = emp.name

-- error cases
SELECT * FROM emp RIGHT JOIN dept USING (nosuch)

SELECT * FROM emp AS e RIGHT JOIN dept AS d ON e.nosuch = d.id

SELECT * FROM emp NATURAL RIGHT JOIN dept ON 1

SELECT * FROM emp AS e RIGHT JOIN dept AS d ON p.dept = d.id JOIN proj AS p

SELECT * FROM emp AS e LEFT JOIN dept AS d ON p.dept = d.id JOIN proj AS p

SELECT * FROM emp AS e JOIN dept AS d ON p.dept = d.id RIGHT JOIN proj AS p ON 1

SELECT * FROM json_each(d.title) AS j RIGHT JOIN dept AS d ON 1

-- an inner join's ON may read a table to its right when no RIGHT join is between them
SELECT e.name, d.title FROM emp AS e JOIN dept AS d ON p.dept = d.id AND e.dept = d.id JOIN proj AS p ORDER BY 1, 2

-- a parenthesised join as the right side of an inner join
SELECT e.name, d.title, p.label FROM emp AS e JOIN (dept AS d JOIN proj AS p ON p.dept = d.id) ON e.dept = d.id ORDER BY 1, 3

SELECT e.name, d.title, p.label FROM emp AS e JOIN (dept AS d LEFT JOIN proj AS p ON p.dept = d.id) ON e.dept = d.id ORDER BY 1, 3

SELECT e.name, d.title, p.label FROM emp AS e CROSS JOIN (dept AS d, proj AS p) ON e.dept = d.id AND p.dept = d.id

SELECT e.name, d.title, p.label FROM emp AS e JOIN (dept AS d JOIN proj AS p ON p.dept = d.id) ON e.dept = d.id RIGHT JOIN dept AS d2 ON d2.id = d.id ORDER BY d2.id

-- WHERE terms that reject NULL-filled rows make RIGHT and FULL joins inner or LEFT ones
SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id WHERE e.name > 'a' ORDER BY 1

SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id WHERE e.name LIKE '%' ORDER BY 1

SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id WHERE d.title BETWEEN 'a' AND 'm' ORDER BY 2, 1

SELECT e.name, d.title FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id WHERE d.id IS NOT NULL AND e.id = d.id - 9

EXPLAIN QUERY PLAN SELECT * FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id WHERE e.name = 'ann'

EXPLAIN QUERY PLAN SELECT * FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id WHERE d.title = 'eng'

EXPLAIN QUERY PLAN SELECT * FROM emp AS e RIGHT JOIN dept AS d ON e.dept = d.id WHERE e.id = 2

-- row values in ON, ORDER BY in an aggregate over a FULL join
SELECT e.name, d.title FROM emp AS e RIGHT JOIN dept AS d ON (e.dept, e.id) = (d.id, d.id / 10) ORDER BY d.id

SELECT group_concat(coalesce(e.name, '-') || '/' || coalesce(d.title, '-'), ',' ORDER BY d.id DESC, e.name) FROM emp AS e FULL JOIN dept AS d ON e.dept = d.id

-- ORDER BY inside an aggregate (lang_aggfunc.html, SQLite 3.44+): group_concat, string_agg,
-- json_group_array, json_group_object and the others, with DISTINCT, FILTER and GROUP BY, and
-- SQLite's errors for scalar and window functions.

CREATE TABLE t(g, x, y, z TEXT)

INSERT INTO t VALUES (1, 'a', 3, 'B'), (1, 'b', 1, 'a'), (1, 'c', 2, 'C'), (2, 'd', NULL, 'b'), (2, 'e', 1, 'A'), (2, 'd', 0, NULL), (1, 'a', 0, 'c')

SELECT g, group_concat(x, ',' ORDER BY y DESC) FROM t GROUP BY g ORDER BY g

SELECT group_concat(x ORDER BY y) FROM t

SELECT group_concat(x ORDER BY y, x DESC) FROM t

SELECT group_concat(x ORDER BY y DESC NULLS FIRST) FROM t

SELECT group_concat(x ORDER BY y NULLS LAST) FROM t

SELECT group_concat(x ORDER BY z) FROM t

SELECT group_concat(x ORDER BY z COLLATE NOCASE) FROM t

SELECT group_concat(x ORDER BY z COLLATE NOCASE DESC) FROM t

SELECT group_concat(DISTINCT x ORDER BY y) FROM t

SELECT group_concat(DISTINCT x ORDER BY x DESC) FROM t

SELECT group_concat(DISTINCT x ORDER BY y) FROM (SELECT 'a' AS x, 1 AS y UNION ALL SELECT 'b', 2 UNION ALL SELECT 'a', 3)

SELECT group_concat(DISTINCT x ORDER BY y) FROM (SELECT 'a' AS x, 3 AS y UNION ALL SELECT 'b', 2 UNION ALL SELECT 'a', 1)

SELECT string_agg(x, '-' ORDER BY x DESC) FROM t

SELECT string_agg(x, '' ORDER BY g DESC, y) FROM t

SELECT json_group_array(x ORDER BY y) FROM t

SELECT json_group_array(y ORDER BY x DESC, y) FROM t

SELECT json_group_object(x, y ORDER BY y) FROM t

SELECT g, json_group_array(x ORDER BY y) FILTER (WHERE y > 0) FROM t GROUP BY g ORDER BY g

SELECT group_concat(x ORDER BY y) FILTER (WHERE g = 1) FROM t

SELECT group_concat(x ORDER BY 1) FROM t

SELECT group_concat(x ORDER BY -y) FROM t

SELECT group_concat(x ORDER BY (SELECT 1)) FROM t

SELECT group_concat(x ORDER BY length(z) DESC, rowid) FROM t

SELECT sum(y ORDER BY x), total(y ORDER BY x), avg(y ORDER BY x DESC), count(y ORDER BY x), count(DISTINCT y ORDER BY x) FROM t

SELECT max(x ORDER BY y), min(x ORDER BY y DESC) FROM t

SELECT total(y ORDER BY x) FROM (SELECT 'a' AS x, 1e20 AS y UNION ALL SELECT 'b', 1 UNION ALL SELECT 'c', -1e20)

SELECT group_concat(x, ',' ORDER BY y) FROM t WHERE 0

SELECT g, (SELECT group_concat(u.x ORDER BY u.y DESC) FROM t AS u WHERE u.g = t.g) FROM t GROUP BY g ORDER BY g

SELECT group_concat(x ORDER BY y) AS s, count(*) FROM t GROUP BY g HAVING group_concat(x ORDER BY y DESC) LIKE 'a%'

SELECT count(* ORDER BY x) FROM t

SELECT group_concat(x ORDER BY y) OVER () FROM t

SELECT abs(x ORDER BY y) FROM t

SELECT min(x, y ORDER BY y) FROM t

SELECT nosuch(x ORDER BY y) FROM t

SELECT group_concat(x ORDER BY sum(y)) FROM t

SELECT group_concat(x ORDER BY nosuch) FROM t

SELECT row_number(ORDER BY x) OVER () FROM t ORDER BY rowid

SELECT rank(ORDER BY x) OVER (ORDER BY y) FROM t ORDER BY rowid

SELECT lag(x ORDER BY y) OVER () FROM t

SELECT group_concat(x ORDER BY y) FILTER (WHERE 1) OVER () FROM t

CREATE VIEW va AS SELECT g, group_concat(x, '' ORDER BY y DESC, x) AS s FROM t GROUP BY g

SELECT g, s FROM va ORDER BY g

SELECT g, group_concat(x ORDER BY y), rank() OVER (ORDER BY group_concat(x ORDER BY y DESC)) FROM t GROUP BY g ORDER BY g

CREATE TABLE agglog(s)

CREATE TRIGGER atr AFTER INSERT ON t BEGIN INSERT INTO agglog SELECT group_concat(x, '' ORDER BY rowid DESC) FROM t; END

INSERT INTO t VALUES (3, 'f', 9, 'z')

SELECT s FROM agglog

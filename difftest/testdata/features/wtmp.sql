CREATE TABLE w(id INTEGER PRIMARY KEY, p, x, y)

INSERT INTO w VALUES (1, 'x', 6, 'B'), (2, 2, NULL, 3), (3, 3, 'a', NULL), (4, NULL, 'a', 'A'), (5, 1, -3, 1), (6, 2, 4, NULL), (7, 'x', -1.25, NULL), (8, 1, 'b', 'b'), (9, 2, -3.25, 5), (10, 2, -2, 3)

SELECT id, sum(x) OVER ( ORDER BY x DESC GROUPS BETWEEN 0 PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS) FROM w ORDER BY id

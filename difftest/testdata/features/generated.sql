-- Generated columns (gencol.html): VIRTUAL and STORED, indexed, constrained.

CREATE TABLE g(a INTEGER PRIMARY KEY, b AS (a * 2) STORED, c TEXT GENERATED ALWAYS AS (b || 'x') VIRTUAL, d AS (c), price REAL, qty INT, total REAL AS (price * qty))

INSERT INTO g(a, price, qty) VALUES (1, 2.5, 4)

INSERT INTO g VALUES (2, 1.0, 3)

INSERT INTO g(a, b) VALUES (3, 1)

INSERT INTO g VALUES (3, 1, 2, 3)

INSERT INTO g(a, price, qty) VALUES (4, NULL, 2), (5, 3, '7')

SELECT *, typeof(b), typeof(c), typeof(total) FROM g ORDER BY a

UPDATE g SET c = 'y'

UPDATE g SET total = 0 WHERE a = 1

UPDATE g SET qty = qty + 1, a = a + 10 WHERE a <= 2

SELECT a, b, c, d, total FROM g ORDER BY a

CREATE INDEX g_total ON g(total)

EXPLAIN QUERY PLAN SELECT a FROM g WHERE total > 10

SELECT a FROM g WHERE total > 10 ORDER BY a

DELETE FROM g WHERE total IS NULL

SELECT count(*) FROM g

REPLACE INTO g(a, price, qty) VALUES (5, 1, 1)

SELECT a, total FROM g ORDER BY a

CREATE TABLE n(a, b INT AS (a || '1') NOT NULL, CHECK (b < 100))

INSERT INTO n VALUES ('5')

INSERT INTO n VALUES (NULL)

INSERT INTO n VALUES ('500')

SELECT b, typeof(b) FROM n

CREATE TABLE u(a, b AS (lower(a)) UNIQUE)

INSERT INTO u VALUES ('X')

INSERT INTO u VALUES ('x')

INSERT OR IGNORE INTO u VALUES ('x')

SELECT * FROM u

CREATE TABLE e1(a, b AS (random()))

CREATE TABLE e2(a, b AS ((SELECT 1)))

CREATE TABLE e3(a, b AS (a + ?))

CREATE TABLE e4(a, b AS (c))

CREATE TABLE e5(a, b AS (c), c AS (b))

CREATE TABLE e6(a PRIMARY KEY AS (1), b)

CREATE TABLE e7(a, b DEFAULT 1 AS (a))

CREATE TABLE e8(a AS (1))

CREATE TABLE e9(a, b AS (count(a)))

CREATE TABLE e10(a, b AS (e10.a))

CREATE TABLE e11(a, b AS (rowid))

CREATE TABLE v(a, b AS (abs(a)) VIRTUAL)

INSERT INTO v VALUES (-3), (4)

ALTER TABLE v ADD COLUMN c AS (a * 10)

ALTER TABLE v ADD COLUMN d AS (a * 10) STORED

SELECT * FROM v ORDER BY a

ALTER TABLE v DROP COLUMN a

ALTER TABLE v DROP COLUMN b

SELECT * FROM v ORDER BY c

INSERT INTO v DEFAULT VALUES

INSERT INTO v(a) VALUES (7)

SELECT * FROM v ORDER BY c

CREATE TABLE w(k TEXT PRIMARY KEY, v INT, twice AS (v * 2)) WITHOUT ROWID

INSERT INTO w VALUES ('a', 1), ('b', 2)

UPDATE w SET v = 5 WHERE k = 'b'

SELECT * FROM w ORDER BY k

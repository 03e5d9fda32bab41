-- AUTOINCREMENT and sqlite_sequence (autoinc.html).

CREATE TABLE bad(a TEXT PRIMARY KEY AUTOINCREMENT)

CREATE TABLE bad(a INT PRIMARY KEY AUTOINCREMENT)

CREATE TABLE bad(a INTEGER PRIMARY KEY DESC AUTOINCREMENT)

CREATE TABLE bad(a INTEGER, b, PRIMARY KEY(a, b AUTOINCREMENT))

CREATE TABLE bad(a INTEGER PRIMARY KEY AUTOINCREMENT) WITHOUT ROWID

CREATE TABLE bad(a TEXT PRIMARY KEY AUTOINCREMENT) WITHOUT ROWID

SELECT * FROM sqlite_sequence

CREATE TABLE plain(id INTEGER PRIMARY KEY, v)

SELECT * FROM sqlite_sequence

CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, v UNIQUE)

SELECT * FROM sqlite_sequence

INSERT INTO t(v) SELECT 1 WHERE 0

SELECT name, seq, typeof(seq) FROM sqlite_sequence

INSERT INTO t(v) VALUES ('a'), ('b'), ('c')

SELECT * FROM sqlite_sequence

-- the largest rowid is not reused after a delete

DELETE FROM t WHERE id = 3

INSERT INTO t(v) VALUES ('d') RETURNING id

DELETE FROM t

INSERT INTO t(v) VALUES ('e') RETURNING id

-- explicit rowids: a larger one raises seq, a smaller one does not

INSERT INTO t(id, v) VALUES (10, 'f')

SELECT * FROM sqlite_sequence

INSERT INTO t(id, v) VALUES (7, 'g')

SELECT * FROM sqlite_sequence

INSERT INTO t(id, v) VALUES ('20', 'h')

SELECT name, seq, typeof(seq) FROM sqlite_sequence

-- exec
INSERT INTO t(v) VALUES ('i')

-- rows that IGNORE or an upsert skip still use up their rowid

INSERT OR IGNORE INTO t(v) VALUES ('a'), ('i')

SELECT * FROM sqlite_sequence

INSERT INTO t(v) VALUES ('i') ON CONFLICT DO NOTHING

INSERT INTO t(v) VALUES ('i') ON CONFLICT(v) DO UPDATE SET v = 'i2'

SELECT * FROM sqlite_sequence

INSERT INTO t(v) VALUES ('j') RETURNING id

-- a failed statement changes nothing

INSERT INTO t(v) VALUES ('k'), ('j')

SELECT * FROM sqlite_sequence

-- UPDATE of the rowid leaves seq alone; the next insert goes past the largest rowid

UPDATE t SET id = 500 WHERE v = 'a'

SELECT * FROM sqlite_sequence

INSERT INTO t(v) VALUES ('l') RETURNING id

-- sqlite_sequence is a table that programs may change

UPDATE sqlite_sequence SET seq = 1000 WHERE name = 't'

INSERT INTO t(v) VALUES ('m') RETURNING id

UPDATE sqlite_sequence SET seq = 2 WHERE name = 't'

INSERT INTO t(v) VALUES ('n') RETURNING id

UPDATE sqlite_sequence SET seq = 'abc'

INSERT INTO t(v) VALUES ('o') RETURNING id

UPDATE sqlite_sequence SET seq = 2000.9

INSERT INTO t(v) VALUES ('p') RETURNING id

DELETE FROM sqlite_sequence

INSERT INTO t(v) VALUES ('q') RETURNING id

SELECT * FROM sqlite_sequence

INSERT INTO sqlite_sequence VALUES ('t', 5000)

INSERT INTO t(v) VALUES ('r') RETURNING id

SELECT * FROM sqlite_sequence ORDER BY seq

-- in a transaction, rolled back

BEGIN

INSERT INTO t(v) VALUES ('tx') RETURNING id

SELECT * FROM sqlite_sequence ORDER BY seq

ROLLBACK

SELECT * FROM sqlite_sequence ORDER BY seq

-- the table constraint form, a second table, names as written

CREATE TABLE "Odd Name"(k INTEGER, v, PRIMARY KEY(k AUTOINCREMENT))

INSERT INTO "Odd Name"(v) VALUES (1), (2)

SELECT * FROM sqlite_sequence ORDER BY name, seq

-- exec
INSERT INTO "odd name" DEFAULT VALUES

-- seq at the largest rowid

CREATE TABLE full(id INTEGER PRIMARY KEY AUTOINCREMENT, v)

INSERT INTO full VALUES (9223372036854775807, 1)

INSERT INTO full(v) VALUES (2)

DELETE FROM full

INSERT INTO full(v) VALUES (3)

UPDATE sqlite_sequence SET seq = 9223372036854775806 WHERE name = 'full'

INSERT INTO full(v) VALUES (4) RETURNING id

-- what may not be done to sqlite_sequence; DROP TABLE removes the table's rows

DROP TABLE sqlite_sequence

DROP TABLE IF EXISTS sqlite_sequence

CREATE TABLE sqlite_sequence(a)

CREATE INDEX sq_name ON sqlite_sequence(name)

DROP TABLE t

SELECT * FROM sqlite_sequence ORDER BY name, seq

DROP TABLE "ODD NAME"

DROP TABLE full

DROP TABLE plain

SELECT * FROM sqlite_sequence ORDER BY name, seq

CREATE TABLE again(id INTEGER PRIMARY KEY AUTOINCREMENT, v)

INSERT INTO again(v) VALUES (1) RETURNING id

SELECT * FROM sqlite_sequence ORDER BY name, seq

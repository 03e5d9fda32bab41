-- FOREIGN KEY enforcement with PRAGMA foreign_keys = ON (foreignkeys.html).

PRAGMA foreign_keys = ON

PRAGMA foreign_keys

-- customers and orders: CASCADE, SET NULL, RESTRICT

CREATE TABLE customers(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT)

CREATE TABLE orders(id INTEGER PRIMARY KEY, cust INTEGER REFERENCES customers ON DELETE CASCADE ON UPDATE CASCADE, item TEXT)

CREATE TABLE notes(id INTEGER PRIMARY KEY, cust_email TEXT REFERENCES customers(email) ON DELETE SET NULL ON UPDATE SET NULL, body TEXT)

CREATE TABLE invoices(id INTEGER PRIMARY KEY, cust INTEGER REFERENCES customers(id) ON DELETE RESTRICT, total REAL)

INSERT INTO customers VALUES (1, 'ann@x', 'Ann'), (2, 'bob@x', 'Bob'), (3, 'cy@x', 'Cy')

INSERT INTO orders VALUES (10, 1, 'pen'), (11, 1, 'ink'), (12, 2, 'cap'), (13, 3, 'hat')

INSERT INTO notes VALUES (1, 'ann@x', 'vip'), (2, 'bob@x', 'late'), (3, NULL, 'none')

INSERT INTO invoices VALUES (100, 2, 9.5)

-- a child row needs its parent; NULL exempts it

INSERT INTO orders VALUES (20, 99, 'ghost')

INSERT INTO orders VALUES (20, NULL, 'nobody')

INSERT INTO notes VALUES (4, 'nobody@x', 'x')

INSERT INTO orders(id, cust, item) SELECT 30 + id, id, 'bulk' FROM customers

INSERT INTO orders(id, cust, item) SELECT 40 + id, id + 1, 'bulk' FROM customers

SELECT count(*) FROM orders WHERE id > 30

UPDATE orders SET cust = 42 WHERE id = 10

UPDATE orders SET cust = 3 WHERE id = 10

UPDATE orders SET item = 'pencil' WHERE id = 10

-- the parent key takes the parent's affinity: '1' finds customer 1

INSERT INTO orders VALUES (21, '1', 'text key')

SELECT id, cust, typeof(cust) FROM orders WHERE id = 21

-- ON DELETE CASCADE and SET NULL

DELETE FROM customers WHERE id = 1

SELECT * FROM orders ORDER BY id

SELECT * FROM notes ORDER BY id

-- RESTRICT fails at once

DELETE FROM customers WHERE id = 2

-- NO ACTION on the parent: a parent with children cannot go (invoices hold customer 2)

DELETE FROM invoices

DELETE FROM customers WHERE id = 2

SELECT * FROM customers ORDER BY id

SELECT * FROM notes ORDER BY id

-- ON UPDATE CASCADE and SET NULL

INSERT INTO customers VALUES (5, 'eve@x', 'Eve')

INSERT INTO orders VALUES (50, 5, 'mug')

INSERT INTO notes VALUES (5, 'eve@x', 'new')

UPDATE customers SET id = 6, email = 'eve@y' WHERE id = 5

SELECT * FROM orders WHERE id = 50

SELECT * FROM notes WHERE id = 5

-- an UPDATE that keeps the key value runs no action

UPDATE customers SET id = 6, name = 'Eva' WHERE id = 6

SELECT * FROM orders WHERE id = 50

-- a statement that violates and repairs within itself succeeds

CREATE TABLE p(k INTEGER PRIMARY KEY)

CREATE TABLE c(k INTEGER REFERENCES p)

INSERT INTO p VALUES (1), (2)

INSERT INTO c VALUES (1), (2)

UPDATE p SET k = k + 1

UPDATE p SET k = 3 WHERE k = 2

DELETE FROM p

-- the parent arrives after the child in the same statement

CREATE TABLE tree(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES tree(id) ON DELETE CASCADE, name TEXT)

INSERT INTO tree VALUES (2, 1, 'child'), (1, NULL, 'root')

INSERT INTO tree VALUES (3, 1, 'a'), (4, 3, 'b'), (5, 4, 'c'), (6, 2, 'd'), (7, 7, 'self')

INSERT INTO tree VALUES (8, 9, 'orphan')

DELETE FROM tree WHERE id = 3

SELECT * FROM tree ORDER BY id

DELETE FROM tree WHERE id = 1

SELECT * FROM tree ORDER BY id

DELETE FROM tree

SELECT count(*) FROM tree

-- composite keys, and the parent's UNIQUE index on them

CREATE TABLE album(artist TEXT, title TEXT, year INTEGER, PRIMARY KEY(artist, title))

CREATE TABLE song(id INTEGER PRIMARY KEY, artist TEXT, album TEXT, name TEXT, FOREIGN KEY(artist, album) REFERENCES album(artist, title) ON UPDATE CASCADE ON DELETE SET NULL)

INSERT INTO album VALUES ('A', 'One', 1990), ('A', 'Two', 1992), ('B', 'One', 2000)

INSERT INTO song VALUES (1, 'A', 'One', 's1'), (2, 'A', 'Two', 's2'), (3, 'B', 'One', 's3')

INSERT INTO song VALUES (4, 'B', 'Two', 's4')

INSERT INTO song VALUES (4, 'B', NULL, 's4')

UPDATE album SET title = 'Uno' WHERE artist = 'A' AND title = 'One'

SELECT * FROM song ORDER BY id

DELETE FROM album WHERE artist = 'B'

SELECT * FROM song ORDER BY id

-- a WITHOUT ROWID parent and an index on the child columns

CREATE TABLE code(c TEXT PRIMARY KEY, label TEXT) WITHOUT ROWID

CREATE TABLE item(id INTEGER PRIMARY KEY, c TEXT REFERENCES code ON DELETE CASCADE)

CREATE INDEX item_c ON item(c)

INSERT INTO code VALUES ('a', 'A'), ('b', 'B')

INSERT INTO item VALUES (1, 'a'), (2, 'b'), (3, 'a')

INSERT INTO item VALUES (4, 'z')

DELETE FROM code WHERE c = 'a'

SELECT * FROM item ORDER BY id

-- SET DEFAULT: the default must exist in the parent

CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT)

CREATE TABLE player(id INTEGER PRIMARY KEY, team INTEGER DEFAULT 0 REFERENCES team ON DELETE SET DEFAULT)

INSERT INTO team VALUES (1, 'red'), (2, 'blue')

INSERT INTO player VALUES (1, 1), (2, 2)

DELETE FROM team WHERE id = 1

INSERT INTO team VALUES (0, 'bench')

DELETE FROM team WHERE id = 1

SELECT * FROM player ORDER BY id

-- SET NULL on a NOT NULL column fails as that UPDATE would

CREATE TABLE strict_child(id INTEGER PRIMARY KEY, t INTEGER NOT NULL REFERENCES team ON DELETE SET NULL)

INSERT INTO strict_child VALUES (1, 2)

DELETE FROM team WHERE id = 2

SELECT * FROM team ORDER BY id

-- deferred constraints: fixed before COMMIT, or failing at COMMIT

CREATE TABLE dp(id INTEGER PRIMARY KEY)

CREATE TABLE dc(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES dp DEFERRABLE INITIALLY DEFERRED)

BEGIN

INSERT INTO dc VALUES (1, 1)

INSERT INTO dp VALUES (1)

COMMIT

SELECT * FROM dc

BEGIN

INSERT INTO dc VALUES (2, 2)

COMMIT

SELECT * FROM dc ORDER BY id

INSERT INTO dp VALUES (2)

COMMIT

SELECT * FROM dc ORDER BY id

BEGIN

DELETE FROM dp WHERE id = 1

COMMIT

DELETE FROM dc WHERE id = 1

COMMIT

SELECT * FROM dp ORDER BY id

-- outside a transaction a deferred violation fails its statement

INSERT INTO dc VALUES (3, 3)

SELECT count(*) FROM dc

-- a savepoint rolled back forgets the violations it made

BEGIN

SAVEPOINT s1

INSERT INTO dc VALUES (4, 4)

ROLLBACK TO s1

COMMIT

SELECT count(*) FROM dc

-- a failing statement forgets its violations

BEGIN

INSERT INTO dc VALUES (5, 5), (2, 2)

COMMIT

-- PRAGMA defer_foreign_keys makes immediate constraints deferred until COMMIT

BEGIN

PRAGMA defer_foreign_keys = ON

PRAGMA defer_foreign_keys

INSERT INTO c VALUES (77)

COMMIT

DELETE FROM c WHERE k = 77

COMMIT

PRAGMA defer_foreign_keys

-- RESTRICT fails at once even when the constraint is deferred

CREATE TABLE rp(id INTEGER PRIMARY KEY)

CREATE TABLE rc(pid INTEGER REFERENCES rp ON DELETE RESTRICT DEFERRABLE INITIALLY DEFERRED)

INSERT INTO rp VALUES (1)

INSERT INTO rc VALUES (1)

BEGIN

DELETE FROM rp

ROLLBACK

-- foreign_key_check reports the orphans (made while foreign_keys was off)

PRAGMA foreign_keys = OFF

INSERT INTO orders VALUES (90, 1234, 'orphan')

INSERT INTO song VALUES (90, 'Z', 'Zed', 'orphan')

INSERT INTO item VALUES (90, 'nope')

PRAGMA foreign_keys = ON

-- unordered
PRAGMA foreign_key_check

PRAGMA foreign_key_check(orders)

PRAGMA foreign_key_check(song)

PRAGMA foreign_key_check(customers)

PRAGMA foreign_key_check(nosuch)

SELECT * FROM pragma_foreign_key_check('item')

-- deleting an orphan child (counter at zero) changes nothing

DELETE FROM orders WHERE id = 90

UPDATE song SET name = 'still orphan' WHERE id = 90

-- setting a key column, even to its own value, checks the row (the SET list decides)

UPDATE song SET album = album WHERE id = 90

UPDATE item SET c = c WHERE id = 90

-- mismatches and missing parents

CREATE TABLE bad(x REFERENCES customers(name))

INSERT INTO bad VALUES ('Ann')

DELETE FROM customers WHERE id = 99

CREATE TABLE bad2(x REFERENCES customers(nope))

INSERT INTO bad2 VALUES (1)

DROP TABLE bad

DROP TABLE bad2

CREATE TABLE lost(x REFERENCES nowhere(id))

INSERT INTO lost VALUES (1)

INSERT INTO lost VALUES (NULL)

PRAGMA foreign_keys = OFF

INSERT INTO lost VALUES (1)

PRAGMA foreign_keys = ON

DELETE FROM lost

UPDATE lost SET x = 2

DROP TABLE lost

-- UPSERT and REPLACE on parents

CREATE TABLE up(id INTEGER PRIMARY KEY, code TEXT UNIQUE, n INTEGER)

CREATE TABLE uc(id INTEGER PRIMARY KEY, code TEXT REFERENCES up(code) ON UPDATE CASCADE ON DELETE CASCADE)

CREATE TABLE ur(id INTEGER PRIMARY KEY, up_id INTEGER REFERENCES up)

INSERT INTO up VALUES (1, 'a', 0), (2, 'b', 0)

INSERT INTO uc VALUES (1, 'a'), (2, 'b')

INSERT INTO up VALUES (3, 'a', 0) ON CONFLICT(code) DO UPDATE SET code = 'aa', n = n + 1

SELECT * FROM uc ORDER BY id

INSERT INTO up VALUES (1, 'x', 0) ON CONFLICT(id) DO UPDATE SET code = 'b'

INSERT OR REPLACE INTO up VALUES (2, 'b2', 5)

SELECT * FROM uc ORDER BY id

SELECT * FROM up ORDER BY id

INSERT INTO ur VALUES (1, 1)

REPLACE INTO up VALUES (1, 'aa', 9)

INSERT OR IGNORE INTO ur VALUES (2, 55)

INSERT OR REPLACE INTO ur VALUES (1, 55)

SELECT * FROM ur

-- DROP TABLE of a parent runs DELETE FROM first

DROP TABLE up

DELETE FROM ur

DROP TABLE up

SELECT name FROM sqlite_master WHERE name IN ('up', 'uc', 'ur') ORDER BY name

SELECT count(*) FROM uc

-- with foreign_keys off nothing is enforced

PRAGMA foreign_keys = OFF

INSERT INTO orders VALUES (91, 5555, 'free')

DELETE FROM customers

SELECT count(*) FROM orders WHERE id = 91

PRAGMA foreign_keys = ON

-- a NO ACTION parent key moved within one statement: violated, then repaired

CREATE TABLE np(k INTEGER PRIMARY KEY)

CREATE TABLE nc(k INTEGER REFERENCES np)

INSERT INTO np VALUES (1), (2)

INSERT INTO nc VALUES (1), (1)

UPDATE np SET k = CASE k WHEN 1 THEN 3 WHEN 2 THEN 1 END

UPDATE np SET k = CASE k WHEN 1 THEN 5 ELSE 6 END

SELECT * FROM np ORDER BY k

SELECT changes()

-- a self-referencing table with NO ACTION: deleting a whole subtree at once is fine

CREATE TABLE emp(id INTEGER PRIMARY KEY, boss INTEGER REFERENCES emp)

INSERT INTO emp VALUES (1, NULL), (2, 1), (3, 2), (4, 2)

DELETE FROM emp WHERE id = 2

DELETE FROM emp WHERE id >= 2

DELETE FROM emp WHERE boss IS NULL

SELECT count(*) FROM emp

-- ON UPDATE CASCADE through a self-referencing table and a chain of tables

CREATE TABLE node(name TEXT PRIMARY KEY, up TEXT REFERENCES node(name) ON UPDATE CASCADE ON DELETE CASCADE) WITHOUT ROWID

CREATE TABLE tag(node TEXT REFERENCES node ON UPDATE CASCADE ON DELETE CASCADE, label TEXT)

CREATE TABLE tagnote(label TEXT, node TEXT, FOREIGN KEY(node) REFERENCES node(name) ON DELETE SET NULL)

INSERT INTO node VALUES ('root', NULL), ('a', 'root'), ('b', 'a'), ('c', 'b')

INSERT INTO tag VALUES ('a', 'x'), ('c', 'y')

INSERT INTO tagnote VALUES ('n1', 'c')

UPDATE node SET name = 'A' WHERE name = 'a'

SELECT * FROM node ORDER BY name

SELECT * FROM tag ORDER BY label

DELETE FROM node WHERE name = 'A' RETURNING name, up

SELECT changes()

SELECT * FROM node ORDER BY name

SELECT count(*) FROM tag

SELECT * FROM tagnote

-- foreign_key_check on a WITHOUT ROWID child reports a NULL rowid

PRAGMA foreign_keys = OFF

INSERT INTO node VALUES ('z', 'nowhere')

PRAGMA foreign_keys = ON

PRAGMA foreign_key_check(node)

DELETE FROM node WHERE name = 'z'

-- UPSERT DO UPDATE on a child checks the new key

CREATE TABLE uk(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES np)

INSERT INTO uk VALUES (1, 5)

INSERT INTO uk VALUES (1, 5) ON CONFLICT(id) DO UPDATE SET pid = 77

INSERT INTO uk VALUES (1, 5) ON CONFLICT(id) DO UPDATE SET pid = 6

SELECT * FROM uk

-- DEFAULT VALUES and a NULL key

CREATE TABLE dv(pid INTEGER DEFAULT 123 REFERENCES np)

INSERT INTO dv DEFAULT VALUES

CREATE TABLE dv2(pid INTEGER REFERENCES np)

INSERT INTO dv2 DEFAULT VALUES

-- REFERENCES to a table without a primary key needs the columns

CREATE TABLE heap(a, b)

CREATE TABLE toheap(x REFERENCES heap)

INSERT INTO toheap VALUES (1)

CREATE TABLE toheap2(x REFERENCES heap(a))

INSERT INTO toheap2 VALUES (1)

CREATE UNIQUE INDEX heap_a ON heap(a)

INSERT INTO toheap2 VALUES (1)

INSERT INTO heap VALUES (1, 1)

INSERT INTO toheap2 VALUES (1)

-- a column count that does not match

CREATE TABLE two(a, b, PRIMARY KEY(a, b))

CREATE TABLE totwo(x REFERENCES two)

INSERT INTO totwo VALUES (1)

PRAGMA foreign_key_check(totwo)

-- changes() counts the statement's own rows, total_changes() also the rows actions change
-- (at once: a statement that fails later keeps them counted, as SQLite)

CREATE TABLE t2(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES t2(id) ON DELETE CASCADE)

INSERT INTO t2 VALUES (1, NULL), (2, 1), (3, 2), (4, NULL), (5, 4)

SELECT total_changes()

DELETE FROM t2 WHERE id IN (1, 2, 3, 5)

SELECT changes(), total_changes()

SELECT * FROM t2

INSERT INTO t2 VALUES (1, NULL), (2, 1), (3, 2)

DELETE FROM t2 RETURNING id

SELECT changes()

CREATE TABLE cp(id INTEGER PRIMARY KEY)

CREATE TABLE cc(id INTEGER PRIMARY KEY, pid REFERENCES cp ON DELETE CASCADE)

CREATE TABLE cr(cid REFERENCES cc ON DELETE RESTRICT)

INSERT INTO cp VALUES (1), (2)

INSERT INTO cc VALUES (1, 1), (2, 1), (3, 2)

INSERT INTO cr VALUES (3)

SELECT total_changes()

DELETE FROM cp

SELECT changes(), total_changes()

DELETE FROM cp WHERE id = 1

SELECT changes(), total_changes()

-- ON UPDATE RESTRICT, and an UPDATE that keeps the key

CREATE TABLE rp2(id INTEGER PRIMARY KEY)

CREATE TABLE rc2(pid REFERENCES rp2 ON UPDATE RESTRICT ON DELETE SET NULL)

INSERT INTO rp2 VALUES (1), (2)

INSERT INTO rc2 VALUES (1)

UPDATE rp2 SET id = 5 WHERE id = 1

UPDATE rp2 SET id = 1 WHERE id = 1

UPDATE rp2 SET id = 6 WHERE id = 2

DELETE FROM rp2 WHERE id = 1

SELECT * FROM rc2

-- two foreign keys from one table to the same parent, both cascading

CREATE TABLE city(id INTEGER PRIMARY KEY)

CREATE TABLE road(id INTEGER PRIMARY KEY, a INTEGER REFERENCES city ON DELETE CASCADE, b INTEGER REFERENCES city ON DELETE CASCADE)

INSERT INTO city VALUES (1), (2), (3)

INSERT INTO road VALUES (1, 1, 2), (2, 2, 3), (3, 1, 1)

DELETE FROM city WHERE id = 1

SELECT changes(), total_changes()

SELECT * FROM road

-- the changes actions make fire the child table's triggers

CREATE TABLE tp(id INTEGER PRIMARY KEY)

CREATE TABLE tc(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES tp ON DELETE CASCADE ON UPDATE SET NULL)

CREATE TABLE tlog(what TEXT)

CREATE TRIGGER tc_bd BEFORE DELETE ON tc BEGIN INSERT INTO tlog VALUES ('before delete ' || old.id); END

CREATE TRIGGER tc_ad AFTER DELETE ON tc BEGIN INSERT INTO tlog VALUES ('after delete ' || old.id); END

CREATE TRIGGER tc_au AFTER UPDATE OF pid ON tc BEGIN INSERT INTO tlog VALUES ('update ' || old.id || ': ' || quote(old.pid) || ' -> ' || quote(new.pid)); END

CREATE TRIGGER tc_bu BEFORE UPDATE ON tc WHEN old.id = 4 BEGIN SELECT RAISE(IGNORE); END

INSERT INTO tp VALUES (1), (2)

INSERT INTO tc VALUES (1, 1), (2, 1), (3, 2), (4, 2)

DELETE FROM tp WHERE id = 1

UPDATE tp SET id = 5 WHERE id = 2

SELECT * FROM tlog

SELECT * FROM tc ORDER BY id

DROP TRIGGER tc_bu

UPDATE tp SET id = 5 WHERE id = 2

SELECT * FROM tlog WHERE what LIKE 'update%'

SELECT * FROM tc ORDER BY id

-- ALTER TABLE: ADD COLUMN REFERENCES with a default, RENAME TO of a parent

PRAGMA foreign_keys = ON

CREATE TABLE ap(id INTEGER PRIMARY KEY)

CREATE TABLE ac(id INTEGER PRIMARY KEY, pid REFERENCES ap ON DELETE CASCADE)

INSERT INTO ap VALUES (1)

INSERT INTO ac VALUES (1, 1)

ALTER TABLE ac ADD COLUMN q INTEGER REFERENCES ap DEFAULT 1

ALTER TABLE ac ADD COLUMN q INTEGER REFERENCES ap DEFAULT NULL

ALTER TABLE ac ADD COLUMN r INTEGER REFERENCES ap

ALTER TABLE ap RENAME TO aparent

SELECT sql FROM sqlite_master WHERE name = 'ac'

INSERT INTO ac VALUES (2, 5, NULL, NULL)

INSERT INTO ac VALUES (2, 1, 1, 5)

DELETE FROM aparent

SELECT count(*) FROM ac

PRAGMA foreign_keys = OFF

ALTER TABLE ac ADD COLUMN s INTEGER REFERENCES aparent DEFAULT 1

-- a foreign key names a table of its own database: TEMP to TEMP, main to main

PRAGMA foreign_keys = ON

CREATE TABLE fkp(id INTEGER PRIMARY KEY)

CREATE TEMP TABLE fktc(pid REFERENCES fkp)

INSERT INTO fktc VALUES (1)

INSERT INTO fktc VALUES (NULL)

CREATE TEMP TABLE fktp(id INTEGER PRIMARY KEY)

CREATE TEMP TABLE fktc2(pid REFERENCES fktp ON DELETE CASCADE)

INSERT INTO fktp VALUES (1)

INSERT INTO fktc2 VALUES (1)

INSERT INTO fktc2 VALUES (2)

DELETE FROM fktp

SELECT count(*) FROM fktc2

PRAGMA foreign_keys = OFF

INSERT INTO fktc2 VALUES (3)

INSERT INTO fktc VALUES (4)

PRAGMA foreign_keys = ON

PRAGMA foreign_key_check(fktc2)

PRAGMA foreign_key_check(fktc)

CREATE TABLE fkmc(pid REFERENCES fktp)

INSERT INTO fkmc VALUES (1)

-- UPDATE OR REPLACE and INSERT OR REPLACE on parents, PRAGMA foreign_keys inside a transaction,
-- SAVEPOINT outside a transaction (its RELEASE is the COMMIT), INSERT ... SELECT repairing itself

CREATE TABLE qp(id INTEGER PRIMARY KEY, u TEXT UNIQUE)

CREATE TABLE qc(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES qp, pu TEXT REFERENCES qp(u) ON UPDATE CASCADE)

INSERT INTO qp VALUES (1, 'a'), (2, 'b')

INSERT INTO qc VALUES (1, 1, 'a'), (2, 2, 'b')

UPDATE OR REPLACE qp SET id = 2 WHERE id = 1

UPDATE OR REPLACE qp SET u = 'b' WHERE id = 1

SELECT * FROM qp ORDER BY id

SELECT * FROM qc ORDER BY id

INSERT OR REPLACE INTO qp VALUES (1, 'z')

SELECT * FROM qc ORDER BY id

BEGIN

PRAGMA foreign_keys = OFF

INSERT INTO qc VALUES (3, 99, NULL)

COMMIT

PRAGMA foreign_keys

CREATE TABLE qdd(pid REFERENCES qp DEFERRABLE INITIALLY DEFERRED)

SAVEPOINT a

INSERT INTO qdd VALUES (50)

RELEASE a

SELECT count(*) FROM qdd

SAVEPOINT b

INSERT INTO qdd VALUES (50)

SAVEPOINT qc

INSERT INTO qp VALUES (50, 'fifty')

RELEASE qc

RELEASE b

SELECT count(*) FROM qdd

UPDATE qc SET pid = 1 WHERE id = 1

DELETE FROM qp WHERE id = 2

INSERT INTO qc SELECT 10, 1, 'a' UNION ALL SELECT 11, 3, NULL

INSERT INTO qp VALUES (3, 'qc')

INSERT INTO qc SELECT 12, 3, NULL UNION ALL SELECT 13, 3, NULL RETURNING id

ROLLBACK

-- a mismatch fails the statements that may check the foreign key, not a one-row INSERT
-- into the parent, nor an UPDATE of other columns

CREATE TABLE mp(id INTEGER PRIMARY KEY, x)

CREATE TABLE mbad(a REFERENCES mp(x))

INSERT INTO mp VALUES (1, 1)

INSERT INTO mp VALUES (2, 2), (3, 3)

INSERT INTO mp SELECT 4, 4

UPDATE mp SET x = 5 WHERE id = 1

UPDATE mp SET id = 5 WHERE id = 1

INSERT INTO mbad VALUES (NULL)

DELETE FROM mbad

UPDATE mbad SET a = a

-- DROP TABLE of a TEMP parent

CREATE TEMP TABLE dtp(id INTEGER PRIMARY KEY)

CREATE TEMP TABLE dtc(pid REFERENCES dtp)

INSERT INTO dtp VALUES (1)

INSERT INTO dtc VALUES (1)

DROP TABLE dtp

DELETE FROM dtc

DROP TABLE dtp

SELECT changes()

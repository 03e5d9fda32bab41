-- Introspection: sqlite_schema and PRAGMA (lang_schematab.html, pragma.html). rootpage is
-- cairn's object id, so it is not compared.

SELECT type, name, tbl_name, sql FROM sqlite_master

CREATE TABLE t(id INTEGER PRIMARY KEY, name text NOT NULL DEFAULT 'x', v REAL DEFAULT (1+2), u varchar( 10 ) UNIQUE, w DEFAULT -5)

create table IF NOT EXISTS "Pairs"(a int, b TEXT COLLATE nocase, c, PRIMARY KEY(b DESC, a))

CREATE INDEX ti ON t(name, v DESC)

create unique index "tu" on t(w COLLATE nocase);

CREATE VIEW v AS SELECT id, name FROM t

SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name

SELECT type, name, tbl_name, sql FROM sqlite_schema

SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1

SELECT count(*), typeof(rootpage) FROM main.sqlite_master WHERE type IN ('table', 'index')

SELECT m.name, m.rootpage > 0 FROM sqlite_master AS m WHERE m.type = 'view'

SELECT sql IS NULL FROM sqlite_master WHERE name = 'sqlite_autoindex_t_1'

SELECT s.name FROM sqlite_schema s JOIN sqlite_master m ON s.tbl_name = m.name AND m.type = 'view'

SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY rowid

SELECT * FROM temp.sqlite_master

SELECT * FROM sqlite_temp_master

DELETE FROM sqlite_master

INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, NULL)

UPDATE sqlite_schema SET name = 'y'

CREATE TABLE sqlite_master(a)

DROP TABLE sqlite_schema

DROP TABLE IF EXISTS sqlite_master

CREATE INDEX i ON sqlite_master(name)

CREATE TABLE "odd"  ( a )

CREATE   TABLE   main.m1 (a)

CREATE TABLE IF NOT EXISTS [m2](a)

create /* c */ table m3(a)

create unique index if not exists i1 on m1(a)

create  index   main.i2 on m1(a)

create view if not exists vv as select 1

Create Table "m4" ( a )

SELECT name, sql FROM sqlite_master WHERE name IN ('odd', 'm1', 'm2', 'm3', 'i1', 'i2', 'vv', 'm4') ORDER BY name

DROP TABLE t2

SELECT name FROM sqlite_master ORDER BY name

BEGIN

CREATE TABLE t2(a UNIQUE, b, UNIQUE(b, a))

SELECT name, sql IS NULL FROM sqlite_master WHERE tbl_name = 't2' ORDER BY name

ROLLBACK

SELECT count(*) FROM sqlite_master WHERE tbl_name = 't2'

CREATE TEMP VIEW tv AS SELECT 2

SELECT type, name, tbl_name, rootpage, sql FROM temp.sqlite_master

SELECT name FROM sqlite_temp_schema

SELECT count(*) FROM sqlite_master WHERE name = 'tv'

DROP VIEW tv

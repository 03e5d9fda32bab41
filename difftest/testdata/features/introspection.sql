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

SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE (type = 'table' OR type = 'view') AND name = 't')

SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'nosuch')

SELECT t.name, (SELECT count(*) FROM sqlite_master i WHERE i.tbl_name = t.name AND i.type = 'index') FROM sqlite_master t WHERE t.type = 'table' ORDER BY 1

SELECT upper(type), length(sql) > 10 FROM sqlite_master WHERE name = 'v'

SELECT rowid > 0, sqlite_master.name FROM sqlite_master WHERE name = 't'

WITH tables AS (SELECT name FROM sqlite_master WHERE type = 'table') SELECT count(*) FROM tables, pragma_table_info(tables.name)

SELECT typeof(rootpage), typeof(sql) FROM sqlite_schema WHERE name = 'sqlite_autoindex_t_1'

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

-- PRAGMA: the schema's description.

PRAGMA table_info(t)

PRAGMA table_info('Pairs')

PRAGMA main.table_xinfo("Pairs")

PRAGMA TABLE_INFO = t

PRAGMA table_info(v)

PRAGMA table_info(sqlite_master)

PRAGMA table_info(nosuch)

PRAGMA table_info

CREATE TABLE x(a UNIQUE, b int PRIMARY KEY, c Integer, d Numeric, e blob, f any, g Int8, h text COLLATE NOCASE, UNIQUE(c), UNIQUE(h COLLATE RTRIM, a DESC))

CREATE INDEX xi ON x(h, a)

CREATE INDEX xj ON x(d)

PRAGMA table_info(x)

PRAGMA index_list(x)

PRAGMA index_list(t)

PRAGMA index_list(Pairs)

PRAGMA index_list(nosuch)

PRAGMA index_info(xi)

PRAGMA index_info(sqlite_autoindex_x_4)

PRAGMA index_xinfo(sqlite_autoindex_x_4)

PRAGMA index_xinfo(ti)

CREATE INDEX tn ON t(u COLLATE NOCASE DESC, name)

PRAGMA index_xinfo(tn)

PRAGMA index_info(x)

CREATE VIEW xv AS SELECT a, b, c, d, e, a+1, CAST(a AS INT), CAST(a AS TEXT), b AS bb, 'lit', (SELECT 1) FROM x

PRAGMA table_info(xv)

CREATE TABLE p(id INTEGER PRIMARY KEY, a, b, UNIQUE(a, b))

CREATE TABLE c(x REFERENCES p ON DELETE CASCADE, y, z, w REFERENCES p(id) ON UPDATE SET NULL MATCH FULL DEFERRABLE INITIALLY DEFERRED, FOREIGN KEY (y, z) REFERENCES p(a, b) ON DELETE RESTRICT ON UPDATE SET DEFAULT)

PRAGMA foreign_key_list(c)

PRAGMA foreign_key_list(p)

-- unordered
PRAGMA table_list

PRAGMA table_list(x)

PRAGMA table_list('v')

CREATE TABLE g(a, b AS (a*2), c AS (a+1) STORED, d)

PRAGMA table_info(g)

PRAGMA table_xinfo(g)

CREATE INDEX ge ON g(a+d, b) WHERE d > 0

PRAGMA index_list(g)

PRAGMA index_xinfo(ge)

PRAGMA index_info(ge)

CREATE TEMP TABLE tt(x UNIQUE)

SELECT type, name, tbl_name, sql FROM sqlite_temp_master

SELECT count(*) FROM sqlite_master WHERE name = 'tt'

PRAGMA temp.table_info(tt)

PRAGMA table_info(tt)

PRAGMA temp.index_list(tt)

PRAGMA index_info(sqlite_autoindex_tt_1)

-- unordered
PRAGMA table_list

INSERT INTO tt VALUES (1), (2)

PRAGMA integrity_check(tt)

DROP TABLE tt

-- The table-valued forms.

SELECT * FROM pragma_table_info('t')

SELECT name, arg, schema FROM pragma_table_info('x', 'main') ORDER BY cid DESC

SELECT * FROM pragma_table_info WHERE arg = 'Pairs'

SELECT m.name, p.name, p.pk FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY 1, 2

SELECT m.name, i.name, i."unique", i.origin FROM sqlite_master m JOIN pragma_index_list(m.name) i WHERE m.type = 'table' ORDER BY 1, 2

SELECT i.name, c.name FROM pragma_index_list('x') i, pragma_index_info(i.name) c ORDER BY 1, c.seqno

SELECT * FROM pragma_foreign_key_list('c') ORDER BY id, seq

SELECT * FROM pragma_table_info('t', 'temp')

SELECT * FROM pragma_table_info('t', 'nosuch')

SELECT * FROM pragma_table_info('t', 'main', 'x')

SELECT * FROM pragma_nosuch

SELECT * FROM pragma_user_version(5)

SELECT * FROM pragma_table_list WHERE name = 'x'

SELECT * FROM pragma_table_list('v')

SELECT * FROM pragma_integrity_check

SELECT * FROM pragma_quick_check('t')

SELECT * FROM pragma_integrity_check(5)

SELECT name, type, narg FROM pragma_function_list WHERE name IN ('abs', 'substr', 'sum', 'count', 'group_concat', 'json_group_object', 'row_number', 'lag', 'nth_value') ORDER BY 1, 3

SELECT * FROM pragma_foreign_keys, pragma_busy_timeout, pragma_schema_version

-- PRAGMA: values kept in the database and in the connection.

PRAGMA user_version

PRAGMA schema_version

PRAGMA user_version = 7

PRAGMA user_version

PRAGMA main.user_version = '12'

PRAGMA user_version

PRAGMA user_version = 'abc'

PRAGMA user_version

PRAGMA user_version(1.9)

PRAGMA user_version

PRAGMA user_version = -3

PRAGMA user_version

SELECT user_version + 1 FROM pragma_user_version

BEGIN

PRAGMA user_version = 99

PRAGMA user_version

ROLLBACK

PRAGMA user_version

BEGIN

PRAGMA user_version = 42

COMMIT

PRAGMA user_version

PRAGMA application_id

PRAGMA application_id = 1234567

PRAGMA application_id

PRAGMA application_id = 0x10

PRAGMA application_id

PRAGMA application_id = 4294967298

PRAGMA application_id

PRAGMA application_id = ' 12'

PRAGMA application_id

PRAGMA application_id = +2147483647

PRAGMA application_id

PRAGMA schema_version

PRAGMA foreign_keys

PRAGMA foreign_keys = ON

PRAGMA foreign_keys

PRAGMA foreign_keys = 'no'

PRAGMA foreign_keys

PRAGMA foreign_keys = yes

PRAGMA foreign_keys

PRAGMA foreign_keys = 0

PRAGMA busy_timeout

PRAGMA busy_timeout = 2500

PRAGMA busy_timeout

PRAGMA busy_timeout = -5

PRAGMA busy_timeout = 0

PRAGMA cache_size = 100

PRAGMA cache_size

PRAGMA temp_store = memory

PRAGMA temp_store

PRAGMA temp_store = 0

PRAGMA encoding

PRAGMA case_sensitive_like

PRAGMA case_sensitive_like = 0

PRAGMA ignore_check_constraints

PRAGMA query_only = false

PRAGMA query_only

PRAGMA writable_schema

PRAGMA auto_vacuum

PRAGMA secure_delete

PRAGMA recursive_triggers

PRAGMA nosuchpragma

PRAGMA nosuchpragma = 3

PRAGMA nosuchdb.user_version

PRAGMA integrity_check

PRAGMA quick_check

PRAGMA integrity_check(x)

PRAGMA integrity_check(3)

PRAGMA integrity_check(nosuch)

PRAGMA main.integrity_check

PRAGMA integrity_check(0)

PRAGMA temp.table_info(t)

PRAGMA temp.index_list(t)

PRAGMA temp.user_version

SELECT typeof(freelist_count), typeof(page_count) FROM pragma_freelist_count, pragma_page_count

PRAGMA page_size = 8192

CREATE VIEW vm AS SELECT name FROM sqlite_master WHERE name LIKE 'v%'

SELECT * FROM vm ORDER BY 1

SELECT count(*) FROM sqlite_master WHERE type = 'table'

VACUUM nosuch

VACUUM INTO 123

BEGIN

VACUUM

ROLLBACK

ANALYZE nosuch

CREATE TABLE a1(x INTEGER PRIMARY KEY, y TEXT)

CREATE INDEX a1y ON a1(y)

ALTER TABLE a1 ADD COLUMN z REAL DEFAULT 3

ALTER TABLE a1 RENAME TO a2

ALTER TABLE a2 RENAME COLUMN y TO yy

SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name = 'a2' ORDER BY name

PRAGMA table_info(a2)

PRAGMA index_xinfo(a1y)

PRAGMA schema_version

-- SQLite's ANALYZE makes sqlite_stat1 (cairn keeps no statistics table): last in the script.
ANALYZE

-- Constraints and conflict clauses (lang_createtable.html, lang_conflict.html).

CREATE TABLE t(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  code TEXT UNIQUE,
  qty INTEGER DEFAULT 1 CHECK (qty >= 0),
  note TEXT DEFAULT ('n/' || 'a'),
  CONSTRAINT sane CHECK (length(name) < 10)
)

INSERT INTO t(name, code) VALUES ('a', 'x')

INSERT INTO t(name, code, qty) VALUES ('b', 'y', 5), ('c', 'z', 0)

SELECT * FROM t ORDER BY id

INSERT INTO t(name) VALUES (NULL)

INSERT INTO t(name, code) VALUES ('d', 'x')

INSERT INTO t(name, qty) VALUES ('e', -1)

INSERT INTO t(name) VALUES ('much too long')

INSERT OR IGNORE INTO t(name, code) VALUES ('f', 'x')

INSERT OR REPLACE INTO t(name, code) VALUES ('g', 'x')

SELECT id, name, code, qty, note FROM t ORDER BY id

UPDATE t SET qty = -5 WHERE name = 'b'

UPDATE OR IGNORE t SET code = 'y' WHERE name = 'c'

UPDATE t SET code = 'y' WHERE name = 'c'

INSERT INTO t(id, name) VALUES (2, 'dup')

SELECT count(*), sum(qty) FROM t

CREATE TABLE u(a INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 7, b UNIQUE ON CONFLICT IGNORE)

INSERT INTO u VALUES (NULL, 1)

INSERT INTO u VALUES (3, 1)

SELECT * FROM u

SELECT * FROM u WHERE

SELECT 1 FROM FROM u

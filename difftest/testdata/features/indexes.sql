-- Indexes on expressions and partial indexes (lang_createindex.html, expridx.html, partialindex.html).

CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT, name TEXT, age INT, deleted INT DEFAULT 0)

CREATE INDEX users_email ON users(lower(email))

INSERT INTO users(email, name, age) VALUES ('Ann@Example.com', 'ann', 30), ('bob@example.com', 'bob', 17), ('CARL@example.com', 'carl', 45), (NULL, 'dan', NULL)

EXPLAIN QUERY PLAN SELECT name FROM users WHERE lower(email) = 'ann@example.com'

SELECT name FROM users WHERE lower(email) = 'ann@example.com'

SELECT name FROM users WHERE lower(users.email) = 'ann@example.com' OR lower(email) = 'carl@example.com' ORDER BY name

EXPLAIN QUERY PLAN SELECT name FROM users WHERE lower(email) > 'b'

SELECT name FROM users WHERE lower(email) > 'b' ORDER BY name

SELECT name FROM users WHERE lower(email) BETWEEN 'a' AND 'c' ORDER BY name

EXPLAIN QUERY PLAN SELECT name FROM users WHERE lower(email) IN ('bob@example.com', 'x')

SELECT name FROM users WHERE lower(email) IN ('bob@example.com', 'x')

EXPLAIN QUERY PLAN SELECT name FROM users WHERE upper(email) = 'ANN@EXAMPLE.COM'

EXPLAIN QUERY PLAN SELECT name FROM users AS u WHERE 'carl@example.com' = lower(u.email)

SELECT name FROM users AS u WHERE 'carl@example.com' = lower(u.email)

UPDATE users SET email = 'Bobby@Example.com' WHERE name = 'bob'

SELECT name FROM users WHERE lower(email) = 'bobby@example.com'

SELECT name FROM users WHERE lower(email) = 'bob@example.com'

DELETE FROM users WHERE lower(email) = 'bobby@example.com'

SELECT count(*) FROM users WHERE lower(email) > ''

EXPLAIN QUERY PLAN SELECT name FROM users ORDER BY lower(email)

SELECT name FROM users ORDER BY lower(email)

EXPLAIN QUERY PLAN SELECT name FROM users ORDER BY lower(email) DESC LIMIT 2

SELECT name FROM users ORDER BY lower(email) DESC LIMIT 2

EXPLAIN QUERY PLAN SELECT name FROM users WHERE lower(email) > 'b' ORDER BY lower(email)

SELECT name FROM users WHERE lower(email) > 'b' ORDER BY lower(email)

EXPLAIN QUERY PLAN SELECT name FROM users ORDER BY lower(email) COLLATE nocase

EXPLAIN QUERY PLAN SELECT name FROM users ORDER BY lower(email), id

SELECT name FROM users ORDER BY lower(email), id

CREATE INDEX users_age2 ON users(age * 2, substr(name, 1, 1))

EXPLAIN QUERY PLAN SELECT name FROM users WHERE age * 2 = 60 AND substr(name, 1, 1) = 'a'

SELECT name FROM users WHERE age * 2 = 60 AND substr(name, 1, 1) = 'a'

EXPLAIN QUERY PLAN SELECT name FROM users WHERE age * 2 = 90

SELECT name FROM users WHERE age * 2 >= 60 ORDER BY name

CREATE UNIQUE INDEX users_uemail ON users(lower(email))

INSERT INTO users(email, name) VALUES ('ann@EXAMPLE.com', 'ann2')

INSERT OR IGNORE INTO users(email, name) VALUES ('ann@EXAMPLE.com', 'ann2')

INSERT INTO users(email, name) VALUES (NULL, 'nobody')

SELECT count(*) FROM users

CREATE TABLE dup(a)

INSERT INTO dup VALUES ('A'), ('a')

CREATE UNIQUE INDEX dup_lower ON dup(lower(a))

CREATE INDEX bad1 ON users(random())

CREATE INDEX bad2 ON users((SELECT 1))

CREATE INDEX bad3 ON users(count(age))

CREATE INDEX bad4 ON users(age + ?)

CREATE INDEX bad5 ON users(nosuch(age))

CREATE INDEX bad6 ON users(zz + 1)

CREATE INDEX bad7 ON users(users.age)

CREATE INDEX bad8 ON users(abs(age)) WHERE random() > 0

CREATE INDEX bad9 ON users(age) WHERE age > ?

CREATE INDEX bad10 ON users(age) WHERE zz > 0

CREATE INDEX users_abs ON users(abs(age - 40) DESC)

EXPLAIN QUERY PLAN SELECT name FROM users WHERE abs(age - 40) < 12

SELECT name FROM users WHERE abs(age - 40) < 12 ORDER BY name

-- Partial indexes

CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INT, status TEXT, total REAL)

CREATE INDEX orders_open ON orders(customer) WHERE status = 'open'

INSERT INTO orders(customer, status, total) VALUES (1, 'open', 10), (1, 'closed', 20), (2, 'open', 30), (2, 'closed', 5), (1, 'open', 7)

EXPLAIN QUERY PLAN SELECT id, total FROM orders WHERE customer = 1 AND status = 'open'

SELECT id FROM orders WHERE customer = 1 AND status = 'open' ORDER BY id

EXPLAIN QUERY PLAN SELECT id FROM orders WHERE customer = 1

SELECT id FROM orders WHERE customer = 1 ORDER BY id

EXPLAIN QUERY PLAN SELECT id FROM orders WHERE customer = 1 AND status = 'closed'

UPDATE orders SET status = 'closed' WHERE id = 1

SELECT id FROM orders WHERE customer = 1 AND status = 'open' ORDER BY id

UPDATE orders SET status = 'open' WHERE id = 4

SELECT id FROM orders WHERE customer = 2 AND status = 'open' ORDER BY id

DELETE FROM orders WHERE id = 3

SELECT id FROM orders WHERE customer = 2 AND status = 'open' ORDER BY id

EXPLAIN QUERY PLAN SELECT id, total FROM orders WHERE status = 'open' ORDER BY customer

CREATE INDEX orders_total ON orders(total) WHERE total IS NOT NULL

EXPLAIN QUERY PLAN SELECT id, status FROM orders WHERE total > 6

SELECT id FROM orders WHERE total > 6 ORDER BY id

EXPLAIN QUERY PLAN SELECT id, status FROM orders WHERE total IS NOT NULL AND total >= 7 AND total < 8

EXPLAIN QUERY PLAN SELECT id FROM orders ORDER BY total

CREATE TABLE accounts(id INTEGER PRIMARY KEY, email TEXT, active INT)

CREATE UNIQUE INDEX accounts_active_email ON accounts(email) WHERE active = 1

INSERT INTO accounts(email, active) VALUES ('a@x', 1), ('a@x', 0), ('a@x', 0)

INSERT INTO accounts(email, active) VALUES ('a@x', 1)

UPDATE accounts SET active = 1 WHERE id = 2

UPDATE accounts SET active = 0 WHERE id = 1

UPDATE accounts SET active = 1 WHERE id = 2

SELECT id, email, active FROM accounts ORDER BY id

INSERT OR REPLACE INTO accounts(email, active) VALUES ('a@x', 1)

SELECT id, email, active FROM accounts ORDER BY id

CREATE TABLE pre(a, b)

INSERT INTO pre VALUES (1, 'x'), (1, 'y'), (2, 'x')

CREATE UNIQUE INDEX pre_a ON pre(a) WHERE b = 'x'

CREATE UNIQUE INDEX pre_a2 ON pre(a) WHERE b <> 'z'

SELECT a, b FROM pre WHERE b = 'x' AND a = 1

DROP INDEX pre_a

SELECT a, b FROM pre WHERE b = 'x' AND a = 1

ALTER TABLE users RENAME COLUMN email TO mail

EXPLAIN QUERY PLAN SELECT name FROM users WHERE lower(mail) = 'ann@example.com'

SELECT name FROM users WHERE lower(mail) = 'ann@example.com'

ALTER TABLE users DROP COLUMN mail

ALTER TABLE orders DROP COLUMN status

ALTER TABLE users DROP COLUMN deleted

SELECT name, age FROM users ORDER BY id

-- An index on json_extract, the JSON column pattern.

CREATE TABLE docs(id INTEGER PRIMARY KEY, doc TEXT)

CREATE INDEX docs_email ON docs(json_extract(doc, '$.email'))

INSERT INTO docs(doc) VALUES ('{"email":"a@x","n":1}'), ('{"email":"b@x","n":2}'), ('{"n":3}')

EXPLAIN QUERY PLAN SELECT id, doc FROM docs WHERE json_extract(doc, '$.email') = 'b@x'

SELECT id FROM docs WHERE json_extract(doc, '$.email') = 'b@x'

EXPLAIN QUERY PLAN SELECT id FROM docs WHERE doc ->> '$.email' = 'b@x'

SELECT id FROM docs WHERE doc ->> '$.email' = 'b@x'

UPDATE docs SET doc = json_set(doc, '$.email', 'c@x') WHERE id = 3

SELECT id FROM docs WHERE json_extract(doc, '$.email') = 'c@x'

CREATE UNIQUE INDEX docs_uemail ON docs(json_extract(doc, '$.email')) WHERE json_extract(doc, '$.email') IS NOT NULL

INSERT INTO docs(doc) VALUES ('{"email":"a@x"}')

INSERT INTO docs(doc) VALUES ('{"other":1}')

EXPLAIN QUERY PLAN SELECT id, doc FROM docs WHERE json_extract(doc, '$.email') > 'a' ORDER BY json_extract(doc, '$.email')

SELECT id FROM docs WHERE json_extract(doc, '$.email') > 'a' ORDER BY json_extract(doc, '$.email')

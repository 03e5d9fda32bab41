-- UPDATE ... FROM (sqlite.org/lang_update.html#update_from): the FROM items join the target;
-- each target row is updated once. Tests avoid rows with several matches (SQLite then uses an
-- arbitrary one) except where every match gives the same values.

CREATE TABLE inv(id INTEGER PRIMARY KEY, item TEXT UNIQUE, qty INTEGER, note TEXT)

CREATE TABLE sales(item TEXT, n INTEGER)

CREATE TABLE price(item TEXT PRIMARY KEY, p REAL) WITHOUT ROWID

INSERT INTO inv(item, qty) VALUES ('apple', 10), ('pear', 20), ('plum', 30), ('fig', 40)

INSERT INTO sales VALUES ('apple', 3), ('pear', 5), ('apple', 4), ('kiwi', 9)

INSERT INTO price VALUES ('apple', 1.5), ('pear', 2.25), ('fig', 0.5)

-- the classic: apply aggregated deltas from a subquery
UPDATE inv SET qty = qty - d.total FROM (SELECT item, sum(n) AS total FROM sales GROUP BY item) AS d WHERE d.item = inv.item

SELECT id, item, qty FROM inv ORDER BY id

-- a plain table in FROM, RETURNING reads the target's columns
UPDATE inv SET note = 'price ' || price.p FROM price WHERE price.item = inv.item RETURNING id, item, note

SELECT changes()

-- the target with an alias
UPDATE inv AS i SET qty = i.qty * 2 FROM price AS p WHERE p.item = i.item AND p.p > 1

SELECT item, qty FROM inv ORDER BY item

-- several matches with the same values: each target row is updated once
UPDATE inv SET note = 'sold' FROM sales WHERE sales.item = inv.item

SELECT changes()

SELECT item, note FROM inv ORDER BY item

-- a join inside FROM
UPDATE inv SET qty = price.p * 100 FROM sales JOIN price USING (item) WHERE sales.item = inv.item AND sales.n = 5 RETURNING item, qty

-- a LEFT JOIN inside FROM
UPDATE inv SET note = coalesce(s.n, 'none') FROM price LEFT JOIN sales AS s ON s.item = price.item AND s.n > 3 WHERE price.item = inv.item AND inv.item <> 'apple'

SELECT item, note FROM inv ORDER BY item

-- no match: nothing updated
UPDATE inv SET qty = 0 FROM sales WHERE sales.item = inv.item AND sales.n > 100

SELECT changes()

-- FROM with no WHERE term on the target updates every row (with one of the matches)
UPDATE inv SET note = 'x' FROM (SELECT 1 AS one) AS k WHERE k.one = 1

SELECT changes()

-- the target's table under another name in FROM
UPDATE inv SET qty = o.qty + 1 FROM inv AS o WHERE o.id = inv.id RETURNING id, qty

-- a CTE in FROM
WITH d(item, q) AS (VALUES ('plum', 7), ('fig', 8)) UPDATE inv SET qty = d.q FROM d WHERE d.item = inv.item

SELECT item, qty FROM inv ORDER BY item

-- a table-valued function in FROM
UPDATE inv SET qty = j.value FROM json_each('{"apple": 100, "pear": 200}') AS j WHERE j.key = inv.item RETURNING item, qty

-- a WITHOUT ROWID target
-- unordered
UPDATE price SET p = p + inv.qty FROM inv WHERE inv.item = price.item RETURNING item, p

-- UPDATE OR IGNORE with a UNIQUE conflict from FROM values
UPDATE OR IGNORE inv SET item = s.item FROM (SELECT 'pear' AS item) AS s WHERE inv.id = 1

SELECT id, item FROM inv ORDER BY id

UPDATE inv SET item = s.item FROM (SELECT 'pear' AS item) AS s WHERE inv.id = 1

-- error cases
UPDATE inv SET qty = 1 FROM inv WHERE 1

UPDATE inv AS i SET qty = 1 FROM inv AS i

UPDATE inv AS i SET qty = 1 FROM inv AS i2 WHERE i2.id = i.id AND i.id = 0

UPDATE inv SET qty = 1 FROM nosuch

UPDATE inv SET qty = item FROM sales

UPDATE inv SET qty = s.n FROM sales AS s WHERE s.item = inv.item RETURNING s.n

UPDATE inv SET qty = 1 FROM sales WHERE nosuch = 1

-- triggers fire once per updated row
CREATE TABLE log(msg TEXT)

CREATE TRIGGER inv_u AFTER UPDATE ON inv BEGIN INSERT INTO log VALUES (old.item || ':' || old.qty || '->' || new.qty); END

UPDATE inv SET qty = qty + s.n FROM (SELECT item, max(n) AS n FROM sales GROUP BY item) AS s WHERE s.item = inv.item

SELECT msg FROM log ORDER BY msg

-- UPDATE ... FROM in a trigger body
CREATE TRIGGER sales_i AFTER INSERT ON sales BEGIN UPDATE inv SET qty = inv.qty - n.n FROM (SELECT new.item AS item, new.n AS n) AS n WHERE n.item = inv.item; END

INSERT INTO sales VALUES ('fig', 2)

SELECT item, qty FROM inv WHERE item = 'fig'

-- parameters and expressions reading both sides
UPDATE inv SET note = inv.item || '/' || s.item FROM sales AS s WHERE s.rowid = 2 AND inv.id = 3 RETURNING note

-- a correlated subquery in SET reading a FROM source
UPDATE inv SET qty = (SELECT count(*) FROM sales WHERE sales.n <= p.p * 4) FROM price AS p WHERE p.item = inv.item RETURNING item, qty

-- FROM's ON terms do not see the target
UPDATE inv SET qty = 1 FROM sales JOIN price ON price.item = inv.item

UPDATE inv SET qty = 1 FROM sales LEFT JOIN price ON price.item = inv.rowid

-- a LEFT JOIN in FROM: the target joins its result
UPDATE inv SET note = coalesce(price.p, 'no price') FROM sales LEFT JOIN price ON price.item = sales.item WHERE sales.item = inv.item AND sales.n IN (2, 3, 5) RETURNING item, note

-- row values in SET read the FROM sources too
UPDATE inv SET (qty, note) = (SELECT p.p * 10, 'rv ' || p.item) FROM price AS p WHERE p.item = inv.item RETURNING item, qty, note

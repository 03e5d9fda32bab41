-- JSON functions (json1.html): text in and out as SQLite writes it, paths, edits, errors,
-- aggregates, json_each and json_tree.

CREATE TABLE docs(id INTEGER PRIMARY KEY, doc TEXT)

CREATE TABLE orders(id INTEGER PRIMARY KEY, cust TEXT, item TEXT, qty INTEGER)

INSERT INTO docs(doc) VALUES ('{"name":"ann","tags":["a","b"],"age":31,"addr":{"city":"Oslo","zip":"0150"}}'), ('{"name":"bob","tags":[],"age":null,"score":2.5}'), ('[1,2,[3,4],{"k":"v"}]'), ('  { "name" : "cy" , "tags" : [ "c" ] }  '), (NULL)

SELECT id, json(doc) FROM docs ORDER BY id

SELECT json(' [ 1.50 , "a\/b" , 1E5, -0, true, false, null, {} , [] ] ')

SELECT json('"\u00e9\n"'), json('{"a":1,"a":2}'), json(NULL), json(42), json(1.5)

SELECT json('[1,2')

SELECT json('{"a":1}x')

SELECT json('')

SELECT json('{a:1}')

SELECT json_valid('[1]'), json_valid('[1'), json_valid(NULL), json_valid(''), json_valid(12), json_valid('{a:1}'), json_valid('{a:1}', 2), json_valid('{a:1}', 1), json_valid('[1]', 2), json_valid('[1,]', 6), json_valid('[1]', 4)

SELECT json_valid('[1]', 0)

SELECT json_valid('[1]', 16)

SELECT id, json_extract(doc, '$.name'), json_extract(doc, '$.tags'), json_extract(doc, '$.tags[0]'), json_extract(doc, '$.addr.city'), json_extract(doc, '$.age') FROM docs ORDER BY id

SELECT typeof(json_extract('{"a":1}', '$.a')), typeof(json_extract('{"a":1.0}', '$.a')), typeof(json_extract('{"a":"1"}', '$.a')), typeof(json_extract('{"a":true}', '$.a')), typeof(json_extract('{"a":null}', '$.a')), typeof(json_extract('{"a":[]}', '$.a'))

SELECT json_extract('[1,2,3]', '$[#-1]'), json_extract('[1,2,3]', '$[#-3]'), json_extract('[1,2,3]', '$[#-4]'), json_extract('[1,2,3]', '$[#]'), json_extract('[1,2,3]', '$[3]'), json_extract('[[1,[2,3]]]', '$[0][1][0]')

SELECT json_extract('{"a b":1,"a.b":2,"":3}', '$."a b"'), json_extract('{"a b":1,"a.b":2,"":3}', '$."a.b"'), json_extract('{"a b":1,"a.b":2,"":3}', '$.""'), json_extract('{"a":{"b":4}}', '$.a.b')

SELECT json_extract('{"a":1,"b":[2]}', '$.a', '$.b', '$.c'), json_extract('{"a":1}', '$'), json_extract('{"a":1}'), json_extract('[1]', NULL), json_extract(NULL, '$')

SELECT json_extract('{"a":"x\u0041\t"}', '$.a'), json_extract('[9223372036854775807, 9223372036854775808, 1e400, -5]', '$[0]'), json_extract('[9223372036854775808]', '$[0]'), json_extract('[1e400]', '$[0]')

SELECT json_extract('{"a":1}', '$x')

SELECT json_extract('{"a":1}', 'a')

SELECT json_extract('[1]', '$[a]')

SELECT json_extract('[1]', '$.')

SELECT json_extract('{"a":1', '$.a')

SELECT doc -> '$.addr', doc ->> '$.addr.city', doc -> 'name', doc ->> 'name', doc -> 'tags' -> 0, doc -> 'tags' ->> -1 FROM docs WHERE id = 1

SELECT '[1,2,3]' -> 1, '[1,2,3]' ->> -1, '[1,2,3]' -> 5, '{"a b":1}' -> 'a b', '{"a.b":1}' ->> 'a.b', '[[9]]' -> '[0]', '[1]' -> NULL, NULL -> '$'

SELECT typeof('{"a":2}' -> 'a'), typeof('{"a":2}' ->> 'a'), '{"a":"s"}' -> 'a', '{"a":"s"}' ->> 'a'

SELECT json_set('{"a":1}', '$.a', 2, '$.b', 3), json_insert('{"a":1}', '$.a', 2, '$.b', 3), json_replace('{"a":1}', '$.a', 2, '$.b', 3)

SELECT json_set('{}', '$.a.b', 1), json_set('{}', '$.a[#]', 1), json_set('{}', '$.a.b[#].c', 1), json_set('[1]', '$[1]', 2), json_set('[1]', '$[5]', 2), json_insert('[1,2]', '$[#]', 3, '$[#]', 4)

SELECT json_set('{"a":[1,2]}', '$.a[1]', json('{"x":1}'), '$.a[#]', 'str'), json_set('{"a":1}', '$.b', '[1]'), json_set('{"a":1}', '$.b', json('[1]')), json_set('{"a":1}', '$.b', json_array(1, 2))

SELECT json_set('{"a":1}', '$.a.b', 2), json_set('[1]', '$.a', 2), json_set('{"a":1}', '$[0]', 2), json_set('[1]', '$', 7), json_replace('[1]', '$', json('{}')), json_insert('[1]', '$', 7)

SELECT json_set('{"a":{"b":{"c":1}}}', '$.a.b.c', NULL, '$.a.b.d', 2.5)

SELECT json_set('{"a":1}', '$.b')

SELECT json_insert('{}', '$.a')

SELECT json_set('{"a":1}', 'b', 2)

SELECT json_set('{"a":1', '$.b', 2)

SELECT json_remove('[0,1,2,3]', '$[1]', '$[1]'), json_remove('{"a":{"b":1,"c":2}}', '$.a.b'), json_remove('[1]', '$'), json_remove('[1,2]', '$[#-1]'), json_remove('{"a":1,"b":2}', '$.c', '$.a'), json_remove('{"a":1}'), json_remove('[1,2,3]', '$[5]')

SELECT json_remove('{"a":[1,{"b":2,"c":3}]}', '$.a[1].b', '$.a[0]')

SELECT json_patch('{"a":1,"b":{"c":2,"d":3}}', '{"b":{"c":null,"e":4},"f":[1]}'), json_patch('[1]', '{"a":1}'), json_patch('{"a":1}', '[2]'), json_patch('{"a":{"x":1}}', '{"a":5}'), json_patch('{}', '{"a":{"b":null}}')

SELECT json_array(), json_array(1, 2.5, 'x', NULL, json('[1]'), '[1]', json_object('a', 1)), json_array(1e300, 0.1, -0.0, 1e16, 9e999, -9e999, 1.0/3)

SELECT json_object(), json_object('a', 1, 'b', 'two', 'c', NULL, 'd', json('{"e":[]}'), 'a', 3)

SELECT json_object('a')

SELECT json_object(1, 2)

SELECT json_type('{"a":[1,2.5,"x",null,true,false,{}]}'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[0]'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[1]'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[2]'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[3]'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[4]'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[5]'), json_type('{"a":[1,2.5,"x",null,true,false,{}]}', '$.a[6]'), json_type('{"a":1}', '$.b'), json_type(NULL)

SELECT json_array_length('[1,2,3]'), json_array_length('{"a":1}'), json_array_length('[1,[2,3]]', '$[1]'), json_array_length('[1]', '$[3]'), json_array_length('[]'), json_array_length('7')

SELECT json_array_length('x')

SELECT json_quote('a"b\c'), json_quote(char(1, 8, 9, 10, 12, 13, 31, 47, 127)), json_quote(1), json_quote(1.5), json_quote(NULL), json_quote(json('[1]')), json_quote('[1]')

SELECT json_error_position('[1,2]'), json_error_position('[1,2'), json_error_position('[1,x]'), json_error_position(''), json_error_position('{"a":1,}'), json_error_position(NULL), json_error_position('"abc')

SELECT json_pretty('{"a":[1,2,{}],"b":{},"c":[],"d":{"e":null}}')

SELECT json_pretty('[1,[2]]', '  '), json_pretty('5'), json_pretty('{}')

INSERT INTO orders(cust, item, qty) VALUES ('ann', 'pen', 2), ('bob', 'ink', 1), ('ann', 'pad', NULL), ('bob', 'pen', 5), ('cy', 'ink', 3)

SELECT cust, json_group_array(item), json_group_object(item, qty) FROM orders GROUP BY cust ORDER BY cust

SELECT json_group_array(json_object('cust', cust, 'qty', qty)) FROM orders WHERE qty > 1

SELECT json_group_array(id) FROM orders WHERE 0

SELECT json_group_object(cust, id) FROM orders WHERE 0

SELECT json_object('cust', cust, 'items', json_group_array(item)) FROM orders GROUP BY cust ORDER BY cust

SELECT json_group_object(item, json_array(qty)) FROM orders WHERE cust = 'bob'

SELECT * FROM json_each('[10,"x",null,[1],{"a":true}]')

SELECT * FROM json_each('{"a":1,"b":[2,3],"c":{"d":4}}')

SELECT key, value, type, atom, id, parent, fullkey, path FROM json_tree('{"a":1,"b":[2,3],"c":{"d":4}}')

SELECT key, value, type, fullkey, path FROM json_each('{"a":{"b":[5,6]}}', '$.a.b')

SELECT key, value, fullkey, path FROM json_tree('{"a":{"b":[5,6]}}', '$.a')

SELECT a.key, a.value, a.id, b.fullkey, b.path, b.value FROM json_each('5') AS a, json_each('"s"', '$') AS b

SELECT key, value, id FROM json_each('{"a":1}', '$.x')

SELECT count(*) FROM json_each(NULL)

SELECT key, fullkey FROM json_each('{"a_b":1,"1a":2,"a b":3,"":4,"A1":5}')

SELECT j.key, j.json, j.root FROM json_each('{"a":1}') AS j

SELECT value FROM json_each('[3,1,2]') ORDER BY value

SELECT json_array(value) FROM json_each('[[1],{"a":2},"s"]')

SELECT d.id, j.key, j.value FROM docs AS d, json_each(d.doc, '$.tags') AS j ORDER BY d.id, j.key

SELECT d.id, j.value FROM docs d JOIN json_each(d.doc) j WHERE j.key = 'name' ORDER BY d.id

SELECT d.id, count(j.key) FROM docs d LEFT JOIN json_each(d.doc, '$.tags') j ORDER BY d.id

SELECT d.id, (SELECT count(*) FROM json_tree(d.doc)) FROM docs d ORDER BY d.id

SELECT d.id FROM docs d WHERE EXISTS (SELECT 1 FROM json_each(d.doc, '$.tags') WHERE value = 'b')

SELECT id FROM docs WHERE json_extract(doc, '$.age') > 30

SELECT * FROM json_each('[1]', '$', 3)

SELECT * FROM json_each('[1', '$')

SELECT * FROM json_each('[1]', 'x')

UPDATE docs SET doc = json_set(doc, '$.age', 32, '$.tags[#]', 'z') WHERE id = 1

UPDATE docs SET doc = json_remove(doc, '$.addr.zip') WHERE id = 1

SELECT doc FROM docs WHERE id = 1

SELECT json_extract(doc, '$.tags[#-1]'), json_array_length(doc, '$.tags') FROM docs WHERE id = 1

-- JSON5 input, read and written back as canonical JSON

SELECT json('{a:1, b:[1,2,],}'), json('[+1, .5, 5., 0x1F, -0x10, Infinity, -Infinity, NaN]'), json('[''a"b'', "x\''y"]'), json('/* c */ [1, /* x */ 2]')

SELECT json('[1, // to the end of the line
2]')

SELECT json('"\x41\v\0"'), json_valid('"\x41"'), json_valid('"\x41"', 2), json('{"a":+1}'), json('[.5e3]'), json('[0x7fffffffffffffff, 0xffffffffffffffff]')

SELECT json('{"a":Infinity}') -> 'a', json('[Infinity]') ->> 0, json_type('[Infinity]', '$[0]')

SELECT key, id, value FROM json_each('{a:1,"bb":[1,2,]}')

SELECT json_error_position('[1,2] x'), json_error_position('{"a" 1}'), json_error_position('[01]'), json_error_position('é[x]'), json_error_position('{"a":1,,}'), json_error_position('[1e]'), json_error_position('[-]'), json_error_position('[tru]'), json_error_position('{1:2}')

SELECT json_error_position('[.]'), json_error_position('[1.]'), json_error_position('[1x]'), json_error_position('{"a":1'), json_error_position('{"a"'), json_error_position('["\q"]'), json_error_position('[1 2]'), json_error_position('[0x]'), json_error_position('/* x')

-- escapes, nesting depth, numbers

SELECT json_extract('{"a":"\ud83d\ude00"}', '$.a'), json('"\ud83d\ude00"'), json_quote('😀'), length(json_extract('"\u0000x"', '$'))

SELECT json_valid(printf('%.*c', 1001, '[') || printf('%.*c', 1001, ']')), json_valid(printf('%.*c', 1000, '[') || printf('%.*c', 1000, ']'))

SELECT json_extract('{"a\u0062":1}', '$.ab'), json_extract('{"ab":1}', '$."a\u0062"'), json_set('{"a\u0062":1}', '$.ab', 2), json_extract('{"a\"b":1}', '$."a\"b"')

SELECT json_object('a"b', 1), json_array('x\y', char(10)), json_set('{}', '$."x y"', 1), json_set('{}', '$."x.y"', 1)

SELECT json_type('[1,2]', '$[#-1]'), json_type('9223372036854775808'), json_type('1e400'), json_extract('[0.0, -0.0, 1E2]', '$[0]', '$[1]', '$[2]'), json_extract('[-0.0]', '$[0]'), json_extract('[1E2]', '$[0]')

SELECT json('{"a":1e5,"b":-1.5E-3, "c": 0.0}'), json(' "\/" '), json('[1e+5]'), json('[-0e0]')

-- the subtype: JSON from a JSON function is JSON; through a subquery or a cast to text it is text

SELECT json_array(CAST(json('[1]') AS TEXT)), json_array(json('[1]') || ''), json_array(coalesce(json('[1]'), 1)), json_array((SELECT json('[1]'))), json_array(CASE WHEN 1 THEN json('[1]') END), json_array(max(json('[1]')))

SELECT json_group_array(x) FROM (SELECT json('[1]') AS x)

-- unordered
SELECT json_array(x) FROM (SELECT json('[1]') AS x UNION ALL SELECT 1)

-- NULL arguments, flags, paths

SELECT json_remove('[1,2]', NULL), json_set('[1]', NULL, 2), json_set(NULL, '$', 2), json_patch(NULL, '{}'), json_patch('{}', NULL), json_array_length(NULL), json_type('[1]', NULL)

SELECT json_valid('[1]', NULL)

SELECT json_valid('[1]', '3'), json_valid(x'5b315d'), json_valid(x'5b315d', 1)

SELECT json_type('[1]', '$[#-2]'), json_set('[1,2]', '$[#-1]', 9), json_insert('[1,2]', '$[#-1]', 9), json_replace('[1,2]', '$[#-3]', 9)

SELECT json_pretty('[1]', NULL), json_pretty(NULL), json_pretty('{"a":[[]]}', '')

SELECT json_extract('[1]', '$[0')

SELECT json_extract('[1]', '$[#-]')

SELECT json_extract('[1]', '$[-1]')

SELECT json_extract('{"a":1}', '$.a.')

SELECT json_extract('{"a":1}', '$."a')

SELECT json_array_length('[1]', 'x')

SELECT json_insert('[1]', '$[0', 2)

SELECT json('[1]', 2)

SELECT json_each.key, json_each.value FROM json_each('[5]')

SELECT * FROM json_each('[1]') WHERE json = '[1]'

SELECT json_tree.key, json_each.key FROM json_tree('[5]'), json_each('[6]')

-- a BLOB that does not look like JSONB is read as JSON text; as a value it is an error

SELECT json(x'5b315d'), json_extract(x'5b315d', '$[0]'), json_valid(x'5b315d', 4), json_valid(x'5b315d', 2)

SELECT json_array(x'5b315d')

SELECT json_object('a', zeroblob(2))

-- table-valued functions: arguments reading any source of FROM, joins, DML, errors

SELECT d.id, j.value FROM json_each(d.doc, '$.tags') AS j, docs AS d ORDER BY 1, 2

SELECT d.id, j.key FROM docs AS d CROSS JOIN json_each(d.doc) AS j WHERE j.type = 'array' ORDER BY 1, 2

SELECT count(*) FROM json_each('[1,2]') a, json_each('[1,2,3]') b WHERE a.value = b.value

SELECT d.id, sum(j.value) FROM docs d, json_each(d.doc) j WHERE j.type = 'integer' GROUP BY d.id ORDER BY d.id

SELECT o.id, o.item FROM orders o WHERE o.id IN (SELECT value FROM json_each('[1, 3, 9]')) ORDER BY o.id

DELETE FROM orders WHERE id IN (SELECT value FROM json_each('[5]'))

INSERT INTO orders(cust, item, qty) SELECT value ->> 'c', value ->> 'i', value -> 'q' FROM json_each('[{"c":"dee","i":"cap","q":4},{"c":"eve","i":"hat"}]')

SELECT * FROM orders ORDER BY id

SELECT * FROM json_each

SELECT * FROM nosuch(1)

SELECT * FROM json_each(max(1))

-- error positions and JSON5 literals

SELECT json_error_position('{a"'), json_error_position('{a x'), json_error_position('{a}'), json_error_position('{a,'), json_error_position('{ab'), json_error_position('{a'), json_error_position('{a"xyz'), json_error_position('{"a"x'), json_error_position('{"a" x')

SELECT json_error_position('[1] x'), json_error_position('[1],'), json_error_position('[1] ,'), json_error_position('{"a":1} x'), json_error_position('{a:1} x'), json_error_position('1 2'), json_error_position('"a" b'), json_error_position('[1]]'), json_error_position('{a:''b''},}')

SELECT json_error_position('[-Infinuty]'), json_error_position('[Inf]'), json_error_position('[-Inf]'), json_error_position('[-x]'), json_error_position('[+x]'), json_error_position('[--1]'), json_error_position('[-.]'), json_error_position('[.e1]'), json_error_position('[1.e1]')

SELECT json_error_position('"\x4}1"'), json_error_position('"\x"'), json_error_position('"\u12"'), json_error_position('"\u"'), json_error_position('"n\x''41"'), json_error_position('"\ud83d\u	de00"'), json_error_position('"x\u0null041"')

SELECT json_error_position('[1]0'), json_error_position('[1]/'), json_error_position('[1]/x'), json_error_position('[1] /*'), json_error_position('[1] /* x'), json_error_position('[1]x'), json_error_position('[1] tru')

SELECT json('[inf, -INF, infinity, -InFiNiTy, nan, NAN, QNaN, snan, +Infinity]'), json('{name:1, nullx:2, infx:3, truex:4, $a:5, _b:6}')

SELECT json('[-nan]')

SELECT json('{null:3}')

SELECT json('{inf:1}')

SELECT json('{nan_:3}')

SELECT json_error_position('{null:3}'), json_error_position('{true:3}'), json_error_position('{inf:3}'), json_error_position('[Infin]'), json_error_position('[-Infinuty]'), json_error_position('[-00e-0]'), json_error_position('[true_]')

-- JSONB (SQLite's binary JSON, here as SQLite 3.54 writes it) is read wherever JSON is

SELECT json(x'CC121761CB0E133135322E3548785C2279000102'), json(x'CB0F48615C2262133135322E35002B1331'), json(x'CB164430783146262E35553965393939001761495C783431'), json(x'4C1A611A78')

SELECT json_extract(x'CC121761CB0E133135322E3548785C2279000102', '$.a[2]'), json_array(x'00', x'01', x'2B1331'), json_type(x'4C1A611A78', '$.a'), json_quote(x'00')

SELECT * FROM json_each(x'CC121761CB0E133135322E3548785C2279000102', '$.a')

SELECT json_valid(x'CC121761CB0E133135322E3548785C2279000102', 4), json_valid(x'CC121761CB0E133135322E3548785C2279000102', 8), json_valid(x'CC121761CB0E133135322E3548785C2279000102', 1), json_valid(x'1B4141', 8), json_valid(x'1B4141', 4)

SELECT json(x'1B4141')

SELECT json(x'3341')

SELECT json_error_position(x'1B4141'), json_error_position(x'00')

SELECT json_group_object(k, v) FROM (SELECT 'a' k, x'00' v)

SELECT json_quote(x'ff')

-- JSONB written by the jsonb_* functions, byte for byte as SQLite writes it

SELECT hex(jsonb('{"a":[1,2.5,"x\"y",null,true,false]}'))

SELECT hex(jsonb_array('a"b', 1, 2.5, NULL, json('[1]')))

SELECT hex(jsonb('[0x1F, .5, Infinity, NaN, ''a'', "\x41"]'))

SELECT hex(jsonb_object('k', 'v'))

SELECT json(jsonb('[1]')), jsonb_extract(jsonb('{"a":[1]}'), '$.a'), typeof(jsonb_extract('{"a":[1]}', '$.a')), jsonb_extract('{"a":"s"}', '$.a')

SELECT hex(jsonb_set('{}', '$.a', 'x')), hex(jsonb_group_array(1))

SELECT '{"a":1}' -> '$.a', jsonb('[1]') -> 0, jsonb('{"a":[1]}') -> 'a'

SELECT hex(jsonb('[+1, 5., -0x10, -Infinity, ''a"b'', "a	b", ''x'']'))

SELECT hex(jsonb('{a:1, ''b'':2}'))

SELECT hex(jsonb_group_array(x)), hex(jsonb_group_object(x, x)) FROM (SELECT 'a"b' x UNION ALL SELECT 'c')

SELECT hex(jsonb_insert('[]', '$[#]', 'a"b')), hex(jsonb_replace('[1]', '$[0]', 'q')), hex(jsonb_remove('[1,2]','$[0]')), hex(jsonb_patch('{"a":1}','{"b":"x"}'))

SELECT hex(jsonb_extract('{"a":[1]}','$.a')), hex(jsonb_extract('{"a":[1]}','$.a', '$.a'))

SELECT hex(jsonb_set('{"a":"x"}', '$.b', json('{"c":"d"}'))), hex(jsonb_set('{}', '$.a', 1.5)), hex(jsonb_set('{}', '$.a', 'a"b'))

SELECT hex(jsonb('"\u0041"')), hex(jsonb(' "a" ')), hex(jsonb(1)), hex(jsonb(NULL))

SELECT hex(jsonb_array(1e300, 9e999, 0.1))

SELECT json_array(jsonb('[1]')), json_array(jsonb_array(1)), typeof(jsonb_array(1)), jsonb_array(1) -> 0, json(jsonb_object('a', jsonb('[1]')))

SELECT hex(jsonb(printf('[%s]', printf('"%.*c"', 300, 'x')))), hex(jsonb(printf('[%s]', printf('"%.*c"', 70000, 'x')))) = hex(jsonb(json(printf('[%s]', printf('"%.*c"', 70000, 'x')))))

SELECT length(jsonb(printf('[%s]', printf('"%.*c"', 70000, 'x')))), hex(substr(jsonb(printf('[%s]', printf('"%.*c"', 70000, 'x'))), 1, 8))

SELECT id, key, value FROM json_tree('[0x1F, .5, Infinity, NaN, ''a'', "\x41", {b:5.}]')

SELECT hex(jsonb_set(jsonb('{"a":[1,2,3,4,5,6]}'), '$.a[#]', 7)), hex(jsonb_remove(jsonb('{"a":[1,2,3,4,5,6,7,8]}'), '$.a[0]'))

SELECT hex(jsonb_set('{"a":1}', '$.a', jsonb('[1]'))), jsonb_set('{"a":1}', '$.a', jsonb('[1]')) -> '$'

SELECT hex(jsonb('[''a\nb'', "\t"]')), json('[''a\nb'']')

SELECT json(jsonb('[''a"b'', "x\''y"]')), hex(jsonb('[''a"b'', "x\''y"]'))

SELECT jsonb_extract(jsonb_array(1, 'x'), '$[1]'), jsonb_array(1) ->> 0, json_type(jsonb_object('a', 1), '$.a'), json_array_length(jsonb_array(1, 2))

SELECT hex(jsonb_group_array(value)) FROM json_each('[1,"a",[2]]')

SELECT jsonb('[1')

SELECT jsonb_set('{}', '$x', 1)

SELECT * FROM jsonb_each('[1,[2]]')

SELECT typeof(value), hex(value), json(value) FROM jsonb_tree('[1,[2]]')

SELECT count(*) FROM json_each('[1]') a NATURAL JOIN json_each('[1,2]') b

SELECT count(*) FROM json_each('[1]') a JOIN json_each('[1,2]') b USING (json)

SELECT 1 IN json_each('[1,2]')

-- arguments given as equalities on the hidden columns

SELECT key, value FROM json_each WHERE json = '[5,6]'

SELECT key, value FROM json_each WHERE json_each.json = '{"a":[5,6]}' AND root = '$.a'

SELECT key, value FROM json_each WHERE '[7]' = json

SELECT d.id, j.value FROM docs AS d, json_each AS j WHERE j.json = d.doc AND j.root = '$.tags' ORDER BY 1, 2

SELECT d.id, j.fullkey FROM docs AS d JOIN json_tree j ON j.json = d.doc WHERE j.type = 'integer' ORDER BY 1, 2

SELECT d.id, count(j.key) FROM docs d LEFT JOIN json_each j ON j.json = d.doc GROUP BY d.id ORDER BY 1

SELECT d.id, count(j.key) FROM docs d LEFT JOIN json_each j WHERE j.json = d.doc GROUP BY d.id ORDER BY 1

SELECT key FROM json_each('[1]') WHERE json = '[1,2]'

SELECT key FROM json_each WHERE json = '[1,2]' OR 1

-- json_array_insert and jsonb_array_insert (SQLite 3.53)

SELECT json_array_insert('[1,2,3]', '$[1]', 99)

SELECT json_array_insert('[1,2,3]', '$[#]', 99)

SELECT json_array_insert('[1,2,3]', '$[5]', 99)

SELECT json_array_insert('{"a":[1]}', '$.a[0]', 'x', '$.a[#]', 7)

SELECT json_array_insert('[1,2,3]', '$', 99)

SELECT json_array_insert('{"a":1}', '$.a', 99)

SELECT json_array_insert('[1,2,3]', '$[#-1]', 99)

SELECT json_array_insert('[1,2,3]', '$[1]', json('[4]'))

SELECT json_array_insert('[]', '$[0]', 1)

SELECT json_array_insert('[1]', '$[0].x', 1)

SELECT json_array_insert(NULL, '$[0]', 1)

SELECT json_array_insert('[1]', NULL, 1)

SELECT json_array_insert('[1]')

SELECT json_array_insert('[1]', '$[0]')

SELECT typeof(jsonb_array_insert('[1]', '$[0]', 2)), json(jsonb_array_insert('[1]', '$[0]', 2)), hex(jsonb_array_insert('[1]', '$[0]', 'two'))

SELECT json_array_insert('[1,2]', '$[1]', 'a', '$[1]', 'b')

SELECT json_array_insert('[1,2', '$[1]', 1)

SELECT json_array_insert('[1,2]', 'x', 1)

SELECT json_array_insert('[[1,2]]', '$[0][1]', 5)

SELECT json_array_insert('[1,2,3]', '$[3]', 9)

SELECT json_array_insert('[1,2,3]', '$[4]', 9)

SELECT json_array_insert('{"a":{"b":1}}', '$.a.b', 9)

SELECT json_array_insert('{"a":[]}', '$.b[0]', 9)

SELECT json_array_insert('5', '$[0]', 9)

SELECT json_array_insert('[1,2,3]', '$[#-4]', 9)

SELECT json_array_insert('[1,2,3]', '$[#-3]', 9)

SELECT json_array_insert('{}', '$.b', 9)

SELECT json_array_insert('[1]', '$.b', 9)

SELECT json_array_insert('{}', '$.b.c', 9)

SELECT json_array_insert('{}', '$.b[1]', 9)

SELECT json_array_insert('{}', '$.b[#]', 9)

SELECT json_array_insert('{"a":5}', '$.a[0]', 9)

SELECT json_array_insert('[1,2]', '$[#-0]', 9)

SELECT json_array_insert('{}', '$.b[0].c', 9)

SELECT json_array_insert('{}', '$.b[0][0]', 9)

SELECT json_array_insert('[1,2]', '$[0]', 'text', '$[0]', 2.5, '$[0]', NULL, '$[0]', x'00')

-- Core scalar functions (lang_corefunc.html) and math functions (lang_mathfunc.html): edge
-- values (NULL, negative, huge, numeric text, blobs, -0.0), result storage classes, errors.

CREATE TABLE t(a INTEGER PRIMARY KEY, b)

INSERT INTO t(b) VALUES (1), (2), (3)

SELECT changes(), total_changes(), last_insert_rowid()

CREATE TABLE u(x)

SELECT changes(), total_changes(), last_insert_rowid()

DELETE FROM t WHERE a = 1

SELECT changes(), total_changes(), last_insert_rowid()

UPDATE t SET b = b + 1

SELECT changes(), total_changes(), last_insert_rowid()

UPDATE t SET b = 0 WHERE 0

SELECT changes(), total_changes(), last_insert_rowid(), typeof(changes())

INSERT INTO u VALUES (changes())

INSERT INTO t(a, b) VALUES (100, last_insert_rowid())

SELECT * FROM t ORDER BY a

SELECT * FROM u

BEGIN

INSERT INTO t(b) VALUES (9)

SELECT last_insert_rowid(), changes(), total_changes()

ROLLBACK

SELECT last_insert_rowid(), changes(), total_changes()

INSERT INTO t(a, b) VALUES (2, 'dup')

SELECT last_insert_rowid(), changes(), total_changes()

SELECT changes(1)

SELECT sqlite_version(), typeof(sqlite_version())

SELECT sqlite_version(1)

-- math: classes and domain errors

SELECT acos(1), acos(2), acos(-1.5), asin(0), asin(-2), atan(0), acosh(1), acosh(0.5), asinh(0), atanh(0), atanh(1), atanh(-2)

SELECT cos(0), sin(0), tan(0), cosh(0), sinh(0), tanh(0), tanh(1000), sinh(1000), cosh(-1000), sin(-0.0), typeof(cos(0))

SELECT exp(0), exp(1000), exp(-1000), ln(1), ln(0), ln(-1), log10(1000), log10(0.001), log2(8), log2(0.25), log(100), log(0), log(-5)

SELECT log(2, 8), log(10, 1000), log(0.5, 8), log(1, 8), log(-2, 8), log(2, 0), log(2, -8), log(2, 'abc'), log('x', 8), log(2, x'38'), log(x'32', 8), log(NULL, 8), log(2, NULL)

SELECT sqrt(4), sqrt(2), sqrt(-1), sqrt(0), sqrt(-0.0), sqrt(1e308), sqrt('4'), sqrt(' 4 '), sqrt('4x'), sqrt('1e2'), sqrt(x'34'), sqrt(NULL), sqrt('')

SELECT ceil(1.2), ceil(-1.2), ceil(-0.5), ceil(5), typeof(ceil(5)), ceil('12'), typeof(ceil('12')), ceil('1.5'), ceil('99999999999999999999'), ceil(x'31'), ceil('abc'), ceil(NULL), ceil(9223372036854775807), ceil(1e300)

SELECT ceiling(2.5), floor(2.5), floor(-2.5), floor(-0.0), floor(7), typeof(floor(7)), floor('-3'), floor('-3.5'), trunc(2.7), trunc(-2.7), trunc(-9223372036854775808), typeof(trunc(1.0)), trunc(' 8 '), trunc(-0.4)

SELECT mod(7, 3), mod(-7, 3), mod(7, -3), mod(7.5, 2), mod(7, 0), mod(0, 0), mod('7', '3'), mod(7, 'x'), mod(NULL, 1), mod(1e300, 7), typeof(mod(6, 3)), mod(-0.0, 1)

SELECT pow(2, 10), power(2, 0.5), pow(2, -1), pow(0, 0), pow(0, -1), pow(-8, 1.0/3), pow(-2, 3), pow(10, 400), pow('2', '3'), pow(2, NULL), typeof(pow(2, 2)), pow(1, 1e300)

SELECT atan2(1, 1), atan2(0, -1), atan2(0, 0), atan2(-0.0, -1), atan2(1, 0), atan2('1', x'31'), atan2(NULL, 1)

SELECT pi(), degrees(pi()), radians(180), degrees(1), radians(1), degrees(-0.0), radians('90'), degrees(NULL), degrees('abc'), typeof(degrees(0))

SELECT pi(1)

SELECT mod(1)

SELECT log(1, 2, 3)

SELECT sqrt()

SELECT round(sin(1), 12), round(cos(2), 12), round(tan(0.5), 12), round(asin(0.5), 12), round(atan(2), 12), round(exp(1), 12), round(ln(10), 12), round(log10(2), 12), round(log2(10), 12), round(sinh(1), 12), round(cosh(1), 12), round(tanh(0.5), 12), round(acosh(2), 12), round(asinh(1), 12), round(atanh(0.5), 12), round(atan2(2, 3), 12)

CREATE TABLE m(x)

INSERT INTO m VALUES (NULL), (0), (-0.0), (1), (-1), (2.5), (-2.5), (9223372036854775807), (-9223372036854775808), (1e308), ('12'), (' -3.5 '), ('1e3'), ('abc'), ('3x'), (''), (x'3132'), (x'')

SELECT rowid, sign(x), ceil(x), floor(x), trunc(x), sqrt(x), ln(x), exp(x) > 0, abs(x) FROM m WHERE rowid NOT IN (8, 9) ORDER BY rowid

SELECT rowid, sign(x), ceil(x), floor(x), trunc(x), typeof(trunc(x)) FROM m WHERE rowid IN (8, 9) ORDER BY rowid

SELECT sign(-3), sign(0.0), sign(-0.0), sign(2.5), sign('-2'), sign('abc'), sign(x'31'), sign(NULL), sign(9223372036854775807), sign(-1e-300), typeof(sign(2.5))

-- strings

SELECT concat(NULL), concat(1, 2.5, x'41', NULL, 'z'), concat('a'), concat(NULL, NULL), typeof(concat(NULL)), concat(-0.0, 1e300)

SELECT concat_ws(',', 1, NULL, 'a', ''), concat_ws(NULL, 1, 2), concat_ws(x'2d', 1, 2), concat_ws('', 'a', 'b'), concat_ws(', ', NULL), typeof(concat_ws(',', NULL)), concat_ws(0, 1, 2, 3)

SELECT concat()

SELECT concat_ws(',')

SELECT octet_length('héllo'), octet_length(12.5), octet_length(x'0001'), octet_length(NULL), octet_length(-0.0), octet_length('a' || char(0) || 'b'), octet_length(''), octet_length(-12), length('héllo')

SELECT unhex('4142'), unhex('414'), unhex('41 42', ' '), unhex(' 4142', ' '), unhex('4 142', ' '), unhex('41-42', '-'), unhex(''), unhex(NULL), unhex('4142', NULL), unhex('zz'), unhex('41é42', 'é'), unhex(x'3431'), unhex(4142), typeof(unhex('')), unhex('aBcD'), unhex('41-42', '-+'), unhex('41+-42', '-+'), unhex('41 42')

SELECT like('a%', 'ABC'), like('a%', NULL), like(NULL, 'a'), like('a\%', 'a%', '\'), like('a\%', 'ab', '\'), like('a', 'a', NULL), like(1, 1), like('_', 'é'), like(x'25', 'x'), like('%b_', 'abc'), like('ab', 'AB')

SELECT glob('a*', 'abc'), glob('A*', 'abc'), glob(NULL, 'a'), glob('[a-c]?', 'bz'), glob('*', ''), glob(1, 1)

SELECT like('a', 'a', 'xy')

SELECT like(NULL, NULL, 'ab')

SELECT like('a', 'a', '')

SELECT glob('a', 'a', 'b')

SELECT like('a')

SELECT like(printf('%.50001c', 'a'), 'a')

SELECT like(printf('%.50000c', 'a'), 'a'), glob(printf('%.50000c', 'a'), 'a')

SELECT glob(printf('%.50001c', 'a'), NULL)

SELECT b, like('%3', b), glob('*4', b) FROM t ORDER BY a

SELECT likelihood(5, 0.5), likelihood('x', 1.0), likelihood(NULL, 0.0), likelihood(5, 1e0), likelihood(5, .5), likely('x'), unlikely(NULL), typeof(likely(1.5)), unlikely(x'00')

SELECT likelihood(5, 2.0)

SELECT likelihood(5, 1)

SELECT likelihood(5, -0.5)

SELECT likelihood(5, '0.5')

SELECT likelihood(5, NULL)

SELECT likelihood(5)

SELECT likelihood(a, b) FROM t

SELECT a FROM t WHERE likely(b > 2) AND unlikely(a < 100) AND likelihood(a > 0, 0.9) ORDER BY a

SELECT soundex('Robert'), soundex('Rupert'), soundex(''), soundex(NULL), soundex('123'), soundex('Tymczak'), soundex('Pfister'), soundex('Ashcraft'), soundex('héllo'), soundex(12), soundex('a'), soundex('Lee'), soundex(' 9x'), soundex('Honeyman')

SELECT unistr('\0041\u00e9\+01F600\U0001F600\\x'), unistr(NULL), unistr(5), unistr(''), unistr('plain'), hex(unistr('a\0000x')), length(unistr('a\0000x'))

SELECT hex(unistr('\U00110000')), hex(unistr('\+00d800')), hex(unistr('\UFFFFFFFF')), unistr('\U0010FFFF') = char(1114111)

SELECT unistr('\q')

SELECT unistr('\12')

SELECT unistr('\u004g')

SELECT unistr('abc\')

SELECT unistr_quote('a' || char(10) || 'b'), unistr_quote('x'), unistr_quote(5), unistr_quote(NULL), unistr_quote(x'00'), unistr_quote('a\b'), unistr_quote(char(7)), unistr_quote(1.5), unistr_quote(char(31) || '''x'), unistr_quote('a\b' || char(10)), unistr_quote('é' || char(9))

SELECT hex(char(55296)), hex(char(1114112)), hex(char(-1)), hex(char(0x80, 0x800, 0x10000))

SELECT typeof(randomblob(0)), length(randomblob(0)), length(randomblob(-5)), length(randomblob(5)), length(randomblob(NULL)), length(randomblob('3')), randomblob(16) = randomblob(16)

SELECT trim('  x  '), trim('xxaxx', 'x'), trim('abcba', 'ab'), ltrim('ééxé', 'é'), rtrim('x', ''), trim(NULL, 'x'), trim('x', NULL), trim(123, '13'), typeof(trim(x'41')), trim(x'414141', x'41'), trim(12.50, '0'), ltrim('  x'), rtrim('x  '), hex(trim('éaé', x'c3')), ltrim('aXb', 'a' || char(0) || 'X'), rtrim(-0.0, '.0')

SELECT substr('hello', 0), substr('hello', 0, 2), substr('hello', -2), substr('hello', -10, 3), substr('hello', 2, -1), substr('hello', 10), substr(x'0102', 2), substr(12345, 2, 2), substr('héllo', 2, 2), substr('hello', 3, -5), substr('hello', 1.9), substr('hello', '2')

SELECT substr('hello', 2, 9223372036854775807), substr('hello', -9223372036854775808, 3), substr('hello', 0, -1), substr('hello', -1, -2), substr(NULL, 1), substr('hello', NULL), substr('hello', 1, NULL), substr(x'', 1), typeof(substr(x'010203', 2)), substring('hello', 2, 3)

SELECT substr('abcdef', -9223372036854775808), substr('abcdef', -9223372036854775807), substr('abcdef', -1e308), substr('abcdef', -9.2e18), substr('abcdef', 2, -9223372036854775808), substr('abcdef', 0, -9223372036854775808), substr('abcdef', -100, -9223372036854775808), substr(x'010203', -9223372036854775808), substr(x'00', -2.5, -1e308), substr('abcdef', 3, 4294967298), substr('abcdef', -2147483649), substr('abcdef', 9223372036854775807)

SELECT min(1, 'a', x'00', NULL), max(1, 'a', x'00'), max(1, 2.0), min(2.0, 2), max(-0.0, 0), typeof(max(1, 1.0)), min('B', 'a' COLLATE NOCASE), max('B', 'a'), min(x'01', x'0001'), max(1)

SELECT round(2.5), round(-2.5), round(1.005, 2), round(NULL), round(1.5, NULL), round('1.55', 1), round(12345.6789, -1), round(1e300, 2), typeof(round(5)), round(-0.4), round(9223372036854775807), round(0.5e-310, 320), round('abc'), round(x'31'), round(-0.0)

-- printf's float conversions: -0.0, the # and ! flags, + against space, thousands in %g,
-- %u of a negative, at most 16 significant digits (17 only when 16 do not read back)

SELECT printf('%f|%e|%g|%.0f|%5.1f|%E|%G|%+f|% e', -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0)

SELECT printf('%!f|%!.0f|%!e|%!.2e|%!g|%!.10g|%!#.3f|%!g|%!g|%!.3g', 2.5, 3.0, 2.5, 100.0, 2.5, 1.0, 2.0, 1e20, 1e-5, 1234.5)

SELECT printf('%u|%u|%5u|%x|%o|%,u|%.3u|%+u', -1, -9223372036854775808, -5, -1, -1, -1234567, -1, -1)

SELECT printf('%#.0f|%#.0e|%#g|%#.3g|%#.20g|%#.17g|%#g|%#G|%!#g|%#.0g|%#e|%#f', 3.0, 3.0, 2.0, 1.0, 0.1, 0.1, 1e20, 1e-10, 2.0, 5.0, 2.0, 2.0)

SELECT printf('%#g|%#e|%#.0g|%#.2g|%#g|%#+g|%# e|%#g|%#g|%#10.3g|%-#10.3g|%#010.3g', 0.0, 0.0, 0.0, -0.0, -2.5, 2.5, 2.5, 1e300, -1e-300, 3.14159, 3.14159, -3.14159)

SELECT printf('%.20e|%.17g|%.20g|%.16g|%.3e|%.0e|%g|%g|%.3g|%.17g|%!.16E|%!.17g', 0.1, 0.1, 0.1, 1.0/3, 2.5e-7, 7.5, 100000, 1000000, 0.0001234, 1e300, 1e-5, 99999.95)

SELECT printf('|% +d|%+ d|% +.1f|%+ .1f|% +e|%+ g|', 5, 5, 2.5, 2.5, 2.5, 2.5)

SELECT printf('|%,g|%,.10g|%,g|%,e|%,d|%,.3f|', 1234567.0, 1234567.0, 1e20, 1234567.0, -1234567, 1234.5)

SELECT printf('|%5%|%-5%|%05%|%,.6d|%0,8d|%.3x|%#.6o|%0#12.0x|%+u|% 5u|%-0*.1d|%#5x|%#o|', 1234, 1234, 255, 8, 2, 5, 5, 3, 65, 0, 0)

SELECT printf('|%.1q|%.0Q|%12.3Q|%.2w|%5.0Q|', NULL, NULL, NULL, NULL, NULL)

SELECT ifnull(NULL, 2), ifnull(1, abs(-9223372036854775808)), nullif(1, 1), nullif(1, '1'), nullif('a', 'A' COLLATE NOCASE), nullif(NULL, 1), coalesce(NULL, NULL, 3)

SELECT iif(NULL, 1, 2), iif(1, 2), iif(0, 2), if(1, 2), if(0, 1, 2), iif(0, 1, 0, 2, 3), iif(NULL, 1, 'a', 2, '3', 9), iif(0, 1, 0, 2), iif(1 OR abs(-9223372036854775808), 'y', 'n')

SELECT iif(1)

SELECT if()

-- LIKE and GLOB operators: blobs match nothing, the pattern limit, ESCAPE

SELECT 'x' LIKE x'25', x'78' LIKE 'x', 'x' NOT LIKE x'25', 'x' GLOB x'2a', x'78' NOT GLOB 'x', NULL LIKE x'25', 'x' LIKE x'25' ESCAPE NULL

SELECT 'a%' LIKE 'a\%' ESCAPE '\', 'ab' LIKE 'a\%' ESCAPE '\', 'a_c' LIKE 'a|_c' ESCAPE '|', 'abc' NOT LIKE 'a|_c' ESCAPE '|', 'a' LIKE 'a' ESCAPE NULL, NULL LIKE 'a' ESCAPE 'é'

SELECT 'a' LIKE 'a' ESCAPE 'xy'

SELECT 'a' LIKE printf('%.50001c', 'a')

SELECT 'a' NOT GLOB printf('%.50000c', '*')

-- changes() after statements that fail

CREATE TABLE c(a INTEGER PRIMARY KEY, b UNIQUE)

INSERT INTO c VALUES (1, 1), (2, 2)

SELECT changes(), total_changes()

INSERT OR ROLLBACK INTO c VALUES (3, 3), (4, 1)

SELECT changes(), total_changes()

INSERT INTO c VALUES (5, 5)

INSERT OR FAIL INTO c VALUES (6, 6), (7, 1)

SELECT changes(), total_changes()

INSERT INTO c VALUES (8, 8)

INSERT INTO nosuch VALUES (1)

SELECT changes(), total_changes()

UPDATE c SET nosuch = 1

SELECT changes(), total_changes()

INSERT INTO c VALUES (9, abs(-9223372036854775808))

SELECT changes(), total_changes(), last_insert_rowid()

INSERT INTO c VALUES (10, 10)

UPDATE c SET b = b + 1

SELECT changes(), total_changes()

DELETE FROM c WHERE a > 5

SELECT changes(), total_changes()

INSERT INTO c VALUES (11, 'x' LIKE printf('%.50001c', 'a'))

SELECT changes(), total_changes(), last_insert_rowid()

CREATE INDEX ci ON c(b)

DROP INDEX ci

SELECT changes(), total_changes()

SELECT * FROM c ORDER BY a

-- last_insert_rowid() in a multi-row INSERT: each row sees the row inserted before it, unless a
-- row reads the target table (SQLite evaluates every row first then); a failing row leaves the
-- rowid of the rows undone; WITHOUT ROWID inserts leave it

INSERT INTO c(b) VALUES (last_insert_rowid() * 100), (last_insert_rowid() * 100), (CASE WHEN last_insert_rowid() > 0 THEN -last_insert_rowid() END)

SELECT a, b FROM c WHERE a > 11 ORDER BY a

INSERT INTO c(b) VALUES ('first'), (abs(-9223372036854775808))

SELECT last_insert_rowid(), changes()

INSERT OR IGNORE INTO c(a, b) VALUES (1, 'dup'), (300, last_insert_rowid())

SELECT a, b FROM c WHERE a = 300

INSERT INTO c(b) VALUES ((SELECT count(*) FROM c)), (last_insert_rowid())

SELECT a, b, last_insert_rowid() FROM c WHERE a > 10 ORDER BY a

CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID

INSERT INTO w VALUES ('a', 1), ('b', 2)

SELECT changes(), last_insert_rowid()

-- load_extension fails when it is called, as with SQLite's extension loading off (its default)

SELECT load_extension('x')

SELECT load_extension(NULL, 'entry')

SELECT load_extension()

SELECT 1 WHERE 0 AND load_extension('x')

SELECT load_extension(b) FROM t WHERE b = 'none'

-- subtype and compile options

SELECT subtype(json('1')), subtype('a'), subtype(NULL), subtype(json_extract('[1]', '$[0]')), subtype(json_array()), subtype('[1]' -> '$'), subtype(1), subtype(x'00')

SELECT sqlite_compileoption_used(NULL), sqlite_compileoption_used(5) IN (0, 1), typeof(sqlite_compileoption_used('x'))

SELECT subtype()

-- Date and time functions (lang_datefunc.html): time values, modifiers, formats, bad input.
-- 'now' is never compared as a value (it differs between the engines' runs); its properties are.

SELECT date('2024-03-15'), time('2024-03-15 13:45:30'), datetime('2024-03-15 13:45:30.123'), julianday('2024-03-15'), unixepoch('2024-03-15 13:45:30')

SELECT date('2024-03-15T13:45'), datetime('2024-03-15 13:45'), datetime('13:45'), time('13:45:30.5'), datetime('2024-03-15 13:45:30Z'), datetime('2024-03-15 13:45:30+05:30'), datetime('2024-03-15 13:45:30 -08:00')

SELECT typeof(date('2024-01-01')), typeof(julianday('2024-01-01')), typeof(unixepoch('2024-01-01')), typeof(strftime('%s','2024-01-01')), typeof(timediff('2024-01-01','2023-01-01'))

SELECT date(2460000.5), datetime(2460000.25), datetime('2460000.75'), julianday(2460000), date(0), datetime(0.5), date(5373484.4), date(5373484.5), date(-1)

SELECT datetime(1700000000, 'unixepoch'), datetime(1700000000.5, 'unixepoch', 'subsec'), datetime('1700000000', 'unixepoch'), datetime(-86400, 'unixepoch'), date(253402300799, 'unixepoch'), date(253402300800, 'unixepoch')

SELECT datetime(1700000000, 'auto'), datetime(2460000.5, 'auto'), datetime(-210866760000, 'auto'), datetime(-210866760001, 'auto'), datetime('2024-01-01', 'auto'), datetime(1e20, 'auto'), datetime(2460000.5, 'julianday'), datetime(2460000.5, '+1 day', 'auto')

SELECT date('2024-01-01', '+1 day'), date('2024-01-01', '-1 day'), date('2024-01-01', '+7 days'), datetime('2024-01-01', '+36 hours'), datetime('2024-01-01', '+90 minutes'), datetime('2024-01-01', '-1 second'), datetime('2024-01-01', '+1.5 hours'), datetime('2024-01-01', '+0.25 days')

SELECT date('2024-01-31', '+1 month'), date('2024-01-31', '+1 month', 'floor'), date('2024-01-31', '+1 month', 'ceiling'), date('2023-01-31', '+1 month'), date('2024-03-31', '-1 month'), date('2024-03-31', '-1 month', 'floor'), date('2024-05-31', '+1 month'), date('2024-12-15', '+1 month'), date('2024-01-15', '-1 month'), date('2024-01-15', '-13 months'), date('2024-01-15', '+25 months')

SELECT date('2024-02-29', '+1 year'), date('2024-02-29', '+1 year', 'floor'), date('2024-02-29', '-1 year'), date('2024-02-29', '+4 years'), date('2023-06-30', '+1.5 years'), date('2024-02-29', '-100 years'), date('2000-02-29', '+100 years', 'floor')

SELECT date('2024-07-04', 'start of month'), date('2024-07-04', 'start of year'), datetime('2024-07-04 15:16:17', 'start of day'), date('2024-07-04', 'start of month', '+1 month', '-1 day'), date('2024-02-10', 'start of month', '+1 month', '-1 day'), date('2023-02-10', 'start of month', '+1 month', '-1 day')

SELECT date('2024-01-01', 'weekday 0'), date('2024-01-01', 'weekday 1'), date('2024-01-01', 'weekday 6'), date('2024-01-06', 'weekday 6'), date('2024-01-01', 'weekday 7'), date('2024-01-01', 'weekday 1.5'), date('2024-01-01', 'weekday -1'), date('2024-01-01', 'weekday'), date('2024-01-01', 'start of week')

SELECT date('2024-10-15', 'start of month', '+1 month', 'weekday 4'), date('2024-12-25', 'start of year', 'weekday 1'), date('2024-01-01', 'weekday 0', 'weekday 1')

SELECT datetime('2024-01-01', '+01:30'), datetime('2024-01-01', '-00:00:01'), datetime('2024-01-01', '+23:59:59.999', 'subsec'), datetime('2024-01-01', '12:30'), datetime('2024-01-01', '+1:30'), datetime('2024-01-01', '+10:60'), datetime('2024-01-01', '+24:00'), datetime('2024-01-01', '+24:01')

SELECT datetime('2024-03-31', '+0001-02-03'), datetime('2024-03-31', '-0001-01-01'), datetime('2024-03-31', '+0001-01-01 10:00'), datetime('2024-03-31', '-0000-00-00 00:00:30'), datetime('2024-01-31', '+0000-01-00', 'floor'), datetime('2024-03-31', '+10000-00-00'), datetime('2024-01-31', '+00000-01-00'), datetime('2024-01-31', '+0000-12-00'), datetime('2024-01-31', '+0000-00-31'), datetime('2024-01-31', '0000-01-00'), datetime('2024-01-31', '+000-01-00')

SELECT datetime('2024-01-01 10:00', '+1 hour', '-30 minutes', '+15 seconds'), date('2024-01-01', '+1 DAYS'), date('2024-01-01', 'START OF MONTH'), date('2024-01-01', '+1e2 days'), date('2024-01-01', '+5'), date('2024-01-01', '5 days'), date('2024-01-01', ' +1 day'), date('2024-01-01', '+1 day '), date('2024-01-01', '+1 fortnight'), date('2024-01-01', '+1  days')

SELECT date('2024-01-01', '+5373485 days'), date('2024-01-01', '+14713 years'), date('2024-01-01', '-176546 months'), date('0000-01-01', '-1 day'), date('-4713-11-24', '-1 day'), date('9999-12-31', '+1 day'), datetime('9999-12-31 23:59:59.999', 'subsec'), datetime('-4713-11-24 12:00:00')

SELECT date('2023-02-31'), datetime('2023-02-31 10:00'), date('2023-02-31', 'floor'), date('2023-02-31', 'ceiling'), date('2023-02-31', 'start of day'), date('2023-04-31', '+0 days'), date('2024-02-30', 'floor'), date('2023-02-32')

SELECT date('-0044-03-15'), datetime('-0001-12-31 23:59:59', '+1 second'), date('0000-02-29'), date('-0001-02-29'), date('-0004-02-29'), date('1900-02-29'), date('2000-02-29'), date('2100-02-29'), julianday('-4713-11-24 12:00'), julianday('0000-01-01'), strftime('%Y|%F|%G', '-0044-03-15')

SELECT time('24:00'), time('24:00:00.000'), time('24:00:00.5'), time('24:00:01'), datetime('2024-12-31 24:00'), datetime('2024-02-31 24:00', 'floor'), datetime('2024-01-01 24:00 -01:00'), date('24:00'), time('24:00+01:00')

SELECT time('12:00:00.9999'), time('12:00:00.9999', 'subsec'), datetime('2024-01-01 10:00:00.12345', 'subsec'), datetime('2024-01-01 10:00:00.0005', 'subsec'), unixepoch('2024-01-01 10:00:59.9995', 'subsec'), unixepoch('2024-01-01 00:00:00.5', 'subsecond'), julianday('2024-01-01 00:00:00.001'), datetime(2460000.5123, 'subsec')

SELECT unixepoch('1970-01-01'), unixepoch('1969-12-31 23:59:59.5'), strftime('%s', '1969-12-31 23:59:59.5'), strftime('%s', '1969-12-31 23:59:59.5', 'subsec'), unixepoch('-4713-11-24 12:00:00'), unixepoch('9999-12-31 23:59:59'), unixepoch(2460000.5), unixepoch(0, 'unixepoch')

SELECT strftime('%Y-%m-%d %H:%M:%S', '2024-02-29 13:05:09'), strftime('%d|%e|%f|%F|%H|%I|%j|%J|%k|%l|%m|%M|%p|%P|%R|%s|%S|%T|%u|%w|%Y|%%', '2024-07-04 09:08:07.654')

SELECT strftime('%e|%G|%g|%V|%U|%W|%u|%w|%j|%k|%l|%I|%p|%P', '2021-01-03 00:05:09'), strftime('%V %G %g', '2024-12-30'), strftime('%V %G %g', '2027-01-01'), strftime('%V %G', '2020-12-31'), strftime('%V %G', '2026-01-01'), strftime('%U %W', '2024-01-07'), strftime('%U %W', '2023-01-01')

SELECT strftime('%I %l %p', '2024-01-01 12:00'), strftime('%I %l %P', '2024-01-01 23:59'), strftime('%I %l %p', '2024-01-01 00:30'), strftime('%j', '2024-12-31'), strftime('%j', '2023-12-31'), strftime('%J', '2024-01-01 10:11:12.345'), strftime('%f', '2024-01-01 10:00:05.5'), strftime('%f', '2024-01-01 10:00:59.9999')

SELECT strftime('%Q', '2024-01-01'), strftime('%', '2024-01-01'), strftime('abc%', '2024-01-01'), strftime(NULL, '2024-01-01'), strftime('%Y', NULL), strftime('', '2024-01-01'), strftime('%%%d%%', '2024-01-09'), strftime('%Y', 'bad'), strftime(20240101, '2024-01-01')

SELECT timediff('2024-03-01', '2024-01-31'), timediff('2024-01-31', '2024-03-01'), timediff('2024-01-01 12:00:00.5', '2023-12-31'), timediff('2024-01-01', '2024-01-01'), timediff('2025-02-28', '2024-02-29'), timediff('2024-02-29', '2025-02-28'), timediff('2024-05-31', '2024-02-29 12:00')

SELECT timediff('x', '2024-01-01'), timediff(NULL, '2024-01-01'), timediff('2024-01-01', 2460000.5), timediff('9999-12-31 23:59:59', '-4713-11-24 12:00'), timediff('-4713-11-24 12:00', '9999-12-31 23:59:59'), timediff('2000-03-01', '1999-03-01 00:00:00.001')

SELECT date(''), date('  2024-01-01'), date('2024-01-01  '), date('2024-1-1'), date('24-01-01'), date('2024-01-01 10'), date('2024-01-01 10:00:'), date('2024-01-01x'), date('2024-13-01'), date('2024-00-10'), date('2024-01-00'), date('2024/01/01'), date('10000-01-01')

SELECT time('10:00:00.'), time('10:00:00.x'), time('10:00:60'), time('10:60'), time('9:00'), time('10:00:5'), time(' 10:00'), time('10:00 Z'), time('10:00z'), time('10:00 +01'), time('10:00 +1:00'), time('10:00+14:59'), time('10:00+15:00'), time('10:00 Zulu')

SELECT datetime('2024-01-01T10:00:00Z'), datetime('2024-01-01TT10:00'), datetime('2024-01-01 T 10:00'), datetime('2024-01-01	10:00'), datetime('2024-01-01T'), datetime('-0000-01-01'), date('2024-01-01 10:00:00.123456789')

SELECT date(NULL), date('2024-01-01', NULL), date(NULL, '+1 day'), date('2024-01-01', ''), date('2024-01-01', '  '), date('2024-01-01', 5), date('2024-01-01', '5'), date('2024-01-01', 5.5), date('2024-01-01', x'2b3120646179'), date(x'323032342d30312d3031'), date(x'00'), date(x'')

SELECT date(20240101), date('20240101'), date('1e3'), date(1.5e300), date(-0.0), datetime(0, 'unixepoch', 'unixepoch'), datetime(0, 'auto', 'auto'), datetime(1, 'start of day', 'unixepoch'), datetime('2024-01-01', 'unixepoch'), datetime(2460000.5, '+1 day', 'julianday'), datetime('2024-01-01', 'julianday')

SELECT datetime('now', 'unixepoch'), datetime('now', 'auto'), datetime('now', 'julianday'), datetime('2024-01-01', 'subsec', 'subsecond'), time('2024-01-01', 'subsec')

SELECT date('now') IS NOT NULL, length(datetime()), date() = date('now'), typeof(julianday()), julianday('now') > 2460000, unixepoch() > 1700000000, typeof(unixepoch()), typeof(unixepoch('now', 'subsec')), datetime('NOW') = datetime('now'), length(datetime('subsec')), length(datetime('subsecond'))

SELECT typeof(current_date), length(current_date), length(current_time), length(current_timestamp), current_time = time('now'), current_timestamp = datetime('now'), current_date = date('now'), current_timestamp = CURRENT_TIMESTAMP

SELECT datetime('now', 'localtime') IS NOT NULL, datetime('now', 'utc') = datetime('now'), datetime('2024-01-01 10:00Z', 'utc'), datetime('2024-01-01 10:00+02:00', 'utc')

SELECT date(), time(1, 2), julianday('2024-01-01', '+1 day', 'start of month', '+1 month', '-1 second'), strftime('%s')  > '1700000000'

-- CURRENT_* keywords and 'now' in DEFAULT; 'now' is one time per statement.

CREATE TABLE ev(id INTEGER PRIMARY KEY, note TEXT, at TEXT DEFAULT CURRENT_TIMESTAMP, d TEXT DEFAULT CURRENT_DATE, t TEXT DEFAULT CURRENT_TIME, x TEXT DEFAULT (datetime('now', 'subsec')), j REAL DEFAULT (julianday('now')))

CREATE TABLE ck(a, CHECK (a < datetime('now')))

CREATE TABLE ck2(a, CHECK (a < date('2030-01-01', 'localtime')))

CREATE TABLE ck3(a, CHECK (datetime(a) IS NOT NULL))

CREATE TABLE ck4(a, CHECK (a < CURRENT_DATE), CHECK (strftime('%Y', a) > '1999'), CHECK (unixepoch(a, 'utc') > 0))

CREATE TABLE ck5(a, CHECK (timediff(a, 'now') IS NOT NULL))

INSERT INTO ev(note) VALUES ('a'), ('b'), ('c')

INSERT INTO ev(note) SELECT note || '2' FROM ev

INSERT INTO ev(note) SELECT note || '3' FROM ev

INSERT INTO ev(note) SELECT note || '4' FROM ev

INSERT INTO ev(note) SELECT note || '5' FROM ev

SELECT count(*), count(at), length(min(at)), length(min(d)), length(min(t)), length(min(x)), typeof(min(j)) FROM ev

SELECT count(DISTINCT x) FROM ev WHERE note IN ('a', 'b', 'c')

SELECT count(DISTINCT x), count(DISTINCT j), count(DISTINCT at) FROM ev WHERE note LIKE '%5'

SELECT count(*) FROM ev WHERE at = datetime(x) AND d = date(x) AND t = time(x)

SELECT count(DISTINCT datetime('now', 'subsec') || strftime('%f', 'now') || julianday('now')) FROM ev

SELECT count(*) FROM ev WHERE at <= CURRENT_TIMESTAMP AND at > datetime('now', '-1 hour')

SELECT count(*) FROM ev WHERE julianday(at) BETWEEN julianday('now') - 1 AND julianday('now')

UPDATE ev SET note = CURRENT_DATE WHERE id = 1

SELECT note = date('now') FROM ev WHERE id = 1

INSERT INTO ck VALUES ('2000-01-01')

INSERT INTO ck2 VALUES ('2000-01-01')

INSERT INTO ck3 VALUES ('2000-01-01')

INSERT INTO ck3 VALUES ('bad')

INSERT INTO ck3 VALUES ('now')

INSERT INTO ck4 VALUES ('2000-01-01')

INSERT INTO ck4 VALUES ('1990-01-01')

INSERT INTO ck5 VALUES ('2000-01-01')

CREATE INDEX ev_at ON ev(at)

SELECT count(*) FROM ev WHERE at >= datetime('now', '-1 day')

SELECT count(*) FROM ev WHERE at >= datetime('now', '+1 day')

SELECT date('2024-01-01', '+' || n || ' months') FROM (SELECT 1 AS n UNION ALL SELECT 11 UNION ALL SELECT 13) ORDER BY 1

SELECT count(*) FROM ev WHERE strftime('%Y', at) = strftime('%Y', 'now')

SELECT date('2024-01-01', 'localtime', 'foo')

SELECT date('2024-01-01', 'start of')

SELECT strftime()

SELECT "current_date"() IS NOT NULL, length(`current_time`()), typeof(current_timestamp)

SELECT timediff('2024-01-01')

package engine

// Date and time functions (lang_datefunc.html): date, time, datetime, julianday, unixepoch,
// strftime, timediff, and current_date, current_time, current_timestamp (the functions behind
// the CURRENT_DATE, CURRENT_TIME and CURRENT_TIMESTAMP keywords).
//
// A time value is held as SQLite's functions hold it: a julian day number in milliseconds (jd)
// and broken-down fields (year-month-day, hour:minute:seconds, a zone offset), each part with
// a flag saying whether it is current; each step computes the part it needs from the other.
// The calendar is the proleptic Gregorian one, for julian days 0 (-4713-11-24 12:00:00) to
// 5373484.49999 (9999-12-31 23:59:59.999); anything outside, and any input or modifier that
// does not parse, makes the result NULL, never an error.
//
// 'now' is read once per execution of a statement (execCtx.now): every row of one statement,
// and every call in it, sees the same time, as in SQLite.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/sql/value"
)

func init() {
	for _, f := range []*scalarFunc{
		dateFunc("date", 0, -1, dateLazy(outDate)),
		dateFunc("time", 0, -1, dateLazy(outTime)),
		dateFunc("datetime", 0, -1, dateLazy(outDatetime)),
		dateFunc("julianday", 0, -1, dateLazy(outJulianday)),
		dateFunc("unixepoch", 0, -1, dateLazy(outUnixepoch)),
		dateFunc("strftime", 0, -1, lazyStrftime),
		dateFunc("timediff", 2, 2, lazyTimediff),
		// The CURRENT_* keywords: allowed in CHECK constraints, as in SQLite.
		{name: "current_date", minArgs: 0, maxArgs: 0, lazy: dateLazy(outDate)(nil)},
		{name: "current_time", minArgs: 0, maxArgs: 0, lazy: dateLazy(outTime)(nil)},
		{name: "current_timestamp", minArgs: 0, maxArgs: 0, lazy: dateLazy(outDatetime)(nil)},
	} {
		scalarFuncs[f.name] = f
	}
}

// clock and localZone are the current time and the zone of 'localtime' and 'utc' (tests
// replace them).
var (
	clock     = time.Now
	localZone = func() *time.Location { return time.Local }
)

const (
	msPerDay = 86400000
	// unixEpochJD is the julian day of 1970-01-01 00:00:00 in milliseconds.
	unixEpochJD = 210866760000000
	// maxJD is the last valid julian day in milliseconds (9999-12-31 23:59:59.999).
	maxJD = 464269060799999
)

// dtime is a time value being computed.
type dtime struct {
	jd       int64   // julian day in milliseconds, when validJD
	y, mo, d int     // the date, when validYMD (d may pass the month's end: it carries over)
	h, mi    int     // when validHMS
	s        float64 // seconds and their fraction, when validHMS
	tz       int     // zone offset in minutes from a parsed text, applied when jd is computed
	raw      float64 // a number not yet interpreted, when rawS
	floor    int     // days a date past its month's end carried over ('floor' takes them back)

	validJD, validYMD, validHMS bool
	rawS                        bool // the value is a number whose meaning a modifier may still choose
	bad                         bool // a computation failed (fail): NULL unless 'utc' starts afresh
	subsec                      bool // output with milliseconds
	utc, local                  bool // known to be UTC / local time ('utc' and 'localtime' do nothing then)
	impure                      bool // the clock or the zone was needed where the call must be pure
	now                         nowSource
}

// dateImpl makes a date function's evaluation; a non-nil impure is where the call must be
// pure (a CHECK constraint), and the call fails if it reads the clock or the time zone.
type dateImpl func(impure *impureUse) func([]expr, *env) (value.Value, error)

// impureUse says where a call must be pure, for the error when it is not.
type impureUse struct{ name, where string }

func (u *impureUse) err() error {
	return fmt.Errorf("non-deterministic use of %s() in %s", u.name, u.where)
}

func dateFunc(name string, minArgs, maxArgs int, impl dateImpl) *scalarFunc {
	return &scalarFunc{name: name, minArgs: minArgs, maxArgs: maxArgs, lazy: impl(nil),
		pureVariant: func(where string) *scalarFunc {
			return &scalarFunc{name: name, minArgs: minArgs, maxArgs: maxArgs,
				lazy: impl(&impureUse{name: name, where: where})}
		}}
}

// nowSource returns the statement's current time as a julian day in milliseconds, and false
// where the call must be pure.
type nowSource func() (int64, bool)

// stmtNow returns the time of e's statement: read at its first use and kept for the rest of
// the execution. With impure set, it refuses.
func stmtNow(e *env, impure *impureUse) nowSource {
	return func() (int64, bool) {
		if impure != nil {
			return 0, false
		}
		if e == nil || e.run == nil || e.run.cx == nil {
			return clock().UnixMilli() + unixEpochJD, true
		}
		cx := e.run.cx
		if cx.now == 0 {
			cx.now = clock().UnixMilli() + unixEpochJD
		}
		return cx.now, true
	}
}

// evalArgs evaluates every argument (the date functions need them all).
func evalArgs(args []expr, e *env) ([]value.Value, error) {
	vals := make([]value.Value, len(args))
	for i, a := range args {
		v, err := a.eval(e)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// dateLazy makes a date function from its output step: the arguments are a time value and
// modifiers (none: 'now').
func dateLazy(out func(*dtime) value.Value) dateImpl {
	return func(impure *impureUse) func([]expr, *env) (value.Value, error) {
		return func(args []expr, e *env) (value.Value, error) {
			vals, err := evalArgs(args, e)
			if err != nil {
				return value.Value{}, err
			}
			var d dtime
			if !d.fromArgs(vals, stmtNow(e, impure)) {
				return value.Value{}, d.failure(impure)
			}
			return out(&d), nil
		}
	}
}

// failure is the error of a call that fromArgs refused: none (the result is NULL) unless the
// call read the clock or the zone where it must not.
func (d *dtime) failure(impure *impureUse) error {
	if d.impure {
		return impure.err()
	}
	return nil
}

// dtText is a value's text as a C string (up to its first NUL), and whether it has one.
func dtText(v value.Value) (string, bool) {
	if v.IsNull() {
		return "", false
	}
	return string(textBeforeNUL(v.AppendText(nil))), true
}

// fromArgs sets d from a time value and modifiers, and reports whether the result is valid.
func (d *dtime) fromArgs(args []value.Value, now nowSource) bool {
	*d = dtime{now: now}
	if len(args) == 0 {
		if !d.setNow() {
			return false
		}
	} else if k := args[0].Kind(); k == value.Integer || k == value.Real {
		d.setNumber(value.ToFloat(args[0]))
	} else {
		s, ok := dtText(args[0])
		if !ok || !d.parse(s) {
			return false
		}
	}
	for i := 1; i < len(args); i++ {
		s, ok := dtText(args[i])
		if !ok || !d.modify(s, i) {
			return false
		}
	}
	d.computeJD()
	if d.bad || d.jd < 0 || d.jd > maxJD {
		return false
	}
	if len(args) == 1 && d.validYMD && d.d > 28 {
		d.validYMD = false // a date past its month's end is shown normalized: 2023-02-31 is 2023-03-03
	}
	return true
}

// setNow sets d to the statement's time; false where the call must be pure.
func (d *dtime) setNow() bool {
	jd, ok := d.now()
	if !ok {
		d.impure = true
		return false
	}
	*d = dtime{jd: jd, validJD: true, utc: true, subsec: d.subsec, now: d.now}
	return true
}

// pure reports whether the call may read the zone; if not, it marks d.
func (d *dtime) pure() bool {
	if _, ok := d.now(); !ok {
		d.impure = true
		return false
	}
	return true
}

// setNumber takes a number: a julian day if it can be one, to be reinterpreted by 'unixepoch'
// or 'auto' in any case.
func (d *dtime) setNumber(r float64) {
	d.raw, d.rawS = r, true
	if r >= 0 && r < 5373484.5 {
		d.jd, d.validJD = int64(r*msPerDay+0.5), true
	}
}

// fail marks d invalid and clears it, as SQLite does: later modifiers go on from a zero value
// (so 'utc', which starts afresh, can make a valid result of it again, as in SQLite).
func (d *dtime) fail() {
	*d = dtime{bad: true, now: d.now}
}

func (d *dtime) clearFields() {
	d.validYMD, d.validHMS, d.tz = false, false, 0
}

func isDateSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDateDigit(c byte) bool { return c >= '0' && c <= '9' }

// fixedDigits reads exactly n digits at the start of s as a number from lo to hi.
func fixedDigits(s string, n, lo, hi int) (int, bool) {
	if len(s) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		if !isDateDigit(s[i]) {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, v >= lo && v <= hi
}

// twoFields reads "AA<sep>BB" (two digits each) with the ranges given.
func twoFields(s string, sep byte, hiA, hiB int) (a, b int, ok bool) {
	a, ok = fixedDigits(s, 2, 0, hiA)
	if !ok || len(s) < 3 || s[2] != sep {
		return 0, 0, false
	}
	b, ok = fixedDigits(s[3:], 2, 0, hiB)
	return a, b, ok
}

// parse reads a time value in text: YYYY-MM-DD [HH:MM[:SS[.SSS]]][zone], HH:MM[:SS[.SSS]][zone],
// 'now', a number, or 'subsec'/'subsecond' (now, with milliseconds).
func (d *dtime) parse(s string) bool {
	if d.parseYMD(s) {
		return true
	}
	if d.parseHMS(s) {
		if d.h == 24 {
			d.endOfDay()
		}
		return true
	}
	if strings.EqualFold(s, "now") {
		return d.setNow()
	}
	if v, ok := value.ParseNumericText([]byte(s), false); ok {
		d.setNumber(value.ToFloat(v))
		return true
	}
	if strings.EqualFold(s, "subsec") || strings.EqualFold(s, "subsecond") {
		d.subsec = true
		return d.setNow()
	}
	return false
}

// parseYMD reads [-]YYYY-MM-DD, then spaces or T, then an optional time.
func (d *dtime) parseYMD(s string) bool {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	y, ok := fixedDigits(s, 4, 0, 9999)
	if !ok || len(s) < 5 || s[4] != '-' {
		return false
	}
	mo, ok := fixedDigits(s[5:], 2, 1, 12)
	if !ok || len(s) < 8 || s[7] != '-' {
		return false
	}
	day, ok := fixedDigits(s[8:], 2, 1, 31)
	if !ok {
		return false
	}
	s = s[10:]
	for len(s) > 0 && (isDateSpace(s[0]) || s[0] == 'T') {
		s = s[1:]
	}
	if !d.parseHMS(s) {
		if s != "" {
			return false
		}
		d.validHMS = false
	}
	d.validJD, d.validYMD = false, true
	if neg {
		y = -y
	}
	d.y, d.mo, d.d = y, mo, day
	d.computeFloor()
	if d.validHMS && d.h == 24 {
		d.endOfDay()
	} else if d.tz != 0 {
		d.computeJD()
	}
	return true
}

// parseHMS reads HH:MM[:SS[.FFF...]] and an optional zone.
func (d *dtime) parseHMS(s string) bool {
	h, m, ok := twoFields(s, ':', 24, 59)
	if !ok {
		return false
	}
	s = s[5:]
	sec, frac := 0, 0.0
	if len(s) > 0 && s[0] == ':' {
		if sec, ok = fixedDigits(s[1:], 2, 0, 59); !ok {
			return false
		}
		s = s[3:]
		if len(s) > 1 && s[0] == '.' && isDateDigit(s[1]) {
			scale := 1.0
			s = s[1:]
			for len(s) > 0 && isDateDigit(s[0]) {
				frac = frac*10 + float64(s[0]-'0')
				scale *= 10
				s = s[1:]
			}
			frac /= scale
			if frac > 0.999 {
				frac = 0.999 // milliseconds are the precision: never round up into the next second
			}
		}
	}
	if h == 24 && (m != 0 || sec != 0 || frac != 0) {
		return false // 24:00:00 is the end of the day, and nothing later
	}
	d.validJD, d.rawS, d.validHMS = false, false, true
	d.h, d.mi, d.s = h, m, float64(sec)+frac
	return d.parseZone(s)
}

// endOfDay turns a parsed 24:00:00 into 00:00:00 of the next day.
func (d *dtime) endOfDay() {
	d.computeJD()
	d.validYMD, d.validHMS, d.tz, d.floor = false, false, 0, 0
}

// parseZone reads an optional [+-]HH:MM or Z, with spaces around, to the end of s.
func (d *dtime) parseZone(s string) bool {
	d.tz = 0
	for len(s) > 0 && isDateSpace(s[0]) {
		s = s[1:]
	}
	if s == "" {
		return true
	}
	switch s[0] {
	case 'Z', 'z':
		s = s[1:]
		d.local, d.utc = false, true
	case '+', '-':
		sign := 1
		if s[0] == '-' {
			sign = -1
		}
		h, m, ok := twoFields(s[1:], ':', 14, 59)
		if !ok {
			return false
		}
		s = s[6:]
		d.tz = sign * (m + h*60)
	default:
		return false
	}
	for len(s) > 0 && isDateSpace(s[0]) {
		s = s[1:]
	}
	return s == ""
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d of the proleptic Gregorian
// calendar (m from 1 to 12; d may pass the month's end and carries over).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400 // 0..399, from March 1
	mp := (m + 9) % 12 // March is 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// computeFloor records how many days d.d passes its month's end by.
func (d *dtime) computeFloor() {
	d.floor = 0
	if d.d <= 28 {
		return
	}
	if n := monthDays(d.y, d.mo); d.d > n {
		d.floor = d.d - n
	}
}

func monthDays(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// computeJD makes jd current from the fields (2000-01-01 when there is no date), applying a
// parsed zone offset.
func (d *dtime) computeJD() {
	if d.validJD {
		return
	}
	y, m, day := 2000, 1, 1
	if d.validYMD {
		y, m, day = d.y, d.mo, d.d
	}
	if y < -4713 || y > 9999 || d.rawS {
		d.fail()
		return
	}
	d.jd = daysFromCivil(int64(y), int64(m), int64(day))*msPerDay + unixEpochJD
	d.validJD = true
	if d.validHMS {
		d.jd += int64(d.h)*3600000 + int64(d.mi)*60000 + int64(d.s*1000+0.5)
		if d.tz != 0 {
			d.jd -= int64(d.tz) * 60000
			d.validYMD, d.validHMS, d.tz = false, false, 0
			d.utc, d.local = true, false
		}
	}
}

// computeYMD makes the date current from jd (2000-01-01 when there is none).
func (d *dtime) computeYMD() {
	if d.validYMD {
		return
	}
	switch {
	case !d.validJD:
		d.y, d.mo, d.d = 2000, 1, 1
	case d.jd < 0 || d.jd > maxJD:
		d.fail()
		return
	default:
		y, m, day := civilFromDays(floorDiv(d.jd+msPerDay/2, msPerDay) - 2440588)
		d.y, d.mo, d.d = int(y), int(m), int(day)
	}
	d.validYMD = true
}

// computeHMS makes the time of day current from jd.
func (d *dtime) computeHMS() {
	if d.validHMS {
		return
	}
	d.computeJD()
	ms := (d.jd + msPerDay/2) % msPerDay
	d.s = float64(ms%60000) / 1000
	mins := ms / 60000
	d.mi, d.h = int(mins%60), int(mins/60)
	d.rawS, d.validHMS = false, true
}

func (d *dtime) computeAll() {
	d.computeYMD()
	d.computeHMS()
}

// toLocal turns d (UTC) into the wall-clock fields of Go's time.Local. Outside 1970 to 2037 the
// year is first moved to one of 2000 to 2003 with the same place in the leap cycle, and back
// after, as SQLite does where localtime_r does not reach.
func (d *dtime) toLocal() {
	d.computeJD()
	yearDiff := 0
	var secs int64
	if d.jd < 210866760000000 || d.jd > 213014145600000 {
		x := *d
		x.computeAll()
		yearDiff = 2000 + x.y%4 - x.y
		x.y += yearDiff
		x.validJD = false
		x.computeJD()
		secs = x.jd/1000 - unixEpochJD/1000
	} else {
		secs = d.jd/1000 - unixEpochJD/1000
	}
	t := time.Unix(secs, 0).In(localZone())
	d.y = t.Year() - yearDiff
	d.mo, d.d = int(t.Month()), t.Day()
	d.h, d.mi = t.Hour(), t.Minute()
	d.s = float64(t.Second()) + float64(d.jd%1000)*0.001
	d.validYMD, d.validHMS = true, true
	d.validJD, d.rawS, d.tz, d.bad = false, false, 0, false
}

// toUTC takes d as local time and finds the UTC instant whose local time it is.
func (d *dtime) toUTC() {
	d.computeJD()
	orig := d.jd
	guess, diff := orig, int64(0)
	for n := 0; ; n++ {
		guess -= diff
		x := dtime{jd: guess, validJD: true}
		x.toLocal()
		x.computeJD()
		diff = x.jd - orig
		if diff == 0 || n >= 3 {
			break
		}
	}
	*d = dtime{jd: guess, validJD: true, utc: true, now: d.now}
}

// unit is a modifier's unit: "NNN days" adds NNN × ms milliseconds (months and years add
// calendar months and years first, then their fraction as 30 and 365 days).
type unit struct {
	name  string
	limit float64
	ms    float64
}

var units = []unit{
	{"second", float64(float32(4.6427e14)), 1000},
	{"minute", float64(float32(7.7379e12)), 60000},
	{"hour", float64(float32(1.2897e11)), 3600000},
	{"day", 5373485, msPerDay},
	{"month", 176546, 30 * msPerDay},
	{"year", 14713, 365 * msPerDay},
}

// numberPrefix parses s as a whole number (SQLite's sqlite3AtoF on the text).
func numberPrefix(s string) (float64, bool) {
	v, ok := value.ParseNumericText([]byte(s), false)
	if !ok {
		return 0, false
	}
	return value.ToFloat(v), true
}

// normMonth carries d.mo outside 1..12 into the year.
func (d *dtime) normMonth() {
	var x int
	if d.mo > 0 {
		x = (d.mo - 1) / 12
	} else {
		x = (d.mo - 12) / 12
	}
	d.y += x
	d.mo -= x * 12
}

// modify applies modifier s, the idx-th argument (1 for the first modifier), and reports
// whether it is one.
func (d *dtime) modify(s string, idx int) bool {
	if s == "" {
		return false
	}
	lower := strings.ToLower(s)
	switch c := lower[0]; {
	case lower == "auto":
		if idx > 1 {
			return false
		}
		switch {
		case !d.rawS || d.validJD:
			d.rawS = false
		case d.raw >= -210866760000 && d.raw <= 253402300799:
			d.clearFields()
			d.jd, d.validJD, d.rawS = int64(d.raw*1000+unixEpochJD+0.5), true, false
		default:
			return false
		}
		return true
	case lower == "ceiling":
		d.computeJD()
		d.clearFields()
		d.floor = 0
		return true
	case lower == "floor":
		d.computeJD()
		d.jd -= int64(d.floor) * msPerDay
		d.clearFields()
		return true
	case lower == "julianday":
		if idx > 1 || !d.validJD || !d.rawS {
			return false
		}
		d.rawS = false
		return true
	case lower == "localtime":
		if !d.pure() {
			return false
		}
		if !d.local {
			d.toLocal()
		}
		d.utc, d.local = false, true
		return true
	case lower == "unixepoch":
		if !d.rawS || idx > 1 {
			return false
		}
		r := d.raw*1000 + unixEpochJD
		if !(r >= 0 && r < 464269060800000) {
			return false
		}
		d.clearFields()
		d.jd, d.validJD, d.rawS = int64(r+0.5), true, false
		return true
	case lower == "utc":
		if !d.pure() {
			return false
		}
		if !d.utc {
			d.toUTC()
		}
		return true
	case strings.HasPrefix(lower, "weekday "):
		// weekday N: the next day (or this one) whose weekday is N (0 Sunday to 6);
		// weekday -N: the previous one (or this one).
		r, ok := numberPrefix(s[8:])
		back := strings.HasPrefix(strings.TrimLeft(s[8:], " \t\n\v\f\r"), "-")
		if back {
			r = -r
		}
		if !ok || !(r >= 0 && r < 7) || r != math.Trunc(r) {
			return false
		}
		n := int64(r)
		d.computeAll()
		d.tz, d.validJD = 0, false
		d.computeJD()
		z := ((d.jd + 129600000) / msPerDay) % 7
		if back {
			if z < n {
				z += 7
			}
			d.jd -= (z - n) * msPerDay
		} else {
			if z > n {
				z -= 7
			}
			d.jd += (n - z) * msPerDay
		}
		d.clearFields()
		return true
	case lower == "subsec" || lower == "subsecond":
		d.subsec = true
		return true
	case strings.HasPrefix(lower, "start of "):
		if !d.validJD && !d.validYMD && !d.validHMS {
			return false
		}
		d.computeYMD()
		d.validHMS, d.h, d.mi, d.s = true, 0, 0, 0
		d.rawS, d.tz, d.validJD = false, 0, false
		switch lower[9:] {
		case "month":
			d.d = 1
		case "year":
			d.mo, d.d = 1, 1
		case "day":
		default:
			return false
		}
		return true
	case c == '+' || c == '-' || isDateDigit(c):
		return d.modifyNumber(s)
	}
	return false
}

// modifyNumber applies "NNN units", "[+-]HH:MM[:SS[.SSS]]" or "[+-]YYYY-MM-DD[ HH:MM[:SS...]]".
func (d *dtime) modifyNumber(s string) bool {
	sign := s[0]
	n := 1
	for ; n < len(s); n++ {
		if s[n] == ':' || isDateSpace(s[n]) {
			break
		}
		if s[n] == '-' {
			if _, ok := fixedDigits(s[1:], 4, 0, 9999); n == 5 && ok {
				break
			}
			if _, ok := fixedDigits(s[1:], 5, 0, 99999); n == 6 && ok {
				break
			}
		}
	}
	r, ok := numberPrefix(s[:n])
	if !ok {
		return false
	}
	clock := "" // a time of day to add or subtract, if any
	if n < len(s) && s[n] == '-' {
		// [+-]YYYY-MM-DD[ HH:MM...]: years, months 0-11 and days 0-30.
		if sign != '+' && sign != '-' {
			return false
		}
		y, _ := fixedDigits(s[1:], n-1, 0, 99999)
		rest := s[n:]
		if len(rest) < 6 || rest[0] != '-' {
			return false
		}
		m, day, ok := twoFields(rest[1:], '-', 99, 99)
		if !ok || m >= 12 || day >= 31 {
			return false
		}
		d.computeAll()
		d.validJD = false
		if sign == '-' {
			d.y -= y
			d.mo -= m
			day = -day
		} else {
			d.y += y
			d.mo += m
		}
		d.normMonth()
		d.computeFloor()
		d.computeJD()
		d.validHMS, d.validYMD = false, false
		d.jd += int64(day) * msPerDay
		rest = rest[6:]
		if rest == "" {
			return true
		}
		if !isDateSpace(rest[0]) {
			return false
		}
		if _, _, ok := twoFields(rest[1:], ':', 24, 59); !ok {
			return false
		}
		clock = rest[1:]
	} else if n < len(s) && s[n] == ':' {
		clock = s
		if !isDateDigit(clock[0]) {
			clock = clock[1:]
		}
	}
	if clock != "" {
		var t dtime
		if !t.parseHMS(clock) {
			return false
		}
		t.computeJD()
		t.jd -= msPerDay / 2
		t.jd -= (t.jd / msPerDay) * msPerDay
		if sign == '-' {
			t.jd = -t.jd
		}
		d.computeJD()
		d.clearFields()
		d.jd += t.jd
		return true
	}
	// NNN units.
	rest := s[n:]
	for len(rest) > 0 && isDateSpace(rest[0]) {
		rest = rest[1:]
	}
	if len(rest) < 3 || len(rest) > 10 {
		return false
	}
	name := strings.ToLower(rest)
	name = strings.TrimSuffix(name, "s")
	d.computeJD()
	rounder := 0.5
	if r < 0 {
		rounder = -0.5
	}
	d.floor = 0
	ok = false
	for _, u := range units {
		if name != u.name || !(r > -u.limit && r < u.limit) {
			continue
		}
		switch u.name {
		case "month":
			d.computeAll()
			d.mo += int(r)
			d.normMonth()
			d.computeFloor()
			d.validJD = false
			r -= float64(int(r))
		case "year":
			d.computeAll()
			d.y += int(r)
			d.computeFloor()
			d.validJD = false
			r -= float64(int(r))
		}
		d.computeJD()
		d.jd += int64(r*u.ms + rounder)
		ok = true
		break
	}
	d.clearFields()
	return ok
}

// Output steps.

func appendYear(b []byte, y int) []byte {
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	return append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
}

func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10%10), byte('0'+n%10)) }

func (d *dtime) appendDate(b []byte) []byte {
	b = appendYear(b, d.y)
	b = append(append2(append(b, '-'), d.mo), '-')
	return append2(b, d.d)
}

func (d *dtime) appendClock(b []byte) []byte {
	b = append(append2(append(append2(b, d.h), ':'), d.mi), ':')
	if d.subsec {
		ms := int(1000*d.s + 0.5)
		b = append(append2(b, ms/1000), '.')
		return append(b, byte('0'+ms/100%10), byte('0'+ms/10%10), byte('0'+ms%10))
	}
	return append2(b, int(d.s))
}

func outDate(d *dtime) value.Value {
	d.computeYMD()
	return value.TextBytes(d.appendDate(nil))
}

func outTime(d *dtime) value.Value {
	d.computeHMS()
	return value.TextBytes(d.appendClock(nil))
}

func outDatetime(d *dtime) value.Value {
	d.computeAll()
	return value.TextBytes(d.appendClock(append(d.appendDate(nil), ' ')))
}

func outJulianday(d *dtime) value.Value {
	d.computeJD()
	return value.Float(float64(d.jd) / msPerDay)
}

func outUnixepoch(d *dtime) value.Value {
	d.computeJD()
	if d.subsec {
		return value.Float(float64(d.jd-unixEpochJD) / 1000)
	}
	return value.Int(d.jd/1000 - unixEpochJD/1000)
}

// daysAfterJan1 is the number of days from January 1 of d's year to d (d computed).
func (d *dtime) daysAfterJan1() int64 {
	y := *d
	y.validJD, y.mo, y.d = false, 1, 1
	y.computeJD()
	return (d.jd - y.jd + msPerDay/2) / msPerDay
}

func (d *dtime) daysAfterMonday() int64 { return ((d.jd + msPerDay/2) / msPerDay) % 7 }
func (d *dtime) daysAfterSunday() int64 { return ((d.jd + 129600000) / msPerDay) % 7 }

// isoThursday is d moved to the Thursday of its ISO week, whose year is the ISO year.
func (d *dtime) isoThursday() dtime {
	y := *d
	y.computeJD()
	y.validYMD = false
	y.jd += (3 - d.daysAfterMonday()) * msPerDay
	y.computeYMD()
	return y
}

func pad(b []byte, n int64, width int, fill byte) []byte {
	s := strconv.FormatInt(n, 10)
	for i := len(s); i < width; i++ {
		b = append(b, fill)
	}
	return append(b, s...)
}

// cInt appends n as C's printf("%0<width>d") does (a minus sign counts in the width).
func cInt(b []byte, n int64, width int) []byte {
	if n < 0 {
		return pad(append(b, '-'), -n, width-1, '0')
	}
	return pad(b, n, width, '0')
}

func lazyStrftime(impure *impureUse) func([]expr, *env) (value.Value, error) {
	return func(args []expr, e *env) (value.Value, error) { return strftime(args, e, impure) }
}

func strftime(args []expr, e *env, impure *impureUse) (value.Value, error) {
	vals, err := evalArgs(args, e)
	if err != nil {
		return value.Value{}, err
	}
	if len(vals) == 0 {
		return value.Value{}, nil // strftime() is NULL in SQLite
	}
	format, ok := dtText(vals[0])
	if !ok {
		return value.Value{}, nil
	}
	var d dtime
	if !d.fromArgs(vals[1:], stmtNow(e, impure)) {
		return value.Value{}, d.failure(impure)
	}
	d.computeJD()
	d.computeAll()
	var b []byte
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(format) {
			return value.Value{}, nil
		}
		switch format[i] {
		case 'd':
			b = cInt(b, int64(d.d), 2)
		case 'e':
			b = pad(b, int64(d.d), 2, ' ')
		case 'f':
			s := d.s
			if s > 59.999 {
				s = 59.999
			}
			b = appendSeconds(b, s)
		case 'F':
			b = cInt(b, int64(d.y), 4)
			b = append(b, '-')
			b = cInt(b, int64(d.mo), 2)
			b = append(b, '-')
			b = cInt(b, int64(d.d), 2)
		case 'G', 'g':
			y := d.isoThursday()
			if format[i] == 'g' {
				b = cInt(b, int64(y.y%100), 2)
			} else {
				b = cInt(b, int64(y.y), 4)
			}
		case 'H':
			b = cInt(b, int64(d.h), 2)
		case 'k':
			b = pad(b, int64(d.h), 2, ' ')
		case 'I', 'l':
			h := d.h
			if h > 12 {
				h -= 12
			}
			if h == 0 {
				h = 12
			}
			if format[i] == 'I' {
				b = cInt(b, int64(h), 2)
			} else {
				b = pad(b, int64(h), 2, ' ')
			}
		case 'j':
			b = cInt(b, d.daysAfterJan1()+1, 3)
		case 'J':
			b = append(b, formatFloat(float64(d.jd)/msPerDay, 'g', 16, false, false, false)...)
		case 'm':
			b = cInt(b, int64(d.mo), 2)
		case 'M':
			b = cInt(b, int64(d.mi), 2)
		case 'p', 'P':
			ampm := "AM"
			if d.h >= 12 {
				ampm = "PM"
			}
			if format[i] == 'P' {
				ampm = strings.ToLower(ampm)
			}
			b = append(b, ampm...)
		case 'R':
			b = append(cInt(b, int64(d.h), 2), ':')
			b = cInt(b, int64(d.mi), 2)
		case 's':
			if d.subsec {
				b = append(b, formatFloat(float64(d.jd-unixEpochJD)/1000, 'f', 3, false, false, false)...)
			} else {
				b = strconv.AppendInt(b, d.jd/1000-unixEpochJD/1000, 10)
			}
		case 'S':
			b = cInt(b, int64(d.s), 2)
		case 'T':
			b = append(cInt(b, int64(d.h), 2), ':')
			b = append(cInt(b, int64(d.mi), 2), ':')
			b = cInt(b, int64(d.s), 2)
		case 'u', 'w':
			n := d.daysAfterSunday()
			if n == 0 && format[i] == 'u' {
				n = 7
			}
			b = append(b, byte('0'+n))
		case 'U':
			b = cInt(b, (d.daysAfterJan1()-d.daysAfterSunday()+7)/7, 2)
		case 'V':
			y := d.isoThursday()
			b = cInt(b, y.daysAfterJan1()/7+1, 2)
		case 'W':
			b = cInt(b, (d.daysAfterJan1()-d.daysAfterMonday()+7)/7, 2)
		case 'Y':
			b = cInt(b, int64(d.y), 4)
		case '%':
			b = append(b, '%')
		default:
			return value.Value{}, nil
		}
	}
	return value.TextBytes(b), nil
}

// lazyTimediff is timediff(A, B): the time to add to B to reach A, as
// "(+|-)YYYY-MM-DD HH:MM:SS.SSS" in calendar years, months and days.
func lazyTimediff(impure *impureUse) func([]expr, *env) (value.Value, error) {
	return func(args []expr, e *env) (value.Value, error) { return timediff(args, e, impure) }
}

func timediff(args []expr, e *env, impure *impureUse) (value.Value, error) {
	vals, err := evalArgs(args, e)
	if err != nil {
		return value.Value{}, err
	}
	now := stmtNow(e, impure)
	var a, b dtime
	if !a.fromArgs(vals[:1], now) {
		return value.Value{}, a.failure(impure)
	}
	if !b.fromArgs(vals[1:], now) {
		return value.Value{}, b.failure(impure)
	}
	a.computeAll()
	b.computeAll()
	// b moves to a's year and month, then back (dir 1: a is later) or forward (dir -1) a month
	// at a time until it is not past a; y and m count what it moved.
	sign, dir := byte('+'), int64(1)
	y, m := a.y-b.y, a.mo-b.mo
	if a.jd < b.jd {
		sign, dir = '-', -1
		y, m = -y, -m
	}
	if y != 0 {
		b.y, b.validJD = a.y, false
		b.computeJD()
	}
	if m < 0 {
		y--
		m += 12
	}
	if m != 0 {
		b.mo, b.validJD = a.mo, false
		b.computeJD()
	}
	for dir*(a.jd-b.jd) < 0 {
		m--
		if m < 0 {
			m = 11
			y--
		}
		b.mo -= int(dir)
		switch {
		case b.mo < 1:
			b.mo = 12
			b.y--
		case b.mo > 12:
			b.mo = 1
			b.y++
		}
		b.validJD = false
		b.computeJD()
	}
	a.jd = dir * (a.jd - b.jd)
	// The remainder, under a month, read as a time after 0000-01-01 00:00: its day of
	// month less one is the number of days.
	a.jd += 148699540800000
	a.clearFields()
	a.computeAll()
	out := []byte{sign}
	out = cInt(out, int64(y), 4)
	out = append(out, '-')
	out = cInt(out, int64(m), 2)
	out = append(out, '-')
	out = cInt(out, int64(a.d-1), 2)
	out = append(out, ' ')
	out = append(cInt(out, int64(a.h), 2), ':')
	out = append(cInt(out, int64(a.mi), 2), ':')
	return value.TextBytes(appendSeconds(out, a.s)), nil
}

// appendSeconds appends s as printf("%06.3f") does.
func appendSeconds(b []byte, s float64) []byte {
	t := formatFloat(s, 'f', 3, false, false, false)
	if len(t) < 6 {
		b = append(b, '0')
	}
	return append(b, t...)
}

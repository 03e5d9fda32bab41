package engine

// Aggregate functions (lang_aggfunc.html): count, sum, total, avg, min, max, group_concat, with
// DISTINCT. sum, total and avg add REALs with Kahan-Babuska-Neumaier summation, and sum keeps an
// INTEGER result while every input is an integer and none overflows, as SQLite does.

import (
	"bytes"
	"fmt"
	"math"

	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// aggState accumulates one aggregate over the rows of one group.
type aggState interface {
	step(args []value.Value) error
	result() (value.Value, error)
}

// aggDef is a built-in aggregate function.
type aggDef struct {
	minArgs, maxArgs int
	star             bool // count(*)
	make             func(coll value.Collation) aggState
}

var aggDefs = map[string]*aggDef{
	"count":        {minArgs: 0, maxArgs: 1, make: func(value.Collation) aggState { return &countState{} }},
	"sum":          {minArgs: 1, maxArgs: 1, make: func(value.Collation) aggState { return &sumState{kind: sumSum} }},
	"total":        {minArgs: 1, maxArgs: 1, make: func(value.Collation) aggState { return &sumState{kind: sumTotal} }},
	"avg":          {minArgs: 1, maxArgs: 1, make: func(value.Collation) aggState { return &sumState{kind: sumAvg} }},
	"min":          {minArgs: 1, maxArgs: 1, make: func(c value.Collation) aggState { return &minMaxState{sign: -1, coll: c} }},
	"max":          {minArgs: 1, maxArgs: 1, make: func(c value.Collation) aggState { return &minMaxState{sign: 1, coll: c} }},
	"group_concat": {minArgs: 1, maxArgs: 2, make: func(value.Collation) aggState { return &concatState{} }},
	"string_agg":   {minArgs: 2, maxArgs: 2, make: func(value.Collation) aggState { return &concatState{} }},
}

// isAggregate reports whether a call of name with n arguments is an aggregate: min and max are
// aggregates with one argument, scalar functions with more.
func isAggregate(name string, n int, star bool) bool {
	d := aggDefs[name]
	if d == nil {
		return false
	}
	if (name == "min" || name == "max") && n != 1 {
		return false
	}
	return star || n >= d.minArgs
}

// distinctState wraps an aggregate so that it sees each distinct argument once (compared with
// collation coll).
type distinctState struct {
	inner aggState
	seen  map[string]struct{}
	coll  value.Collation
	key   []byte
}

func (d *distinctState) step(args []value.Value) error {
	if len(args) == 0 || args[0].IsNull() {
		return nil
	}
	d.key = codec.AppendKey(d.key[:0], args[0], false, d.coll)
	if _, ok := d.seen[string(d.key)]; ok {
		return nil
	}
	d.seen[string(d.key)] = struct{}{}
	return d.inner.step(args)
}

func (d *distinctState) result() (value.Value, error) { return d.inner.result() }

type countState struct{ n int64 }

func (c *countState) step(args []value.Value) error {
	if len(args) == 0 || !args[0].IsNull() {
		c.n++
	}
	return nil
}

func (c *countState) result() (value.Value, error) { return value.Int(c.n), nil }

const (
	sumSum = iota
	sumTotal
	sumAvg
)

// sumState is sum, total or avg.
type sumState struct {
	kind     int
	count    int64
	approx   bool  // a REAL (or an integer overflow) was seen: the sum is rSum + rErr
	overflow bool  // an integer sum overflowed and no REAL came after
	iSum     int64 // the sum while every input is an integer
	rSum     float64
	rErr     float64
}

func (s *sumState) step(args []value.Value) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	if v.Kind() == value.Text || v.Kind() == value.Blob {
		v = value.AffinityNumeric.ApplyForCompare(v) // as sqlite3_value_numeric_type converts
	}
	if v.Kind() == value.Integer {
		s.stepInt(v.Int())
		return nil
	}
	s.count++
	switch {
	case !s.approx:
		s.kbnInit(s.iSum)
		s.approx = true
		s.kbnStep(value.ToFloat(v))
	default:
		s.overflow = false
		s.kbnStep(value.ToFloat(v))
	}
	return nil
}

// stepInt is step for an INTEGER argument.
func (s *sumState) stepInt(i int64) {
	s.count++
	if s.approx {
		s.kbnStepInt(i)
		return
	}
	x := s.iSum + i
	if (x > s.iSum) == (i > 0) || i == 0 {
		s.iSum = x
		return
	}
	s.overflow = true
	s.kbnInit(s.iSum)
	s.approx = true
	s.kbnStepInt(i)
}

func (s *sumState) kbnStep(r float64) {
	t := s.rSum + r
	if math.Abs(s.rSum) > math.Abs(r) {
		s.rErr += (s.rSum - t) + r
	} else {
		s.rErr += (r - t) + s.rSum
	}
	s.rSum = t
}

const exactIntLimit = 4503599627370496 // 2^52: integers beyond it are added in two parts

func (s *sumState) kbnStepInt(i int64) {
	if i <= -exactIntLimit || i >= exactIntLimit {
		small := i % 16384
		s.kbnStep(float64(i - small))
		s.kbnStep(float64(small))
		return
	}
	s.kbnStep(float64(i))
}

func (s *sumState) kbnInit(i int64) {
	s.rSum, s.rErr = 0, 0
	if i <= -exactIntLimit || i >= exactIntLimit {
		small := i % 16384
		s.rSum, s.rErr = float64(i-small), float64(small)
		return
	}
	s.rSum = float64(i)
}

func (s *sumState) real() float64 {
	if !s.approx {
		return float64(s.iSum)
	}
	if math.IsInf(s.rErr, 0) || s.rErr != s.rErr {
		return s.rSum
	}
	return s.rSum + s.rErr
}

func (s *sumState) result() (value.Value, error) {
	switch s.kind {
	case sumTotal:
		return value.Float(s.real()), nil
	case sumAvg:
		if s.count == 0 {
			return value.Value{}, nil
		}
		return value.Float(s.real() / float64(s.count)), nil
	}
	switch {
	case s.count == 0:
		return value.Value{}, nil
	case s.approx && s.overflow:
		return value.Value{}, errIntegerOverflow
	case s.approx:
		return value.Float(s.real()), nil
	}
	return value.Int(s.iSum), nil
}

// minMaxState is min or max; it reports when its value changes (changed), so that the bare
// columns of the query take the row of the minimum or maximum, as in SQLite.
type minMaxState struct {
	sign    int
	coll    value.Collation
	best    value.Value
	have    bool
	changed bool
	first   value.Value // the first long value seen, while decided reads its group
}

func (m *minMaxState) step(args []value.Value) error {
	v := args[0]
	m.changed = false
	if v.IsNull() {
		return nil
	}
	if !m.have || value.Compare(v, m.best, m.coll)*m.sign > 0 {
		m.best, m.have, m.changed = v.Clone().WithSubtype(v.Subtype()), true, true
	}
	return nil
}

// decided reports, when the values come in the call's order (NULLs first for min, last for
// max), whether no later value can change the result: one was found and v, the latest, is NULL
// or no longer in the group of long values sharing the found one's key prefix (which keys order
// by hash, not by value: codec.MaxKeyPart).
func (m *minMaxState) decided(v value.Value) bool {
	if !m.have {
		return false
	}
	if v.IsNull() || !longKeyValue(v) {
		return true
	}
	if m.first.IsNull() {
		m.first = v.Clone()
		return false
	}
	a, _ := codec.AppendKeyBound(nil, v, false, m.coll)
	b, _ := codec.AppendKeyBound(nil, m.first, false, m.coll)
	return !bytes.Equal(a, b)
}

// longKeyValue reports whether v is a TEXT or BLOB that a key may cut at codec.MaxKeyPart.
func longKeyValue(v value.Value) bool {
	return (v.Kind() == value.Text || v.Kind() == value.Blob) && len(v.Bytes()) > codec.MaxKeyPart
}

func (m *minMaxState) result() (value.Value, error) {
	if !m.have {
		return value.Value{}, nil
	}
	return m.best, nil
}

// concatState is group_concat(x [, sep]) and string_agg(x, sep). lens and seps, kept once a
// window frame may take values back (track), are the length of each value in buf and of the
// separator after each but the last.
type concatState struct {
	buf   []byte
	have  bool
	track bool
	lens  []int
	seps  []int
}

func (c *concatState) step(args []value.Value) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	if c.have {
		n := len(c.buf)
		if len(args) > 1 {
			if !args[1].IsNull() {
				c.buf = args[1].AppendText(c.buf)
			}
		} else {
			c.buf = append(c.buf, ',')
		}
		if c.track {
			c.seps = append(c.seps, len(c.buf)-n)
		}
	}
	n := len(c.buf)
	c.buf = v.AppendText(c.buf)
	if c.track {
		c.lens = append(c.lens, len(c.buf)-n)
	}
	c.have = true
	return nil
}

func (c *concatState) result() (value.Value, error) {
	if !c.have {
		return value.Value{}, nil
	}
	return value.TextBytes(c.buf), nil
}

// aggCall is an aggregate call of a query: its definition, its bound arguments, DISTINCT and
// the collation of its argument.
type aggCall struct {
	name     string
	def      *aggDef
	args     []expr
	distinct bool
	coll     value.Collation
	filter   expr // FILTER (WHERE ...), nil without one
	// order are the keys of an ORDER BY in the call (aggorder.go), over args, whose first nargs
	// are the arguments; nil without one.
	order []orderKey
	nargs int
	// intArg is the one argument when it has an INTEGER fast path (exprint.go): a sum, total
	// or avg state then adds an INTEGER argument without a value.Value (newAggIter).
	intArg intExpr
}

func (a *aggCall) newState() aggState {
	s := a.def.make(a.coll)
	if a.order != nil {
		s = &orderedAggState{inner: s, nargs: a.nargs, keys: a.order}
	}
	if a.distinct {
		return &distinctState{inner: s, seen: map[string]struct{}{}, coll: a.coll}
	}
	return s
}

func lookupAggregate(name string, n int, star, distinct bool) (*aggDef, error) {
	d := aggDefs[name]
	switch {
	case d == nil:
		return nil, fmt.Errorf("no such function: %s", name)
	case star && name != "count":
		return nil, fmt.Errorf("wrong number of arguments to function %s()", name)
	case !star && (n < d.minArgs || n > d.maxArgs):
		return nil, fmt.Errorf("wrong number of arguments to function %s()", name)
	case distinct && n != 1:
		return nil, fmt.Errorf("DISTINCT aggregates must have exactly one argument")
	}
	return d, nil
}

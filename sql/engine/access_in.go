package engine

// IN lists as multi-point lookups: "col IN (a, b, c)" on the rowid or on an index column runs the
// equality path once per distinct value, in key order. Values are made distinct by their key
// bytes, the same bytes the equality path seeks, so no row is produced twice.

import (
	"bytes"
	"slices"

	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// pointSlot is the value an inner path's equality reads: a multiPoint sets it before each open.
// A plan runs one execution at a time, as operandSlot assumes too.
type pointSlot struct{ v value.Value }

func (s *pointSlot) eval(*env) (value.Value, error) { return s.v, nil }

// multiPoint runs inner once per distinct value of list, each value put in slot first.
type multiPoint struct {
	list  []expr
	aff   value.Affinity // applied to each value before its key is taken
	key   func(dst []byte, v value.Value) ([]byte, bool)
	slot  *pointSlot
	inner accessPath
}

func (p *multiPoint) explain() string { return p.inner.explain() }

// rowidPointKey is the key of a rowid value, false if the value selects no rowid.
func rowidPointKey(dst []byte, v value.Value) ([]byte, bool) {
	id, ok := rowidOf(v)
	if !ok {
		return dst, false
	}
	return codec.AppendRowid(dst, id), true
}

// indexPointKey returns the key function of an equality on the index column ic.
func indexPointKey(ic IndexColumn) func([]byte, value.Value) ([]byte, bool) {
	return func(dst []byte, v value.Value) ([]byte, bool) {
		if v.IsNull() {
			return dst, false // col = NULL is never true
		}
		return codec.AppendKey(dst, v, ic.Desc, ic.Collation), true
	}
}

// point is one distinct value of a multiPoint and its key.
type point struct {
	key []byte
	v   value.Value
}

type multiPointIter struct {
	p      *multiPoint
	e      *env
	src    int
	points []point
	cur    candidates
}

func (p *multiPoint) open(e *env, src int) (candidates, error) {
	points := make([]point, 0, len(p.list))
	for _, x := range p.list {
		v, err := x.eval(e)
		if err != nil {
			return nil, err
		}
		v = p.aff.ApplyForCompare(v)
		if k, ok := p.key(nil, v); ok {
			points = append(points, point{key: k, v: v})
		}
	}
	slices.SortFunc(points, func(a, b point) int { return bytes.Compare(a.key, b.key) })
	points = slices.CompactFunc(points, func(a, b point) bool { return bytes.Equal(a.key, b.key) })
	return &multiPointIter{p: p, e: e, src: src, points: points}, nil
}

func (it *multiPointIter) next() (bool, error) {
	for {
		if it.cur != nil {
			ok, err := it.cur.next()
			if ok || err != nil {
				return ok, err
			}
		}
		if len(it.points) == 0 {
			return false, nil
		}
		it.p.slot.v = it.points[0].v
		it.points = it.points[1:]
		c, err := it.p.inner.open(it.e, it.src)
		if err != nil {
			return false, err
		}
		it.cur = c
	}
}

package engine

// Automatic indexes: the inner loop of a join whose equality "column = x" (x reading the outer
// loops) no index serves reads its table once per execution of the core into a hash table keyed
// by the column, then finds each outer row's matches there, in place of a full scan per outer
// row. SQLite builds a transient B-tree for the same case ("AUTOMATIC INDEX", where.c); a hash
// table serves the equality alone, which is all this path answers.
//
// Invariant: two values the comparison finds equal have the same hash key (hashKey), so every
// matching row is among the candidates. The key may be coarser than the comparison (a long
// text's key is cut): the term stays among the loop's WHERE (or ON) terms and decides, as it
// does after any access path.

import (
	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// autoIndex is the access path of a source probed through a hash table on one column.
type autoIndex struct {
	scan *tableRange // the full scan that builds the table
	col  int         // the column in the source's row
	x    expr        // the probe: the other side of the equality
	aff  value.Affinity
	coll value.Collation
	desc string
}

// hashTable maps hashKey of the column to the rows holding it (copies in a rowArena, valid for
// the core's execution): groups[idx[key]]. A key is allocated once, when first seen.
type hashTable struct {
	idx    map[string]int
	groups [][][]value.Value
}

// add files row under key.
func (h *hashTable) add(key []byte, row []value.Value) {
	if g, ok := h.idx[string(key)]; ok {
		h.groups[g] = append(h.groups[g], row)
		return
	}
	h.idx[string(key)] = len(h.groups)
	h.groups = append(h.groups, [][]value.Value{row})
}

// rows returns the rows filed under key.
func (h *hashTable) rows(key []byte) [][]value.Value {
	if g, ok := h.idx[string(key)]; ok {
		return h.groups[g]
	}
	return nil
}

func (p *autoIndex) explain() string { return p.desc }

// autoIndexPath returns the automatic index of source i for the first equality of cts on a
// column whose other side reads an outer loop, or nil.
func autoIndexPath(src *source, cts []colTerm) *autoIndex {
	for _, ct := range cts {
		if ct.op != ast.Eq || ct.col < 0 || ct.refs == 0 {
			continue
		}
		name := src.table.Columns[ct.col].Name
		return &autoIndex{
			scan: &tableRange{table: src.table},
			col:  ct.col, x: ct.x, aff: ct.aff, coll: ct.coll,
			desc: "SEARCH " + src.name + " USING AUTOMATIC INDEX (" + name + "=?)",
		}
	}
	return nil
}

// autoIndexEstimate: building reads the table once per execution of the core; a probe yields
// as many rows as an equality on a non-unique index and is priced a little above that index's
// search (2 × estEqRows + 1, indexEstimate), so that a join order with a real index on its
// inner side wins over one that needs an automatic index, as SQLite prefers them.
func autoIndexEstimate(tableRows float64) estimate {
	return estimate{cost: 2*estEqRows + 5, rows: estEqRows, once: tableRows}
}

// open scans the table the first time the loop runs in an execution of the core (one probe
// needs no hash table: a loop that runs once, under an outer loop of one row, costs a scan as
// before) and probes the hash table, built then, from the second time on.
func (p *autoIndex) open(e *env, src int) (candidates, error) {
	h, seen := e.autoIndexes[p]
	if !seen {
		if e.autoIndexes == nil {
			e.autoIndexes = map[*autoIndex]*hashTable{}
		}
		e.autoIndexes[p] = nil
		return p.scan.open(e, src)
	}
	if h == nil {
		var err error
		if h, err = p.build(e, src); err != nil {
			return nil, err
		}
		e.autoIndexes[p] = h
	}
	v, err := p.x.eval(e)
	if err != nil {
		return nil, err
	}
	key, ok := hashKey(nil, p.aff.ApplyForCompare(v), p.coll)
	if !ok {
		return &rowsIter{e: e, src: src}, nil
	}
	return &rowsIter{e: e, src: src, rows: h.rows(key)}, nil
}

// build reads the table into a hash table on the column.
func (p *autoIndex) build(e *env, src int) (*hashTable, error) {
	saved := e.rows[src]
	defer func() { e.rows[src] = saved }()
	c, err := p.scan.open(e, src)
	if err != nil {
		return nil, err
	}
	h := &hashTable{idx: map[string]int{}}
	var key []byte
	var arena rowArena
	for {
		ok, err := c.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		row := e.rows[src]
		var has bool
		if key, has = hashKey(key[:0], p.aff.ApplyForCompare(row[p.col]), p.coll); !has {
			continue // NULL equals nothing
		}
		h.add(key, arena.clone(row))
	}
	return h, nil
}

// hashKey appends the key of v under collation coll to dst, false for NULL (which equals
// nothing): its key component (codec.AppendKey), which is the same for values the comparison
// finds equal (1 and 1.0, texts equal under coll) and may be shared by others (a long text's
// cut key), as the invariant above allows.
func hashKey(dst []byte, v value.Value, coll value.Collation) ([]byte, bool) {
	if v.IsNull() {
		return dst, false
	}
	return codec.AppendKey(dst, v, false, coll), true
}

// rowArena copies rows into large shared blocks: building an automatic index allocates per block,
// not per row and value.
type rowArena struct {
	vals  []value.Value
	bytes []byte
}

// arenaBlock is the size of a block of values, and of bytes.
const arenaBlock = 4096

// clone returns a copy of r, and of the bytes its TEXT and BLOB values point into, valid as long
// as the arena's blocks are reachable.
func (a *rowArena) clone(r []value.Value) []value.Value {
	if cap(a.vals)-len(a.vals) < len(r) {
		a.vals = make([]value.Value, 0, max(arenaBlock, len(r)))
	}
	start := len(a.vals)
	a.vals = append(a.vals, r...)
	out := a.vals[start:len(a.vals):len(a.vals)]
	for i, v := range out {
		b := v.Bytes()
		if b == nil {
			continue
		}
		if cap(a.bytes)-len(a.bytes) < len(b) {
			a.bytes = make([]byte, 0, max(arenaBlock, len(b)))
		}
		n := len(a.bytes)
		a.bytes = append(a.bytes, b...)
		cp := a.bytes[n:len(a.bytes):len(a.bytes)]
		if v.Kind() == value.Text {
			out[i] = value.TextBytes(cp)
		} else {
			out[i] = value.BlobBytes(cp)
		}
	}
	return out
}

package engine

// The top-N sort: ORDER BY with a LIMIT keeps only the LIMIT + OFFSET smallest rows seen so far,
// in a max-heap, instead of every row. Rows with equal keys keep their arrival order (the heap
// orders by arrival after the keys), so the result is the stable sort's first rows.

import (
	"container/heap"
	"slices"

	"github.com/cairndb/cairn/sql/value"
)

// maxTopN is the largest LIMIT + OFFSET the top-N sort serves; a larger one sorts every row.
const maxTopN = 1 << 16

// heldRow is a row the top-N sort holds, with its arrival number.
type heldRow struct {
	row []value.Value
	seq int64
}

// topHeap is a max-heap of held rows by keys, then arrival.
type topHeap struct {
	rows []heldRow
	keys []orderKey
}

func (h *topHeap) less(a, b heldRow) bool {
	if c := compareRows(a.row, b.row, h.keys); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

func (h *topHeap) Len() int           { return len(h.rows) }
func (h *topHeap) Less(i, j int) bool { return h.less(h.rows[j], h.rows[i]) } // largest first
func (h *topHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *topHeap) Push(x any)         { h.rows = append(h.rows, x.(heldRow)) }
func (h *topHeap) Pop() any {
	last := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return last
}

// topN reads every row of in and returns the n smallest by keys, sorted.
func topN(in rowIter, keys []orderKey, n int) (rowIter, error) {
	h := &topHeap{keys: keys}
	for seq := int64(0); ; seq++ {
		ok, err := in.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if n == 0 {
			continue
		}
		r := heldRow{row: in.row(), seq: seq}
		switch {
		case len(h.rows) < n:
			r.row = cloneRow(r.row)
			heap.Push(h, r)
		case h.less(r, h.rows[0]): // smaller than the largest held: replace it
			r.row = cloneInto(h.rows[0].row, r.row)
			h.rows[0] = r
			heap.Fix(h, 0)
		}
	}
	slices.SortFunc(h.rows, func(a, b heldRow) int {
		if h.less(a, b) {
			return -1
		}
		return 1
	})
	rows := make([][]value.Value, len(h.rows))
	for i, r := range h.rows {
		rows[i] = r.row
	}
	return &sliceIter{rows: rows}, nil
}

// cloneInto copies src's values into dst (of the same length), reusing the slice dst.
func cloneInto(dst, src []value.Value) []value.Value {
	for i, v := range src {
		dst[i] = v.Clone()
	}
	return dst
}

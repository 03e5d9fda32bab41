package cairn

import (
	"bytes"
	"slices"
)

// handleSet is a transaction's bucket handles, by name; each name has at most one handle. Most
// transactions use one to three buckets: the first few handles live in an array inside the set
// and are found by comparing names, so that a short transaction allocates no map; past that a
// map holds them all.
type handleSet struct {
	few  [4]*Bucket
	n    int
	many map[string]*Bucket
}

// get returns the handle of the bucket called name, or nil.
func (h *handleSet) get(name []byte) *Bucket {
	if h.many != nil {
		return h.many[string(name)]
	}
	for _, b := range h.few[:h.n] {
		if bytes.Equal(b.name, name) {
			return b
		}
	}
	return nil
}

// add adds b, whose name has no handle in h yet.
func (h *handleSet) add(b *Bucket) {
	if h.many == nil && h.n < len(h.few) {
		h.few[h.n] = b
		h.n++
		return
	}
	if h.many == nil {
		h.many = make(map[string]*Bucket, 2*len(h.few))
		for _, x := range h.few[:h.n] {
			h.many[string(x.name)] = x
		}
		h.few, h.n = [len(h.few)]*Bucket{}, 0
	}
	h.many[string(b.name)] = b
}

// len returns the number of handles.
func (h *handleSet) len() int { return h.n + len(h.many) }

// all calls fn with every handle, in no particular order.
func (h *handleSet) all(fn func(*Bucket)) {
	for _, b := range h.few[:h.n] {
		fn(b)
	}
	for _, b := range h.many {
		fn(b)
	}
}

// sorted appends every handle to dst in the order of their names and returns it, so that the
// page layout of a commit does not depend on map order.
func (h *handleSet) sorted(dst []*Bucket) []*Bucket {
	h.all(func(b *Bucket) { dst = append(dst, b) })
	slices.SortFunc(dst, func(a, b *Bucket) int { return bytes.Compare(a.name, b.name) })
	return dst
}

// reset forgets every handle.
func (h *handleSet) reset() { *h = handleSet{} }

// shortName is the longest bucket name newHandle keeps in the handle's own allocation.
const shortName = 24

// newHandle returns a new handle on tx for the bucket called name, with a copy of the name
// (in the same allocation as the handle when the name is short, as the SQL layer's are). The
// transaction's first handles of short names live in the Tx itself (a transaction has one
// handle per name until it ends, so that memory is never given to another name).
func newHandle(tx *Tx, name []byte) *Bucket {
	if len(name) > shortName {
		return &Bucket{tx: tx, name: bytes.Clone(name)}
	}
	var h *inlineHandle
	if tx.inlineUsed < len(tx.inline) {
		h = &tx.inline[tx.inlineUsed]
		tx.inlineUsed++
	} else {
		h = &inlineHandle{}
	}
	h.b.tx = tx
	h.b.name = h.buf[:len(name):len(name)]
	copy(h.b.name, name)
	return &h.b
}

// inlineHandle is a handle with room for a short name.
type inlineHandle struct {
	b   Bucket
	buf [shortName]byte
}

// ownsHandle reports whether b is one of the handles in tx's own memory.
func (tx *Tx) ownsHandle(b *Bucket) bool {
	for i := range tx.inlineUsed {
		if b == &tx.inline[i].b {
			return true
		}
	}
	return false
}

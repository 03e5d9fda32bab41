package btree

// Tree page formats (after the 24-byte page header of package pager). Part of the on-disk format:
// see docs/FORMAT.md.
//
// Every tree page has header flag pager.FlagKeyPrefix set (a page without it is damage): each
// element starts with an 8-byte key prefix (the key's first 8 bytes, big-endian, zero-padded)
// and is 24 bytes long; the fields below follow the prefix. The prefix lets a binary search
// decide most comparisons inside the element table instead of loading each probed key from
// elsewhere in the page (one cache miss per probe).
//
//	Leaf extent: header (type PageLeaf, count N), N elements, then key/value bytes.
//	| Offset | Size | Element field (after the prefix)                           |
//	| 0      | 4    | flags: bit 0 = value is in an overflow extent              |
//	| 4      | 4    | key size                                                   |
//	| 8      | 4    | value size (the whole value, also when in overflow)        |
//	| 12     | 4    | offset of the key from the start of the extent             |
//	The value bytes follow the key; for an overflow value, 8 bytes hold the overflow extent id.
//
//	Branch extent: header (type PageBranch, count N >= 1), N elements, then keys.
//	| 0      | 4    | offset of the key from the start of the extent             |
//	| 4      | 4    | key size                                                   |
//	| 8      | 8    | child page id                                              |
//	Child i holds the keys k with key(i) <= k < key(i+1); key(0) bounds nothing below.
//
//	Overflow extent: header (type PageOverflow), then the value bytes from offset 24.
//
// Keys in a tree page are strictly ascending, and a prefix always matches its key (Validate).

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/pager"
)

// elemSize is the size of an element's fields; prefixSize the key prefix before them, so that
// elements are prefixedElemSize long. elemFields is the offset of element 0's fields in a page:
// element i's are at elemFields+i*prefixedElemSize.
const (
	elemSize         = 16
	prefixSize       = 8
	prefixedElemSize = elemSize + prefixSize
	elemFields       = pager.HeaderSize + prefixSize
)

const flagOverflow = 1

var le = binary.LittleEndian

// elem returns the fields of element i of p (after its prefix) and what follows.
func elem(p []byte, i int) []byte { return p[elemFields+i*prefixedElemSize:] }

// elemPrefix returns the key prefix of element i of p.
func elemPrefix(p []byte, i int) uint64 {
	return binary.BigEndian.Uint64(p[pager.HeaderSize+i*prefixedElemSize:])
}

// keyPrefix returns the prefix of key as elements store it: its first 8 bytes, big-endian,
// zero-padded. For keys a and b, keyPrefix(a) < keyPrefix(b) implies a < b; equal prefixes
// say nothing.
func keyPrefix(key []byte) uint64 {
	if len(key) >= prefixSize {
		return binary.BigEndian.Uint64(key)
	}
	var b [prefixSize]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// cacheLine is the size in bytes of a CPU cache line on the machines cairn is tuned for.
const cacheLine = 64

// warmElements loads one byte of each cache line of tree page p's element table after the
// header's and returns their sum, which the caller must keep (Tree.warmed) so that the loads are
// not dropped. The loads do not depend on one another, so the CPU overlaps their cache misses:
// the binary search that follows finds its lines cached instead of paying one dependent miss per
// probe. This is software prefetching by touching: Go offers no prefetch instruction outside its
// runtime.
func warmElements(p []byte) uint {
	end := min(pager.HeaderSize+pager.Count(p)*prefixedElemSize, len(p))
	var sum uint
	for off := cacheLine; off < end; off += cacheLine {
		sum += uint(p[off])
	}
	return sum
}

func leafKey(p []byte, i int) []byte {
	e := elem(p, i)
	off, n := le.Uint32(e[12:]), le.Uint32(e[4:])
	return p[off : off+n : off+n]
}

// leafValue returns the inline value of element i, or the overflow extent id and value size.
func leafValue(p []byte, i int) (inline []byte, ovf uint64, size uint32) {
	_, inline, ovf, size = leafFields(p, elem(p, i))
	return inline, ovf, size
}

// leafFields decodes leaf element e (its fields, as elem returns them) of page p: the key, and
// the inline value or the overflow extent id, and the value's size.
func leafFields(p, e []byte) (key, inline []byte, ovf uint64, size uint32) {
	flags, kn, vn, off := le.Uint32(e[0:]), le.Uint32(e[4:]), le.Uint32(e[8:]), le.Uint32(e[12:])
	v := off + kn
	if flags&flagOverflow != 0 {
		return p[off:v:v], nil, le.Uint64(p[v:]), vn
	}
	return p[off:v:v], p[v : v+vn : v+vn], 0, vn
}

func branchKey(p []byte, i int) []byte {
	e := elem(p, i)
	off, n := le.Uint32(e[0:]), le.Uint32(e[4:])
	return p[off : off+n : off+n]
}

func branchChild(p []byte, i int) uint64 { return le.Uint64(elem(p, i)[8:]) }

// setBranchChild sets the child page id of element i of branch page p (not yet sealed).
func setBranchChild(p []byte, i int, child uint64) { le.PutUint64(elem(p, i)[8:], child) }

// Validate checks that extent p, read from the file at id, is a well-formed page whose accessors
// cannot index out of range. It is the pager's validator: errors wrap errs.ErrCorrupt.
func Validate(id uint64, p []byte) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("btree: page %d: %s: %w", id, fmt.Sprintf(format, a...), errs.ErrCorrupt)
	}
	typ, n := pager.Type(p), pager.Count(p)
	switch typ {
	case pager.PageOverflow, pager.PageFreelist:
		return nil
	case pager.PageLeaf, pager.PageBranch:
	default:
		return bad("unknown page type %d", typ)
	}
	f := pager.Flags(p)
	if f&^pager.FlagKeyPrefix != 0 {
		return bad("unknown header flags %#x", f)
	}
	if f != pager.FlagKeyPrefix {
		return bad("tree page without key prefixes (header flags %#x)", f)
	}
	table := pager.HeaderSize + n*prefixedElemSize
	if table > len(p) {
		return bad("%d elements overflow the extent", n)
	}
	if typ == pager.PageBranch && n == 0 {
		return bad("branch page without children")
	}
	var prev []byte
	for i := range n {
		e := elem(p, i)
		var off, end uint64
		if typ == pager.PageLeaf {
			off = uint64(le.Uint32(e[12:]))
			vlen := uint64(le.Uint32(e[8:]))
			if le.Uint32(e[0:])&flagOverflow != 0 {
				vlen = 8
			}
			end = off + uint64(le.Uint32(e[4:])) + vlen
		} else {
			off = uint64(le.Uint32(e[0:]))
			end = off + uint64(le.Uint32(e[4:]))
		}
		if off < uint64(table) || end > uint64(len(p)) {
			return bad("element %d data [%d, %d) outside the extent", i, off, end)
		}
		k := p[off : off+uint64(le.Uint32(e[4:]))]
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			return bad("keys out of order at element %d", i)
		}
		if elemPrefix(p, i) != keyPrefix(k) {
			return bad("element %d: key prefix does not match the key", i)
		}
		prev = k
	}
	return nil
}

// treePage returns the extent at id and checks that it is a tree page.
func (t *Tree) treePage(id uint64) ([]byte, error) {
	p, err := t.pg.Page(id)
	if err != nil {
		return nil, err
	}
	if typ := pager.Type(p); typ != pager.PageLeaf && typ != pager.PageBranch {
		return nil, fmt.Errorf("btree: page %d: type %d where a tree page is referenced: %w", id, typ, errs.ErrCorrupt)
	}
	return p, nil
}

// overflowValue returns the value of size bytes stored in the overflow extent at id.
func (t *Tree) overflowValue(id uint64, size uint32) ([]byte, error) {
	p, err := t.pg.Page(id)
	if err != nil {
		return nil, err
	}
	if pager.Type(p) != pager.PageOverflow || uint64(size) > uint64(len(p)-pager.HeaderSize) {
		return nil, fmt.Errorf("btree: page %d: not an overflow extent of %d bytes: %w", id, size, errs.ErrCorrupt)
	}
	return p[pager.HeaderSize : pager.HeaderSize+int(size) : pager.HeaderSize+int(size)], nil
}

package btree

import "github.com/cairndb/cairn/pager"

// Refs appends to refs the extents that extent p (a tree or overflow extent, as pager.Pager.Page
// returns it, verified) references: a branch's children, a leaf's overflow values, nothing for an
// overflow extent. Other page types give an error wrapping ErrCorrupt.
func Refs(id uint64, p []byte, refs []uint64) ([]uint64, error) {
	switch pager.Type(p) {
	case pager.PageBranch:
		for i := range pager.Count(p) {
			refs = append(refs, branchChild(p, i))
		}
	case pager.PageLeaf:
		for i := range pager.Count(p) {
			if _, ovf, _ := leafValue(p, i); ovf != 0 {
				refs = append(refs, ovf)
			}
		}
	case pager.PageOverflow:
	default:
		return refs, corruptf("page %d: type %d where a tree or overflow page was expected", id, pager.Type(p))
	}
	return refs, nil
}

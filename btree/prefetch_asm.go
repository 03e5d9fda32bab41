//go:build amd64 || arm64

package btree

import "unsafe"

// prefetch asks the CPU to start loading the four cache lines at addr (256 bytes: a page's header
// and the start of its element table) without waiting for them: PREFETCHT0 on amd64, PRFM
// PLDL1KEEP on arm64. It never faults, so addr may be any address.
//
//go:noescape
func prefetch(addr unsafe.Pointer)

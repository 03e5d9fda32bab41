//go:build !amd64 && !arm64

package btree

import "unsafe"

// prefetch does nothing on this architecture (see prefetch_asm.go).
func prefetch(addr unsafe.Pointer) {}

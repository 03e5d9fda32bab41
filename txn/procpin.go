package txn

import _ "unsafe" // for go:linkname

// procPin pins the goroutine to its P (processor) and returns the P's id; preemption is off until
// procUnpin. The runtime keeps these two functions reachable by linkname for packages that shard
// state per P (sync.Pool does the same internally).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

package cluster

// SHIM, to be replaced by the node's single TCP listener (cluster/net.go, with optional mutual
// TLS), which provides the same two methods: forwardListener (the connections that chose
// forwarding; nil when Config.Transport is set) and dialForward (a connection to a node's
// forwarding service at its Raft address). Until then, a node with Config.ForwardAddr set
// listens there on a plain TCP listener of its own, and registers that address under its Raft
// address in this process, so that dialForward of a Raft address (what raft names the leader by)
// reaches it; without ForwardAddr it has no listener and dialForward dials the Raft address
// itself. Nothing outside this file knows of the registry or ForwardAddr's listener.

import (
	"net"
	"sync"
	"time"
)

var (
	shimMu    sync.Mutex
	shimAddrs = map[string]string{} // Raft address -> forwarding address, of this process's nodes
	shimLns   = map[*Node]net.Listener{}
)

// forwardListener returns the listener of the node's forwarding connections, or nil.
func (n *Node) forwardListener() net.Listener {
	shimMu.Lock()
	defer shimMu.Unlock()
	if ln, ok := shimLns[n]; ok {
		return ln
	}
	if n.cfg.ForwardAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", n.cfg.ForwardAddr)
	if err != nil {
		n.logger.Error("forwarding listener", "error", err)
		return nil
	}
	raftAddr := string(n.trans.LocalAddr())
	shimLns[n] = &shimListener{Listener: ln, raftAddr: raftAddr}
	shimAddrs[raftAddr] = ln.Addr().String()
	return shimLns[n]
}

// shimListener unregisters the node when it is closed.
type shimListener struct {
	net.Listener
	raftAddr string
}

func (l *shimListener) Close() error {
	shimMu.Lock()
	if shimAddrs[l.raftAddr] == l.Addr().String() {
		delete(shimAddrs, l.raftAddr)
	}
	for n, ln := range shimLns {
		if ln == l {
			delete(shimLns, n)
		}
	}
	shimMu.Unlock()
	return l.Listener.Close()
}

// dialForward connects to the forwarding service of the node at Raft address addr.
func (n *Node) dialForward(addr string, timeout time.Duration) (net.Conn, error) {
	shimMu.Lock()
	if a, ok := shimAddrs[addr]; ok {
		addr = a
	}
	shimMu.Unlock()
	return net.DialTimeout("tcp", addr, timeout)
}

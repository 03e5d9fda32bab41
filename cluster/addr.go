package cluster

import (
	"fmt"
	"net"
)

// resolveTCP resolves a host:port the other nodes dial.
func resolveTCP(hostport string) (*net.TCPAddr, error) {
	a, err := net.ResolveTCPAddr("tcp", hostport)
	if err != nil {
		return nil, fmt.Errorf("cluster: address %q: %w", hostport, err)
	}
	return a, nil
}

package cluster

// One TCP listener per node (Config.BindAddr) carries Raft's RPCs and the write-forwarding RPC.
// Invariants:
//   - The first byte a connection carries (after the TLS handshake, when TLS is on) chooses its
//     user: muxRaft (raft.NetworkTransport, through the raft.StreamLayer raftStream) or
//     muxForward (Node.forwardListener); any other byte closes the connection.
//   - With Config.TLS every connection, accepted or dialled, is mutual TLS 1.3: each side
//     presents its certificate and accepts only one the cluster's CA signed. Nothing but the
//     handshake is read from a connection before it succeeded; a refused peer is logged at
//     error level with its remote address and the reason.

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// The first byte of a connection: which service it is for.
const (
	muxRaft    byte = 'R'
	muxForward byte = 'F'
)

// muxHandshakeTimeout bounds how long an accepted connection may take to finish its TLS
// handshake and send its first byte.
const muxHandshakeTimeout = 10 * time.Second

// LoadTLS returns the Config.TLS of a node from PEM files: certFile and keyFile are the node's
// certificate (which should carry both the server and the client extended key usage) and its
// private key, caFile the cluster's CA certificate(s), which must have signed every member's
// certificate. Errors name the file that failed.
func LoadTLS(certFile, keyFile, caFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS certificate %s / key %s: %w", certFile, keyFile, err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("cluster: TLS CA %s: no PEM certificate in it", caFile)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ClientCAs: pool}, nil
}

// tlsConfigs derives the server and client configurations of a node's connections from
// Config.TLS: mutual TLS 1.3, the node's first certificate presented on both sides, the peer's
// verified against the CA (RootCAs for the servers a node dials, ClientCAs, default RootCAs,
// for the clients it accepts). Host names are not checked: a member is whoever holds a
// certificate of the cluster's CA, so that CA must sign nothing else.
func tlsConfigs(c *tls.Config) (server, client *tls.Config, err error) {
	if len(c.Certificates) == 0 {
		return nil, nil, errors.New("cluster: Config.TLS has no certificate")
	}
	if c.RootCAs == nil && c.ClientCAs == nil {
		return nil, nil, errors.New("cluster: Config.TLS has no CA (RootCAs, ClientCAs)")
	}
	roots, clientCAs := c.RootCAs, c.ClientCAs
	if roots == nil {
		roots = clientCAs
	}
	if clientCAs == nil {
		clientCAs = roots
	}
	server = c.Clone()
	server.MinVersion = tls.VersionTLS13
	server.ClientAuth = tls.RequireAndVerifyClientCert
	server.ClientCAs = clientCAs

	client = c.Clone()
	client.MinVersion = tls.VersionTLS13
	client.RootCAs = roots
	own := &c.Certificates[0]
	// Always present the certificate, so that a server of another CA says why it refuses it.
	client.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return own, nil }
	// The chain is verified below, without a host name (see above).
	client.InsecureSkipVerify = true
	client.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("cluster: the peer presented no certificate")
		}
		inter := x509.NewCertPool()
		for _, ic := range cs.PeerCertificates[1:] {
			inter.AddCert(ic)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		return err
	}
	return server, client, nil
}

// mux is a node's listener, split by the first byte of each connection.
type mux struct {
	ln        net.Listener
	advertise net.Addr
	server    *tls.Config // nil: plain TCP
	client    *tls.Config
	logger    hclog.Logger

	raft, forward *subListener
	done          chan struct{}
	closeOnce     sync.Once
}

// listen opens the listener of a node on bind. advertise is the address the other nodes dial
// (default: the listener's own, so that a port 0 works); it must not be an unspecified address
// (0.0.0.0, ::). tlsConf nil means plain TCP.
func listen(bind, advertise string, tlsConf *tls.Config, logger hclog.Logger) (*mux, error) {
	m := &mux{logger: logger, done: make(chan struct{})}
	if tlsConf != nil {
		var err error
		if m.server, m.client, err = tlsConfigs(tlsConf); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, fmt.Errorf("cluster: listen: %w", err)
	}
	m.ln = ln
	if advertise == "" {
		m.advertise = ln.Addr()
	} else if m.advertise, err = resolveTCP(advertise); err != nil {
		ln.Close()
		return nil, err
	}
	if a, ok := m.advertise.(*net.TCPAddr); !ok || a.IP == nil || a.IP.IsUnspecified() || a.Port == 0 {
		ln.Close()
		return nil, fmt.Errorf("cluster: address %s is not one other nodes can dial: set Config.AdvertiseAddr", m.advertise)
	}
	m.raft = &subListener{m: m, ch: make(chan net.Conn), closed: make(chan struct{})}
	m.forward = &subListener{m: m, ch: make(chan net.Conn), closed: make(chan struct{})}
	go m.serve()
	return m, nil
}

// serve accepts connections until the listener closes.
func (m *mux) serve() {
	for {
		c, err := m.ln.Accept()
		if err != nil {
			select {
			case <-m.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			m.logger.Error("listener failed", "error", err)
			return
		}
		go m.route(c)
	}
}

// route finishes the handshake of an accepted connection, reads its first byte and hands it to
// the service it chose.
func (m *mux) route(c net.Conn) {
	remote := c.RemoteAddr().String()
	_ = c.SetDeadline(time.Now().Add(muxHandshakeTimeout))
	conn := c
	if m.server != nil {
		tc := tls.Server(c, m.server)
		if err := tc.Handshake(); err != nil {
			m.logger.Error("refused connection: TLS handshake failed", "remote", remote, "reason", err)
			c.Close()
			return
		}
		conn = tc
	}
	var b [1]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		m.logger.Warn("connection closed before choosing a service", "remote", remote, "error", err)
		conn.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	var sub *subListener
	switch b[0] {
	case muxRaft:
		sub = m.raft
	case muxForward:
		sub = m.forward
	default:
		m.logger.Error("refused connection: unknown service byte", "remote", remote, "byte", b[0])
		conn.Close()
		return
	}
	select {
	case sub.ch <- conn:
	case <-sub.closed:
		conn.Close()
	case <-m.done:
		conn.Close()
	}
}

// dial connects to the node listening at addr for service kind, over TLS when configured.
func (m *mux) dial(addr string, timeout time.Duration, kind byte) (net.Conn, error) {
	if timeout <= 0 {
		timeout = muxHandshakeTimeout
	}
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	conn := c
	if m.client != nil {
		tc := tls.Client(c, m.client)
		if err := tc.Handshake(); err != nil {
			c.Close()
			m.logger.Error("refused peer: TLS handshake failed", "remote", addr, "reason", err)
			return nil, fmt.Errorf("cluster: TLS handshake with %s: %w", addr, err)
		}
		conn = tc
	}
	if _, err := conn.Write([]byte{kind}); err != nil {
		conn.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return conn, nil
}

// close closes the listener; the sub-listeners' Accept calls return net.ErrClosed.
func (m *mux) close() error {
	var err error
	m.closeOnce.Do(func() {
		close(m.done)
		err = m.ln.Close()
	})
	return err
}

// subListener is the net.Listener of one service of a mux.
type subListener struct {
	m      *mux
	ch     chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// Accept returns the next connection that chose this service.
func (s *subListener) Accept() (net.Conn, error) {
	select {
	case c := <-s.ch:
		return c, nil
	case <-s.closed:
	case <-s.m.done:
	}
	return nil, net.ErrClosed
}

// Close stops this service's Accept; the node's listener stays open for the other service.
func (s *subListener) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// Addr returns the node's advertised address.
func (s *subListener) Addr() net.Addr { return s.m.advertise }

// raftStream is the raft.StreamLayer of a mux. Closing it (raft.NetworkTransport.Close) closes
// the node's listener.
type raftStream struct{ *subListener }

// Dial connects to the Raft service of the node at address.
func (r raftStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return r.m.dial(string(address), timeout, muxRaft)
}

// Close closes the node's listener.
func (r raftStream) Close() error {
	r.subListener.Close()
	return r.m.close()
}

// newNetTransport returns the Raft transport of a node over its listener m.
func newNetTransport(m *mux, logger hclog.Logger) *raft.NetworkTransport {
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: raftStream{m.raft}, MaxPool: 3, Timeout: 10 * time.Second, Logger: logger})
}

// forwardListener returns the connections of other nodes that chose the forwarding service
// (their first byte was muxForward, already consumed), or nil when the node has no listener
// (Config.Transport). Closing it stops only forwarding; Node.Close closes the node's listener.
func (n *Node) forwardListener() net.Listener {
	if n.mux == nil {
		return nil
	}
	return n.mux.forward
}

// dialForward connects to the forwarding service of the node whose Raft address is addr: a
// connection to its listener, over mutual TLS when configured, whose first byte (muxForward) is
// written. Without a listener of this node (Config.Transport) it returns an error.
func (n *Node) dialForward(addr string, timeout time.Duration) (net.Conn, error) {
	if n.mux == nil {
		return nil, errors.New("cluster: no network listener (Config.Transport is set)")
	}
	return n.mux.dial(addr, timeout, muxForward)
}

// Addr returns the Raft address other nodes dial to reach this node: Config.AdvertiseAddr, or
// the listener's own address (the port chosen when BindAddr's port is 0).
func (n *Node) Addr() string { return string(n.trans.LocalAddr()) }

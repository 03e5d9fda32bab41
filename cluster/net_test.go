package cluster

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// testCA is a certificate authority made for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

var serial struct {
	sync.Mutex
	n int64
}

// issue returns a node certificate for name signed by ca (server and client usages, 127.0.0.1).
func (ca *testCA) issue(t *testing.T, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	serial.Lock()
	serial.n++
	sn := serial.n + 100
	serial.Unlock()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(sn), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// tlsFor returns the Config.TLS of a node holding cert and trusting ca.
func tlsFor(cert tls.Certificate, ca *testCA) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: ca.pool}
}

// logBuffer collects a node's log lines (and passes them to the test's log).
type logBuffer struct {
	t  *testing.T
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond every 10 ms for up to 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tcpNode opens node id in a directory of the test, listening on a free loopback port, with the
// given TLS (nil: plain TCP); bootstrap makes it a cluster of itself.
func tcpNode(t *testing.T, id string, tlsConf *tls.Config, bootstrap bool, logs io.Writer) *Node {
	t.Helper()
	n, err := Open(filepath.Join(t.TempDir(), id), Config{NodeID: id, BindAddr: "127.0.0.1:0", TLS: tlsConf,
		Bootstrap: bootstrap, HeartbeatTimeout: 200 * time.Millisecond, ElectionTimeout: 200 * time.Millisecond,
		LeaderLeaseTimeout: 200 * time.Millisecond, CommitTimeout: 5 * time.Millisecond,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: logs})})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	require.NotEqual(t, "127.0.0.1:0", n.Addr(), "the node advertises its listener's real port")
	return n
}

// tlsCluster starts three TLS nodes of ca on loopback: n1 bootstraps, n2 and n3 are added as
// voters. It returns them, the leader first, and their log.
func tlsCluster(t *testing.T, ca *testCA) ([]*Node, *logBuffer) {
	logs := &logBuffer{t: t}
	n1 := tcpNode(t, "n1", tlsFor(ca.issue(t, "n1"), ca), true, logs)
	waitFor(t, "n1 leads", n1.IsLeader)
	nodes := []*Node{n1}
	for _, id := range []string{"n2", "n3"} {
		n := tcpNode(t, id, tlsFor(ca.issue(t, id), ca), false, logs)
		require.NoError(t, n1.AddVoter(id, n.Addr()))
		nodes = append(nodes, n)
	}
	return nodes, logs
}

// TestTLSClusterReplicates: three nodes over mutual TLS on real loopback TCP replicate writes.
func TestTLSClusterReplicates(t *testing.T) {
	ca := newTestCA(t, "cluster CA")
	nodes, _ := tlsCluster(t, ca)
	want := map[string]string{}
	for i := range 50 {
		k, v := fmt.Sprintf("k%02d", i), fmt.Sprintf("v%d", i)
		require.NoError(t, put(nodes[0], k, v))
		want[k] = v
	}
	lsn := nodes[0].LastLSN()
	for _, n := range nodes {
		require.Equal(t, want, state(t, n, lsn), "node %s", n.cfg.NodeID)
		require.Len(t, n.Status().Members, 3)
	}
	// The forwarding service shares the listener, over the same TLS: it answers its greeting,
	// and a follower's write reaches the leader through it.
	c, err := nodes[0].dialForward(nodes[1].Addr(), 5*time.Second)
	require.NoError(t, err)
	_, err = c.Write([]byte(forwardMagic))
	require.NoError(t, err)
	hello := make([]byte, len(forwardMagic))
	_, err = io.ReadFull(c, hello)
	require.NoError(t, err)
	require.Equal(t, forwardMagic, string(hello))
	c.Close()
	lsn, err = nodes[1].Write(context.Background(), []Op{{Kind: OpPut, Key: []byte("forwarded"), Value: []byte("v")}})
	require.NoError(t, err)
	require.Equal(t, "v", state(t, nodes[0], lsn)["forwarded"])
}

// TestTLSRefusesForeignCertificates: a node whose certificate another CA signed cannot join (it
// is added as a voter but never receives an entry: the leader refuses its certificate) nor send
// Raft RPCs to the cluster (the members refuse its certificate), and each refusal is logged
// with the remote address and the reason. A certificate of the cluster's CA is accepted by the
// same path (the control).
func TestTLSRefusesForeignCertificates(t *testing.T) {
	ca, other := newTestCA(t, "cluster CA"), newTestCA(t, "another CA")
	nodes, logs := tlsCluster(t, ca)
	leader := nodes[0]
	require.NoError(t, put(leader, "before", "x"))

	// The intruder trusts the cluster's CA, but its own certificate is the other CA's.
	intruderLogs := &logBuffer{t: t}
	intruderTLS := &tls.Config{Certificates: []tls.Certificate{other.issue(t, "intruder")}, RootCAs: ca.pool, ClientCAs: other.pool}
	intruder := tcpNode(t, "intruder", intruderTLS, false, intruderLogs)
	require.NoError(t, leader.AddVoter("intruder", intruder.Addr())) // a quorum of the three commits it
	for i := range 20 {
		require.NoError(t, put(leader, fmt.Sprintf("k%02d", i), "v"))
	}
	lsn := leader.LastLSN()
	for _, n := range nodes[1:] {
		state(t, n, lsn)
	}
	waitFor(t, "the leader's refusal of the intruder", func() bool {
		return logged(logs, "refused peer: TLS handshake failed", "remote="+intruder.Addr())
	})
	require.Contains(t, logs.String(), "certificate signed by unknown authority")
	st := intruder.Status()
	require.Zero(t, st.LastLSN, "the intruder received no entry")
	require.Zero(t, st.CommitIndex)
	require.Empty(t, st.Members)
	require.NoError(t, leader.RemoveServer("intruder"))

	// The intruder's own Raft RPCs: an AppendEntries with an entry, as a leader of a later term.
	appendFrom := func(conf *tls.Config, log *logBuffer) error {
		m, err := listen("127.0.0.1:0", "", conf, hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: log}))
		require.NoError(t, err)
		trans := newNetTransport(m, hclog.NewNullLogger())
		defer trans.Close()
		req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("intruder"), Addr: []byte(m.advertise.String())},
			Term: 1000, PrevLogEntry: 0, PrevLogTerm: 0, LeaderCommitIndex: 1000,
			Entries: []*raft.Log{{Index: 1, Term: 1000, Type: raft.LogCommand, Data: encodeEntry(1, [][]byte{[]byte("junk")})}}}
		var resp raft.AppendEntriesResponse
		return trans.AppendEntries(raft.ServerID(nodes[1].cfg.NodeID), raft.ServerAddress(nodes[1].Addr()), req, &resp)
	}
	before := nodes[1].Status()
	err := appendFrom(intruderTLS, intruderLogs)
	require.Error(t, err, "a member accepted an RPC of a foreign certificate")
	waitFor(t, "the member's refusal of the intruder", func() bool {
		return logged(logs, "refused connection: TLS handshake failed", "remote=127.0.0.1:", "unknown authority")
	})
	after := nodes[1].Status()
	require.Equal(t, before.Term, after.Term)
	require.Equal(t, before.LastLSN, after.LastLSN)
	require.Equal(t, lsn, leader.LastLSN(), "the cluster's state is unchanged")
	require.NotContains(t, state(t, nodes[1], lsn), "junk")

	// Control: the same RPC with a certificate of the cluster's CA reaches the node (which
	// answers it: no transport error).
	insider := tlsFor(ca.issue(t, "insider"), ca)
	hb := func() error {
		m, err := listen("127.0.0.1:0", "", insider, hclog.NewNullLogger())
		require.NoError(t, err)
		trans := newNetTransport(m, hclog.NewNullLogger())
		defer trans.Close()
		var resp raft.AppendEntriesResponse
		return trans.AppendEntries(raft.ServerID(nodes[1].cfg.NodeID), raft.ServerAddress(nodes[1].Addr()),
			&raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("insider")}, Term: 0}, &resp)
	}
	require.NoError(t, hb())
}

// TestTLSRefusesPlainTCP: a client without TLS reaches nothing of a TLS node: neither a raw
// connection that sends the Raft service byte and a request, nor hashicorp/raft's plain TCP
// transport; the node logs the refusal with the client's address.
func TestTLSRefusesPlainTCP(t *testing.T) {
	ca := newTestCA(t, "cluster CA")
	logs := &logBuffer{t: t}
	n := tcpNode(t, "n1", tlsFor(ca.issue(t, "n1"), ca), true, logs)
	waitFor(t, "n1 leads", n.IsLeader)

	c, err := net.Dial("tcp", n.Addr())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(append([]byte{muxRaft}, bytes.Repeat([]byte{0}, 64)...))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	got, err := io.ReadAll(c)
	require.False(t, isTimeout(err), "the node neither answered nor closed the connection")
	// At most a TLS alert record (type 21) comes back, never a Raft response.
	require.True(t, len(got) == 0 || got[0] == 21, "a plain client got %q", got)
	waitFor(t, "the refusal", func() bool {
		return logged(logs, "refused connection: TLS handshake failed", "remote="+c.LocalAddr().String())
	})

	term := n.Status().Term
	plain, err := raft.NewTCPTransport("127.0.0.1:0", nil, 1, 5*time.Second, io.Discard)
	require.NoError(t, err)
	defer plain.Close()
	var resp raft.AppendEntriesResponse
	require.Error(t, plain.AppendEntries("n1", raft.ServerAddress(n.Addr()),
		&raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("plain")}, Term: 5}, &resp))
	require.Equal(t, uint64(0), n.Status().LastLSN)
	require.Equal(t, term, n.Status().Term, "the plain client's term did not reach Raft")
}

// logged reports whether a line of logs holds every part.
func logged(logs *logBuffer, parts ...string) bool {
	for _, line := range strings.Split(logs.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestFileModes: a node's directory and what it creates in it, snapshots included, are private:
// directories 0700, files 0600.
func TestFileModes(t *testing.T) {
	logs := &logBuffer{t: t}
	n := tcpNode(t, "n1", nil, true, logs)
	waitFor(t, "n1 leads", n.IsLeader)
	for i := range 20 {
		require.NoError(t, put(n, fmt.Sprintf("k%02d", i), "v"))
	}
	require.NoError(t, n.Snapshot())
	require.NoError(t, put(n, "more", "v"))
	require.NoError(t, n.Snapshot())
	dir := n.dir
	var files, snaps int
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		info, err := d.Info()
		require.NoError(t, err)
		mode := info.Mode().Perm()
		if d.IsDir() {
			require.Equal(t, os.FileMode(0o700), mode, "directory %s", path)
			return nil
		}
		files++
		if filepath.Base(path) == "state.bin" {
			snaps++
		}
		require.Equal(t, os.FileMode(0o600), mode, "file %s", path)
		return nil
	}))
	require.Equal(t, 2, snaps, "two snapshots kept")
	require.Greater(t, files, 4)
}

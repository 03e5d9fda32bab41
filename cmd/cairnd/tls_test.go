package main

import (
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func x509Pool(t *testing.T, pem []byte) *x509.CertPool {
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	return pool
}

// genCertsCmd runs cairnd gen-certs in dir for nodes.
func genCertsCmd(t *testing.T, dir string, nodes ...string) {
	t.Helper()
	out, err := exec.Command(cairndBin, "gen-certs", "-dir", dir, "-nodes", strings.Join(nodes, ",")).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

func tlsArgs(certs, id string) []string {
	return []string{"-tls-cert", filepath.Join(certs, id+".pem"), "-tls-key", filepath.Join(certs, id+"-key.pem"),
		"-tls-ca", filepath.Join(certs, "ca.pem")}
}

// TestTLSNodes: certificates from cairnd gen-certs; a node bootstraps over TLS, a second joins it
// through the HTTPS API and replicates its writes; clients need a certificate of the CA (a
// client without one, or speaking plain HTTP, gets nothing); a node whose certificates another
// gen-certs run made cannot join.
func TestTLSNodes(t *testing.T) {
	root := t.TempDir()
	certs, foreign := filepath.Join(root, "certs"), filepath.Join(root, "foreign")
	genCertsCmd(t, certs, "n1", "n2")
	genCertsCmd(t, foreign, "n3")
	for _, f := range []string{"ca-key.pem", "n1-key.pem", "client-key.pem"} {
		info, err := os.Stat(filepath.Join(certs, f))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), f)
	}
	ports := freePorts(t, 6)
	n1 := newProc(t, root, "n1", ports[0], ports[1], append(tlsArgs(certs, "n1"), "-log-level", "info")...)
	n1.start("-bootstrap")
	t.Cleanup(n1.kill)
	client := httpsClient(t, certs, "client")
	base := func(p *proc) string { return "https://" + p.http }
	waitUntil(t, 20*time.Second, "n1 leads", func() bool {
		st, err := status(client, base(n1))
		return err == nil && st.State == "Leader" && st.HTTPAddrs["n1"] == n1.http
	})
	n2 := newProc(t, root, "n2", ports[2], ports[3], append(tlsArgs(certs, "n2"), "-log-level", "info")...)
	n2.start("-join", n1.http)
	t.Cleanup(n2.kill)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("n1:\n%s\nn2:\n%s", n1.log(), n2.log())
		}
	})
	waitUntil(t, 20*time.Second, "n2 joined", func() bool {
		st, err := status(client, base(n2))
		return err == nil && st.LeaderID == "n1" && st.HTTPAddrs["n2"] == n2.http
	})
	lsn, err := put(t.Context(), client, base(n2), "k", "over TLS") // redirected to n1
	require.NoError(t, err)
	v, found, err := get(client, base(n2), "k", fmt.Sprintf("consistency=follower&min_lsn=%d", lsn))
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "over TLS", v)

	// Without a client certificate, or in plain HTTP, nothing is read or written.
	_, err = status(httpsClient(t, certs, ""), base(n1))
	require.Error(t, err)
	resp, err := http.Get("http://" + n1.http + "/kv/k")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.NotContains(t, string(body), "over TLS")
	}

	// A node of another CA: its join is refused, and it never becomes a member.
	n3 := newProc(t, root, "n3", ports[4], ports[5], tlsArgs(foreign, "n3")...)
	n3.start("-join", n1.http)
	t.Cleanup(n3.kill)
	waitUntil(t, 20*time.Second, "n3's refused join", func() bool {
		return strings.Contains(n3.log(), "registering with the cluster") && strings.Contains(n3.log(), "certificate")
	})
	st, err := status(client, base(n1))
	require.NoError(t, err)
	require.Len(t, st.Members, 2)
}

// TestRefusesNonLoopbackWithoutTLS: cairnd does not listen on a non-loopback address without
// TLS unless -insecure.
func TestRefusesNonLoopbackWithoutTLS(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-addr", "0.0.0.0:0"},
		{"-addr", ":0"},
		{"-http", "0.0.0.0:0"},
	} {
		cmd := exec.Command(cairndBin, append([]string{"-id", "n1", "-dir", filepath.Join(dir, "n1")}, args...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v: %s", args, out)
		require.Equal(t, 2, ee.ExitCode())
		require.Contains(t, string(out), "without TLS", "%v", args)
		require.Contains(t, string(out), "-insecure")
		_, err = os.Stat(filepath.Join(dir, "n1"))
		require.ErrorIs(t, err, os.ErrNotExist, "nothing was created")
	}
	// -insecure lets it start (on 0.0.0.0, advertising the loopback address).
	ports := freePorts(t, 2)
	p := newProc(t, dir, "n1", ports[0], "0.0.0.0:"+strings.Split(ports[1], ":")[1], "-insecure", "-bootstrap")
	p.start()
	p.stop()
}

func TestParsePeers(t *testing.T) {
	peers, err := parsePeers("n1=127.0.0.1:1, n2=host:2,")
	require.NoError(t, err)
	require.Len(t, peers, 2)
	require.Equal(t, "host:2", peers[1].Addr)
	for _, bad := range []string{"n1", "n1=", "=h:1", "n1=h", "n1=h:1,n1=h:2"} {
		_, err := parsePeers(bad)
		require.Error(t, err, bad)
	}
}

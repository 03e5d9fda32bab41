package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cairndBin is the cairnd binary the tests run, built by TestMain.
var cairndBin string

// buildFlags are extra go build flags for the binary (race_test.go adds -race).
var buildFlags []string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "cairnd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cairndBin = filepath.Join(dir, "cairnd")
	args := append([]string{"build", "-o", cairndBin}, buildFlags...)
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cairnd: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// freePorts returns n loopback addresses whose ports were free a moment ago.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// proc is one cairnd node of a test: its addresses and directory persist across restarts.
type proc struct {
	t          *testing.T
	id, dir    string
	addr, http string
	args       []string // flags besides -id, -dir, -addr, -http

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process exited
	stderr *os.File
	runs   int
}

func newProc(t *testing.T, root, id, addr, http string, args ...string) *proc {
	return &proc{t: t, id: id, dir: filepath.Join(root, id), addr: addr, http: http, args: args}
}

// start starts the node with its flags and extra, and waits for its start line.
func (p *proc) start(extra ...string) {
	t := p.t
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs++
	args := append([]string{"-id", p.id, "-dir", p.dir, "-addr", p.addr, "-http", p.http}, p.args...)
	args = append(args, extra...)
	cmd := exec.Command(cairndBin, args...)
	dieWithParent(cmd)
	var err error
	p.stderr, err = os.Create(filepath.Join(filepath.Dir(p.dir), fmt.Sprintf("%s.%d.log", p.id, p.runs)))
	require.NoError(t, err)
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p.cmd, p.done = cmd, make(chan struct{})
	done := p.done
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "cairnd %s did not start: %s", p.id, p.log())
	require.Contains(t, line, "cairnd: node "+p.id+": raft "+p.addr)
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
}

// kill sends SIGKILL and waits for the process to die.
func (p *proc) kill() { p.signal(syscall.SIGKILL) }

// stop sends SIGTERM (a clean shutdown) and waits.
func (p *proc) stop() { p.signal(syscall.SIGTERM) }

func (p *proc) signal(sig syscall.Signal) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		p.t.Errorf("cairnd %s did not exit on %v", p.id, sig)
	}
}

// log returns the node's stderr of its latest run.
func (p *proc) log() string {
	if p.stderr == nil {
		return ""
	}
	b, _ := os.ReadFile(p.stderr.Name())
	return string(b)
}

// nodeStatus is what the tests read of GET /status.
type nodeStatus struct {
	NodeID, State, LeaderID string
	LastLSN                 uint64
	SnapshotsInstalled      uint64
	Members                 []struct{ ID, Addr string }
	HTTPAddrs               map[string]string
}

// status returns the node's status, or an error if it does not answer.
func status(c *http.Client, base string) (nodeStatus, error) {
	var st nodeStatus
	resp, err := c.Get(base + "/status")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("status: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// put writes key=value through the node at base (following a redirect to the leader) and
// returns the LSN the leader answered, or an error (the outcome is then unknown).
func put(ctx context.Context, c *http.Client, base, key, value string) (uint64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+"/kv/"+key, strings.NewReader(value))
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		return 0, fmt.Errorf("PUT %s: %s: %s", key, resp.Status, bytes.TrimSpace(msg))
	}
	return strconv.ParseUint(resp.Header.Get(lsnHeader), 10, 64)
}

// get reads key on the node at base with the query q; found is false on 404.
func get(c *http.Client, base, key, q string) (value string, found bool, err error) {
	resp, err := c.Get(base + "/kv/" + key + "?" + q)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return "", false, err
	case resp.StatusCode == http.StatusNotFound:
		return "", false, nil
	case resp.StatusCode != http.StatusOK:
		return "", false, fmt.Errorf("GET %s: %s: %s", key, resp.Status, bytes.TrimSpace(b))
	}
	return string(b), true, nil
}

// waitUntil polls cond every 50 ms for up to d.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// httpsClient returns a client of the HTTP API with the certificate name of certs (none if
// name is "") trusting certs' CA.
func httpsClient(t *testing.T, certs, name string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(certs, "ca.pem"))
	require.NoError(t, err)
	conf := &tls.Config{RootCAs: x509Pool(t, pem)}
	if name != "" {
		cert, err := tls.LoadX509KeyPair(filepath.Join(certs, name+".pem"), filepath.Join(certs, name+"-key.pem"))
		require.NoError(t, err)
		conf.Certificates = []tls.Certificate{cert}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: conf}}
}

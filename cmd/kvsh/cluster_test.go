package main

// Remote sessions against real cairnd processes: cmd/cairnd is built once (into the directory of
// the kvsh binary) and run as a three-node cluster on loopback, and kvsh connects to a follower
// on a pseudo-terminal; and a one-node cluster over mutual TLS with certificates of cairnd
// gen-certs. Both are skipped with -short.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	cairndOnce sync.Once
	cairndPath string
	cairndErr  error
)

// buildCairnd builds cmd/cairnd once per test binary and returns its path.
func buildCairnd(t *testing.T) string {
	t.Helper()
	cairndOnce.Do(func() {
		cairndPath = filepath.Join(filepath.Dir(kvshBin), "cairnd")
		out, err := exec.Command("go", "build", "-o", cairndPath, "../cairnd").CombinedOutput()
		if err != nil {
			cairndErr = fmt.Errorf("building cairnd: %v\n%s", err, out)
		}
	})
	require.NoError(t, cairndErr)
	return cairndPath
}

// freeAddrs returns n loopback addresses whose ports were free a moment ago.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return addrs
}

// cairndNode is a cairnd process of a test.
type cairndNode struct {
	id, raft, http string
	log            string // its stderr
}

// startCairnd starts one cairnd node with args after its -id, -dir, -addr and -http, waits for
// its start line, and kills it at the end of the test.
func startCairnd(t *testing.T, root string, n cairndNode, args ...string) {
	t.Helper()
	cmd := exec.Command(buildCairnd(t), append([]string{"-id", n.id, "-dir", filepath.Join(root, n.id),
		"-addr", n.raft, "-http", n.http, "-log-level", "warn"}, args...)...)
	dieWithParent(cmd)
	logf, err := os.Create(n.log)
	require.NoError(t, err)
	defer logf.Close()
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "cairnd %s did not start", n.id)
	require.Contains(t, line, "cairnd: node "+n.id)
}

// startCluster runs a cluster of three cairnd nodes on loopback and waits until every node
// knows the same leader and every node's HTTP address.
func startCluster(t *testing.T) (nodes []cairndNode, leader string) {
	t.Helper()
	root := t.TempDir()
	addrs := freeAddrs(t, 6)
	var peers []string
	for i := range 3 {
		nodes = append(nodes, cairndNode{id: fmt.Sprintf("n%d", i+1), raft: addrs[2*i], http: addrs[2*i+1],
			log: filepath.Join(root, fmt.Sprintf("n%d.log", i+1))})
		peers = append(peers, nodes[i].id+"="+nodes[i].raft)
	}
	for _, n := range nodes {
		startCairnd(t, root, n, "-bootstrap", "-peers", strings.Join(peers, ","),
			"-heartbeat-timeout", "500ms", "-election-timeout", "500ms")
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range nodes {
				b, _ := os.ReadFile(n.log)
				t.Logf("stderr of %s:\n%s", n.id, b)
			}
		}
	})
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		leaders := map[string]bool{}
		for _, n := range nodes {
			var st nodeStatus
			resp, err := client.Get("http://" + n.http + "/status")
			if err == nil {
				err = json.NewDecoder(resp.Body).Decode(&st)
				resp.Body.Close()
			}
			if err == nil && st.LeaderID != "" && len(st.HTTPAddrs) == 3 {
				leaders[st.LeaderID] = true
			} else {
				leaders[""] = true
			}
		}
		if len(leaders) == 1 && !leaders[""] {
			for l := range leaders {
				return nodes, l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader known by every node with every HTTP address: %v", leaders)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// transcriptLine turns a line of a wanted transcript into a regular expression: literal text,
// a run of two or more spaces matching any run of spaces (table columns), and the placeholders
// {N} (a number), {D} (a duration as .timer prints it), {STATE} (Leader or Follower) and {ANY}.
func transcriptLine(line string) *regexp.Regexp {
	re := regexp.QuoteMeta(line)
	re = regexp.MustCompile(`  +`).ReplaceAllString(re, " +")
	re = strings.NewReplacer(`\{N\}`, `\d+`, `\{D\}`, `[0-9.]+ m?s`, `\{STATE\}`, `(?:Leader|Follower)`,
		`\{ANY\}`, `.*`).Replace(re)
	return regexp.MustCompile("^" + re + "$")
}

// TestTerminalCluster types a remote session on a pseudo-terminal: kvsh connects to a follower
// of a three-node cairnd cluster, writes (redirected to the leader), reads, scans and counts,
// switches to follower reads (shown in the prompt) and reads its own writes there, shows
// .cluster with a leader and three members, and answers commands and SQL that need a local
// database with one line. .cluster in .mode json is checked by a script run.
func TestTerminalCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds cairnd and runs three nodes")
	}
	nodes, leader := startCluster(t)
	var follower cairndNode
	for _, n := range nodes {
		if n.id != leader {
			follower = n
			break
		}
	}
	t.Logf("leader %s; kvsh connects to %s", leader, follower.id)
	dir := t.TempDir()
	url := "http://" + follower.http
	term := startTerminalIn(t, dir, filepath.Join(dir, "history"), "-connect", url)
	prompt := "kvsh@" + follower.id + "> "
	fprompt := "kvsh@" + follower.id + "[follower]> "
	term.expect(prompt)
	steps := []struct{ typed, expect string }{
		{"put greeting hello\r", prompt},
		{"put user/1 Ada; put user/2 Grace; put 'odd key/..' 0xff00\r", prompt},
		{"get greeting\r", prompt},
		{"scan\r", prompt},
		{"prefix user/\r", prompt},
		{"range o user/2\r", prompt},
		{"count; first user/; last\r", prompt},
		{"get us\t", "get user/"}, // completed from the node's keys
		{"2\r", prompt},
		{".consistency follower\r", fprompt},
		{"del user/1; get user/1\r", fprompt},
		{".consistency\r", fprompt},
		{".cluster\r", fprompt},
		{"checkpoint\r", fprompt},
		{"use people\r", fprompt},
		{"SELECT 1;\r", fprompt},
		{".consistency linearizable\r", prompt},
	}
	for _, s := range steps {
		term.typ(s.typed)
		term.expect(s.expect)
	}
	term.typ("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; screen %q", code, term.screen())
	}
	term.drain()
	var raft, httpAddr = map[string]string{}, map[string]string{}
	for _, n := range nodes {
		raft[n.id], httpAddr[n.id] = n.raft, n.http
	}
	f, l := follower.id, leader
	want := `cairn ` + version + `: ` + url + ` (node ` + f + `, Follower, leader ` + l + `, 3 members); type help
kvsh@` + f + `> put greeting hello
kvsh@` + f + `> put user/1 Ada; put user/2 Grace; put 'odd key/..' 0xff00
kvsh@` + f + `> get greeting
hello
kvsh@` + f + `> scan
greeting	hello
odd key/..	"\xff\x00"
user/1	Ada
user/2	Grace
kvsh@` + f + `> prefix user/
user/1	Ada
user/2	Grace
kvsh@` + f + `> range o user/2
odd key/..	"\xff\x00"
user/1	Ada
kvsh@` + f + `> count; first user/; last
4
user/1	Ada
user/2	Grace
kvsh@` + f + `> get user/2
Grace
kvsh@` + f + `> .consistency follower
kvsh@` + f + `[follower]> del user/1; get user/1
error: not found: user/1
kvsh@` + f + `[follower]> .consistency
follower
kvsh@` + f + `[follower]> .cluster
node  ` + f + `, http ` + follower.http + `
state  Follower
leader  ` + l + `, raft ` + raft[l] + `, http ` + httpAddr[l] + `
term  {N}
commit index  {N}
applied index  {N}
lsn  {N}
last contact  {D} ago
reopens  0
snapshots installed  0
reads  follower

id  role  state  raft  http  applied  lsn  lag  contact
--  -----  -----{ANY}
n1  voter  {STATE}  ` + raft["n1"] + `  ` + httpAddr["n1"] + `  {N}  {N}  {N}{ANY}
n2  voter  {STATE}  ` + raft["n2"] + `  ` + httpAddr["n2"] + `  {N}  {N}  {N}{ANY}
n3  voter  {STATE}  ` + raft["n3"] + `  ` + httpAddr["n3"] + `  {N}  {N}  {N}{ANY}
kvsh@` + f + `[follower]> checkpoint
error: checkpoint needs a local database (kvsh PATH): this session is connected to ` + url + `
kvsh@` + f + `[follower]> use people
error: use needs a local database (kvsh PATH): this session is connected to ` + url + `
kvsh@` + f + `[follower]> SELECT 1;
error: SQL needs a local database (kvsh PATH): this session is connected to ` + url + `
kvsh@` + f + `[follower]> .consistency linearizable
kvsh@` + f + `>`
	term.mu.Lock()
	got := screenLines(term.buf)
	term.mu.Unlock()
	for len(got) > 0 && got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}
	wantLines := strings.Split(want, "\n")
	for i, w := range wantLines {
		if i >= len(got) || !transcriptLine(w).MatchString(got[i]) {
			line := "(nothing)"
			if i < len(got) {
				line = fmt.Sprintf("%q", got[i])
			}
			t.Fatalf("screen line %d is %s, want %q\nscreen:\n%s", i+1, line, w, strings.Join(got, "\n"))
		}
	}
	require.Len(t, got, len(wantLines), "screen:\n%s", strings.Join(got, "\n"))
	// Exactly one member leads, and .cluster's rows say so.
	leaders := 0
	for _, g := range got {
		if regexp.MustCompile(`^n\d +voter +Leader `).MatchString(g) {
			leaders++
		}
	}
	require.Equal(t, 1, leaders)

	// .cluster in JSON, from a script on the leader: every member answered, with its lag.
	res := runIn(t, dir, "", "-connect", "http://"+httpAddr[l], "-c", ".mode json; .cluster")
	require.Equal(t, 0, res.code, res.stderr)
	var view struct {
		Node    struct{ NodeID, State, LeaderID string }
		Members []struct {
			ID, State, Error string
			Voter            bool
			Lag              *uint64
			AppliedIndex     *uint64
		}
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &view), res.stdout)
	require.Equal(t, l, view.Node.NodeID)
	require.Equal(t, "Leader", view.Node.State)
	require.Len(t, view.Members, 3)
	for _, m := range view.Members {
		require.Empty(t, m.Error, m.ID)
		require.True(t, m.Voter)
		require.NotNil(t, m.Lag, m.ID)
		require.NotNil(t, m.AppliedIndex, m.ID)
	}

	// A node that does not answer: kvsh says so and exits 1.
	gone := freeAddrs(t, 1)[0]
	res = runIn(t, dir, "", "-connect", gone, "-c", "get greeting")
	require.Equal(t, 1, res.code)
	require.Equal(t, "", res.stdout)
	require.Regexp(t, `^error: cannot reach http://`+regexp.QuoteMeta(gone)+`: .*connection refused\n$`, res.stderr)
}

// TestConnectTLS: kvsh connects over HTTPS to a cairnd node running with certificates of cairnd
// gen-certs, with the client certificate gen-certs makes; without a client certificate, or
// trusting another CA, it cannot.
func TestConnectTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds cairnd and runs a node")
	}
	root := t.TempDir()
	certs, foreign := filepath.Join(root, "certs"), filepath.Join(root, "foreign")
	for _, d := range []string{certs, foreign} {
		out, err := exec.Command(buildCairnd(t), "gen-certs", "-dir", d, "-nodes", "n1").CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	addrs := freeAddrs(t, 2)
	n := cairndNode{id: "n1", raft: addrs[0], http: addrs[1], log: filepath.Join(root, "n1.log")}
	startCairnd(t, root, n, "-bootstrap", "-tls-cert", filepath.Join(certs, "n1.pem"), "-tls-key", filepath.Join(certs, "n1-key.pem"),
		"-tls-ca", filepath.Join(certs, "ca.pem"))
	tlsArgs := func(dir string) []string {
		return []string{"-tls-cert", filepath.Join(dir, "client.pem"), "-tls-key", filepath.Join(dir, "client-key.pem"),
			"-tls-ca", filepath.Join(dir, "ca.pem")}
	}
	url := "https://" + n.http
	var res result
	deadline := time.Now().Add(30 * time.Second)
	for { // until the node leads and has recorded its HTTP address
		res = runIn(t, root, "", append([]string{"-connect", url, "-c", "put k 'over TLS'; get k; .cluster"}, tlsArgs(certs)...)...)
		if (res.code == 0 && strings.Contains(res.stdout, "Leader  "+n.raft+"  "+n.http)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	require.Equal(t, 0, res.code, res.stderr)
	require.True(t, strings.HasPrefix(res.stdout, "over TLS\nnode                 n1, http "+n.http+"\nstate                Leader\n"), res.stdout)
	require.Regexp(t, `\nn1 +voter +Leader +`+regexp.QuoteMeta(n.raft)+` +`+regexp.QuoteMeta(n.http)+` +\d+ +\d+ +0\n`, res.stdout)

	// No client certificate: the node refuses the handshake.
	res = runIn(t, root, "", "-connect", url, "-tls-ca", filepath.Join(certs, "ca.pem"), "-c", "get k")
	t.Logf("without a client certificate: %s", res.stderr)
	require.Equal(t, 1, res.code)
	require.Regexp(t, `^error: cannot reach `+regexp.QuoteMeta(url)+`: .*certificate`, res.stderr)
	// A client of another CA: kvsh does not trust the node's certificate.
	res = runIn(t, root, "", append([]string{"-connect", url, "-c", "get k"}, tlsArgs(foreign)...)...)
	t.Logf("another CA: %s", res.stderr)
	require.Equal(t, 1, res.code)
	require.Regexp(t, `^error: cannot reach `+regexp.QuoteMeta(url)+`: .*certificate`, res.stderr)
}

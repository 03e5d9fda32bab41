package main

// Unit tests of the HTTP client of remote sessions against a fake of cairnd's HTTP API (the
// leader holds a map; a follower redirects what cairnd's followers redirect). The process test
// against real cairnd nodes is TestTerminalCluster.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeData is the replicated state of a fake cluster: every node reads the same.
type fakeData struct {
	mu  sync.Mutex
	kv  map[string]string
	lsn uint64
}

// fakeNode is a fake cairnd node. The leader (redirect empty) serves reads and writes from kv;
// a follower redirects writes, linearizable and leader reads to redirect, and serves follower
// reads from the same map.
type fakeNode struct {
	t *testing.T
	*fakeData
	redirect string // the leader's base URL, for a follower
	status   nodeStatus
	pageSize int
	queries  []url.Values // of every GET, in order
	fail     string       // if set, every /kv request answers 503 with it
}

func (f *fakeNode) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		require.NoError(f.t, json.NewEncoder(w).Encode(f.status))
	})
	mux.HandleFunc("GET /kv", f.serve)
	mux.HandleFunc("/kv/{key...}", f.serve)
	return mux
}

func (f *fakeNode) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	if r.Method == http.MethodGet {
		f.queries = append(f.queries, q)
	}
	if f.fail != "" {
		http.Error(w, f.fail+"\nsecond line", http.StatusServiceUnavailable)
		return
	}
	if f.redirect != "" && (r.Method != http.MethodGet || q.Get("consistency") != "follower") {
		http.Redirect(w, r, f.redirect+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		return
	}
	if n, _ := strconv.ParseUint(q.Get("min_lsn"), 10, 64); n > f.lsn {
		http.Error(w, "min_lsn not reached", http.StatusGatewayTimeout)
		return
	}
	key := r.PathValue("key")
	switch {
	case r.Method == http.MethodPut:
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		f.kv[key] = b.String()
		f.lsn++
		w.Header().Set("Cairn-Lsn", strconv.FormatUint(f.lsn, 10))
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodDelete:
		delete(f.kv, key)
		f.lsn++
		w.Header().Set("Cairn-Lsn", strconv.FormatUint(f.lsn, 10))
		w.WriteHeader(http.StatusNoContent)
	case r.URL.Path == "/kv": // a scan
		w.Header().Set("Cairn-Lsn", strconv.FormatUint(f.lsn, 10))
		f.scan(w, q)
	default:
		w.Header().Set("Cairn-Lsn", strconv.FormatUint(f.lsn, 10))
		v, ok := f.kv[key]
		if !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Write([]byte(v))
	}
}

// scan answers GET /kv as cairnd does, in pages of at most pageSize (and limit).
func (f *fakeNode) scan(w http.ResponseWriter, q url.Values) {
	keys := make([]string, 0, len(f.kv))
	for k := range f.kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	limit := f.pageSize
	if l, err := strconv.Atoi(q.Get("limit")); err == nil && l > 0 {
		limit = min(limit, l)
	}
	type pair struct {
		Key   jsonBytes `json:"key"`
		Value jsonBytes `json:"value"`
	}
	page := struct {
		Pairs []pair     `json:"pairs"`
		Next  *jsonBytes `json:"next,omitempty"`
	}{Pairs: []pair{}}
	for _, k := range keys {
		if !strings.HasPrefix(k, q.Get("prefix")) || k < q.Get("start") || (q.Get("end") != "" && k >= q.Get("end")) {
			continue
		}
		if len(page.Pairs) == limit {
			next := jsonBytes(k)
			page.Next = &next
			break
		}
		page.Pairs = append(page.Pairs, pair{jsonBytes(k), jsonBytes(f.kv[k])})
	}
	json.NewEncoder(w).Encode(page)
}

// fakeCluster starts a fake leader and a fake follower redirecting to it.
func fakeCluster(t *testing.T) (leader, follower *fakeNode, leaderURL, followerURL string) {
	leader = &fakeNode{t: t, fakeData: &fakeData{kv: map[string]string{}}, pageSize: 2}
	ls := httptest.NewServer(leader.handler())
	t.Cleanup(ls.Close)
	follower = &fakeNode{t: t, fakeData: leader.fakeData, redirect: ls.URL, pageSize: 2}
	fs := httptest.NewServer(follower.handler())
	t.Cleanup(fs.Close)
	return leader, follower, ls.URL, fs.URL
}

func testRemote(t *testing.T, base string) *remote {
	t.Helper()
	r, err := dialRemote(remoteOptions{url: base})
	require.NoError(t, err)
	return r
}

// TestRemoteReadsAndWrites: writes through a follower follow its 307 to the leader with their
// body; keys with bytes special in a URL arrive intact; the session's reads carry its
// consistency and, as min_lsn, the LSN of its last write; 404 is "not found"; an error answer
// gives its status and first line.
func TestRemoteReadsAndWrites(t *testing.T) {
	leader, follower, _, followerURL := fakeCluster(t)
	r := testRemote(t, followerURL)
	ctx := t.Context()
	keys := []string{"plain", "dir/file", "a b?c#d%", "..", ".", "\xff\x00é"}
	for i, k := range keys {
		require.NoError(t, r.put(ctx, []byte(k), []byte(fmt.Sprintf("value %d", i))))
	}
	require.Equal(t, uint64(len(keys)), r.token, "the token is the LSN of the last write")
	for i, k := range keys {
		require.Equal(t, fmt.Sprintf("value %d", i), leader.kv[k], "%q", k)
	}
	require.NoError(t, r.put(ctx, []byte("empty"), []byte{}))
	v, found, err := r.get(ctx, []byte("empty"))
	require.NoError(t, err)
	require.True(t, found)
	require.Empty(t, v)

	// A linearizable read on the follower is redirected to the leader.
	v, found, err = r.get(ctx, []byte("dir/file"))
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "value 1", string(v))
	require.Equal(t, "linearizable", leader.queries[len(leader.queries)-1].Get("consistency"))

	// A follower read is served by the follower, with the session's token as min_lsn.
	r.consistency, r.maxStaleness = consistencyFollower, 2*time.Second
	before := len(leader.queries)
	v, found, err = r.get(ctx, []byte(".."))
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "value 3", string(v))
	require.Len(t, leader.queries, before, "not redirected")
	q := follower.queries[len(follower.queries)-1]
	require.Equal(t, "follower", q.Get("consistency"))
	require.Equal(t, "2s", q.Get("max_staleness"))
	require.Equal(t, strconv.FormatUint(r.token, 10), q.Get("min_lsn"))

	// A delete; then the key is not found.
	require.NoError(t, r.put(ctx, []byte("plain"), nil))
	_, found, err = r.get(ctx, []byte("plain"))
	require.NoError(t, err)
	require.False(t, found)
	require.NotContains(t, leader.kv, "plain")

	// The node's error answers.
	follower.fail = "no leader to send this to (cluster: not the leader)"
	_, _, err = r.get(ctx, []byte("x"))
	require.EqualError(t, err, "503 Service Unavailable: no leader to send this to (cluster: not the leader) (from "+
		strings.TrimPrefix(followerURL, "http://")+")")
	require.Error(t, r.put(ctx, []byte("x"), []byte("y")))
}

// TestRemoteScan: a scan reads page after page (the fake's pages hold 2 pairs), sends prefix,
// start and end, stops at a limit, and an error of the callback stops it.
func TestRemoteScan(t *testing.T) {
	leader, _, leaderURL, _ := fakeCluster(t)
	for _, k := range []string{"a", "b/1", "b/2", "b/3", "b/4", "b/5", "c"} {
		leader.kv[k] = "v" + k
	}
	leader.lsn = 7
	r := testRemote(t, leaderURL)
	ctx := t.Context()
	collect := func(prefix, start, end string, limit int) []string {
		t.Helper()
		var got []string
		err := r.scan(ctx, []byte(prefix), []byte(start), []byte(end), limit, func(k, v []byte) error {
			require.Equal(t, "v"+string(k), string(v))
			got = append(got, string(k))
			return nil
		})
		require.NoError(t, err)
		return got
	}
	require.Equal(t, []string{"a", "b/1", "b/2", "b/3", "b/4", "b/5", "c"}, collect("", "", "", 0))
	require.Equal(t, uint64(7), r.token, "the token follows the LSN of the pages read")
	require.Equal(t, []string{"b/1", "b/2", "b/3", "b/4", "b/5"}, collect("b/", "", "", 0))
	require.Equal(t, []string{"b/2", "b/3"}, collect("", "b/2", "b/4", 0))
	require.Equal(t, []string{"b/1", "b/2", "b/3"}, collect("b/", "", "", 3))
	require.Equal(t, []string{"a"}, collect("", "", "", 1))
	require.Empty(t, collect("x", "", "", 0))
	q := leader.queries[len(leader.queries)-1]
	require.Equal(t, "x", q.Get("prefix"))
	require.Equal(t, "7", q.Get("min_lsn"))

	stop := fmt.Errorf("stop")
	n := 0
	err := r.scan(ctx, nil, nil, nil, 0, func(_, _ []byte) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 3, n)

	// A node that is gone, and a cancelled request.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, r.scan(cancelled, nil, nil, nil, 0, func(_, _ []byte) error { return nil }), errInterrupted)
	gone := testRemote(t, "http://127.0.0.1:1")
	_, _, err = gone.get(ctx, []byte("a"))
	require.ErrorContains(t, err, "cannot reach http://127.0.0.1:1: ")
}

// TestDialRemote: the URL forms -connect accepts, and the flag combinations it refuses.
func TestDialRemote(t *testing.T) {
	for raw, want := range map[string]string{
		"127.0.0.1:8001":         "http://127.0.0.1:8001",
		"http://127.0.0.1:8001":  "http://127.0.0.1:8001",
		"http://localhost:8001/": "http://localhost:8001",
		"https://[::1]:8001":     "https://[::1]:8001",
	} {
		r, err := dialRemote(remoteOptions{url: raw})
		require.NoError(t, err, raw)
		require.Equal(t, want, r.base)
		require.Equal(t, consistencyLinearizable, r.consistency)
	}
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	for _, c := range []struct {
		o    remoteOptions
		want string
	}{
		{remoteOptions{url: "ftp://h:1"}, "want an http:// or https:// URL"},
		{remoteOptions{url: "http://h:1/kv"}, "without a path"},
		{remoteOptions{url: "http://h:1?x=1"}, "without a path, query or user"},
		{remoteOptions{url: "http://"}, "no host"},
		{remoteOptions{url: "http://h:1", tlsCA: notPEM}, "need an https:// URL"},
		{remoteOptions{url: "https://h:1", tlsCert: "c.pem"}, "-tls-cert and -tls-key go together"},
		{remoteOptions{url: "https://h:1", tlsCert: "missing.pem", tlsKey: "missing-key.pem"}, "-tls-cert, -tls-key: open missing.pem"},
		{remoteOptions{url: "h:1", tlsCA: notPEM}, "holds no PEM certificate"},
		{remoteOptions{url: "https://h:1", tlsCA: filepath.Join(dir, "none.pem")}, "-tls-ca: open"},
	} {
		_, err := dialRemote(c.o)
		require.ErrorContains(t, err, c.want, "%+v", c.o)
	}
}

// TestGatherCluster: .cluster asks every member with an HTTP address for its status; the lag is
// the leader's commit index less each member's applied index; a member that does not answer,
// or whose HTTP address is not known, is listed with the reason; the table and JSON show it.
func TestGatherCluster(t *testing.T) {
	members := []struct {
		ID, Addr string
		Voter    bool
	}{{"n1", "127.0.0.1:7001", true}, {"n2", "127.0.0.1:7002", true}, {"n3", "127.0.0.1:7003", true}, {"n4", "127.0.0.1:7004", false}}
	leader := &fakeNode{t: t, fakeData: &fakeData{}, status: nodeStatus{NodeID: "n1", State: "Leader", LeaderID: "n1", Term: "3", CommitIndex: 40, AppliedIndex: 40, LastLSN: 20}}
	ls := httptest.NewServer(leader.handler())
	t.Cleanup(ls.Close)
	follower := &fakeNode{t: t, fakeData: &fakeData{}, status: nodeStatus{NodeID: "n2", State: "Follower", LeaderID: "n1", LeaderAddr: "127.0.0.1:7001",
		Term: "3", CommitIndex: 38, AppliedIndex: 37, LastLSN: 18, LastContact: 42 * time.Millisecond, SnapshotsInstalled: 1}}
	fs := httptest.NewServer(follower.handler())
	t.Cleanup(fs.Close)
	addrs := map[string]string{"n1": strings.TrimPrefix(ls.URL, "http://"), "n2": strings.TrimPrefix(fs.URL, "http://"),
		"n3": "127.0.0.1:1"} // n3 does not answer; n4 has no address yet
	for _, n := range []*fakeNode{leader, follower} {
		n.status.Members = members
		n.status.HTTPAddrs = addrs
		n.status.HTTPAddr = addrs[n.status.NodeID]
		n.status.LeaderHTTP = addrs["n1"]
	}

	r := testRemote(t, fs.URL)
	st, err := r.connect(t.Context())
	require.NoError(t, err)
	require.Equal(t, "n2", r.nodeID)
	view := gatherCluster(t.Context(), r, st)
	require.Len(t, view.Members, 4)
	lag := func(i int) uint64 {
		require.NotNil(t, view.Members[i].Lag, view.Members[i].ID)
		return *view.Members[i].Lag
	}
	require.Equal(t, uint64(0), lag(0))
	require.Equal(t, uint64(3), lag(1))
	require.Equal(t, "Leader", view.Members[0].State)
	require.Nil(t, view.Members[0].LastContact)
	require.Equal(t, 42*time.Millisecond, *view.Members[1].LastContact)
	require.Contains(t, view.Members[2].Error, "cannot reach http://127.0.0.1:1")
	require.Nil(t, view.Members[2].Lag)
	require.Contains(t, view.Members[3].Error, "HTTP address is not known")
	require.False(t, view.Members[3].Voter)

	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	printCluster(w, view, "linearizable")
	w.Flush()
	out := buf.String()
	for _, want := range []string{
		"node                 n2, http " + addrs["n2"] + "\n",
		"leader               n1, raft 127.0.0.1:7001, http " + addrs["n1"] + "\n",
		"applied index        37\n",
		"last contact         42.0 ms ago\n",
		"snapshots installed  1\n",
		"reads                linearizable\n",
		"n4: its HTTP address is not known yet",
	} {
		require.Contains(t, out, want)
	}
	lines := strings.Split(out, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "id ") })
	require.Positive(t, i, out)
	require.Regexp(t, `^id +role +state +raft +http +applied +lsn +lag +contact$`, lines[i])
	require.Regexp(t, `^n1 +voter +Leader +127\.0\.0\.1:7001 +\S+ +40 +20 +0$`, lines[i+2])
	require.Regexp(t, `^n2 +voter +Follower +127\.0\.0\.1:7002 +\S+ +37 +18 +3  42\.0 ms$`, lines[i+3])
	require.Regexp(t, `^n3 +voter +no answer +127\.0\.0\.1:7003 +127\.0\.0\.1:1$`, lines[i+4])
	require.Regexp(t, `^n4 +non-voter +no answer +127\.0\.0\.1:7004$`, lines[i+5])

	b, err := json.Marshal(view)
	require.NoError(t, err)
	var back struct {
		Node    struct{ NodeID string }
		Members []map[string]any
	}
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, "n2", back.Node.NodeID)
	require.Equal(t, float64(3), back.Members[1]["Lag"])
	require.NotContains(t, back.Members[2], "AppliedIndex", "a member that did not answer has no numbers")
}

// TestConnectFlags: .cluster and .consistency on a local database say it is not a cluster
// connection; -connect refuses a database path, -readonly and -salvage; the TLS flags need
// -connect.
func TestConnectFlags(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", ".cluster").expect(t, "",
		"error: not a cluster connection: .cluster works in sessions started with kvsh -connect URL\n", 1)
	runKvsh(t, "", db, "-c", ".consistency follower").expect(t, "",
		"error: not a cluster connection: .consistency works in sessions started with kvsh -connect URL\n", 1)
	runKvsh(t, "", "-connect", "127.0.0.1:1", db).expect(t, "", "error: -connect and a database path cannot be used together\n", 2)
	runKvsh(t, "", "-connect", "127.0.0.1:1", "-readonly").expect(t, "", "error: -readonly and -salvage are for a local database, not -connect\n", 2)
	runKvsh(t, "", "-tls-ca", "ca.pem", db).expect(t, "", "error: -tls-cert, -tls-key and -tls-ca go with -connect https://...\n", 2)
	runKvsh(t, "", "-connect", "ftp://h:1", "-c", "get a").expect(t, "", "error: -connect ftp://h:1: want an http:// or https:// URL\n", 1)
}

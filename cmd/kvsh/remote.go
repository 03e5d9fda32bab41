package main

// Remote sessions: `kvsh -connect URL` talks to one node of a cluster through cairnd's HTTP API
// (docs/CLUSTER.md, "The HTTP API") instead of opening a database. The node answers reads at the
// session's consistency (.consistency) and redirects writes, linearizable and leader reads to
// its leader (307, which the http.Client follows, resending the body). The session keeps the
// highest LSN it has written or read and sends it as min_lsn with every read, so that it reads
// its own writes on any node, a follower included, and never goes back in time.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Consistencies of reads in a remote session: the values of cairnd's consistency parameter.
const (
	consistencyLinearizable = "linearizable"
	consistencyLeader       = "leader"
	consistencyFollower     = "follower"
)

// remoteTimeout bounds one HTTP request of a remote session (a read waits at most 10 s on the
// node for min_lsn; a write as long as the cluster takes to commit it).
const remoteTimeout = time.Minute

// maxErrorBody bounds the bytes of an error answer shown in a message.
const maxErrorBody = 4096

// remote is the connection of a remote session to one cairnd node.
type remote struct {
	base   string // scheme://host:port of the node, no trailing slash
	client *http.Client
	// consistency is the reads' consistency (a consistency* constant); maxStaleness, with
	// follower reads, makes the node refuse to answer if it has not heard from a leader for
	// longer (0: no bound).
	consistency  string
	maxStaleness time.Duration
	// token is the highest LSN this session wrote or read: min_lsn of its reads.
	token uint64
	// nodeID is the ID of the node connected to, from its status at connect.
	nodeID string
}

// remoteOptions are the command-line flags of a remote session.
type remoteOptions struct {
	url                    string // -connect
	tlsCert, tlsKey, tlsCA string // PEM files
}

// dialRemote checks the flags of a remote session and returns its connection, not yet used.
// The URL is http://host:port or https://host:port (no path); a bare host:port is http, or https
// when TLS flags are given. -tls-cert and -tls-key (the client's certificate, which cairnd's
// HTTPS API requires) go together; -tls-ca is the CA the node's certificate must chain to
// (default: the system's roots).
func dialRemote(o remoteOptions) (*remote, error) {
	raw := o.url
	withTLS := o.tlsCert != "" || o.tlsKey != "" || o.tlsCA != ""
	if !strings.Contains(raw, "://") {
		scheme := "http://"
		if withTLS {
			scheme = "https://"
		}
		raw = scheme + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-connect %s: %v", o.url, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("-connect %s: want an http:// or https:// URL", o.url)
	case u.Host == "":
		return nil, fmt.Errorf("-connect %s: no host", o.url)
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, fmt.Errorf("-connect %s: want scheme://host:port, without a path, query or user", o.url)
	case withTLS && u.Scheme == "http":
		return nil, fmt.Errorf("-connect %s: -tls-cert, -tls-key and -tls-ca need an https:// URL", o.url)
	case (o.tlsCert == "") != (o.tlsKey == ""):
		return nil, errors.New("-tls-cert and -tls-key go together")
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if u.Scheme == "https" {
		conf := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.tlsCert != "" {
			cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
			if err != nil {
				return nil, fmt.Errorf("-tls-cert, -tls-key: %v", err)
			}
			conf.Certificates = []tls.Certificate{cert}
		}
		if o.tlsCA != "" {
			pem, err := os.ReadFile(o.tlsCA)
			if err != nil {
				return nil, fmt.Errorf("-tls-ca: %v", err)
			}
			conf.RootCAs = x509.NewCertPool()
			if !conf.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("-tls-ca: %s holds no PEM certificate", o.tlsCA)
			}
		}
		transport.TLSClientConfig = conf
		// HTTP/1.1: over HTTP/2 a refused client certificate shows as "http2: client conn
		// could not be established" rather than as the server's TLS alert.
		transport.ForceAttemptHTTP2 = false
		transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &remote{base: u.Scheme + "://" + u.Host, client: &http.Client{Transport: transport, Timeout: remoteTimeout},
		consistency: consistencyLinearizable}, nil
}

// nodeStatus is the body of cairnd's GET /status (cluster.Status and the HTTP addresses).
type nodeStatus struct {
	NodeID             string
	State              string
	LeaderID           string
	LeaderAddr         string
	Term               string
	CommitIndex        uint64
	AppliedIndex       uint64
	LastLSN            uint64
	LastContact        time.Duration // since the leader was last heard (followers)
	Reopens            uint64
	SnapshotsInstalled uint64
	Members            []struct {
		ID    string
		Addr  string
		Voter bool
	}
	HTTPAddr   string
	LeaderHTTP string
	HTTPAddrs  map[string]string
}

// status returns the status of the node at base (scheme://host:port).
func (r *remote) status(ctx context.Context, base string) (*nodeStatus, error) {
	resp, err := r.do(ctx, http.MethodGet, base+"/status", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, answerError(resp)
	}
	var st nodeStatus
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("status of %s: %v", base, err)
	}
	return &st, nil
}

// connect reads the status of the node (the session's first request, which tells whether the
// node answers at all) and remembers its ID.
func (r *remote) connect(ctx context.Context) (*nodeStatus, error) {
	st, err := r.status(ctx, r.base)
	if err != nil {
		return nil, err
	}
	r.nodeID = st.NodeID
	return st, nil
}

// keyURL is the URL of key on the node: /kv/ and the key path-escaped as one segment ('/'
// escaped too), with the keys "." and ".." escaped as %2E, which a server would otherwise
// clean out of the path.
func (r *remote) keyURL(key []byte) string {
	seg := url.PathEscape(string(key))
	if seg == "." || seg == ".." {
		seg = strings.ReplaceAll(seg, ".", "%2E")
	}
	return r.base + "/kv/" + seg
}

// readQuery returns the consistency parameters of a read: consistency, max_staleness (follower
// reads) and min_lsn (the session's token).
func (r *remote) readQuery() url.Values {
	q := url.Values{"consistency": {r.consistency}}
	if r.consistency == consistencyFollower && r.maxStaleness > 0 {
		q.Set("max_staleness", r.maxStaleness.String())
	}
	if r.token > 0 {
		q.Set("min_lsn", strconv.FormatUint(r.token, 10))
	}
	return q
}

// do sends a request. A transport error is reported with the node's address; a cancelled ctx
// (Ctrl-C) as errInterrupted.
func (r *remote) do(ctx context.Context, method, u string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body) // replayable: a 307 to the leader resends it
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			host := ue.URL
			if pu, perr := url.Parse(ue.URL); perr == nil {
				host = pu.Scheme + "://" + pu.Host
			}
			return nil, fmt.Errorf("cannot reach %s: %v", host, ue.Err)
		}
		return nil, err
	}
	return resp, nil
}

// answerError is the error of an answer that is not a success: its status and the first line
// of its body, as in "503 Service Unavailable: no leader to send this to".
func answerError(resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	text := strings.TrimSpace(string(msg))
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if text == "" {
		return fmt.Errorf("%s (from %s)", resp.Status, resp.Request.URL.Host)
	}
	return fmt.Errorf("%s: %s (from %s)", resp.Status, text, resp.Request.URL.Host)
}

// noteLSN raises the session's token to the Cairn-Lsn header of resp, if any.
func (r *remote) noteLSN(resp *http.Response) {
	if n, err := strconv.ParseUint(resp.Header.Get("Cairn-Lsn"), 10, 64); err == nil && n > r.token {
		r.token = n
	}
}

// get reads key at the session's consistency; found is false if the key does not exist.
func (r *remote) get(ctx context.Context, key []byte) (value []byte, found bool, err error) {
	resp, err := r.do(ctx, http.MethodGet, r.keyURL(key)+"?"+r.readQuery().Encode(), nil)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		r.noteLSN(resp)
		value, err = io.ReadAll(resp.Body)
		if err != nil {
			return nil, false, fmt.Errorf("reading the value: %v", err)
		}
		return value, true, nil
	case http.StatusNotFound:
		r.noteLSN(resp)
		return nil, false, nil
	}
	return nil, false, answerError(resp)
}

// put sets key to value (value nil: deletes key) on the leader, and returns once the cluster has
// committed it.
func (r *remote) put(ctx context.Context, key, value []byte) error {
	method := http.MethodPut
	if value == nil {
		method = http.MethodDelete
	}
	resp, err := r.do(ctx, method, r.keyURL(key), value)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return answerError(resp)
	}
	r.noteLSN(resp)
	return nil
}

// scanPage is one page of cairnd's GET /kv.
type scanPage struct {
	Pairs []jsonPair `json:"pairs"`
	Next  *jsonBytes `json:"next"`
}

// scan calls fn for the pairs whose keys start with prefix and lie in [start, end) (nil: no
// bound), in key order, at most limit of them (0: all), reading them page by page from the node
// at the session's consistency. fn's error stops the scan and is returned. Each page is a
// snapshot of its own, no older than the previous page's (min_lsn).
func (r *remote) scan(ctx context.Context, prefix, start, end []byte, limit int, fn func(k, v []byte) error) error {
	n := 0
	for {
		q := r.readQuery()
		if len(prefix) > 0 {
			q.Set("prefix", string(prefix))
		}
		if len(start) > 0 {
			q.Set("start", string(start))
		}
		if len(end) > 0 {
			q.Set("end", string(end))
		}
		if limit > 0 {
			q.Set("limit", strconv.Itoa(limit-n))
		}
		page, err := r.scanPage(ctx, q)
		if err != nil {
			return err
		}
		for _, p := range page.Pairs {
			if ctx.Err() != nil {
				return errInterrupted
			}
			if err := fn(p.Key, p.Value); err != nil {
				return err
			}
			if n++; limit > 0 && n == limit {
				return nil
			}
		}
		if page.Next == nil {
			return nil
		}
		if len(*page.Next) == 0 || (start != nil && bytes.Compare(*page.Next, start) <= 0) {
			return errors.New("scan: the node's next page does not move forward")
		}
		start = *page.Next
	}
}

// scanPage sends one GET /kv.
func (r *remote) scanPage(ctx context.Context, q url.Values) (*scanPage, error) {
	resp, err := r.do(ctx, http.MethodGet, r.base+"/kv?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return nil, fmt.Errorf("%w (a cairnd without GET /kv, the scan endpoint?)", answerError(resp))
		}
		return nil, answerError(resp)
	}
	var page scanPage
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return nil, fmt.Errorf("scan: reading the node's answer: %v", err)
	}
	r.noteLSN(resp)
	return &page, nil
}

// memberBase is the scheme://host:port of a member's HTTP API, given its address.
func (r *remote) memberBase(httpAddr string) string {
	scheme, _, _ := strings.Cut(r.base, "://")
	return scheme + "://" + httpAddr
}

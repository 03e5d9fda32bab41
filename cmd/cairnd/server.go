package main

// The HTTP API of a node. Writes and leader reads on a follower answer 307 Temporary Redirect to
// the same path on the leader's HTTP address (clients that follow redirects, curl -L and Go's
// http.Client, resend the body), never a write executed elsewhere behind the client's back.
// Nodes learn each other's HTTP addresses from the registry: the replicated bucket
// registryBucket maps a node ID to its HTTP address. The leader writes its own entry when it
// takes office, and a node joining or finding its entry missing or stale asks the leader, over
// POST /cluster/join, to add it as a voter (if it is not a member) and to write its entry.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cluster"
)

// registryBucket is the bucket of the replicated database that maps node IDs to their HTTP
// addresses. The key-value API reads and writes the default key space, not this bucket.
var registryBucket = []byte("cairnd.http")

// lsnHeader carries an LSN: of the leader after a write (a token for min_lsn), of the snapshot
// a read saw.
const lsnHeader = "Cairn-Lsn"

// maxValueBytes bounds the body of a PUT.
const maxValueBytes = 64 << 20

// server is a node's HTTP API.
type server struct {
	node     *cluster.Node
	id       string
	httpAddr string // this node's advertised HTTP address
	scheme   string // http or https
	client   *http.Client
	logger   hclog.Logger
}

func newServer(node *cluster.Node, id, httpAddr string, clientTLS *tls.Config, logger hclog.Logger) *server {
	s := &server{node: node, id: id, httpAddr: httpAddr, scheme: "http", logger: logger.Named("http"),
		client: &http.Client{Timeout: 10 * time.Second}}
	if clientTLS != nil {
		s.scheme = "https"
		s.client.Transport = &http.Transport{TLSClientConfig: clientTLS}
	}
	return s
}

// url returns the URL of path on the node whose HTTP address is addr.
func (s *server) url(addr, path string) string { return s.scheme + "://" + addr + path }

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", s.status)
	mux.HandleFunc("GET /kv", s.scan)
	mux.HandleFunc("GET /kv/{key...}", s.get)
	mux.HandleFunc("PUT /kv/{key...}", s.write)
	mux.HandleFunc("DELETE /kv/{key...}", s.write)
	mux.HandleFunc("POST /cluster/join", s.joinHandler)
	return mux
}

// statusJSON is the body of GET /status: the node's cluster.Status and the HTTP addresses of
// the registry.
type statusJSON struct {
	cluster.Status
	HTTPAddr   string            // this node's
	LeaderHTTP string            // the leader's, "" if unknown
	HTTPAddrs  map[string]string // node ID -> HTTP address, as this node's database holds them
}

func (s *server) status(w http.ResponseWriter, r *http.Request) {
	st := statusJSON{Status: s.node.Status(), HTTPAddr: s.httpAddr, HTTPAddrs: s.registry()}
	st.LeaderHTTP = st.HTTPAddrs[st.LeaderID]
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(st)
}

// registry returns the registry as this node's database holds it.
func (s *server) registry() map[string]string {
	m := map[string]string{}
	_ = s.node.ViewWith(context.Background(), cluster.ReadOptions{Consistency: cluster.Follower}, func(tx *cairn.Tx) error {
		b, err := tx.Bucket(registryBucket)
		if err != nil {
			return err
		}
		for k, v := range b.Range(nil, nil) {
			m[string(k)] = string(v)
		}
		return nil
	})
	return m
}

// redirectToLeader answers 307 to the same request on the leader, or 503 if the leader or its
// HTTP address is unknown.
func (s *server) redirectToLeader(w http.ResponseWriter, r *http.Request, err error) {
	st := s.node.Status()
	addr := s.registry()[st.LeaderID]
	if st.LeaderID == "" || addr == "" || st.LeaderID == s.id {
		http.Error(w, fmt.Sprintf("no leader to send this to (%v)", err), http.StatusServiceUnavailable)
		return
	}
	u := s.url(addr, r.URL.EscapedPath())
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, u, http.StatusTemporaryRedirect)
}

// readOptions parses ?consistency=linearizable|leader|follower&min_lsn=N&max_staleness=D.
func readOptions(q url.Values) (cluster.ReadOptions, error) {
	var o cluster.ReadOptions
	switch q.Get("consistency") {
	case "", "linearizable":
		o.Consistency = cluster.Linearizable
	case "leader":
		o.Consistency = cluster.LeaderLocal
	case "follower":
		o.Consistency = cluster.Follower
	default:
		return o, fmt.Errorf("consistency %q: want linearizable, leader or follower", q.Get("consistency"))
	}
	if v := q.Get("min_lsn"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return o, fmt.Errorf("min_lsn: %v", err)
		}
		o.MinLSN = n
	}
	if v := q.Get("max_staleness"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return o, fmt.Errorf("max_staleness: %v", err)
		}
		o.MaxStaleness = d
	}
	return o, nil
}

// readWait bounds how long a read waits for min_lsn.
const readWait = 10 * time.Second

// get answers GET /kv/{key}: the value, or 404.
func (s *server) get(w http.ResponseWriter, r *http.Request) {
	opts, err := readOptions(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readWait)
	defer cancel()
	var value []byte
	var lsn uint64
	err = s.node.ViewWith(ctx, opts, func(tx *cairn.Tx) error {
		lsn = tx.LSN()
		v, err := tx.Get([]byte(r.PathValue("key")))
		value = v
		return err
	})
	switch {
	case err == nil:
		w.Header().Set(lsnHeader, strconv.FormatUint(lsn, 10))
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(value)
	case errors.Is(err, cairn.ErrNotFound):
		w.Header().Set(lsnHeader, strconv.FormatUint(lsn, 10))
		http.Error(w, "not found", http.StatusNotFound)
	default:
		s.fail(w, r, err)
	}
}

// Bounds of a GET /kv page: limit's default and maximum, and the bytes of keys and values after
// which a page ends early (it holds at least one pair).
const (
	scanDefaultLimit = 1000
	scanMaxLimit     = 10000
	scanMaxBytes     = 4 << 20
)

// jsonBytes is a key or value in JSON: a string when the bytes are valid UTF-8, otherwise
// {"base64": "…"} (standard encoding), as kvsh's JSON output writes them.
type jsonBytes []byte

// MarshalJSON implements json.Marshaler.
func (b jsonBytes) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		return json.Marshal(string(b))
	}
	return json.Marshal(struct {
		Base64 []byte `json:"base64"`
	}{b})
}

// scanPair is one pair of a GET /kv page.
type scanPair struct {
	Key   jsonBytes `json:"key"`
	Value jsonBytes `json:"value"`
}

// scanPage is the body of GET /kv: the pairs in key order and, if the range holds more, the
// start of the next page (its start parameter).
type scanPage struct {
	Pairs []scanPair `json:"pairs"`
	Next  jsonBytes  `json:"next,omitempty"`
}

// scan answers GET /kv?prefix=P&start=S&end=E&limit=N: the pairs of the default key space whose
// keys start with P and lie in [S, E) (a parameter missing or empty: no bound), in key order, at most N
// (default 1000, at most 10000, and fewer past 4 MiB), read in one snapshot with the
// consistency parameters of GET /kv/KEY; the Cairn-Lsn header is the snapshot's LSN.
func (s *server) scan(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts, err := readOptions(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	limit := scanDefaultLimit
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			http.Error(w, fmt.Sprintf("limit %q: want a number of pairs", v), http.StatusBadRequest)
			return
		}
		switch {
		case limit == 0:
			limit = scanDefaultLimit
		case limit > scanMaxLimit:
			limit = scanMaxLimit
		}
	}
	start, end := scanBounds(q)
	ctx, cancel := context.WithTimeout(r.Context(), readWait)
	defer cancel()
	var page scanPage
	var lsn uint64
	err = s.node.ViewWith(ctx, opts, func(tx *cairn.Tx) error {
		lsn = tx.LSN()
		page = scanPage{Pairs: []scanPair{}}
		size := 0
		for k, v := range tx.Range(start, end) {
			if len(page.Pairs) == limit || (size >= scanMaxBytes && len(page.Pairs) > 0) {
				page.Next = bytes.Clone(k)
				break
			}
			page.Pairs = append(page.Pairs, scanPair{bytes.Clone(k), bytes.Clone(v)})
			size += len(k) + len(v)
		}
		return tx.Err()
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set(lsnHeader, strconv.FormatUint(lsn, 10))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(page)
}

// scanBounds returns the range [start, end) of a scan's parameters: start and end narrowed to
// the keys starting with prefix; nil is unbounded.
func scanBounds(q url.Values) (start, end []byte) {
	if v := q.Get("start"); v != "" {
		start = []byte(v)
	}
	if v := q.Get("end"); v != "" {
		end = []byte(v)
	}
	if p := []byte(q.Get("prefix")); len(p) > 0 {
		if bytes.Compare(p, start) > 0 {
			start = p
		}
		if pe := prefixEnd(p); pe != nil && (end == nil || bytes.Compare(pe, end) < 0) {
			end = pe
		}
	}
	return start, end
}

// prefixEnd returns the first key after every key starting with p, or nil if there is none
// (p is all 0xff bytes).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// write answers PUT and DELETE /kv/{key} on the leader (307 elsewhere): 204 once the write is
// committed on a quorum, with the leader's LSN after it in the Cairn-Lsn header.
func (s *server) write(w http.ResponseWriter, r *http.Request) {
	if !s.node.IsLeader() {
		s.redirectToLeader(w, r, cluster.ErrNotLeader)
		return
	}
	key := []byte(r.PathValue("key"))
	var value []byte
	if r.Method == http.MethodPut {
		var err error
		if value, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxValueBytes)); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
	}
	err := s.node.Update(func(tx *cairn.Tx) error {
		if r.Method == http.MethodDelete {
			return tx.Delete(key)
		}
		return tx.Put(key, value)
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set(lsnHeader, strconv.FormatUint(s.node.LastLSN(), 10))
	w.WriteHeader(http.StatusNoContent)
}

// fail answers an error of the node: a redirect for ErrNotLeader, 503 for an unknown outcome
// (cairn.ErrFailed) or a stale follower, 504 for a read that waited too long, 400 for what the
// request got wrong (key or value sizes), 500 otherwise.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, cluster.ErrNotLeader):
		s.redirectToLeader(w, r, err)
	case errors.Is(err, cairn.ErrFailed):
		http.Error(w, "outcome unknown: "+err.Error(), http.StatusServiceUnavailable)
	case errors.Is(err, cluster.ErrStale), errors.Is(err, cluster.ErrStopped):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	case errors.Is(err, context.DeadlineExceeded):
		http.Error(w, err.Error(), http.StatusGatewayTimeout)
	case errors.Is(err, cairn.ErrKeyRequired), errors.Is(err, cairn.ErrKeyTooLarge), errors.Is(err, cairn.ErrValueTooLarge):
		http.Error(w, err.Error(), http.StatusBadRequest)
	default:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// joinRequest is the body of POST /cluster/join.
type joinRequest struct {
	ID   string `json:"id"`
	Addr string `json:"addr"` // Raft address
	HTTP string `json:"http"` // HTTP address
}

// joinHandler adds the node of the request as a voter, unless it is a member at that address
// already, and records its HTTP address; on a follower it redirects to the leader.
func (s *server) joinHandler(w http.ResponseWriter, r *http.Request) {
	var req joinRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || req.ID == "" || req.Addr == "" {
		http.Error(w, "want {\"id\", \"addr\", \"http\"}", http.StatusBadRequest)
		return
	}
	if !s.node.IsLeader() {
		s.redirectToLeader(w, r, cluster.ErrNotLeader)
		return
	}
	if err := s.join(req); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// join adds req's node (if needed) and writes its registry entry, on the leader.
func (s *server) join(req joinRequest) error {
	member := false
	for _, m := range s.node.Status().Members {
		member = member || (m.ID == req.ID && m.Addr == req.Addr)
	}
	if !member {
		s.logger.Info("adding a voter", "id", req.ID, "addr", req.Addr, "http", req.HTTP)
		if err := s.node.AddVoter(req.ID, req.Addr); err != nil {
			return err
		}
	}
	if req.HTTP == "" || s.registry()[req.ID] == req.HTTP {
		return nil
	}
	return s.node.Update(func(tx *cairn.Tx) error {
		b, err := tx.CreateBucketIfNotExists(registryBucket)
		if err != nil {
			return err
		}
		return b.Put([]byte(req.ID), []byte(req.HTTP))
	})
}

// register keeps this node's registry entry right until ctx ends: the leader writes its own;
// another node asks the leader (-join first: the node given) to add it and write it.
func (s *server) register(ctx context.Context, joinAddr string) {
	me := joinRequest{ID: s.id, Addr: s.node.Addr(), HTTP: s.httpAddr}
	for ctx.Err() == nil {
		var err error
		switch {
		case s.registry()[s.id] == s.httpAddr:
			joinAddr = "" // registered, hence a member
		case s.node.IsLeader():
			err = s.join(me)
		case joinAddr != "":
			if err = s.postJoin(ctx, joinAddr, me); err == nil {
				joinAddr = ""
			}
		default:
			st := s.node.Status()
			if addr := s.registry()[st.LeaderID]; st.LeaderID != "" && addr != "" && st.LeaderID != s.id {
				err = s.postJoin(ctx, addr, me)
			}
		}
		if err != nil && ctx.Err() == nil {
			s.logger.Warn("registering with the cluster", "error", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// postJoin sends a join request to the node at HTTP address addr (which redirects it to its
// leader if need be).
func (s *server) postJoin(ctx context.Context, addr string, req joinRequest) error {
	body, _ := json.Marshal(req)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url(addr, "/cluster/join"), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("join via %s: %s: %s", addr, resp.Status, bytes.TrimSpace(msg))
	}
	s.logger.Info("joined the cluster", "via", addr)
	return nil
}

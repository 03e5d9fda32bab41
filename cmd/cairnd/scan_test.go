package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cluster"
)

// testServer runs the HTTP API of a one-node cluster in this process and returns its URL.
func testServer(t *testing.T) (string, *cluster.Node) {
	t.Helper()
	node, err := cluster.Open(t.TempDir(), cluster.Config{NodeID: "n1", BindAddr: "127.0.0.1:0", Bootstrap: true,
		HeartbeatTimeout: 100 * time.Millisecond, ElectionTimeout: 100 * time.Millisecond,
		LeaderLeaseTimeout: 50 * time.Millisecond, Logger: hclog.NewNullLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { node.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err = node.WaitLeader(ctx)
	require.NoError(t, err)
	ts := httptest.NewServer(newServer(node, "n1", "", nil, hclog.NewNullLogger()).routes())
	t.Cleanup(ts.Close)
	return ts.URL, node
}

// scanPageJSON is a GET /kv page as a client decodes it: keys and values as raw JSON.
type scanPageJSON struct {
	Pairs []struct{ Key, Value json.RawMessage }
	Next  json.RawMessage
}

// getScan sends GET /kv with the query q and returns the status, the Cairn-Lsn header and the
// body.
func getScan(t *testing.T, base string, q url.Values) (int, string, []byte) {
	t.Helper()
	resp, err := http.Get(base + "/kv?" + q.Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get(lsnHeader), body
}

// scanKeys decodes a page whose keys are all text.
func scanKeys(t *testing.T, body []byte) (keys []string, next string) {
	t.Helper()
	var page scanPageJSON
	require.NoError(t, json.Unmarshal(body, &page), "%s", body)
	for _, p := range page.Pairs {
		var k string
		require.NoError(t, json.Unmarshal(p.Key, &k))
		keys = append(keys, k)
	}
	if page.Next != nil {
		require.NoError(t, json.Unmarshal(page.Next, &next))
	}
	return keys, next
}

// TestScanEndpoint: GET /kv lists a prefix, a range, both at once, pages with limit and next,
// writes keys and values that are not UTF-8 as {"base64": …}, gives the snapshot's LSN, and
// refuses bad parameters.
func TestScanEndpoint(t *testing.T) {
	base, node := testServer(t)
	require.NoError(t, node.Update(func(tx *cairn.Tx) error {
		for _, k := range []string{"a", "b/1", "b/2", "b/3", "c"} {
			if err := tx.Put([]byte(k), []byte("v"+k)); err != nil {
				return err
			}
		}
		return tx.Put([]byte("z\xff"), []byte{0, 0xfe})
	}))
	lsn := node.LastLSN()

	for _, c := range []struct {
		q    url.Values
		want []string
	}{
		{url.Values{"end": {"d"}}, []string{"a", "b/1", "b/2", "b/3", "c"}},
		{url.Values{"prefix": {"b/"}}, []string{"b/1", "b/2", "b/3"}},
		{url.Values{"start": {"b/2"}, "end": {"c"}}, []string{"b/2", "b/3"}},
		{url.Values{"prefix": {"b/"}, "start": {"b/2"}}, []string{"b/2", "b/3"}},
		{url.Values{"prefix": {"b/"}, "end": {"b/3"}}, []string{"b/1", "b/2"}},
		{url.Values{"start": {"a"}, "end": {"b"}, "consistency": {"follower"}, "min_lsn": {strconv.FormatUint(lsn, 10)}}, []string{"a"}},
		{url.Values{"prefix": {"x"}}, nil},
	} {
		code, hdr, body := getScan(t, base, c.q)
		require.Equal(t, http.StatusOK, code, "%v: %s", c.q, body)
		require.Equal(t, strconv.FormatUint(lsn, 10), hdr)
		keys, next := scanKeys(t, body)
		require.Equal(t, c.want, keys, "%v", c.q)
		require.Empty(t, next)
	}

	// Pages of two: next is the first key of the following page.
	var all []string
	q := url.Values{"prefix": {"b/"}, "limit": {"2"}}
	for range 3 {
		code, _, body := getScan(t, base, q)
		require.Equal(t, http.StatusOK, code)
		keys, next := scanKeys(t, body)
		all = append(all, keys...)
		if next == "" {
			break
		}
		require.Equal(t, "b/3", next)
		q.Set("start", next)
	}
	require.Equal(t, []string{"b/1", "b/2", "b/3"}, all)

	// Bytes that are not UTF-8.
	code, _, body := getScan(t, base, url.Values{"prefix": {"z"}})
	require.Equal(t, http.StatusOK, code)
	want := fmt.Sprintf(`{"pairs":[{"key":{"base64":%q},"value":{"base64":%q}}]}`,
		base64.StdEncoding.EncodeToString([]byte("z\xff")), base64.StdEncoding.EncodeToString([]byte{0, 0xfe}))
	require.JSONEq(t, want, string(body))

	for _, bad := range []url.Values{{"limit": {"x"}}, {"limit": {"-1"}}, {"consistency": {"eventual"}}, {"min_lsn": {"x"}}} {
		code, _, body := getScan(t, base, bad)
		require.Equal(t, http.StatusBadRequest, code, "%v: %s", bad, body)
	}
}

// TestKeyEscaping: keys with bytes that are special in a URL path round-trip through PUT and GET
// /kv/KEY when the client escapes them as kvsh does: url.PathEscape (which escapes '/', so the
// key is one path segment), and the keys "." and ".." as %2E (the server would clean them away).
func TestKeyEscaping(t *testing.T) {
	base, _ := testServer(t)
	escape := func(key string) string {
		if key == "." || key == ".." {
			return strings.ReplaceAll(key, ".", "%2E")
		}
		return url.PathEscape(key)
	}
	for _, key := range []string{"a b", "100%", "dir/file", "q?x=1#f", "a/../b", "a//b", "./x", "..", ".", "\xff\x00\x01", "é"} {
		req, err := http.NewRequest(http.MethodPut, base+"/kv/"+escape(key), strings.NewReader("v:"+key))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusNoContent, resp.StatusCode, "%q", key)
		resp, err = http.Get(base + "/kv/" + escape(key))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%q", key)
		require.Equal(t, "v:"+key, string(body))
	}
}

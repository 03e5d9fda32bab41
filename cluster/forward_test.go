package cluster

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/cairnsql"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// forwardPayloads are valid bodies of each message kind, for decoding tests.
func forwardPayloads() map[string][]byte {
	req := sqlRequest{cairnsql.ForwardRequest{SQL: "INSERT INTO t VALUES (?, ?, ?)", Rows: true, ForeignKeys: true,
		BusyTimeout: 1500 * time.Millisecond, Args: []value.Value{value.Int(-7), value.TextString("x"), value.NullValue()}}}
	res := sqlResult{ForwardResult: cairnsql.ForwardResult{LastInsertID: -3, RowsAffected: 2,
		Columns: []string{"a", "b"}, DeclTypes: []string{"INTEGER", ""}}}
	for i := range 2 {
		res.records = append(res.records, encodeRecord([]value.Value{value.Int(int64(i)), value.Float(1.5)}))
	}
	ops := []Op{{Kind: OpIfEqual, Bucket: []byte("b"), Key: []byte("k"), Value: []byte("v")},
		{Kind: OpPut, Key: []byte("k2"), Value: nil}, {Kind: OpDelete, Bucket: []byte{}, Key: []byte("k3")}}
	return map[string][]byte{"sql": req.encode(nil), "result": res.encode(nil), "ops": encodeOps(nil, ops)}
}

func decodePayload(kind string, b []byte) (any, error) {
	d := decoder{b: b}
	var out any
	switch kind {
	case "sql":
		var r sqlRequest
		r.decode(&d)
		out = r
	case "result":
		var r sqlResult
		r.decode(&d)
		out = r
	case "ops":
		out = decodeOps(&d)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	return out, d.err
}

// TestForwardMessages: each message decodes to what was encoded, and every shorter prefix of it
// fails with an error wrapping cairn.ErrCorrupt.
func TestForwardMessages(t *testing.T) {
	for kind, b := range forwardPayloads() {
		got, err := decodePayload(kind, b)
		require.NoError(t, err, kind)
		switch kind {
		case "sql":
			r := got.(sqlRequest)
			require.Equal(t, "INSERT INTO t VALUES (?, ?, ?)", r.SQL)
			require.True(t, r.Rows && r.ForeignKeys)
			require.Equal(t, 1500*time.Millisecond, r.BusyTimeout)
			require.Len(t, r.Args, 3)
			require.Equal(t, int64(-7), r.Args[0].Int())
			require.Equal(t, "x", string(r.Args[1].Bytes()))
			require.True(t, r.Args[2].IsNull())
		case "result":
			r := got.(sqlResult)
			require.Equal(t, []int64{-3, 2}, []int64{r.LastInsertID, r.RowsAffected})
			require.Equal(t, []string{"a", "b"}, r.Columns)
			require.Equal(t, []string{"INTEGER", ""}, r.DeclTypes)
			require.Len(t, r.Rows, 2)
			require.Equal(t, 1.5, r.Rows[1][1].Float())
		case "ops":
			ops := got.([]Op)
			require.Len(t, ops, 3)
			require.Equal(t, OpIfEqual, ops[0].Kind)
			require.Equal(t, "b", string(ops[0].Bucket))
			require.Nil(t, ops[1].Bucket, "nil bucket: the default one")
			require.NotNil(t, ops[2].Bucket, "empty bucket name stays a name")
		}
		for i := range len(b) {
			_, err := decodePayload(kind, b[:i])
			require.ErrorIs(t, err, cairn.ErrCorrupt, "%s cut at %d", kind, i)
		}
	}
}

// FuzzForwardDecode: no input makes a decoder panic.
func FuzzForwardDecode(f *testing.F) {
	for _, b := range forwardPayloads() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, kind := range []string{"sql", "result", "ops"} {
			_, _ = decodePayload(kind, b)
		}
	})
}

// TestForwardGreeting: a client that does not open with the protocol's greeting gets no answer
// and its connection closed; a request of an unknown kind is answered with an error.
func TestForwardGreeting(t *testing.T) {
	tc := newTCPCluster(t, 1, nil)
	n := tc.leader()
	c, err := n.dialForward(n.Addr(), 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("cairnFW\x02"))
	require.NoError(t, err)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = c.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF)

	c2, err := n.dialForward(n.Addr(), 5*time.Second)
	require.NoError(t, err)
	defer c2.Close()
	_, err = c2.Write([]byte(forwardMagic))
	require.NoError(t, err)
	hello := make([]byte, len(forwardMagic))
	_, err = io.ReadFull(c2, hello)
	require.NoError(t, err)
	require.NoError(t, writeFrame(c2, []byte{99}))
	resp, err := readFrame(c2, nil)
	require.NoError(t, err)
	d := decoder{b: resp}
	require.Equal(t, byte(statusError), d.byte())
	d.byte()
	require.Contains(t, d.string(), "unknown request kind")
}

func encodeRecord(vals []value.Value) []byte { return codec.AppendRecord(nil, vals) }

package value

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONStringMatchesEncodingJSON checks AppendJSONString against encoding/json (HTML escaping
// off) on random strings with control characters, quotes, invalid UTF-8 and U+2028.
func TestJSONStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pieces := []string{"a", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "\u2028", "\xff", "\xe2\x82", "<>&", "😀"}
	for i := 0; i < 5000; i++ {
		var s []byte
		for j := r.Intn(8); j > 0; j-- {
			s = append(s, pieces[r.Intn(len(pieces))]...)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(string(s)))
		require.Equal(t, string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))), string(AppendJSONString(nil, s)), "%q", s)
	}
}

func TestJSONValues(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{
		{NullValue(), "null"},
		{Int(-42), "-42"},
		{Float(100), "100.0"},
		{Float(1e20), "1.0e+20"},
		{Float(math.Inf(1)), "9.0e+999"},
		{TextString("a\"b"), `"a\"b"`},
		{BlobBytes([]byte{0xca, 0xfe}), `{"base64":"yv4="}`},
	} {
		got := AppendJSON(nil, c.v)
		require.Equal(t, c.want, string(got))
		require.True(t, json.Valid(got), "%s is valid JSON", got)
	}
}

package engine

import (
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

// FuzzJSON: no input makes a JSON function panic; what parses writes back as canonical JSON
// that parses to itself.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u0041"],"b":null}`, `{a:'b',}`, `[0x1F,.5,Infinity]`,
		`"\ud83d\ude00"`, `/*c*/[1]`, `[1,`, `{"a"`, `"\x4`} {
		f.Add(s, "$.a[#-1]")
	}
	f.Fuzz(func(t *testing.T, doc, path string) {
		n, _, _, err := parseJSON([]byte(doc))
		if err == nil {
			out := appendJSON(nil, n)
			m, json5, _, err := parseJSON(out)
			require.NoError(t, err, "%q -> %q", doc, out)
			require.False(t, json5, "%q -> %q", doc, out)
			require.Equal(t, string(out), string(appendJSON(nil, m)))
			b, err := decodeJSONB(appendJSONB(nil, n))
			require.NoError(t, err, "%q", doc)
			require.Equal(t, string(out), string(appendJSON(nil, b)), "%q as JSONB", doc)
			require.Equal(t, appendJSONB(nil, n), appendJSONB(nil, b), "%q as JSONB", doc)
		}
		d, p := value.TextString(doc), value.TextString(path)
		for _, name := range []string{"json_extract", "->", "->>", "json_type", "json_array_length", "json_remove"} {
			_, _ = scalarFuncs[name].fn([]value.Value{d, p}, value.Binary)
		}
		for _, name := range []string{"json_set", "json_insert", "json_replace"} {
			_, _ = scalarFuncs[name].fn([]value.Value{d, p, d}, value.Binary)
		}
		_, _ = scalarFuncs["json_patch"].fn([]value.Value{d, p}, value.Binary)
		_, _ = scalarFuncs["json_error_position"].fn([]value.Value{d}, value.Binary)
		_, _ = scalarFuncs["json_pretty"].fn([]value.Value{d}, value.Binary)
		_, _ = jsonEachRows([]value.Value{d, p}, true, jsonText)
		_, _ = jsonEachRows([]value.Value{value.BlobBytes([]byte(doc))}, false, jsonBlob)
		_, _ = decodeJSONB([]byte(doc))
	})
}

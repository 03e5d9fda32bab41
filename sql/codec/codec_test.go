package codec

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairndb/cairn/sql/value"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// randomValue returns values that stress the encodings: integers near the edges of float64's
// exact range and of int64, reals with fractions and infinities, texts with 0x00 and case
// differences, blobs, NULL.
func randomValue(r *rand.Rand) value.Value {
	switch r.Intn(10) {
	case 0:
		return value.NullValue()
	case 1:
		return value.Int(r.Int63n(2001) - 1000)
	case 2:
		edges := []int64{math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1, -(1<<53 + 1), 1 << 62, math.MaxInt64 - 511, math.MaxInt64 - 513}
		return value.Int(edges[r.Intn(len(edges))] + r.Int63n(5) - 2)
	case 3:
		return value.Float(float64(r.Int63n(2001)-1000) / 4)
	case 4:
		edges := []float64{math.Inf(1), math.Inf(-1), 1 << 53, 1 << 63, -(1 << 63), 9.3e18, -9.3e18, 0.5, math.Copysign(0, -1)}
		return value.Float(edges[r.Intn(len(edges))])
	case 5, 6, 7:
		const letters = "aAbB\x00 z"
		n := r.Intn(4)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[r.Intn(len(letters))]
		}
		return value.TextBytes(b)
	}
	b := make([]byte, r.Intn(3))
	for i := range b {
		b[i] = byte(r.Intn(3)) // 0x00, 0x01, 0x02: next to the escape bytes
	}
	return value.BlobBytes(b)
}

type column struct {
	desc bool
	coll value.Collation
}

func compareTuples(a, b []value.Value, cols []column) int {
	for i := range a {
		c := value.Compare(a[i], b[i], cols[i].coll)
		if cols[i].desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func encodeTuple(vals []value.Value, cols []column) []byte {
	var k []byte
	for i, v := range vals {
		k = AppendKey(k, v, cols[i].desc, cols[i].coll)
	}
	return k
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// TestKeyOrderIsValueOrder checks the memcomparable property on random tuples: the byte order of
// two keys is SQLite's order of their value tuples, with each column's direction and collation.
func TestKeyOrderIsValueOrder(t *testing.T) {
	seed := int64(os.Getpid())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 200000; i++ {
		n := 1 + r.Intn(3)
		cols := make([]column, n)
		a, b := make([]value.Value, n), make([]value.Value, n)
		for j := range cols {
			cols[j] = column{desc: r.Intn(3) == 0, coll: value.Collation(r.Intn(3))}
			a[j], b[j] = randomValue(r), randomValue(r)
			if r.Intn(4) == 0 {
				b[j] = a[j]
			}
		}
		want := sign(compareTuples(a, b, cols))
		got := sign(bytes.Compare(encodeTuple(a, cols), encodeTuple(b, cols)))
		if got != want {
			t.Fatalf("seed %d: %v vs %v (%+v): keys compare %d, values %d", seed, a, b, cols, got, want)
		}
	}
}

func TestKeyDecodesNumbersAndBytes(t *testing.T) {
	for _, v := range []value.Value{
		value.Int(0), value.Int(-1), value.Int(math.MaxInt64), value.Int(math.MinInt64), value.Int(1<<53 + 1),
		value.Int(math.MaxInt64 - 300), value.Float(0.5), value.Float(-1e300), value.Float(math.Inf(1)),
		value.Float(1e19), value.NullValue(), value.TextString("a\x00b"), value.BlobBytes([]byte{0, 1, 2}),
		value.TextString(""),
	} {
		for _, desc := range []bool{false, true} {
			k := AppendKey([]byte("prefix"), v, desc, value.Binary)
			got, rest, truncated, err := DecodeKey(k[len("prefix"):], desc)
			require.NoError(t, err)
			require.Empty(t, rest)
			require.False(t, truncated)
			require.Zero(t, value.Compare(v, got, value.Binary), "%v decoded as %v", v, got)
			require.Equal(t, v.Kind(), got.Kind(), "%v decoded as %v", v, got)
		}
	}
}

func TestLongTextIsTruncatedInOrder(t *testing.T) {
	long := strings.Repeat("x", MaxKeyPart)
	a := AppendKey(nil, value.TextString(long), false, value.Binary)
	b := AppendKey(nil, value.TextString(long+"a"), false, value.Binary)
	c := AppendKey(nil, value.TextString(long+"b"), false, value.Binary)
	y := AppendKey(nil, value.TextString("y"), false, value.Binary)
	require.Negative(t, bytes.Compare(a, b), "a value sorts before a longer one with its prefix")
	require.NotEqual(t, b, c, "truncated values with different tails differ")
	require.Negative(t, bytes.Compare(b, y))
	require.Negative(t, bytes.Compare(c, y))
	require.Less(t, len(b), MaxKeyPart+32)
	v, rest, truncated, err := DecodeKey(b, false)
	require.NoError(t, err)
	require.Empty(t, rest)
	require.True(t, truncated)
	require.Equal(t, long, string(v.Bytes()))
}

func TestRowidOrder(t *testing.T) {
	ids := []int64{math.MinInt64, -2, -1, 0, 1, 2, math.MaxInt64}
	for i := 1; i < len(ids); i++ {
		require.Negative(t, bytes.Compare(AppendRowid(nil, ids[i-1]), AppendRowid(nil, ids[i])))
		got, err := Rowid(AppendRowid(nil, ids[i]))
		require.NoError(t, err)
		require.Equal(t, ids[i], got)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 10000; i++ {
		vals := make([]value.Value, r.Intn(6))
		for j := range vals {
			vals[j] = randomValue(r)
			if r.Intn(5) == 0 {
				vals[j] = value.Int(r.Int63() >> uint(r.Intn(63)) * int64(1-2*r.Intn(2)))
			}
		}
		rec := AppendRecord(nil, vals)
		got, err := DecodeRecord(rec, nil)
		require.NoError(t, err)
		require.Len(t, got, len(vals))
		for j := range vals {
			require.Equal(t, vals[j].Kind(), got[j].Kind())
			require.Zero(t, value.Compare(vals[j], got[j], value.Binary), "%v vs %v", vals[j], got[j])
		}
	}
}

// goldenValues are the values of the golden files: changing how any of them encodes is a format
// change (a new version in FORMAT.md, and -update).
var goldenValues = []value.Value{
	value.NullValue(), value.Int(0), value.Int(1), value.Int(-1), value.Int(127), value.Int(-129),
	value.Int(1 << 40), value.Int(math.MaxInt64), value.Int(math.MinInt64), value.Int(1<<53 + 1),
	value.Float(0.5), value.Float(-2.25), value.Float(math.Inf(-1)), value.TextString(""),
	value.TextString("Abc"), value.TextString("a\x00b"), value.BlobBytes([]byte{0, 0xff}),
}

func TestGoldenEncodings(t *testing.T) {
	var out strings.Builder
	for _, v := range goldenValues {
		fmt.Fprintf(&out, "%v\tkey %s\tdesc %s\tnocase %s\n", v,
			hex.EncodeToString(AppendKey(nil, v, false, value.Binary)),
			hex.EncodeToString(AppendKey(nil, v, true, value.Binary)),
			hex.EncodeToString(AppendKey(nil, v, false, value.NoCase)))
	}
	fmt.Fprintf(&out, "record\t%s\n", hex.EncodeToString(AppendRecord(nil, goldenValues)))
	fmt.Fprintf(&out, "rowid -1\t%s\n", hex.EncodeToString(AppendRowid(nil, -1)))
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(out.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), out.String(), "the key or record format changed: see FORMAT.md, then go test -update")
}

func FuzzDecodeKey(f *testing.F) {
	for _, v := range goldenValues {
		f.Add(AppendKey(nil, v, false, value.Binary), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, desc bool) {
		for len(b) > 0 {
			_, rest, _, err := DecodeKey(b, desc)
			if err != nil {
				return
			}
			b = rest
		}
	})
}

// TestDecodeColumns checks that DecodeColumns gives DecodeRecord's values for the columns it is
// asked for and NULL for the others, into a buffer that held other values.
func TestDecodeColumns(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	buf := make([]value.Value, 0, 3)
	for i := 0; i < 10000; i++ {
		vals := make([]value.Value, r.Intn(70))
		for j := range vals {
			vals[j] = randomValue(r)
			if r.Intn(8) == 0 { // serial types of two and three bytes
				vals[j] = value.TextString(strings.Repeat("x", r.Intn(20000)))
			}
		}
		rec := AppendRecord(nil, vals)
		all, err := DecodeRecord(rec, nil)
		require.NoError(t, err)
		need := r.Uint64()
		buf, err = DecodeColumns(rec, buf, need)
		require.NoError(t, err)
		require.Len(t, buf, len(vals))
		for j := range vals {
			want := all[j]
			if need&(1<<uint(min(j, 63))) == 0 {
				want = value.NullValue()
			}
			require.Equal(t, want, buf[j], "value %d of %d, need %x", j, len(vals), need)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(AppendRecord(nil, goldenValues))
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := DecodeRecord(b, nil)
		_, errCols := DecodeColumns(b, nil, 1)
		require.Equal(t, err == nil, errCols == nil, "a record is corrupt for every column set or for none")
		if err != nil {
			return
		}
		again, err := DecodeRecord(AppendRecord(nil, vals), nil)
		require.NoError(t, err)
		require.Len(t, again, len(vals))
		for i := range vals {
			require.Equal(t, vals[i].Kind(), again[i].Kind())
			require.Zero(t, value.Compare(vals[i], again[i], value.Binary))
		}
	})
}

func TestKeyBoundOfALongValueCoversItsPrefix(t *testing.T) {
	long := strings.Repeat("x", MaxKeyPart)
	for _, desc := range []bool{false, true} {
		bound, truncated := AppendKeyBound(nil, value.TextString(long+"m"), desc, value.Binary)
		require.True(t, truncated)
		for _, tail := range []string{"a", "m", "z"} {
			k := AppendKey(nil, value.TextString(long+tail), desc, value.Binary)
			require.True(t, bytes.HasPrefix(k, bound), "every value with the prefix is in the bound's group")
		}
		short, truncated := AppendKeyBound(nil, value.TextString("m"), desc, value.Binary)
		require.False(t, truncated)
		require.Equal(t, AppendKey(nil, value.TextString("m"), desc, value.Binary), short)
	}
}

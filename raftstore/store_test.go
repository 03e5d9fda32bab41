package raftstore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// openStore opens a Store at path, closed when the test ends.
func openStore(t *testing.T, path string, opts *Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func newStore(t *testing.T) (*Store, string) {
	path := filepath.Join(t.TempDir(), "raft.db")
	return openStore(t, path, nil), path
}

// entry is the log entry the tests store at index: its data names the index.
func entry(index uint64) *raft.Log {
	return &raft.Log{Index: index, Term: index/10 + 1, Type: raft.LogCommand, Data: fmt.Appendf(nil, "log %d", index)}
}

// entries returns the entries at the given indexes.
func entries(indexes ...uint64) []*raft.Log {
	logs := make([]*raft.Log, len(indexes))
	for i, idx := range indexes {
		logs[i] = entry(idx)
	}
	return logs
}

// span returns the indexes from first to last.
func span(first, last uint64) []uint64 {
	var idx []uint64
	for i := first; i <= last; i++ {
		idx = append(idx, i)
	}
	return idx
}

// requireLog checks the store's bounds and that it holds exactly the entries at want (as made by
// entry) among the indexes from lo to hi.
func requireLog(t *testing.T, s *Store, first, last uint64, want []uint64, lo, hi uint64) {
	t.Helper()
	f, err := s.FirstIndex()
	require.NoError(t, err)
	l, err := s.LastIndex()
	require.NoError(t, err)
	require.Equal(t, first, f, "first index")
	require.Equal(t, last, l, "last index")
	has := map[uint64]bool{}
	for _, i := range want {
		has[i] = true
	}
	for i := lo; i <= hi; i++ {
		var got raft.Log
		err := s.GetLog(i, &got)
		if !has[i] {
			require.Equal(t, raft.ErrLogNotFound, err, "index %d", i)
			continue
		}
		require.NoError(t, err, "index %d", i)
		require.Equal(t, entry(i), &got)
	}
}

func TestEmptyStore(t *testing.T) {
	s, _ := newStore(t)
	requireLog(t, s, 0, 0, nil, 0, 3)
	var l raft.Log
	require.Equal(t, raft.ErrLogNotFound, s.GetLog(math.MaxUint64, &l))

	_, err := s.Get([]byte("missing"))
	require.Equal(t, ErrKeyNotFound, err)
	require.Equal(t, "not found", err.Error(), "raft recognizes a missing key by this text")
	_, err = s.GetUint64([]byte("CurrentTerm"))
	require.Equal(t, ErrKeyNotFound, err)
}

func TestStoreLogGetLog(t *testing.T) {
	s, _ := newStore(t)
	in := &raft.Log{Index: 1, Data: []byte("log1")}
	require.NoError(t, s.StoreLog(in))
	var out raft.Log
	require.NoError(t, s.GetLog(1, &out))
	require.Equal(t, in, &out)
	require.NoError(t, s.StoreLog(entry(2)))
	requireLog(t, s, 1, 2, []uint64{2}, 2, 3)

	// GetLog overwrites every field of its argument.
	out = raft.Log{Index: 9, Term: 9, Data: []byte("x"), Extensions: []byte("y"), AppendedAt: time.Now()}
	require.NoError(t, s.GetLog(1, &out))
	require.Equal(t, in, &out)
}

func TestStoreLogs(t *testing.T) {
	cases := []struct {
		name        string
		first       []uint64 // stored by one StoreLogs
		then        []uint64 // then by a second
		wantFirst   uint64
		wantLast    uint64
		wantIndexes []uint64
	}{
		{"from one", span(1, 5), nil, 1, 5, span(1, 5)},
		{"from a high index", span(10000, 10004), nil, 10000, 10004, span(10000, 10004)},
		{"append", span(1, 10), span(11, 15), 1, 15, span(1, 15)},
		{"index zero", span(0, 3), nil, 0, 3, span(0, 3)},
		{"out of order in a batch", []uint64{3, 1, 2}, nil, 1, 3, span(1, 3)},
		{"gaps in a batch", []uint64{10, 11, 14, 15}, nil, 10, 15, []uint64{10, 11, 14, 15}},
		{"gap between batches", span(1, 3), span(100, 101), 1, 101, []uint64{1, 2, 3, 100, 101}},
		{"before the first", span(10, 12), span(5, 6), 5, 12, []uint64{5, 6, 10, 11, 12}},
		{"overwrite", span(1, 5), span(3, 4), 1, 5, span(1, 5)},
		{"empty batch", nil, nil, 0, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, path := newStore(t)
			require.NoError(t, s.StoreLogs(entries(tc.first...)))
			if tc.then != nil {
				require.NoError(t, s.StoreLogs(entries(tc.then...)))
			}
			lo, hi := uint64(0), tc.wantLast+2
			requireLog(t, s, tc.wantFirst, tc.wantLast, tc.wantIndexes, lo, hi)

			require.NoError(t, s.Close())
			s = openStore(t, path, nil)
			requireLog(t, s, tc.wantFirst, tc.wantLast, tc.wantIndexes, lo, hi)
		})
	}
}

func TestStoreLogsReplaces(t *testing.T) {
	s, _ := newStore(t)
	require.NoError(t, s.StoreLogs(entries(1, 2, 3)))
	l := &raft.Log{Index: 2, Term: 7, Data: []byte("new")}
	require.NoError(t, s.StoreLog(l))
	var got raft.Log
	require.NoError(t, s.GetLog(2, &got))
	require.Equal(t, l, &got)
}

// TestStoreLogsOneCommit checks that a StoreLogs call is one cairn commit, however many entries
// it holds, and that entries past the commit bound go into further commits, in order.
func TestStoreLogsOneCommit(t *testing.T) {
	s, path := newStore(t)
	before := s.DB().Stats().Commits
	require.NoError(t, s.StoreLogs(entries(span(1, 500)...)))
	require.Equal(t, before+1, s.DB().Stats().Commits)

	old := maxCommitBytes
	maxCommitBytes = 2000 // about 50 of the tests' entries
	t.Cleanup(func() { maxCommitBytes = old })
	before = s.DB().Stats().Commits
	require.NoError(t, s.StoreLogs(entries(span(501, 1000)...)))
	commits := s.DB().Stats().Commits - before
	require.Greater(t, commits, uint64(5))
	require.Less(t, commits, uint64(20))
	requireLog(t, s, 1, 1000, span(1, 1000), 0, 1001)

	require.NoError(t, s.Close())
	s = openStore(t, path, nil)
	requireLog(t, s, 1, 1000, span(1, 1000), 0, 1001)
}

func TestDeleteRange(t *testing.T) {
	// The log holds 1000 to 1109, as raft-wal's test of its DeleteRange (a full segment of 100
	// entries and 10 in its tail).
	const lo, hi = 1000, 1109
	cases := []struct {
		name                string
		min, max            uint64
		wantFirst, wantLast uint64
		wantIndexes         []uint64
	}{
		{"min above max", 1000, 999, lo, hi, span(lo, hi)},
		{"below the first", 0, 100, lo, hi, span(lo, hi)},
		{"above the last", 5000, 5100, lo, hi, span(lo, hi)},
		{"prefix", 0, 1010, 1011, hi, span(1011, hi)},
		{"prefix from the first", lo, 1101, 1102, hi, span(1102, hi)},
		{"prefix of one", lo, lo, lo + 1, hi, span(lo+1, hi)},
		{"suffix", 1108, hi, lo, 1107, span(lo, 1107)},
		{"long suffix", 1051, hi, lo, 1050, span(lo, 1050)},
		{"suffix past the last", 1100, math.MaxUint64, lo, 1099, span(lo, 1099)},
		{"middle: a gap", 1010, 1020, lo, hi, append(span(lo, 1009), span(1021, hi)...)},
		{"everything", lo, hi, 0, 0, nil},
		{"everything and more", 1, 5000, 0, 0, nil},
		{"the whole index space", 0, math.MaxUint64, 0, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, path := newStore(t)
			require.NoError(t, s.StoreLogs(entries(span(lo, hi)...)))
			require.NoError(t, s.DeleteRange(tc.min, tc.max))
			requireLog(t, s, tc.wantFirst, tc.wantLast, tc.wantIndexes, lo-2, hi+2)

			// Appending goes on after the new last index.
			next := tc.wantLast + 1
			if tc.wantLast == 0 {
				next = hi + 1
			}
			require.NoError(t, s.StoreLog(entry(next)))
			last, err := s.LastIndex()
			require.NoError(t, err)
			require.Equal(t, next, last)
			if tc.wantFirst == 0 {
				tc.wantFirst = next
			}

			require.NoError(t, s.Close())
			s = openStore(t, path, nil)
			requireLog(t, s, tc.wantFirst, next, append(tc.wantIndexes, next), lo-2, max(hi, next)+2)
		})
	}
}

// TestGaps follows a log through what raft does to it: compaction of a prefix, a follower's
// conflicting suffix replaced, a snapshot installed past the end (a gap), a gap deleted away.
func TestGaps(t *testing.T) {
	s, path := newStore(t)
	require.NoError(t, s.StoreLogs(entries(span(1, 100)...)))
	require.NoError(t, s.DeleteRange(1, 60)) // compaction after a snapshot at 60
	require.NoError(t, s.DeleteRange(91, 100))
	require.NoError(t, s.StoreLogs(entries(span(91, 95)...))) // the leader's entries
	requireLog(t, s, 61, 95, span(61, 95), 0, 100)

	// A snapshot at 500 installed: raft stores entries after it, leaving a gap.
	require.NoError(t, s.StoreLogs(entries(span(501, 505)...)))
	want := append(span(61, 95), span(501, 505)...)
	requireLog(t, s, 61, 505, want, 50, 510)

	require.NoError(t, s.Close())
	s = openStore(t, path, nil)
	requireLog(t, s, 61, 505, want, 50, 510)

	require.NoError(t, s.DeleteRange(0, 500)) // compaction across the gap
	requireLog(t, s, 501, 505, span(501, 505), 50, 510)
}

func TestRoundTripFields(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 34, 56, 789012345, time.UTC)
	cases := []*raft.Log{
		{Index: 1},
		{Index: 2, Term: 3, Type: raft.LogNoop},
		{Index: 3, Term: 1 << 40, Type: raft.LogConfiguration, Data: []byte("config"), Extensions: []byte("ext")},
		{Index: 4, Term: 4, Type: raft.LogCommand, Data: []byte("d"), AppendedAt: at},
		{Index: 5, Extensions: []byte{0, 1, 2}, AppendedAt: at},
		{Index: 6, Type: raft.LogBarrier, AppendedAt: time.Unix(0, 0)},
		{Index: 7, AppendedAt: time.Unix(-1, 999_999_999)},
		{Index: math.MaxUint64, Term: math.MaxUint64, Type: raft.LogType(255), Data: []byte{}},
	}
	s, path := newStore(t)
	require.NoError(t, s.StoreLogs(cases))
	check := func() {
		for _, in := range cases {
			var out raft.Log
			require.NoError(t, s.GetLog(in.Index, &out))
			require.Equal(t, in.Index, out.Index)
			require.Equal(t, in.Term, out.Term)
			require.Equal(t, in.Type, out.Type)
			require.Equal(t, len(in.Data) == 0, out.Data == nil, "empty Data comes back nil")
			require.True(t, bytes.Equal(in.Data, out.Data))
			require.True(t, bytes.Equal(in.Extensions, out.Extensions))
			require.Equal(t, in.AppendedAt.IsZero(), out.AppendedAt.IsZero())
			require.True(t, in.AppendedAt.Equal(out.AppendedAt), "AppendedAt %v, got %v", in.AppendedAt, out.AppendedAt)
			if in.AppendedAt.IsZero() {
				require.Equal(t, time.Time{}, out.AppendedAt)
			}
		}
	}
	check()

	// Data and Extensions of a GetLog are the caller's: writing them changes nothing stored.
	var out raft.Log
	require.NoError(t, s.GetLog(3, &out))
	out.Data[0], out.Extensions[0] = 'X', 'X'
	check()

	require.NoError(t, s.Close())
	s = openStore(t, path, nil)
	check()
}

func TestLargeEntries(t *testing.T) {
	s, path := newStore(t)
	big := func(index uint64, n int) *raft.Log {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + int(index))
		}
		return &raft.Log{Index: index, Term: 1, Data: data, Extensions: data[:n/4]}
	}
	logs := []*raft.Log{big(1, 4<<20), big(2, 1<<20), big(3, 3<<20+17)}
	require.NoError(t, s.StoreLogs(logs))
	check := func() {
		for _, in := range logs {
			var out raft.Log
			require.NoError(t, s.GetLog(in.Index, &out))
			require.Equal(t, in, &out)
		}
	}
	check()
	require.NoError(t, s.Close())
	s = openStore(t, path, nil)
	check()

	// An entry whose record is past cairn's value limit is refused, and so is its whole call.
	old := maxRecordSize
	maxRecordSize = 2 << 20
	t.Cleanup(func() { maxRecordSize = old })
	err := s.StoreLogs([]*raft.Log{entry(4), big(5, 2<<20)})
	require.ErrorIs(t, err, cairn.ErrValueTooLarge)
	require.ErrorContains(t, err, "raftstore: log 5: record of")
	requireLog(t, s, 1, 3, nil, 4, 5)
}

func TestStable(t *testing.T) {
	s, path := newStore(t)
	require.NoError(t, s.Set([]byte("hello"), []byte("world")))
	require.NoError(t, s.SetUint64([]byte("CurrentTerm"), 123))
	require.NoError(t, s.SetUint64([]byte("max"), math.MaxUint64))
	require.NoError(t, s.Set([]byte("empty"), nil))
	require.NoError(t, s.Set([]byte("over"), []byte("one")))
	require.NoError(t, s.Set([]byte("over"), []byte("two")))

	check := func() {
		v, err := s.Get([]byte("hello"))
		require.NoError(t, err)
		require.Equal(t, []byte("world"), v)
		n, err := s.GetUint64([]byte("CurrentTerm"))
		require.NoError(t, err)
		require.Equal(t, uint64(123), n)
		n, err = s.GetUint64([]byte("max"))
		require.NoError(t, err)
		require.Equal(t, uint64(math.MaxUint64), n)
		v, err = s.Get([]byte("empty"))
		require.NoError(t, err)
		require.NotNil(t, v)
		require.Empty(t, v)
		v, err = s.Get([]byte("over"))
		require.NoError(t, err)
		require.Equal(t, []byte("two"), v)
		_, err = s.Get([]byte("hell"))
		require.Equal(t, ErrKeyNotFound, err)
	}
	check()

	// The stable store and the log are separate key spaces.
	require.NoError(t, s.StoreLog(entry(1)))
	_, err := s.Get(logKeySlice(1))
	require.Equal(t, ErrKeyNotFound, err)

	// A value that is not 8 bytes is not a uint64.
	_, err = s.GetUint64([]byte("hello"))
	require.ErrorIs(t, err, cairn.ErrCorrupt)
	require.ErrorContains(t, err, `value of "hello" is 5 bytes`)
	require.ErrorIs(t, s.Set(nil, []byte("x")), cairn.ErrKeyRequired)

	require.NoError(t, s.Close())
	s = openStore(t, path, nil)
	check()
}

func logKeySlice(index uint64) []byte {
	k := logKey(index)
	return k[:]
}

// TestCorruptRecord damages log records through the database and checks that GetLog reports
// each as corrupt, never panics, and that the damaged entry does not hide the others.
func TestCorruptRecord(t *testing.T) {
	good := appendRecord(nil, &raft.Log{Index: 7, Term: 2, Type: raft.LogCommand, Data: []byte("data"),
		Extensions: []byte("ext"), AppendedAt: time.Unix(1700000000, 5)})
	cases := []struct {
		name  string
		value []byte
		want  string
	}{
		{"empty", []byte{}, "record of 0 bytes"},
		{"short", good[:2], "record of 2 bytes"},
		{"version", append([]byte{2}, good[1:]...), "record format version 2"},
		{"flags", append([]byte{1, 0, 0x81}, good[3:]...), "unknown flags 0x81"},
		{"truncated", good[:len(good)-1], "truncated or malformed"},
		{"truncated in a varint", good[:4], "truncated or malformed"},
		{"trailing bytes", append(bytes.Clone(good), 0), "1 bytes after the record"},
		{"other index", appendRecord(nil, &raft.Log{Index: 8}), "record holds index 8"},
		{"nanoseconds", []byte{1, 0, 1, 7, 0, 0, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0, 0}, "truncated or malformed"},
		{"length past the end", []byte{1, 0, 0, 7, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}, "truncated or malformed"},
		{"varint overflow", []byte{1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "truncated or malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newStore(t)
			require.NoError(t, s.StoreLogs(entries(6, 7, 8)))
			require.NoError(t, s.DB().Update(func(tx *cairn.Tx) error {
				b, err := tx.Bucket([]byte(DefaultLogBucket))
				require.NoError(t, err)
				return b.Put(logKeySlice(7), tc.value)
			}))
			var l raft.Log
			err := s.GetLog(7, &l)
			require.ErrorIs(t, err, cairn.ErrCorrupt)
			require.ErrorContains(t, err, "raftstore: log 7: "+tc.want)
			require.NoError(t, s.GetLog(6, &l))
			require.NoError(t, s.GetLog(8, &l))
		})
	}
}

// TestCorruptKey puts a key that is no index into the log bucket: opening the store reports it.
func TestCorruptKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	s := openStore(t, path, nil)
	require.NoError(t, s.StoreLogs(entries(1, 2)))
	require.NoError(t, s.DB().Update(func(tx *cairn.Tx) error {
		b, err := tx.Bucket([]byte(DefaultLogBucket))
		require.NoError(t, err)
		return b.Put([]byte{0xff}, []byte("x"))
	}))
	require.NoError(t, s.Close())
	_, err := Open(path, nil)
	require.ErrorIs(t, err, cairn.ErrCorrupt)
	require.ErrorContains(t, err, "log key of 1 bytes, not 8")
}

// TestGoldenRecord pins the record layout of docs/FORMAT.md ("raftstore") byte by byte.
func TestGoldenRecord(t *testing.T) {
	l := &raft.Log{Index: 300, Term: 5, Type: raft.LogConfiguration, Data: []byte("ab"),
		Extensions: []byte{0xee}, AppendedAt: time.Unix(-2, 1000)}
	want := []byte{
		0x01,       // format version
		0x05,       // type: LogConfiguration
		0x01,       // flags: AppendedAt present
		0xac, 0x02, // index 300, uvarint
		0x05,       // term 5
		0x03,       // seconds -2, zigzag varint
		0xe8, 0x07, // nanoseconds 1000
		0x02, 'a', 'b', // Data
		0x01, 0xee, // Extensions
	}
	require.Equal(t, want, appendRecord(nil, l))
	require.Equal(t, len(want), recordSize(l))
	// FORMAT.md's example is this record.
	doc, err := os.ReadFile("../docs/FORMAT.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), fmt.Sprintf("`% x`", want), "docs/FORMAT.md's raftstore example")
	var got raft.Log
	require.NoError(t, decodeRecord(300, want, &got))
	require.True(t, got.AppendedAt.Equal(l.AppendedAt))
	got.AppendedAt = l.AppendedAt
	require.Equal(t, l, &got)

	plain := &raft.Log{Index: 1, Term: 1}
	require.Equal(t, []byte{1, 0, 0, 1, 1, 0, 0}, appendRecord(nil, plain))
	require.Equal(t, uint64(0x0102030405060708), keyIndex8(t, logKeySlice(0x0102030405060708)))
	require.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8}, logKeySlice(0x0102030405060708))
}

func keyIndex8(t *testing.T, k []byte) uint64 {
	i, err := keyIndex(k)
	require.NoError(t, err)
	return i
}

// FuzzDecodeRecord checks that no input makes the decoder panic, and that a record it accepts
// encodes back to a record that decodes to the same entry.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(uint64(300), []byte{1, 2, 1, 0xac, 0x02, 5, 3, 0xe8, 0x07, 2, 'a', 'b', 1, 0xee})
	f.Add(uint64(1), []byte{1, 0, 0, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, index uint64, rec []byte) {
		var l raft.Log
		if err := decodeRecord(index, rec, &l); err != nil {
			require.ErrorIs(t, err, cairn.ErrCorrupt)
			return
		}
		again := appendRecord(nil, &l)
		require.Equal(t, recordSize(&l), len(again))
		var l2 raft.Log
		require.NoError(t, decodeRecord(index, again, &l2))
		require.Equal(t, again, appendRecord(nil, &l2))
	})
}

func TestClose(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "raft.db"), nil)
	require.NoError(t, err)
	require.NoError(t, s.StoreLog(entry(1)))
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "a second Close")

	var l raft.Log
	_, err = s.FirstIndex()
	require.ErrorIs(t, err, cairn.ErrClosed)
	_, err = s.LastIndex()
	require.ErrorIs(t, err, cairn.ErrClosed)
	require.ErrorIs(t, s.GetLog(1, &l), cairn.ErrClosed)
	require.ErrorIs(t, s.StoreLog(entry(2)), cairn.ErrClosed)
	require.ErrorIs(t, s.StoreLogs(entries(2)), cairn.ErrClosed)
	require.ErrorIs(t, s.DeleteRange(1, 2), cairn.ErrClosed)
	require.ErrorIs(t, s.Set([]byte("k"), []byte("v")), cairn.ErrClosed)
	_, err = s.Get([]byte("k"))
	require.ErrorIs(t, err, cairn.ErrClosed)
	require.ErrorIs(t, s.SetUint64([]byte("k"), 1), cairn.ErrClosed)
	_, err = s.GetUint64([]byte("k"))
	require.ErrorIs(t, err, cairn.ErrClosed)
	require.ErrorIs(t, s.DB().View(func(*cairn.Tx) error { return nil }), cairn.ErrClosed, "Open's database is closed too")
}

// TestNewOnSharedDB puts two Stores and the caller's own data in one database.
func TestNewOnSharedDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	db, err := cairn.Open(path, nil)
	require.NoError(t, err)
	a, err := New(db, nil)
	require.NoError(t, err)
	b, err := New(db, &Options{LogBucket: "b/log", StableBucket: "b/stable"})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *cairn.Tx) error { return tx.Put([]byte("mine"), []byte("yes")) }))

	require.NoError(t, a.StoreLogs(entries(1, 2, 3)))
	require.NoError(t, b.StoreLogs(entries(10, 11)))
	require.NoError(t, a.SetUint64([]byte("CurrentTerm"), 1))
	require.NoError(t, b.SetUint64([]byte("CurrentTerm"), 2))
	requireLog(t, a, 1, 3, span(1, 3), 0, 12)
	requireLog(t, b, 10, 11, span(10, 11), 0, 12)

	// Close of a Store from New leaves the database open.
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	require.NoError(t, db.View(func(tx *cairn.Tx) error {
		_, err := tx.Get([]byte("mine"))
		return err
	}))
	require.NoError(t, db.Close())

	db, err = cairn.Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	b, err = New(db, &Options{LogBucket: "b/log", StableBucket: "b/stable"})
	require.NoError(t, err)
	requireLog(t, b, 10, 11, span(10, 11), 0, 12)
	n, err := b.GetUint64([]byte("CurrentTerm"))
	require.NoError(t, err)
	require.Equal(t, uint64(2), n)

	_, err = New(db, &Options{LogBucket: "x", StableBucket: "x"})
	require.ErrorContains(t, err, "same name")
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	s, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, s.StoreLogs(entries(1, 2)))
	require.NoError(t, s.SetUint64([]byte("CurrentTerm"), 4))
	require.NoError(t, s.Close())

	ro := openStore(t, path, &Options{DB: &cairn.Options{ReadOnly: true}})
	requireLog(t, ro, 1, 2, span(1, 2), 0, 3)
	n, err := ro.GetUint64([]byte("CurrentTerm"))
	require.NoError(t, err)
	require.Equal(t, uint64(4), n)
	require.ErrorIs(t, ro.StoreLog(entry(3)), cairn.ErrReadOnly)
	require.ErrorIs(t, ro.DeleteRange(1, 1), cairn.ErrReadOnly)
	require.ErrorIs(t, ro.Set([]byte("k"), nil), cairn.ErrReadOnly)
	requireLog(t, ro, 1, 2, span(1, 2), 0, 3)

	// A read-only database without the store's buckets cannot hold a Store.
	_, err = Open(path, &Options{DB: &cairn.Options{ReadOnly: true}, LogBucket: "other/log", StableBucket: "other/stable"})
	require.ErrorIs(t, err, cairn.ErrBucketNotFound)
}

// TestConcurrentStoreLogs appends from 8 goroutines at once, each its own range of indexes, as
// concurrent appenders of a cluster package sharing one store would.
func TestConcurrentStoreLogs(t *testing.T) {
	const writers, calls, batch = 8, 25, 4
	s, path := newStore(t)
	before := s.DB().Stats()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range calls {
				base := uint64(1 + (w*calls+c)*batch)
				if err := s.StoreLogs(entries(span(base, base+batch-1)...)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	const n = writers * calls * batch
	requireLog(t, s, 1, n, span(1, n), 0, n+1)
	after := s.DB().Stats()
	require.Equal(t, before.Commits+writers*calls, after.Commits, "one commit per StoreLogs")
	t.Logf("%d commits in %d fdatasync batches", after.Commits-before.Commits, after.Batches-before.Batches)

	require.NoError(t, s.Close())
	s = openStore(t, path, nil)
	requireLog(t, s, 1, n, span(1, n), 0, n+1)
}

// TestConcurrentAppendTruncateRead runs an appender that now and then deletes its last entry and
// writes it again, a truncator that keeps the last 100 entries, and readers, as raft-wal's
// test of the same name does (for a number of appends, not a time).
func TestConcurrentAppendTruncateRead(t *testing.T) {
	s, _ := newStore(t)
	const start, appends = 1000, 400
	done := make(chan struct{})
	fail := make(chan error, 8)
	report := func(format string, args ...any) {
		select {
		case fail <- fmt.Errorf(format, args...):
		default:
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the appender
		defer wg.Done()
		defer close(done)
		for index := uint64(start); index < start+appends; index++ {
			if err := s.StoreLogs(entries(index)); err != nil {
				report("append %d: %v", index, err)
				return
			}
			if index%37 == 0 {
				if err := s.DeleteRange(index, index); err != nil {
					report("delete %d: %v", index, err)
					return
				}
				if last, _ := s.LastIndex(); last != index-1 {
					report("after deleting %d, last index %d", index, last)
					return
				}
				if err := s.StoreLogs(entries(index)); err != nil {
					report("append %d again: %v", index, err)
					return
				}
			}
		}
	}()
	wg.Add(1)
	go func() { // the truncator
		defer wg.Done()
		// floor is the lowest index the last truncation left: a truncation below it (after
		// reading a last index while the appender had deleted its last entry) leaves it.
		floor := uint64(start)
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			last, _ := s.LastIndex()
			if last < start+100 {
				continue
			}
			if err := s.DeleteRange(0, last-100); err != nil {
				report("truncate to %d: %v", last-100, err)
				return
			}
			floor = max(floor, last-99)
			if first, _ := s.FirstIndex(); first != floor {
				report("truncated below %d, first index %d", floor, first)
				return
			}
		}
	}()
	for range 2 {
		wg.Add(1)
		go func() { // a reader
			defer wg.Done()
			var l raft.Log
			for {
				select {
				case <-done:
					return
				default:
				}
				first, _ := s.FirstIndex()
				last, _ := s.LastIndex()
				for _, i := range []uint64{first, first + (last-first)/2, last} {
					err := s.GetLog(i, &l)
					if errors.Is(err, raft.ErrLogNotFound) {
						continue // truncated meanwhile
					}
					if err != nil || l.Index != i || string(l.Data) != fmt.Sprintf("log %d", i) {
						report("read %d: %v %+v", i, err, l)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(fail)
	for err := range fail {
		require.NoError(t, err)
	}
	last, err := s.LastIndex()
	require.NoError(t, err)
	require.Equal(t, uint64(start+appends-1), last)
}

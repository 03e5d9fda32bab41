package cairn

// Golden-file tests of the on-disk format (docs/FORMAT.md). testdata/golden/v2.db and
// v2.db-wal were written by this file with -update-golden while version 2 was current (frozen
// since version 3; see format_v3_test.go for the version 3 and 4 files); a build that cannot read
// them, or reads different contents, has changed the format. A deliberate format change bumps the
// format version, docs/FORMAT.md and the golden files of the new version in the same commit:
//
//	go test -run TestGoldenV4 -update-golden .

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update-golden", false,
	"regenerate testdata/golden/v4.db and v4.db-wal (only for a format change: see docs/FORMAT.md)")

const (
	goldenDB  = "testdata/golden/v2.db"
	goldenWAL = "testdata/golden/v2.db-wal"
	// goldenCheckpointed is the number of transactions of goldenHistory in the page file; the
	// later ones are only in the WAL.
	goldenCheckpointed = 2
)

type goldenOp struct {
	key, value []byte
	del        bool
}

// goldenBlob returns n bytes of deterministic content without a short period.
func goldenBlob(n int, seed uint32) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((uint32(i)*2654435761 + seed) >> 24)
	}
	return b
}

// goldenLongKey returns a 4096-byte key starting with prefix.
func goldenLongKey(prefix string) string {
	return prefix + strings.Repeat("0123456789abcdef", 256)[:4096-len(prefix)]
}

// goldenHistory is the transactions that build the golden database, in commit order.
func goldenHistory() [][]goldenOp {
	put := func(k string, v []byte) goldenOp { return goldenOp{key: []byte(k), value: v} }
	del := func(k string) goldenOp { return goldenOp{key: []byte(k), del: true} }
	var tx1 []goldenOp
	for i := range 24 {
		tx1 = append(tx1, put(fmt.Sprintf("cp/%03d", i), fmt.Appendf(nil, "value cp/%03d", i)))
	}
	tx1 = append(tx1,
		put("cp/empty", []byte{}),
		put("cp/inline-1024", goldenBlob(1024, 1)),                         // the largest inline value at 4 KiB pages
		put("cp/overflow-10000", goldenBlob(10000, 2)),                     // a 3-page overflow extent
		put(goldenLongKey("cp/long-"), []byte("the value of a 4 KiB key")), // a 2-page leaf
		put("cp/overwritten", []byte("old value")),
		put("cp/deleted-in-wal", []byte("deleted after the checkpoint")),
		put("cp/deleted-before", []byte("deleted before the checkpoint")),
	)
	return [][]goldenOp{
		// Checkpointed (goldenCheckpointed transactions).
		tx1,
		{del("cp/deleted-before"), put("cp/000", []byte("value cp/000, rewritten"))},
		// Only in the WAL.
		func() []goldenOp {
			var ops []goldenOp
			for i := range 10 {
				ops = append(ops, put(fmt.Sprintf("wal/%03d", i), fmt.Appendf(nil, "value wal/%03d", i)))
			}
			return ops
		}(),
		{put("wal/empty", []byte{}), put("wal/overflow-5000", goldenBlob(5000, 3))},
		{del("cp/deleted-in-wal"), put("cp/overwritten", []byte("new value")), put("wal/deleted", []byte("gone"))},
		{del("wal/deleted"), put(goldenLongKey("wal/long-"), []byte("the value of a 4 KiB key in the WAL"))},
	}
}

// goldenState returns the contents after the transactions hist, and every key deleted on the way.
func goldenState(hist [][]goldenOp) (state map[string][]byte, deleted []string) {
	state = make(map[string][]byte)
	for _, ops := range hist {
		for _, op := range ops {
			if op.del {
				delete(state, string(op.key))
				deleted = append(deleted, string(op.key))
			} else {
				state[string(op.key)] = op.value
			}
		}
	}
	return state, deleted
}

// copyGolden copies the version 2 golden files into a temporary directory and returns the
// database path. Without withWAL the WAL is cut to its header, as a checkpoint leaves it.
func copyGolden(t *testing.T, withWAL bool) string {
	return copyGoldenFiles(t, goldenDB, goldenWAL, withWAL)
}

// copyGoldenFiles is copyGolden for any pair of golden files.
func copyGoldenFiles(t *testing.T, dbFile, walFile string, withWAL bool) string {
	path := filepath.Join(t.TempDir(), "golden.db")
	b, err := os.ReadFile(dbFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	w, err := os.ReadFile(walFile)
	require.NoError(t, err)
	if !withWAL {
		w = w[:32]
	}
	require.NoError(t, os.WriteFile(path+"-wal", w, 0o600))
	return path
}

// requireContents checks that db holds exactly want, by a scan and by point lookups, and that
// none of the deleted keys is present.
func requireContents(t *testing.T, db *DB, want map[string][]byte, deleted []string) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(want))
	require.NoError(t, db.View(func(tx *Tx) error {
		var got []string
		for k, v := range tx.Range(nil, nil) {
			got = append(got, string(k))
			require.True(t, bytes.Equal(want[string(k)], v), "value of key %.40q: %d bytes, want %d", k, len(v), len(want[string(k)]))
		}
		require.Equal(t, keys, got)
		for _, k := range keys {
			v, err := tx.Get([]byte(k))
			require.NoError(t, err, "key %.40q", k)
			require.True(t, bytes.Equal(want[k], v), "Get %.40q: %d bytes, want %d", k, len(v), len(want[k]))
		}
		for _, k := range deleted {
			if _, ok := want[k]; !ok {
				_, err := tx.Get([]byte(k))
				require.ErrorIs(t, err, ErrNotFound, "deleted key %q", k)
			}
		}
		return nil
	}))
}

func TestGoldenFormat(t *testing.T) {
	// The version 2 files are frozen (no version 2 writer remains): -update-golden rewrites the
	// version 3 files only (format_v3_test.go).
	hist := goldenHistory()
	t.Run("pages and WAL", func(t *testing.T) {
		db, err := Open(copyGolden(t, true), nil)
		require.NoError(t, err)
		defer db.Close()
		st := db.Stats()
		require.Equal(t, 4096, st.PageSize)
		// The WAL is version 1: Open replays it, checkpoints, and starts a version 2 log.
		require.Equal(t, uint64(len(hist)), st.CheckpointLSN)
		require.Equal(t, uint64(len(hist)), st.LSN, "WAL records replayed")
		want, deleted := goldenState(hist)
		requireContents(t, db, want, deleted)
		require.NoError(t, db.check())
	})
	t.Run("pages only", func(t *testing.T) {
		db, err := Open(copyGolden(t, false), nil)
		require.NoError(t, err)
		defer db.Close()
		require.Equal(t, uint64(goldenCheckpointed), db.Stats().LSN)
		want, deleted := goldenState(hist[:goldenCheckpointed])
		requireContents(t, db, want, deleted)
		require.NoError(t, db.check())
	})
}

// goldenMeta is a meta page decoded by hand as FORMAT.md describes it.
type goldenMeta struct {
	version, pageSize                                          uint32
	dbID, seq, lsn, root, pageCount, freelistID, freelistPages uint64
}

var castagnoliTable = crc32.MakeTable(crc32.Castagnoli)

func decodeGoldenMeta(t *testing.T, b []byte) goldenMeta {
	t.Helper()
	le := binary.LittleEndian
	require.Equal(t, "cairnDB\x00", string(b[0:8]), "magic")
	require.Equal(t, le.Uint32(b[80:84]), crc32.Checksum(b[0:80], castagnoliTable), "meta CRC32C over [0, 80)")
	require.Equal(t, make([]byte, 8), b[72:80], "catalog root (version 2: reserved, 0)")
	return goldenMeta{
		version: le.Uint32(b[8:12]), pageSize: le.Uint32(b[12:16]), dbID: le.Uint64(b[16:24]),
		seq: le.Uint64(b[24:32]), lsn: le.Uint64(b[32:40]), root: le.Uint64(b[40:48]),
		pageCount: le.Uint64(b[48:56]), freelistID: le.Uint64(b[56:64]), freelistPages: le.Uint64(b[64:72]),
	}
}

// goldenNewestMeta decodes both meta pages of file, of the given format version, and returns the
// current one.
func goldenNewestMeta(t *testing.T, file []byte, version uint32) goldenMeta {
	t.Helper()
	m0 := decodeGoldenMeta(t, file[0:84])
	m1 := decodeGoldenMeta(t, file[m0.pageSize:m0.pageSize+84])
	require.Equal(t, m0.pageSize, m1.pageSize)
	require.Equal(t, m0.dbID, m1.dbID)
	for slot, m := range []goldenMeta{m0, m1} {
		require.Equal(t, version, m.version, "format version")
		require.Equal(t, uint64(slot), m.seq%2, "meta page %d holds sequence %d", slot, m.seq)
		require.Equal(t, make([]byte, m.pageSize-84), file[uint32(slot)*m.pageSize+84:uint32(slot+1)*m.pageSize])
	}
	if m0.seq > m1.seq {
		return m0
	}
	return m1
}

func TestGoldenMetaPageBytes(t *testing.T) {
	file, err := os.ReadFile(goldenDB)
	require.NoError(t, err)
	m := goldenNewestMeta(t, file, 2)
	require.Equal(t, uint32(2), m.version, "the v2 golden files stay version 2: this build reads them")
	require.GreaterOrEqual(t, uint64(len(file)), m.pageCount*uint64(m.pageSize))

	w, err := os.ReadFile(goldenWAL)
	require.NoError(t, err)
	le := binary.LittleEndian
	require.Equal(t, "cairnWAL", string(w[0:8]))
	require.Equal(t, uint32(1), le.Uint32(w[8:12]), "WAL format version")
	require.Equal(t, m.dbID, le.Uint64(w[16:24]), "WAL database id")
	require.Equal(t, le.Uint32(w[24:28]), crc32.Checksum(w[0:24], castagnoliTable), "WAL header CRC32C")

	db, err := Open(copyGolden(t, false), nil) // with the WAL, Open would checkpoint (version 1 WAL)
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, pager.Meta{
		PageSize: m.pageSize, DBID: m.dbID, Seq: m.seq, LSN: m.lsn, Root: m.root,
		PageCount: m.pageCount, FreelistID: m.freelistID, FreelistPages: m.freelistPages,
	}, db.pager.Durable())
	st := db.Stats()
	require.Equal(t, int(m.pageSize), st.PageSize)
	require.Equal(t, m.lsn, st.CheckpointLSN)
}

// TestGoldenDecodeByHand reads the golden files with nothing but FORMAT.md: every extent the
// checkpointed tree references, the free-list extent and every WAL record with its redo payload.
func TestGoldenDecodeByHand(t *testing.T) {
	file, err := os.ReadFile(goldenDB)
	require.NoError(t, err)
	le := binary.LittleEndian
	m := goldenNewestMeta(t, file, 2)
	ps := uint64(m.pageSize)
	extent := func(id uint64, typ byte) []byte {
		require.True(t, id >= 2 && id < m.pageCount, "page id %d", id)
		p := file[id*ps:]
		n := uint64(le.Uint32(p[8:12])) + 1
		require.LessOrEqual(t, id+n, m.pageCount, "extent %d", id)
		p = p[:n*ps]
		require.Equal(t, le.Uint32(p[0:4]), crc32.Update(uint32(id)^uint32(id>>32), castagnoliTable, p[4:]), "page %d CRC32C", id)
		require.Equal(t, typ, p[4], "page %d type", id)
		require.Equal(t, byte(0), p[5], "page %d flags", id)
		require.Equal(t, uint32(0), le.Uint32(p[12:16]), "page %d reserved", id)
		alloc := le.Uint64(p[16:24])
		require.True(t, alloc >= 1 && alloc <= m.lsn, "page %d allocated at LSN %d, checkpoint at %d", id, alloc, m.lsn)
		return p
	}
	got := make(map[string][]byte)
	extents := make(map[string]int) // kind -> count, to show what the golden file exercises
	var walk func(id uint64)
	walk = func(id uint64) {
		p := file[id*ps:]
		p = extent(id, p[4]) // the type is checked below
		n := int(le.Uint16(p[6:8]))
		switch p[4] {
		case 1: // branch
			extents["branch"]++
			if len(p) > int(ps) {
				extents["multi-page branch"]++
			}
			require.Positive(t, n)
			for i := range n {
				walk(le.Uint64(p[24+16*i+8:]))
			}
		case 2: // leaf
			extents["leaf"]++
			if len(p) > int(ps) {
				extents["multi-page leaf"]++
			}
			for i := range n {
				e := p[24+16*i:]
				flags, klen, vlen, off := le.Uint32(e[0:]), le.Uint32(e[4:]), le.Uint32(e[8:]), le.Uint32(e[12:])
				key := p[off : off+klen]
				var val []byte
				if flags&1 != 0 {
					extents["overflow"]++
					o := extent(le.Uint64(p[off+klen:]), 3)
					val = o[24 : 24+vlen]
				} else {
					val = p[off+klen : off+klen+vlen]
				}
				got[string(key)] = val
			}
		default:
			t.Fatalf("page %d: type %d in the tree", id, p[4])
		}
	}
	walk(m.root)
	want, _ := goldenState(goldenHistory()[:goldenCheckpointed])
	require.Equal(t, want, got, "checkpointed contents")

	if m.freelistID != 0 {
		extents["free list"]++
		p := extent(m.freelistID, 4)
		require.Equal(t, m.freelistPages, uint64(len(p))/ps)
		prev := uint64(1)
		for i := range le.Uint64(p[24:32]) {
			id := le.Uint64(p[32+8*i:])
			require.True(t, id > prev && id < m.pageCount, "free id %d", id)
			prev = id
		}
	}

	w, err := os.ReadFile(goldenWAL)
	require.NoError(t, err)
	seed := uint32(m.dbID) ^ uint32(m.dbID>>32)
	lsn, off := m.lsn, 32
	for off < len(w) {
		r := w[off:]
		n := int(le.Uint32(r[4:8]))
		require.Equal(t, le.Uint32(r[0:4]), crc32.Update(seed, castagnoliTable, r[4:24+n]), "record at %d CRC32C", off)
		require.Equal(t, lsn+1, le.Uint64(r[8:16]), "record at %d LSN", off)
		require.LessOrEqual(t, le.Uint64(r[16:24]), lsn+1, "record at %d batch LSN", off)
		span := (24 + n + 7) &^ 7
		require.Equal(t, make([]byte, span-24-n), r[24+n:span], "padding")
		payload := r[24 : 24+n]
		require.Equal(t, byte(1), payload[0], "redo record type")
		for b := payload[1:]; len(b) > 0; {
			op := b[0]
			klen, k := binary.Uvarint(b[1:])
			key := b[1+k : 1+k+int(klen)]
			b = b[1+k+int(klen):]
			switch op {
			case 1:
				vlen, k := binary.Uvarint(b)
				got[string(key)] = b[k : k+int(vlen)]
				b = b[k+int(vlen):]
			case 2:
				delete(got, string(key))
			default:
				t.Fatalf("record LSN %d: operation %d", lsn+1, op)
			}
		}
		extents["WAL record"]++
		lsn++
		off += span
	}
	require.Equal(t, len(w), off)
	want, _ = goldenState(goldenHistory())
	require.Equal(t, want, got, "contents after the WAL")
	require.Equal(t, uint64(len(goldenHistory())), lsn)
	for _, kind := range []string{"branch", "multi-page branch", "leaf", "multi-page leaf", "overflow", "free list", "WAL record"} {
		require.Positive(t, extents[kind], "the golden files hold no %s", kind)
	}
	t.Logf("page file: %d pages, root %d; decoded %v", m.pageCount, m.root, extents)
}

// docHex returns the bytes of the first fenced block after the line containing marker in
// docs/FORMAT.md. Block lines are "OFFSET  hex bytes | comment".
func docHex(t *testing.T, marker string) []byte {
	doc, err := os.ReadFile("docs/FORMAT.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), marker)
	require.True(t, ok, "FORMAT.md has no %q", marker)
	_, rest, _ = strings.Cut(rest, "```")
	_, rest, _ = strings.Cut(rest, "\n")
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	var out []byte
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		line, _, _ = strings.Cut(line, "|")
		fields := strings.Fields(line)
		require.NotEmpty(t, fields)
		require.Equal(t, fmt.Sprintf("%04x", len(out)), fields[0], "offset of line %q", line)
		b, err := hex.DecodeString(strings.Join(fields[1:], ""))
		require.NoError(t, err)
		out = append(out, b...)
	}
	return out
}

// TestGoldenDocExample rebuilds the worked example of FORMAT.md and compares its bytes.
func TestGoldenDocExample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "example.db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *Tx) error {
		return errors.Join(tx.Put([]byte("apple"), []byte("red")), tx.Put([]byte("kiwi"), []byte("green")))
	}))
	w, err := os.ReadFile(path + "-wal")
	require.NoError(t, err)
	require.NoError(t, db.Checkpoint(t.Context()))
	require.NoError(t, db.Close())
	file, err := os.ReadFile(path)
	require.NoError(t, err)

	leaf := docHex(t, "Leaf page 2")
	page := file[2*4096 : 3*4096]
	require.Equal(t, leaf, page[:len(leaf)])
	require.Equal(t, make([]byte, 4096-len(leaf)), page[len(leaf):])

	rec := docHex(t, "WAL record 1")
	require.Len(t, w, wal.InitialSize, "the WAL is preallocated")
	require.Equal(t, rec[4:], w[wal.HeaderSize+4:wal.HeaderSize+len(rec)], "record bytes after the CRC (which depends on the database id)")
	require.Equal(t, make([]byte, wal.InitialSize-wal.HeaderSize-len(rec)), w[wal.HeaderSize+len(rec):], "zeros after it")
}

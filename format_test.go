package cairn

// Golden-file tests of the on-disk format (docs/FORMAT.md): the helpers shared with the golden
// files of the current version (format_v4_test.go) and the damaged-file corpus
// (damaged_test.go), the worked example of FORMAT.md, and the refusal of the development formats
// this build no longer reads. A build that cannot read the golden files, or reads different
// contents, has changed the format. A deliberate format change bumps the format version,
// docs/FORMAT.md and the golden files of the new version in the same commit:
//
//	go test -run TestGoldenV4 -update-golden .

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update-golden", false,
	"regenerate testdata/golden/v4.db and v4.db-wal (only for a format change: see docs/FORMAT.md)")

// goldenBlob returns n bytes of deterministic content without a short period.
func goldenBlob(n int, seed uint32) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((uint32(i)*2654435761 + seed) >> 24)
	}
	return b
}

// copyGoldenFiles copies the golden files of a database (the page file dbFile and its WAL
// segments, dbFile-wal and dbFile-wal2) into a temporary directory and returns the database path.
// Without withWAL each segment is cut to its header region, as a checkpoint leaves it.
func copyGoldenFiles(t *testing.T, dbFile string, withWAL bool) string {
	path := filepath.Join(t.TempDir(), "golden.db")
	b, err := os.ReadFile(dbFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	for i := range 2 {
		w, err := os.ReadFile(walPath(dbFile, i))
		require.NoError(t, err)
		if !withWAL {
			w = w[:wal.HeaderSize]
		}
		require.NoError(t, os.WriteFile(walPath(path, i), w, 0o600))
	}
	return path
}

// goldenMeta is a meta page decoded by hand as FORMAT.md describes it.
type goldenMeta struct {
	version, pageSize                                                   uint32
	dbID, seq, lsn, root, pageCount, freelistID, freelistPages, catalog uint64
}

var castagnoliTable = crc32.MakeTable(crc32.Castagnoli)

func decodeGoldenMeta(t *testing.T, b []byte) goldenMeta {
	t.Helper()
	le := binary.LittleEndian
	require.Equal(t, "cairnDB\x00", string(b[0:8]), "magic")
	require.Equal(t, le.Uint32(b[80:84]), crc32.Checksum(b[0:80], castagnoliTable), "meta CRC32C over [0, 80)")
	return goldenMeta{
		version: le.Uint32(b[8:12]), pageSize: le.Uint32(b[12:16]), dbID: le.Uint64(b[16:24]),
		seq: le.Uint64(b[24:32]), lsn: le.Uint64(b[32:40]), root: le.Uint64(b[40:48]),
		pageCount: le.Uint64(b[48:56]), freelistID: le.Uint64(b[56:64]), freelistPages: le.Uint64(b[64:72]),
		catalog: le.Uint64(b[72:80]),
	}
}

// goldenNewestMeta decodes both meta pages of file, which must be of the current format version,
// and returns the current one.
func goldenNewestMeta(t *testing.T, file []byte) goldenMeta {
	t.Helper()
	m0 := decodeGoldenMeta(t, file[0:84])
	m1 := decodeGoldenMeta(t, file[m0.pageSize:m0.pageSize+84])
	require.Equal(t, m0.pageSize, m1.pageSize)
	require.Equal(t, m0.dbID, m1.dbID)
	for slot, m := range []goldenMeta{m0, m1} {
		require.Equal(t, uint32(pager.FormatVersion), m.version, "meta page %d format version", slot)
		require.Equal(t, uint64(slot), m.seq%2, "meta page %d holds sequence %d", slot, m.seq)
		require.Equal(t, make([]byte, m.pageSize-84), file[uint32(slot)*m.pageSize+84:uint32(slot+1)*m.pageSize])
	}
	if m0.seq > m1.seq {
		return m0
	}
	return m1
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

// dbFiles returns the contents of the page file and both WAL segments of the database at path
// (nil for a missing file).
func dbFiles(t *testing.T, path string) [3][]byte {
	var out [3][]byte
	for i, name := range []string{path, walPath(path, 0), walPath(path, 1)} {
		b, err := os.ReadFile(name)
		if !errors.Is(err, os.ErrNotExist) {
			require.NoError(t, err)
			out[i] = b
		}
	}
	return out
}

// TestOpenRefusesDroppedPageFormats: a database whose page file has meta pages of format version
// 2 or 3 (development formats, crafted here from a current file: no writer of them remains) is
// refused by Open, read-write and read-only, with an error that names the version found and the
// version this build reads and wraps ErrCorrupt, as a newer version's does; its files are left
// as they were.
func TestOpenRefusesDroppedPageFormats(t *testing.T) {
	for _, v := range []uint32{2, 3} {
		path := filepath.Join(t.TempDir(), "db")
		db, err := Open(path, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
		require.NoError(t, db.Close())
		file, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, off := range []int{0, 4096} {
			m := file[off : off+84]
			binary.LittleEndian.PutUint32(m[8:], v)
			binary.LittleEndian.PutUint32(m[80:], crc32.Checksum(m[:80], castagnoliTable))
		}
		require.NoError(t, os.WriteFile(path, file, 0o600))
		before := dbFiles(t, path)
		for _, readOnly := range []bool{false, true} {
			_, err := Open(path, &Options{ReadOnly: readOnly})
			require.ErrorIs(t, err, ErrCorrupt)
			require.EqualError(t, err, fmt.Sprintf("cairn: open %s: pager: page file format version %d is not supported "+
				"(this build reads version 4); it was written by a development build", path, v), "read-only %v", readOnly)
		}
		require.Equal(t, before, dbFiles(t, path), "a refused database must not change")
	}
}

// TestOpenRefusesDroppedWALFormats: a database whose WAL is of version 1 or 2 (development
// formats of one file, PATH-wal: crafted here from a current database, no writer of them
// remains) is refused by Open, read-write and read-only, with an error that names the file, the
// version found and the version this build reads and wraps ErrCorrupt, as a newer version's
// does; its files are left as they were, and PATH-wal2 is not created.
func TestOpenRefusesDroppedWALFormats(t *testing.T) {
	for _, v := range []uint32{1, 2} {
		path := filepath.Join(t.TempDir(), "db")
		db, err := Open(path, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
		dbID := db.pager.Durable().DBID
		db.abandon() // the commit only in the WAL
		w, err := os.ReadFile(walPath(path, 0))
		require.NoError(t, err)
		// Version 2: the current layout with 2 in both header copies. Version 1: one 32-byte
		// header, generation 0, as a checkpoint left it (it truncated the file).
		copies := []int{0, 512}
		if v == 1 {
			w = make([]byte, 32)
			copy(w, "cairnWAL")
			binary.LittleEndian.PutUint64(w[16:], dbID)
			copies = copies[:1]
		}
		for _, off := range copies {
			h := w[off : off+32]
			binary.LittleEndian.PutUint32(h[8:], v)
			binary.LittleEndian.PutUint32(h[24:], crc32.Checksum(h[:24], castagnoliTable))
		}
		require.NoError(t, os.WriteFile(walPath(path, 0), w, 0o600))
		require.NoError(t, os.Remove(walPath(path, 1)))
		before := dbFiles(t, path)
		for _, readOnly := range []bool{false, true} {
			_, err := Open(path, &Options{ReadOnly: readOnly})
			require.ErrorIs(t, err, ErrCorrupt)
			require.EqualError(t, err, fmt.Sprintf("cairn: open %s: %s-wal: wal: WAL format version %d is not supported "+
				"(this build reads version 3); it was written by a development build", path, path, v), "read-only %v", readOnly)
		}
		require.Equal(t, before, dbFiles(t, path), "a refused database must not change")
		require.Nil(t, before[2], "PATH-wal2 is not created")
	}
}

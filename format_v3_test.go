package cairn

// Golden files of page-file versions 3 and 4, with buckets. testdata/golden/v3.db and
// v3.db-wal were written by this file while version 3 was current and are frozen since version
// 4 (no version 3 writer remains): they check that this build reads tree pages without key
// prefixes and upgrades such a file. testdata/golden/v4.db and v4.db-wal are written by this
// file with -update-golden (go test -run TestGoldenV4 -update-golden .). The version 2 files
// (format_test.go) stay as they are, frozen too.

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

const (
	goldenV3DB  = "testdata/golden/v3.db"
	goldenV3WAL = "testdata/golden/v3.db-wal"
	goldenV4DB  = "testdata/golden/v4.db"
	goldenV4WAL = "testdata/golden/v4.db-wal"
)

func goldenV3Put(tx *Tx, bucket string, keys int, prefix string) error {
	b := &tx.main
	if bucket != "" {
		var err error
		if b, err = tx.CreateBucketIfNotExists([]byte(bucket)); err != nil {
			return err
		}
	}
	for i := range keys {
		if err := b.Put(fmt.Appendf(nil, "%s%04d", prefix, i), fmt.Appendf(nil, "%s value %d", bucket, i)); err != nil {
			return err
		}
	}
	return nil
}

// goldenV3History returns the transactions of the v3 golden files and the number checkpointed.
func goldenV3History() ([]func(tx *Tx) error, int) {
	return []func(tx *Tx) error{
		func(tx *Tx) error { return goldenV3Put(tx, "", 20, "d") },
		func(tx *Tx) error { return goldenV3Put(tx, "users", 300, "u") }, // a few pages
		func(tx *Tx) error { return goldenV3Put(tx, "dropped", 400, "x") },
		// Only in the WAL: select ops between key spaces, create, delete (drop stack), overflow.
		func(tx *Tx) error {
			if err := goldenV3Put(tx, "", 3, "wal"); err != nil {
				return err
			}
			if err := tx.DeleteBucket([]byte("dropped")); err != nil {
				return err
			}
			logs, err := tx.CreateBucket([]byte("logs\x00\xff"))
			if err != nil {
				return err
			}
			if err := logs.Put([]byte("big"), goldenBlob(7000, 9)); err != nil {
				return err
			}
			users, err := tx.Bucket([]byte("users"))
			if err != nil {
				return err
			}
			return users.Delete([]byte("u0007"))
		},
	}, 3
}

// goldenV3Want returns the contents after the first n transactions.
func goldenV3Want(n int) map[string]map[string]string {
	want := map[string]map[string]string{"": {}}
	put := func(bucket string, keys int, prefix string) {
		if want[bucket] == nil {
			want[bucket] = map[string]string{}
		}
		for i := range keys {
			want[bucket][fmt.Sprintf("%s%04d", prefix, i)] = fmt.Sprintf("%s value %d", bucket, i)
		}
	}
	put("", 20, "d")
	if n >= 2 {
		put("users", 300, "u")
	}
	if n >= 3 {
		put("dropped", 400, "x")
	}
	if n >= 4 {
		put("", 3, "wal")
		delete(want, "dropped")
		want["logs\x00\xff"] = map[string]string{"big": string(goldenBlob(7000, 9))}
		delete(want["users"], "u0007")
	}
	return want
}

// writeGoldenBuckets writes the golden files of the current version to dbDst and walDst.
func writeGoldenBuckets(t *testing.T, dbDst, walDst string) {
	path := filepath.Join(t.TempDir(), "golden.db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	hist, checkpointed := goldenV3History()
	for i, fn := range hist {
		require.NoError(t, db.Update(fn))
		if i+1 == checkpointed {
			require.NoError(t, db.Checkpoint(t.Context()))
		}
	}
	meta := db.pager.Durable()
	db.abandon()
	require.NoError(t, os.Truncate(path, int64(meta.PageCount)*int64(meta.PageSize)))
	// The WAL is preallocated with zeros: the golden file stops after its last record.
	f, err := os.Open(path + "-wal")
	require.NoError(t, err)
	st, err := f.Stat()
	require.NoError(t, err)
	info, err := wal.Scan(f, st.Size(), meta.LSN, func(wal.RecordInfo) error { return nil })
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Truncate(path+"-wal", info.End))
	for src, dst := range map[string]string{path: dbDst, path + "-wal": walDst} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
}

// openGoldenCopy copies the golden files into a new directory, the WAL whole or only its
// header, and opens the copy.
func openGoldenCopy(t *testing.T, dbFile, walFile string, withWAL bool) (*DB, string) {
	path := copyGoldenFiles(t, dbFile, walFile, withWAL)
	db, err := Open(path, nil)
	require.NoError(t, err)
	return db, path
}

// checkGoldenBuckets opens copies of golden files of the given version with and without their
// WAL and compares every bucket and key with the history.
func checkGoldenBuckets(t *testing.T, dbFile, walFile string, version uint32) {
	file, err := os.ReadFile(dbFile)
	require.NoError(t, err)
	m := goldenNewestMetaVersion(t, file, version)
	require.NotZero(t, m, "the checkpointed version has buckets: catalog root at offset 72")
	hist, checkpointed := goldenV3History()
	for _, withWAL := range []bool{true, false} {
		t.Run(fmt.Sprintf("wal=%v", withWAL), func(t *testing.T) {
			db, _ := openGoldenCopy(t, dbFile, walFile, withWAL)
			defer db.Close()
			n := checkpointed
			if withWAL {
				n = len(hist)
			}
			require.Equal(t, uint64(n), db.Stats().LSN)
			require.NoError(t, db.View(func(tx *Tx) error {
				checkBuckets(t, tx, goldenV3Want(n))
				return nil
			}))
			require.NoError(t, db.Check())
		})
	}
}

func TestGoldenV3Buckets(t *testing.T) {
	checkGoldenBuckets(t, goldenV3DB, goldenV3WAL, 3)
}

// TestGoldenV3Upgrade changes part of a version 3 file, so that its trees mix pages without
// key prefixes (untouched) and with them (rewritten), checkpoints it as version 4, and reads it
// back after a reopen, by gets, scans and Check.
func TestGoldenV3Upgrade(t *testing.T) {
	db, path := openGoldenCopy(t, goldenV3DB, goldenV3WAL, true)
	want := goldenV3Want(len(func() []func(*Tx) error { h, _ := goldenV3History(); return h }()))
	require.NoError(t, db.Update(func(tx *Tx) error {
		users, err := tx.Bucket([]byte("users"))
		if err != nil {
			return err
		}
		for _, k := range []string{"u0000", "u0300"} { // the first and last leaves of several
			v := "upgraded " + k
			want["users"][k] = v
			if err := users.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())
	file, err := os.ReadFile(path)
	require.NoError(t, err)
	le := binary.LittleEndian
	current := file[0:]
	if le.Uint64(file[4096+24:]) > le.Uint64(file[24:]) {
		current = file[4096:]
	}
	require.Equal(t, uint32(4), le.Uint32(current[8:12]), "the current meta page's version after the checkpoint")
	prefixed, plain := 0, 0
	db, err = Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *Tx) error {
		checkBuckets(t, tx, want)
		users, err := tx.Bucket([]byte("users"))
		require.NoError(t, err)
		for k, v := range want["users"] {
			got, err := users.Get([]byte(k))
			require.NoError(t, err)
			require.Equal(t, v, string(got), "key %q", k)
		}
		return nil
	}))
	require.NoError(t, db.Check())
	// Walk the users bucket's tree by hand: its pages of both layouts.
	var walk func(id uint64)
	walk = func(id uint64) {
		p, err := db.pager.Page(id)
		require.NoError(t, err)
		size, at := 16, 24
		if p[5]&1 != 0 {
			prefixed++
			size, at = 24, 32
		} else {
			plain++
		}
		if p[4] == 1 { // branch: the child id is at offset 8 of the element's fields
			for i := range int(binary.LittleEndian.Uint16(p[6:8])) {
				walk(binary.LittleEndian.Uint64(p[at+i*size+8:]))
			}
		}
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		users, err := tx.Bucket([]byte("users"))
		require.NoError(t, err)
		walk(users.tree.Root())
		return nil
	}))
	require.Positive(t, prefixed, "no page was rewritten with key prefixes")
	require.Positive(t, plain, "no page kept the version 3 layout: the test mixes nothing")
	t.Logf("users tree: %d pages with key prefixes, %d without", prefixed, plain)
}

func TestGoldenV4Buckets(t *testing.T) {
	if *updateGolden {
		writeGoldenBuckets(t, goldenV4DB, goldenV4WAL)
	}
	checkGoldenBuckets(t, goldenV4DB, goldenV4WAL, 4)
	checkPrefixesByHand(t, goldenV4DB)
}

// checkPrefixesByHand walks the default key space's tree of a version 4 golden file by hand,
// as docs/FORMAT.md describes it: every tree page has flag bit 0, 24-byte elements, and each
// element's first 8 bytes are its key's first 8 bytes, zero-padded.
func checkPrefixesByHand(t *testing.T, dbFile string) {
	file, err := os.ReadFile(dbFile)
	require.NoError(t, err)
	le := binary.LittleEndian
	ps := uint64(le.Uint32(file[12:16]))
	root := le.Uint64(file[40:48]) // of the meta page with the higher sequence number
	if le.Uint64(file[ps+24:]) > le.Uint64(file[24:]) {
		root = le.Uint64(file[ps+40:])
	}
	keys := 0
	var walk func(id uint64)
	walk = func(id uint64) {
		p := file[id*ps:]
		require.Equal(t, byte(1), p[5], "page %d flags", id)
		n := int(le.Uint16(p[6:8]))
		for i := range n {
			e := p[24+24*i:]
			var off, klen uint32
			if p[4] == 1 {
				off, klen = le.Uint32(e[8:]), le.Uint32(e[12:])
			} else {
				off, klen = le.Uint32(e[20:]), le.Uint32(e[12:])
			}
			var prefix [8]byte
			copy(prefix[:], p[off:off+klen])
			require.Equal(t, prefix[:], e[0:8], "page %d element %d prefix", id, i)
			if p[4] == 1 {
				walk(le.Uint64(e[16:]))
			} else {
				keys++
			}
		}
	}
	walk(root)
	require.Equal(t, 20, keys, "keys of the default key space at the checkpoint")
}

// goldenNewestMetaVersion checks both meta pages are of the given version and returns the
// current one's catalog root (offset 72).
func goldenNewestMetaVersion(t *testing.T, file []byte, version uint32) uint64 {
	le := binary.LittleEndian
	var best, catalog uint64
	for slot := range 2 {
		b := file[slot*4096:]
		require.Equal(t, "cairnDB\x00", string(b[0:8]))
		require.Equal(t, version, le.Uint32(b[8:12]), "meta page %d version", slot)
		if seq := le.Uint64(b[24:32]); seq >= best {
			best, catalog = seq, le.Uint64(b[72:80])
		}
	}
	return catalog
}

package cairn

// Golden files of page-file version 4 and WAL version 3, with buckets: testdata/golden/v4.db,
// v4.db-wal and v4.db-wal2 are written by this file with -update-golden
// (go test -run TestGoldenV4 -update-golden .).

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const goldenV4DB = "testdata/golden/v4.db"

func goldenPut(tx *Tx, bucket string, keys int, prefix string) error {
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

// goldenHistory returns the transactions of the golden files and the number checkpointed.
func goldenHistory() ([]func(tx *Tx) error, int) {
	return []func(tx *Tx) error{
		func(tx *Tx) error { return goldenPut(tx, "", 20, "d") },
		func(tx *Tx) error { return goldenPut(tx, "users", 300, "u") }, // a few pages
		func(tx *Tx) error { return goldenPut(tx, "dropped", 400, "x") },
		// Only in the WAL: select ops between key spaces, create, delete (drop stack), overflow.
		func(tx *Tx) error {
			if err := goldenPut(tx, "", 3, "wal"); err != nil {
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

// goldenWant returns the contents after the first n transactions.
func goldenWant(n int) map[string]map[string]string {
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

// writeGoldenBuckets writes the golden files of the current version: the page file dbDst and
// its WAL segments, dbDst-wal and dbDst-wal2. The segments are preallocated with zeros: each
// golden file stops after its last valid record.
func writeGoldenBuckets(t *testing.T, dbDst string) {
	path := filepath.Join(t.TempDir(), "golden.db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	hist, checkpointed := goldenHistory()
	for i, fn := range hist {
		require.NoError(t, db.Update(fn))
		if i+1 == checkpointed {
			require.NoError(t, db.Checkpoint(t.Context()))
		}
	}
	meta := db.pager.Durable()
	db.abandon()
	require.NoError(t, os.Truncate(path, int64(meta.PageCount)*int64(meta.PageSize)))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	files := map[string][]byte{dbDst: b}
	for i := range 2 {
		files[walPath(dbDst, i)] = walPrefix(t, walPath(path, i), meta.LSN)
	}
	for dst, b := range files {
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
}

// openGoldenCopy copies the golden files into a new directory, the WAL whole or only its
// header, and opens the copy.
func openGoldenCopy(t *testing.T, dbFile string, withWAL bool) *DB {
	db, err := Open(copyGoldenFiles(t, dbFile, withWAL), nil)
	require.NoError(t, err)
	return db
}

// checkGoldenBuckets opens copies of golden files with and without their WAL and compares every
// bucket and key with the history.
func checkGoldenBuckets(t *testing.T, dbFile string) {
	file, err := os.ReadFile(dbFile)
	require.NoError(t, err)
	m := goldenNewestMeta(t, file)
	require.NotZero(t, m.catalog, "the checkpointed version has buckets: catalog root at offset 72")
	hist, checkpointed := goldenHistory()
	for _, withWAL := range []bool{true, false} {
		t.Run(fmt.Sprintf("wal=%v", withWAL), func(t *testing.T) {
			db := openGoldenCopy(t, dbFile, withWAL)
			defer db.Close()
			n := checkpointed
			if withWAL {
				n = len(hist)
			}
			require.Equal(t, uint64(n), db.Stats().LSN)
			require.NoError(t, db.View(func(tx *Tx) error {
				checkBuckets(t, tx, goldenWant(n))
				return nil
			}))
			require.NoError(t, db.Check())
		})
	}
}

func TestGoldenV4Buckets(t *testing.T) {
	if *updateGolden {
		writeGoldenBuckets(t, goldenV4DB)
	}
	checkGoldenBuckets(t, goldenV4DB)
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

package cairn

// Golden files of page-file version 3 (buckets): testdata/golden/v3.db and v3.db-wal, written by
// this file with -update-golden. The version 2 files stay as they are, frozen: they check that
// this build reads version 2 (no writer of version 2 remains).

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

func writeGoldenV3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.db")
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
	for src, dst := range map[string]string{path: goldenV3DB, path + "-wal": goldenV3WAL} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
}

func TestGoldenV3Buckets(t *testing.T) {
	if *updateGolden {
		writeGoldenV3(t)
	}
	file, err := os.ReadFile(goldenV3DB)
	require.NoError(t, err)
	m := goldenNewestMetaV3(t, file)
	require.NotZero(t, m, "the checkpointed version has buckets: catalog root at offset 72")
	hist, checkpointed := goldenV3History()
	for _, withWAL := range []bool{true, false} {
		t.Run(fmt.Sprintf("wal=%v", withWAL), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "g.db")
			require.NoError(t, os.WriteFile(path, file, 0o600))
			w, err := os.ReadFile(goldenV3WAL)
			require.NoError(t, err)
			if !withWAL {
				w = w[:32]
			}
			require.NoError(t, os.WriteFile(path+"-wal", w, 0o600))
			db, err := Open(path, nil)
			require.NoError(t, err)
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

// goldenNewestMetaV3 checks both meta pages are version 3 and returns the current one's catalog
// root (offset 72).
func goldenNewestMetaV3(t *testing.T, file []byte) uint64 {
	le := binary.LittleEndian
	var best, catalog uint64
	for slot := range 2 {
		b := file[slot*4096:]
		require.Equal(t, "cairnDB\x00", string(b[0:8]))
		require.Equal(t, uint32(3), le.Uint32(b[8:12]), "meta page %d version", slot)
		if seq := le.Uint64(b[24:32]); seq >= best {
			best, catalog = seq, le.Uint64(b[72:80])
		}
	}
	return catalog
}

// checkBuckets compares every bucket and key of tx with want.
func checkBuckets(t *testing.T, tx *Tx, want map[string]map[string]string) {
	t.Helper()
	var names []string
	require.NoError(t, tx.ForEachBucket(func(name []byte) error {
		names = append(names, string(name))
		return nil
	}))
	require.Len(t, names, len(want)-1)
	for name, kv := range want {
		b := &tx.main
		if name != "" {
			var err error
			b, err = tx.Bucket([]byte(name))
			require.NoError(t, err, "bucket %q", name)
		}
		got := map[string]string{}
		for k, v := range b.Range(nil, nil) {
			got[string(k)] = string(v)
		}
		require.Equal(t, kv, got, "bucket %q", name)
	}
}

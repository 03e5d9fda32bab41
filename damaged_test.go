package cairn

// The damaged-file corpus: testdata/damaged/ holds a small database (base.db, base.db-wal,
// base.db-wal2) and, for each case of damagedCases, the file(s) that differ from it.
// TestDamagedCorpus opens each case and checks the outcome of Open, Check and a full read against
// the table: a clean error wrapping ErrCorrupt or a correct recovery, never a panic or a hang. Regenerate the files (new
// random database ids, same layout) with
//
//	go test -run TestDamagedCorpus -update-damaged .

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

var updateDamaged = flag.Bool("update-damaged", false, "regenerate the damaged-file corpus in testdata/damaged")

const damagedDir = "testdata/damaged"

// hdr is the size of the page header: elements and the free-list count start there (FORMAT.md).
const hdr = pager.HeaderSize

// walHeader is the size of a WAL segment's header region: records start there (FORMAT.md).
const walHeader = wal.HeaderSize

// elemSize is the size of a tree-page element: an 8-byte key prefix, then the fields (FORMAT.md).
const elemSize, prefixSize = 24, 8

// damagedLayout locates the structures of the base database, decoded by hand (FORMAT.md).
type damagedLayout struct {
	pageSize      int
	current       int      // slot of the current meta page
	root          uint64   // root branch page
	leaves        []uint64 // the root's children
	overflow      uint64   // an overflow extent
	freelist      uint64   // the free-list extent
	freeIDs       []uint64 // ids the free list holds
	walRecords    []int64  // offsets of the WAL records of base.db-wal
	walEnd        int64
	pageCount     uint64
	db, wal, wal2 []byte // base page file and WAL segment with the records; wal2: another database's
}

// Outcomes of a case.
const (
	outOK      = "ok"
	outCorrupt = "corrupt" // an error wrapping ErrCorrupt
	outSkip    = "-"       // not reached (Open failed)
	// outNotFound: a scanned key is not found by Get. Without a checksum failure, reads cannot
	// tell a misordered tree; Check can.
	outNotFound = "not found"
)

// damagedCase is one damaged database: how to make it from the base, and what must happen.
type damagedCase struct {
	name string
	// damage returns the page file and WAL of the case (nil: the base file unchanged).
	damage func(l *damagedLayout) (db, wal []byte)
	open   string // outcome of Open
	check  string // outcome of Check after a successful Open
	read   string // outcome of reading every key and value
	// problem, if not empty, must appear in the Check error.
	problem string
}

var damagedCases = []damagedCase{
	{name: "page-file-truncated", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return l.db[:len(l.db)/2], nil }},
	{name: "page-file-cut-inside-meta", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return l.db[:100], nil }},
	{name: "wal-truncated", open: outOK, check: outOK, read: outOK,
		damage: func(l *damagedLayout) ([]byte, []byte) { return nil, l.wal[:l.walRecords[len(l.walRecords)-1]+30] }},
	{name: "wal-cut-inside-header", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return nil, l.wal[:20] }},
	{name: "meta-older-flipped", open: outOK, check: outOK, read: outOK,
		damage: func(l *damagedLayout) ([]byte, []byte) { return flip(l.db, l.metaOff(1-l.current)+40), nil }},
	{name: "meta-older-flipped-empty-wal", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return flip(l.db, l.metaOff(1-l.current)+40), l.emptyWAL()
		}},
	{name: "meta-current-flipped", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return flip(l.db, l.metaOff(l.current)+40), nil }},
	{name: "meta-both-flipped", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return flip(flip(l.db, l.metaOff(0)+30), l.metaOff(1)+30), nil
		}},
	{name: "meta-current-zeroed", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return l.zero(uint64(l.current), 1), nil }},
	{name: "branch-flipped", open: outOK, check: outCorrupt, read: outCorrupt, problem: "checksum mismatch",
		damage: func(l *damagedLayout) ([]byte, []byte) { return flip(l.db, l.pageOff(l.root)+100), l.emptyWAL() }},
	{name: "branch-flipped-with-wal", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return flip(l.db, l.pageOff(l.root)+100), nil }},
	{name: "leaf-flipped", open: outOK, check: outCorrupt, read: outCorrupt, problem: "checksum mismatch",
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return flip(l.db, l.pageOff(l.leaves[len(l.leaves)-1])+2000), l.emptyWAL()
		}},
	{name: "leaf-zeroed", open: outOK, check: outCorrupt, read: outCorrupt, problem: "lost",
		damage: func(l *damagedLayout) ([]byte, []byte) { return l.zero(l.leaves[0], 1), l.emptyWAL() }},
	{name: "overflow-flipped", open: outOK, check: outCorrupt, read: outCorrupt, problem: "overflow value",
		damage: func(l *damagedLayout) ([]byte, []byte) { return flip(l.db, l.pageOff(l.overflow)+4200), l.emptyWAL() }},
	{name: "freelist-flipped", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return flip(l.db, l.pageOff(l.freelist)+24), nil }},
	{name: "tree-pages-zeroed", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return l.zero(2, l.pageCount-2), nil }},
	{name: "wal-header-flipped", open: outCorrupt, check: outSkip, read: outSkip, // both copies
		damage: func(l *damagedLayout) ([]byte, []byte) { return nil, flip(flip(l.wal, 10), 512+10) }},
	{name: "wal-middle-record-flipped", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return nil, flip(l.wal, l.walRecords[1]+30) }},
	{name: "wal-last-record-flipped", open: outOK, check: outOK, read: outOK,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return nil, flip(l.wal, l.walRecords[len(l.walRecords)-1]+30)
		}},
	{name: "wal-zeroed", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return nil, make([]byte, len(l.wal)) }},
	{name: "wal-of-another-database", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) { return nil, l.wal2 }},
	// Damage with valid checksums (the extent re-sealed): only the structure checks see it.
	{name: "freelist-lists-a-tree-page", open: outOK, check: outCorrupt, read: outOK, problem: "both in the tree and in the free list",
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return l.rewriteFreelist(slices.Sorted(slices.Values(append([]uint64{l.leaves[0]}, l.freeIDs...)))), l.emptyWAL()
		}},
	{name: "freelist-misses-a-page", open: outOK, check: outCorrupt, read: outOK, problem: "neither used nor free",
		damage: func(l *damagedLayout) ([]byte, []byte) { return l.rewriteFreelist(l.freeIDs[1:]), l.emptyWAL() }},
	{name: "branch-children-swapped", open: outOK, check: outCorrupt, read: outNotFound, problem: "outside the range",
		damage: func(l *damagedLayout) ([]byte, []byte) {
			b := bytes.Clone(l.db)
			p := b[l.pageOff(l.root):][:l.pageSize]
			c0, c1 := p[hdr+prefixSize+8:][:8], p[hdr+elemSize+prefixSize+8:][:8]
			tmp := bytes.Clone(c0)
			copy(c0, c1)
			copy(c1, tmp)
			reseal(p, l.root)
			return b, l.emptyWAL()
		}},
	{name: "branch-points-to-itself", open: outOK, check: outCorrupt, read: outCorrupt, problem: "referenced twice",
		damage: func(l *damagedLayout) ([]byte, []byte) {
			b := bytes.Clone(l.db)
			p := b[l.pageOff(l.root):][:l.pageSize]
			binary.LittleEndian.PutUint64(p[hdr+elemSize+prefixSize+8:], l.root)
			reseal(p, l.root)
			return b, l.emptyWAL()
		}},
	{name: "branch-points-to-itself-with-wal", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			b := bytes.Clone(l.db)
			p := b[l.pageOff(l.root):][:l.pageSize]
			binary.LittleEndian.PutUint64(p[hdr+elemSize+prefixSize+8:], l.root)
			reseal(p, l.root)
			return b, nil
		}},
	{name: "meta-page-count-overflows", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return l.rewriteMeta(l.db, func(m []byte) { binary.LittleEndian.PutUint64(m[48:], 1<<52+l.pageCount) }), l.emptyWAL()
		}},
	{name: "meta-page-count-overflows-long-freelist", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			b := l.rewriteMeta(l.db, func(m []byte) { binary.LittleEndian.PutUint64(m[48:], 1<<52+l.pageCount) })
			binary.LittleEndian.PutUint32(b[l.pageOff(l.freelist)+8:], 1<<32-1)
			return b, l.emptyWAL()
		}},
	{name: "meta-page-count-overflows-far-freelist", open: outCorrupt, check: outSkip, read: outSkip,
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return l.rewriteMeta(l.db, func(m []byte) {
				binary.LittleEndian.PutUint64(m[48:], 1<<52+l.pageCount)
				binary.LittleEndian.PutUint64(m[56:], 1<<51)
			}), l.emptyWAL()
		}},
	{name: "meta-freelist-length-without-extent", open: outOK, check: outCorrupt, read: outOK, problem: "without a free-list extent",
		damage: func(l *damagedLayout) ([]byte, []byte) {
			return l.rewriteMeta(l.db, func(m []byte) {
				binary.LittleEndian.PutUint64(m[56:], 0)
				binary.LittleEndian.PutUint64(m[64:], 1<<40)
			}), l.emptyWAL()
		}},
}

func flip(b []byte, off int64) []byte {
	b = bytes.Clone(b)
	b[off] ^= 0x10
	return b
}

// reseal recomputes the checksum of the one-page extent p at page id.
func reseal(p []byte, id uint64) {
	binary.LittleEndian.PutUint32(p, crc32.Update(uint32(id)^uint32(id>>32), castagnoliTable, p[4:]))
}

func (l *damagedLayout) metaOff(slot int) int64 { return int64(slot * l.pageSize) }

// emptyWAL returns the base's PATH-wal without its records, as a checkpoint leaves it.
func (l *damagedLayout) emptyWAL() []byte        { return l.wal[:walHeader] }
func (l *damagedLayout) pageOff(id uint64) int64 { return int64(id) * int64(l.pageSize) }

func (l *damagedLayout) zero(id, n uint64) []byte {
	b := bytes.Clone(l.db)
	clear(b[l.pageOff(id):l.pageOff(id+n)])
	return b
}

// rewriteMeta returns a copy of page file b with the current meta page changed by fn and re-sealed.
func (l *damagedLayout) rewriteMeta(b []byte, fn func(m []byte)) []byte {
	b = bytes.Clone(b)
	m := b[l.metaOff(l.current):][:84]
	fn(m)
	binary.LittleEndian.PutUint32(m[80:], crc32.Checksum(m[:80], castagnoliTable))
	return b
}

// rewriteFreelist returns the page file with the free-list extent (one page) listing ids.
func (l *damagedLayout) rewriteFreelist(ids []uint64) []byte {
	b := bytes.Clone(l.db)
	p := b[l.pageOff(l.freelist):][:l.pageSize]
	clear(p[hdr:])
	binary.LittleEndian.PutUint64(p[hdr:], uint64(len(ids)))
	for i, id := range ids {
		binary.LittleEndian.PutUint64(p[hdr+8+8*i:], id)
	}
	reseal(p, l.freelist)
	return b
}

// buildDamagedBase writes the base database into dir: two checkpoints (a root branch over several
// leaves, overflow values, a free list; both meta pages hold a tree), then three transactions
// only in the WAL. It returns the page file and the bytes of both WAL segments, each cut after
// its valid records: PATH-wal holds the three records, PATH-wal2 is the spare.
func buildDamagedBase(t *testing.T, dir string) (db, wal, spare []byte) {
	path := filepath.Join(dir, "base.db")
	d, err := Open(path, nil)
	require.NoError(t, err)
	update := func(fn func(tx *Tx) error) { require.NoError(t, d.Update(fn)) }
	update(func(tx *Tx) error {
		for i := range 90 {
			require.NoError(t, tx.Put(fmt.Appendf(nil, "key%03d", i), bytes.Repeat([]byte{byte('a' + i%26)}, 40)))
		}
		return tx.Put([]byte("big"), bytes.Repeat([]byte("B"), 5000))
	})
	require.NoError(t, d.Checkpoint(t.Context()))
	update(func(tx *Tx) error {
		for i := range 10 {
			require.NoError(t, tx.Delete(fmt.Appendf(nil, "key%03d", i)))
		}
		require.NoError(t, tx.Put([]byte("key050"), []byte("changed")))
		return tx.Put([]byte("big"), bytes.Repeat([]byte("C"), 6000))
	})
	require.NoError(t, d.Checkpoint(t.Context()))
	update(func(tx *Tx) error { return tx.Put([]byte("key200"), []byte("in the WAL")) })
	update(func(tx *Tx) error { return tx.Delete([]byte("key020")) })
	update(func(tx *Tx) error { return tx.Put([]byte("big2"), bytes.Repeat([]byte("D"), 3000)) })
	meta := d.pager.Durable()
	d.abandon()
	require.NoError(t, os.Truncate(path, int64(meta.PageCount)*int64(meta.PageSize)))
	db, err = os.ReadFile(path)
	require.NoError(t, err)
	wal, spare = walPrefix(t, path+"-wal", meta.LSN), walPrefix(t, path+"-wal2", meta.LSN)
	require.Greater(t, len(wal), walHeader, "PATH-wal holds the records")
	require.Len(t, spare, walHeader, "PATH-wal2 is the spare")
	return db, wal, spare
}

// walPrefix returns the WAL segment at path up to the end of its valid records (for a page file
// checkpointed at LSN after): the segment is preallocated with zeros, which a test file need not
// store.
func walPrefix(t *testing.T, path string, after uint64) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	info, err := wal.Scan(bytes.NewReader(b), int64(len(b)), after, func(wal.RecordInfo) error { return nil })
	require.NoError(t, err)
	return b[:info.End]
}

// layoutOf decodes the base files by hand.
func layoutOf(t *testing.T, db, wal, wal2 []byte) *damagedLayout {
	le := binary.LittleEndian
	m := goldenNewestMeta(t, db)
	l := &damagedLayout{pageSize: int(m.pageSize), current: int(m.seq % 2), root: m.root,
		freelist: m.freelistID, pageCount: m.pageCount, db: db, wal: wal, wal2: wal2}
	page := func(id uint64) []byte { return db[l.pageOff(id):][:l.pageSize] }
	root := page(m.root)
	require.Equal(t, byte(1), root[4], "the base's root must be a branch")
	for i := range int(le.Uint16(root[6:])) {
		l.leaves = append(l.leaves, le.Uint64(root[hdr+elemSize*i+prefixSize+8:]))
	}
	for _, leaf := range l.leaves {
		p := page(leaf)
		for i := range int(le.Uint16(p[6:])) {
			e := p[hdr+elemSize*i+prefixSize:]
			if le.Uint32(e)&1 != 0 {
				l.overflow = le.Uint64(p[le.Uint32(e[12:])+le.Uint32(e[4:]):])
			}
		}
	}
	fl := page(l.freelist)
	for i := range le.Uint64(fl[hdr:]) {
		l.freeIDs = append(l.freeIDs, le.Uint64(fl[hdr+8+8*i:]))
	}
	require.NotZero(t, l.overflow)
	require.NotEmpty(t, l.freeIDs)
	for off := int64(walHeader); off+24 <= int64(len(wal)); {
		l.walRecords = append(l.walRecords, off)
		off += (24 + int64(le.Uint32(wal[off+4:])) + 7) &^ 7
		l.walEnd = off
	}
	if wal != nil {
		require.Len(t, l.walRecords, 3)
	}
	return l
}

// writeDamaged regenerates testdata/damaged.
func writeDamaged(t *testing.T) {
	db, wal, spare := buildDamagedBase(t, t.TempDir())
	_, wal2, _ := buildDamagedBase(t, t.TempDir())
	l := layoutOf(t, db, wal, wal2)
	require.NoError(t, os.RemoveAll(damagedDir))
	require.NoError(t, os.MkdirAll(damagedDir, 0o755))
	write := func(name string, b []byte) {
		if b != nil {
			require.NoError(t, os.WriteFile(filepath.Join(damagedDir, name), b, 0o644))
		}
	}
	write("base.db", db)
	write("base.db-wal", wal)
	write("base.db-wal2", spare)
	for _, c := range damagedCases {
		cdb, cwal := c.damage(l)
		write(c.name+".db", cdb)
		write(c.name+".db-wal", cwal)
	}
}

// damagedFiles copies the files of case name (or the base's where it has none) into a temporary
// directory and returns the database path.
func damagedFiles(t testing.TB, name string) string {
	path := filepath.Join(t.TempDir(), name+".db")
	for _, suffix := range []string{".db", ".db-wal", ".db-wal2"} {
		b, err := os.ReadFile(filepath.Join(damagedDir, name+suffix))
		if errors.Is(err, os.ErrNotExist) {
			b, err = os.ReadFile(filepath.Join(damagedDir, "base"+suffix))
		}
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(strings.TrimSuffix(path, ".db")+suffix, b, 0o600))
	}
	return path
}

// outcome classifies err.
func outcome(err error) string {
	switch {
	case err == nil:
		return outOK
	case errors.Is(err, ErrCorrupt):
		return outCorrupt
	case errors.Is(err, ErrNotFound):
		return outNotFound
	}
	return "error: " + err.Error()
}

// damagedResult is what Open, Check and a full read did on one case.
type damagedResult struct {
	open, check, read string
	checkErr          error
	panicked          any
	stack             []byte
}

// tryDamaged opens path, checks and reads it, recovering any panic.
func tryDamaged(path string) (r damagedResult) {
	r.check, r.read = outSkip, outSkip
	defer func() {
		if p := recover(); p != nil {
			r.panicked, r.stack = p, debug.Stack()
		}
	}()
	db, err := Open(path, nil)
	if r.open = outcome(err); err != nil {
		return r
	}
	defer db.Close()
	r.checkErr = db.Check()
	r.check = outcome(r.checkErr)
	r.read = outcome(readEverything(db))
	return r
}

// readEverything scans every key and value and looks each key up.
func readEverything(db *DB) error {
	return db.View(func(tx *Tx) error {
		spaces := []*Bucket{&tx.main}
		err := tx.ForEachBucket(func(name []byte) error {
			b, err := tx.Bucket(name)
			spaces = append(spaces, b)
			return err
		})
		if err != nil {
			return err
		}
		for _, b := range spaces {
			var keys [][]byte
			for k := range b.Range(nil, nil) {
				keys = append(keys, bytes.Clone(k))
			}
			if err := tx.Err(); err != nil {
				return err
			}
			for _, k := range keys {
				if _, err := b.Get(k); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// runWithTimeout runs fn and fails the test if it does not return within d.
func runWithTimeout[T any](t *testing.T, d time.Duration, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("hang: no result after %v", d)
	}
	panic("unreachable")
}

func TestDamagedCorpus(t *testing.T) {
	if *updateDamaged {
		writeDamaged(t) // before the tests reading the corpus run: not parallel
	} else {
		t.Parallel()
	}
	for _, c := range damagedCases {
		t.Run(c.name, func(t *testing.T) {
			path := damagedFiles(t, c.name)
			r := runWithTimeout(t, 30*time.Second, func() damagedResult { return tryDamaged(path) })
			require.Nil(t, r.panicked, "panic: %v\n%s", r.panicked, r.stack)
			require.Equal(t, []string{c.open, c.check, c.read}, []string{r.open, r.check, r.read},
				"outcome of Open, Check, read (Check: %v)", r.checkErr)
			if c.problem != "" {
				require.ErrorContains(t, r.checkErr, c.problem)
			}
		})
	}
}

// TestDamagedCorpusRecoversTheRightContents checks what the cases that open must hold.
func TestDamagedCorpusRecoversTheRightContents(t *testing.T) {
	t.Parallel()
	want := func(walTxs int) map[string]string {
		m := map[string]string{"big": strings.Repeat("C", 6000)}
		for i := 10; i < 90; i++ {
			m[fmt.Sprintf("key%03d", i)] = strings.Repeat(string(rune('a'+i%26)), 40)
		}
		m["key050"] = "changed"
		if walTxs >= 1 {
			m["key200"] = "in the WAL"
		}
		if walTxs >= 2 {
			delete(m, "key020")
		}
		if walTxs >= 3 {
			m["big2"] = strings.Repeat("D", 3000)
		}
		return m
	}
	for name, walTxs := range map[string]int{"base": 3, "wal-truncated": 2, "meta-older-flipped": 3,
		"wal-last-record-flipped": 2, "freelist-misses-a-page": 0} {
		t.Run(name, func(t *testing.T) {
			db, err := Open(damagedFiles(t, name), nil)
			require.NoError(t, err)
			defer db.Close()
			got := map[string]string{}
			require.NoError(t, db.View(func(tx *Tx) error {
				for k, v := range tx.Range(nil, nil) {
					got[string(k)] = string(v)
				}
				return nil
			}))
			require.Equal(t, want(walTxs), got)
		})
	}
}

// FuzzCheck feeds arbitrary bytes as a page file (with an empty WAL): Open and Check must never
// panic, their errors wrap ErrCorrupt (Open's is ErrNotDatabase for a file without the magic),
// and when Check finds nothing every key and value can be read. With reseal the meta pages and
// every extent whose header looks valid get correct checksums first, so that the fuzzer explores
// the structure checks behind them. The seeds are the page files of the damaged-file corpus.
func FuzzCheck(f *testing.F) {
	entries, err := os.ReadDir(damagedDir)
	require.NoError(f, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".db") {
			b, err := os.ReadFile(filepath.Join(damagedDir, e.Name()))
			require.NoError(f, err)
			f.Add(b, false)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, reseal bool) {
		if reseal {
			resealPageFile(data)
		}
		fs := vfs.NewMem()
		require.NoError(t, fs.WriteFile("/d/db", data))
		db, err := Open("/d/db", &Options{fs: fs})
		if errors.Is(err, ErrNotDatabase) {
			require.False(t, bytes.HasPrefix(data, []byte("cairnDB\x00")), "a file starting with the magic is a cairn file")
			return
		}
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		defer db.Close()
		if err := db.Check(); err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		require.NoError(t, readEverything(db), "Check found nothing, yet a read fails")
	})
}

// resealPageFile recomputes the CRCs of both meta pages (at the page size of meta page 0) and of
// every extent whose header has a known type and a length inside the file.
func resealPageFile(b []byte) {
	le := binary.LittleEndian
	if len(b) < 84 {
		return
	}
	ps := int(le.Uint32(b[12:16]))
	if ps < 4096 || ps > 65536 || ps&(ps-1) != 0 || len(b) < ps+84 {
		return
	}
	for slot := range 2 {
		m := b[slot*ps:]
		le.PutUint32(m[80:84], crc32.Checksum(m[:80], castagnoliTable))
	}
	pages := uint64(len(b) / ps)
	for id := uint64(2); id < pages; {
		p := b[id*uint64(ps):]
		n := uint64(le.Uint32(p[8:12])) + 1
		if p[4] < 1 || p[4] > 4 || n > pages-id {
			id++
			continue
		}
		pager.Seal(id, p[:n*uint64(ps)])
		id += n
	}
}

// TestCheckMetaPageRule: the older meta page damaged is not a problem in the state Open accepted
// (a torn meta write), is rewritten by the next checkpoint, and is a problem when it appears while
// the database is open.
func TestCheckMetaPageRule(t *testing.T) {
	t.Parallel()
	path := damagedFiles(t, "meta-older-flipped")
	db, err := Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.Check(), "the state Open accepted")
	require.NoError(t, db.Checkpoint(t.Context()))
	require.NoError(t, db.Check(), "the checkpoint rewrote the damaged slot")
	older := int64((db.pager.Durable().Seq + 1) % 2 * 4096)
	garble(t, path, older+40, 8) // damage while open (the file is shared with db)
	err = db.Check()
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "previous checkpoint")
	require.NoError(t, db.Close())
}

// TestCheckOnClosedAndFailedDatabases: Check reports ErrClosed and the failure, not corruption.
func TestCheckOnClosedAndFailedDatabases(t *testing.T) {
	t.Parallel()
	mem := vfs.NewMem()
	efs := vfs.NewErrFS(mem)
	db, err := Open("/d/db", &Options{fs: efs})
	require.NoError(t, err)
	putN(t, db, 0, 10)
	efs.Inject(vfs.Rule{Op: vfs.OpSync, Path: "-wal", Sticky: true})
	require.ErrorIs(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("x"), nil) }), ErrFailed)
	err = db.Check()
	require.ErrorIs(t, err, ErrFailed)
	require.NotErrorIs(t, err, ErrCorrupt)
	require.ErrorIs(t, db.Close(), ErrFailed, "Close returns the failure")
	require.ErrorIs(t, db.Check(), ErrClosed)
}

// TestCheckListsEveryProblem damages two leaves at once: each is listed on its own line, and the
// overflow extent only the first one referenced is reported lost.
func TestCheckListsEveryProblem(t *testing.T) {
	t.Parallel()
	path := damagedFiles(t, "leaf-flipped") // the last leaf damaged, empty WAL
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	l := layoutOf(t, b, nil, nil)
	garble(t, path, l.pageOff(l.leaves[0])+3000, 1)
	db, err := Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	err = db.Check()
	require.ErrorIs(t, err, ErrCorrupt)
	var lines []string
	for _, p := range err.(interface{ Unwrap() []error }).Unwrap() {
		require.ErrorIs(t, p, ErrCorrupt)
		lines = append(lines, p.Error())
	}
	require.Equal(t, []string{
		fmt.Sprintf("cairn: check: pager: page %d: checksum mismatch: corrupt data", l.leaves[0]),
		fmt.Sprintf("cairn: check: pager: page %d: checksum mismatch: corrupt data", l.leaves[len(l.leaves)-1]),
		fmt.Sprintf("cairn: check: newest version and checkpoint: pages %d-%d neither used nor free (lost): corrupt data", l.overflow, l.overflow+1),
	}, lines)
}

// FuzzReplay feeds arbitrary bytes as the redo payload of a valid WAL record (a crafted WAL with
// correct checksums) of a new database: Open replays it and must never panic, its errors wrap
// ErrCorrupt, and whatever it accepts must pass Check and read back.
func FuzzReplay(f *testing.F) {
	put := func(redo []byte, k, v string) []byte {
		redo, _, _ = appendOp(redo, ondisk.RedoPut, []byte(k), []byte(v))
		return redo
	}
	del := func(redo []byte, k string) []byte {
		redo, _, _ = appendOp(redo, ondisk.RedoDelete, []byte(k), nil)
		return redo
	}
	f.Add(put(put(nil, "apple", "red"), "kiwi", "green"))
	f.Add(del(put(nil, "a", "1"), "a"))
	f.Add(put(nil, "big", strings.Repeat("v", 5000)))
	f.Add(put(nil, strings.Repeat("k", 5000), "long key"))
	f.Add([]byte{ondisk.RedoTxn})
	f.Add([]byte{ondisk.RedoTxn, ondisk.RedoPut, 0, 0}) // an empty key
	f.Add([]byte{ondisk.RedoTxn, ondisk.RedoPut, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{2})
	bucketOp := func(redo []byte, op byte, name string) []byte {
		redo, _, _ = appendOp(redo, op, []byte(name), nil)
		return redo
	}
	f.Add(put(bucketOp(bucketOp(nil, ondisk.RedoCreateBucket, "b"), ondisk.RedoSelect, "b"), "k", "v"))
	f.Add(bucketOp(put(bucketOp(put(bucketOp(bucketOp(nil, ondisk.RedoCreateBucket, "b"), ondisk.RedoSelect, "b"), "k", "v"), ondisk.RedoSelect, ""), "d", "v"), ondisk.RedoDeleteBucket, "b"))
	f.Add(put(bucketOp(nil, ondisk.RedoSelect, "missing"), "k", "v"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		fs := vfs.NewMem()
		db, err := Open("/d/db", &Options{fs: fs})
		require.NoError(t, err)
		dbID := db.pager.Durable().DBID
		db.abandon()
		writeWALRecord(t, fs, "/d/db-wal", dbID, payload)
		db, err = Open("/d/db", &Options{fs: fs})
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		defer db.Close()
		require.Equal(t, uint64(1), db.Stats().LSN, "the record was not replayed")
		require.NoError(t, db.Check(), "a replayed record made a damaged tree")
		require.NoError(t, readEverything(db))
	})
}

// writeWALRecord replaces the WAL at path with a new one of database dbID (the current format,
// written by package wal) holding one record, LSN 1, with payload.
func writeWALRecord(t *testing.T, fs vfs.FS, path string, dbID uint64, payload []byte) {
	f, err := fs.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	require.NoError(t, err)
	w, err := wal.Create(f, dbID)
	require.NoError(t, err)
	require.NoError(t, w.WriteBatch([]wal.Record{{LSN: 1, Payload: payload}}))
	require.NoError(t, f.Close())
}

package cairn

// Tests of Salvage. A fixture database is built through the public API (the default key space,
// buckets, overflow values, several checkpoints so that free pages hold older versions, a deleted
// bucket) while a model records what it holds after every commit and every value each key ever
// had. Its page layout is read back by hand (readSalvLayout): which pages hold each key. Each case
// damages chosen pages of a copy, and checkSalvaged asserts, from the layout alone:
//
//   - every key whose pages (leaf, overflow extent, and for a bucket the catalog leaf naming it)
//     are intact is salvaged with its newest value;
//   - every key salvaged outside the report's lost ranges has its newest value, and every key
//     salvaged at all had that value once (nothing is invented);
//   - every key not salvaged lies in a lost range or is a lost value;
//   - (the two before hold unless the report says that commits are missing from both the page
//     file and the WAL: then any key may be stale or missing);
//   - the files are byte for byte, and by size and modification time, as they were.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/pager"
	"github.com/cairndb/cairn/wal"
	"github.com/stretchr/testify/require"
)

// salvModel is what a database holds: bucket ("" for the default key space) -> key -> value.
type salvModel map[string]map[string]string

func (m salvModel) clone() salvModel {
	c := salvModel{}
	for b, kv := range m {
		c[b] = map[string]string{}
		for k, v := range kv {
			c[b][k] = v
		}
	}
	return c
}

func (m salvModel) count() (n int) {
	for _, kv := range m {
		n += len(kv)
	}
	return n
}

// salvFixture is a database built for the salvage tests.
type salvFixture struct {
	dir   string
	files map[string][]byte // base name -> contents ("db", "db-wal", "db-wal2")
	// truths[i] is the model after the checkpointed commits and i of the commits only in the WAL.
	truths  []salvModel
	history map[string]map[string]map[string]bool // bucket -> key -> every value it had
	layout  *salvLayout
}

func (fx *salvFixture) truth() salvModel { return fx.truths[len(fx.truths)-1] }

// copyTo writes the fixture's files into a new directory and returns the database path.
func (fx *salvFixture) copyTo(t *testing.T) string {
	dir := t.TempDir()
	for name, b := range fx.files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	return filepath.Join(dir, "db")
}

// buildSalvFixture builds the fixture: 763 keys in the default key space (some with overflow
// values), buckets "users" (overflow values too), "paths" (long keys: a tree three levels deep)
// and "tmp" (deleted in the second round), three rounds of commits with a checkpoint after each,
// then walTxs commits left only in the WAL (the process is abandoned, as by a crash).
func buildSalvFixture(t *testing.T, walTxs int) *salvFixture {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	fx := &salvFixture{dir: dir, history: map[string]map[string]map[string]bool{}}
	model := salvModel{"": {}}
	rng := rand.New(rand.NewPCG(27, 8))
	db, err := Open(path, nil)
	require.NoError(t, err)
	space := func(tx *Tx, b string) interface {
		Put(k, v []byte) error
		Delete(k []byte) error
	} {
		if b == "" {
			return tx
		}
		bk, err := tx.CreateBucketIfNotExists([]byte(b))
		require.NoError(t, err)
		if model[b] == nil {
			model[b] = map[string]string{}
		}
		return bk
	}
	put := func(tx *Tx, b, k string, size int) {
		v := make([]byte, size)
		for i := range v {
			v[i] = byte('a' + rng.IntN(26))
		}
		require.NoError(t, space(tx, b).Put([]byte(k), v))
		model[b][k] = string(v)
		if fx.history[b] == nil {
			fx.history[b] = map[string]map[string]bool{}
		}
		if fx.history[b][k] == nil {
			fx.history[b][k] = map[string]bool{}
		}
		fx.history[b][k][string(v)] = true
	}
	del := func(tx *Tx, b, k string) {
		require.NoError(t, space(tx, b).Delete([]byte(k)))
		delete(model[b], k)
	}
	size := func(i int) int {
		if i%97 == 13 {
			return 3000 + rng.IntN(7000) // an overflow value
		}
		return 20 + rng.IntN(280)
	}
	update := func(fn func(tx *Tx)) {
		require.NoError(t, db.Update(func(tx *Tx) error { fn(tx); return nil }))
	}
	pathKey := func(i int) string {
		return fmt.Sprintf("/usr/share/doc/package-%04d/%s", i, strings.Repeat("x", 60+i%40))
	}
	// Round 1.
	for lo := 0; lo < 763; lo += 200 {
		update(func(tx *Tx) {
			for i := lo; i < min(lo+200, 763); i++ {
				put(tx, "", fmt.Sprintf("key%04d", i), size(i))
			}
		})
	}
	update(func(tx *Tx) {
		for i := range 200 {
			put(tx, "users", fmt.Sprintf("user/%03d", i), map[bool]int{true: 5000, false: 50 + i%100}[i%40 == 7])
		}
		for i := range 100 {
			put(tx, "tmp", fmt.Sprintf("t%03d", i), 100)
		}
	})
	for lo := 0; lo < 1500; lo += 500 {
		update(func(tx *Tx) {
			for i := lo; i < lo+500; i++ {
				put(tx, "paths", pathKey(i), 150+rng.IntN(100))
			}
		})
	}
	require.NoError(t, db.Checkpoint(t.Context()))
	// Round 2: changes all over, and a bucket deleted: free pages now hold older versions.
	update(func(tx *Tx) {
		for i := 0; i < 763; i += 3 {
			put(tx, "", fmt.Sprintf("key%04d", i), size(i+1))
		}
		for i := 0; i < 763; i += 7 {
			del(tx, "", fmt.Sprintf("key%04d", i))
		}
		for i := 0; i < 200; i += 4 {
			put(tx, "users", fmt.Sprintf("user/%03d", i), 60)
		}
		require.NoError(t, tx.DeleteBucket([]byte("tmp")))
		delete(model, "tmp")
	})
	require.NoError(t, db.Checkpoint(t.Context()))
	// Round 3.
	update(func(tx *Tx) {
		for i := 0; i < 1500; i += 5 {
			put(tx, "paths", pathKey(i), 120)
		}
		for i := 1; i < 120; i += 11 {
			put(tx, "", fmt.Sprintf("key%04d", i), size(i+2))
		}
		put(tx, "", "key0763", 40)
	})
	require.NoError(t, db.Close()) // the last checkpoint
	fx.truths = append(fx.truths, model.clone())
	if walTxs > 0 {
		db, err = Open(path, nil)
		require.NoError(t, err)
		for i := range walTxs {
			update(func(tx *Tx) {
				put(tx, "", fmt.Sprintf("wal%d", i), 30)
				put(tx, "users", fmt.Sprintf("user/%03d", i), 70)
				del(tx, "", fmt.Sprintf("key%04d", 100+i))
			})
			fx.truths = append(fx.truths, model.clone())
		}
		db.abandon()
	}
	fx.files = map[string][]byte{}
	for _, name := range []string{"db", "db-wal", "db-wal2"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		fx.files[name] = b
	}
	fx.layout = readSalvLayout(t, fx.files["db"])
	require.Greater(t, fx.layout.depth["paths"], 2, "the paths bucket must have branches below its root")
	return fx
}

// salvLayout is where the current version of a page file keeps each key, read by hand.
type salvLayout struct {
	ps   int
	meta pager.Meta
	// pages: bucket -> key -> the pages that must be intact to read it: its leaf's, its overflow
	// extent's, and for a bucket the catalog leaf naming it.
	pages map[string]map[string][]uint64
	// nodes are the tree pages of the current version; overflow its overflow extents.
	nodes    []salvNode
	overflow []salvNode
	depth    map[string]int
}

// salvNode is one extent of the current version.
type salvNode struct {
	bucket string
	id     uint64
	n      uint64 // pages
	leaf   bool
	level  int    // 0 for a root
	lo, hi []byte // the range the branch above gives it (nil: unbounded)
	keys   []string
}

// readSalvLayout walks the current version of page file b: the default tree, the catalog and
// every bucket's tree.
func readSalvLayout(t testing.TB, b []byte) *salvLayout {
	slots, err := pager.ReadMetaPages(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	require.GreaterOrEqual(t, slots.Current, 0)
	m := slots.Pages[slots.Current].Meta
	l := &salvLayout{ps: int(m.PageSize), meta: m, pages: map[string]map[string][]uint64{}, depth: map[string]int{}}
	r := bytes.NewReader(b)
	read := func(id uint64) []byte {
		p, err := pager.ReadExtentAt(r, l.ps, m.PageCount, id)
		require.NoError(t, err)
		require.NoError(t, pager.VerifyExtent(id, p, l.ps))
		return p
	}
	extent := func(id, n uint64) []uint64 {
		var ids []uint64
		for i := range n {
			ids = append(ids, id+i)
		}
		return ids
	}
	var walk func(bucket string, id uint64, level int, lo, hi []byte, extra []uint64, leafFn func(el btree.Element, pages []uint64))
	walk = func(bucket string, id uint64, level int, lo, hi []byte, extra []uint64, leafFn func(btree.Element, []uint64)) {
		p := read(id)
		els, err := btree.Elements(id, p)
		require.NoError(t, err)
		node := salvNode{bucket: bucket, id: id, n: uint64(len(p) / l.ps), leaf: pager.Type(p) == pager.PageLeaf, level: level, lo: lo, hi: hi}
		l.depth[bucket] = max(l.depth[bucket], level+1)
		for i, el := range els {
			node.keys = append(node.keys, string(el.Key))
			if !node.leaf {
				clo, chi := el.Key, hi
				if i == 0 {
					clo = lo
				}
				if i+1 < len(els) {
					chi = els[i+1].Key
				}
				walk(bucket, el.Child, level+1, clo, chi, extra, leafFn)
				continue
			}
			pages := append(extent(id, node.n), extra...)
			if el.Value == nil {
				o := read(el.Overflow)
				on := uint64(len(o) / l.ps)
				pages = append(pages, extent(el.Overflow, on)...)
				l.overflow = append(l.overflow, salvNode{bucket: bucket, id: el.Overflow, n: on, keys: []string{string(el.Key)}})
			}
			leafFn(el, pages)
		}
		l.nodes = append(l.nodes, node)
	}
	keyFn := func(bucket string) func(btree.Element, []uint64) {
		l.pages[bucket] = map[string][]uint64{}
		return func(el btree.Element, pages []uint64) { l.pages[bucket][string(el.Key)] = pages }
	}
	if m.Root != 0 {
		walk("", m.Root, 0, nil, nil, nil, keyFn(""))
	} else {
		l.pages[""] = map[string][]uint64{}
	}
	type entry struct {
		name       string
		root, leaf uint64
	}
	var buckets []entry
	if m.Catalog != 0 {
		walk("\x00catalog", m.Catalog, 0, nil, nil, nil, func(el btree.Element, pages []uint64) {
			if el.Key[0] == ondisk.CatalogBucket {
				buckets = append(buckets, entry{string(el.Key[1:]), binary.LittleEndian.Uint64(el.Value[1:]), pages[0]})
			}
		})
	}
	for _, e := range buckets {
		fn := keyFn(e.name)
		if e.root != 0 {
			walk(e.name, e.root, 0, nil, nil, []uint64{e.leaf}, fn)
		}
	}
	return l
}

// nodesOf returns the tree pages of bucket at level (-1: any) that are leaves or branches.
func (l *salvLayout) nodesOf(bucket string, leaf bool, level int) []salvNode {
	var out []salvNode
	for _, n := range l.nodes {
		if n.bucket == bucket && n.leaf == leaf && (level < 0 || n.level == level) {
			out = append(out, n)
		}
	}
	return out
}

// damagedPages returns the pages of orig that dmg does not hold intact (changed, or cut off).
func damagedPages(orig, dmg []byte, ps int) map[uint64]bool {
	out := map[uint64]bool{}
	for id := 0; id*ps < len(orig); id++ {
		a := orig[id*ps : min((id+1)*ps, len(orig))]
		if (id+1)*ps > len(dmg) || !bytes.Equal(a, dmg[id*ps:(id+1)*ps]) {
			out[uint64(id)] = true
		}
	}
	return out
}

// salvaged is what Salvage emitted: bucket -> key -> value, and the order of buckets.
type salvaged struct {
	kv      salvModel
	buckets []string
}

// runSalvage salvages path, checking the order and the lifetimes fn is promised, and that the
// files are left exactly as they were (bytes, sizes, modification times).
func runSalvage(t *testing.T, path string, opts *SalvageOptions) (*salvaged, *SalvageReport) {
	t.Helper()
	before := fileStates(t, path)
	out := &salvaged{kv: salvModel{}}
	var prevKey []byte
	var prevBucket string
	rep, err := Salvage(path, opts, func(b, k, v []byte) error {
		bucket := string(b)
		if bucket != prevBucket || len(out.buckets) == 0 {
			require.NotContains(t, out.buckets, bucket, "bucket %q emitted twice", b)
			out.buckets = append(out.buckets, bucket)
			prevKey = nil
			out.kv[bucket] = map[string]string{}
		}
		require.NotEmpty(t, k)
		require.LessOrEqual(t, len(k), MaxKeySize)
		require.True(t, prevKey == nil || bytes.Compare(prevKey, k) < 0, "keys of %q not ascending: %q after %q", b, k, prevKey)
		prevKey, prevBucket = bytes.Clone(k), bucket
		out.kv[bucket][string(k)] = string(v)
		return nil
	})
	if nothingLeft := rep != nil && rep.MetaUsed < 0 && rep.Leaves+rep.Branches+rep.Overflows+rep.Freelists == 0 &&
		rep.WAL.Applied == 0; nothingLeft {
		require.ErrorIs(t, err, ErrCorrupt, "nothing of the database is left: Salvage says so")
	} else {
		require.NoError(t, err)
	}
	require.Equal(t, before, fileStates(t, path), "Salvage changed the database files")
	require.Equal(t, rep.Keys, out.kv.count())
	var nonEmpty []string // fn sees no empty bucket, the report lists it
	for _, b := range rep.Buckets {
		if b.Keys > 0 {
			nonEmpty = append(nonEmpty, string(b.Name))
		}
		require.Equal(t, len(out.kv[string(b.Name)]), b.Keys)
	}
	require.Equal(t, nonEmpty, out.buckets)
	return out, rep
}

// fileState is what must not change about a file.
type fileState struct {
	exists bool
	data   string
	size   int64
	mtime  time.Time
}

func fileStates(t *testing.T, path string) map[string]fileState {
	out := map[string]fileState{}
	for _, p := range []string{path, path + "-wal", path + "-wal2"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			out[p] = fileState{}
			continue
		}
		require.NoError(t, err)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out[p] = fileState{exists: true, data: string(b), size: fi.Size(), mtime: fi.ModTime()}
	}
	return out
}

// inLost reports whether key of bucket lies in a lost range of the report, or, with catalog set,
// whether the catalog lost the range of the bucket's name (the bucket may then be unknown).
func inLost(rep *SalvageReport, bucket, key string, catalog bool) bool {
	for _, r := range rep.Lost {
		if r.Catalog {
			if catalog && bucket != "" && inRange([]byte("\x01"+bucket), r.Low, r.High) {
				return true
			}
			continue
		}
		if string(r.Bucket) == bucket && inRange([]byte(key), r.Low, r.High) {
			return true
		}
	}
	return false
}

func inRange(k, lo, hi []byte) bool {
	return bytes.Compare(k, lo) >= 0 && (hi == nil || bytes.Compare(k, hi) < 0)
}

// salvCheck is the outcome of checkSalvaged.
type salvCheck struct {
	intact, exact, lostAndFound int
}

// checkSalvaged asserts the properties listed at the top of this file for a salvage of a copy of
// the fixture whose page file became dmg, with truth the model it must find, walIntact whether
// the WAL's records all apply. With relaxed set, an intact key may be found in the lost-and-found
// bucket instead of its own (its key space could not be told, which several damaged trees cause).
func checkSalvaged(t *testing.T, fx *salvFixture, dmg []byte, truth salvModel, got *salvaged, rep *SalvageReport, relaxed bool) salvCheck {
	t.Helper()
	var c salvCheck
	damaged := damagedPages(fx.files["db"], dmg, fx.layout.ps)
	var lfs []map[string]string // the layers of lost+found
	for _, b := range rep.Buckets {
		if b.LostAndFound {
			lfs = append(lfs, got.kv[string(b.Name)])
			c.lostAndFound += len(got.kv[string(b.Name)])
		}
	}
	inLF := func(key, want string) bool {
		for _, lf := range lfs {
			if v, ok := lf[key]; ok && (want == "" || v == want) {
				return true
			}
		}
		return false
	}
	lostValue := func(bucket, key string) bool {
		for _, v := range rep.LostValues {
			if string(v.Bucket) == bucket && string(v.Key) == key {
				return true
			}
		}
		return false
	}
	for bucket, kv := range truth {
		for key, want := range kv {
			pages, inPages := fx.layout.pages[bucket][key]
			intact := true
			for _, p := range pages {
				intact = intact && !damaged[p]
			}
			if !inPages || fx.truths[0][bucket][key] != want {
				intact = true // written by the WAL: it does not depend on pages
			}
			v, ok := got.kv[bucket][key]
			if intact {
				c.intact++
				if relaxed && inLF(key, want) && (!ok || inLost(rep, bucket, key, false) || rep.KeySpacesUnknown) {
					v, ok = want, true // found in lost+found; in its bucket, if at all, in a lost range
				}
				require.True(t, ok, "key %q of bucket %q: its pages are intact, yet it was not salvaged", key, bucket)
				require.Equal(t, want, v, "key %q of bucket %q: its pages are intact, yet its value is not the newest", key, bucket)
				c.exact++
				continue
			}
			if !ok && !lostValue(bucket, key) && rep.WAL.MissingFrom == 0 {
				require.True(t, inLost(rep, bucket, key, true) || inLF(key, ""), "key %q of bucket %q was not salvaged and no lost range says so", key, bucket)
			}
		}
	}
	for bucket, kv := range got.kv {
		isLF := slices.ContainsFunc(rep.Buckets, func(b SalvageBucket) bool { return b.LostAndFound && string(b.Name) == bucket })
		if !isLF {
			_, ok := truth[bucket]
			require.True(t, ok, "bucket %q was salvaged but does not exist", bucket)
		}
		for key, v := range kv {
			if isLF {
				found := false
				for _, h := range fx.history {
					found = found || h[key][v]
				}
				require.True(t, found, "lost+found key %q: its value was never stored under that key", key)
				continue
			}
			if bucket == "" && rep.KeySpacesUnknown { // it may be any key space's
				found := false
				for _, h := range fx.history {
					found = found || h[key][v]
				}
				require.True(t, found, "key %q: its value was never stored under that key", key)
				continue
			}
			require.True(t, fx.history[bucket][key][v], "key %q of bucket %q: salvaged value was never its value", key, bucket)
			if !inLost(rep, bucket, key, false) && rep.WAL.MissingFrom == 0 {
				want, ok := truth[bucket][key]
				require.True(t, ok, "key %q of bucket %q: salvaged outside every lost range, yet it was deleted", key, bucket)
				require.Equal(t, want, v, "key %q of bucket %q: salvaged outside every lost range with an old value", key, bucket)
			}
		}
	}
	return c
}

// overwrite returns a copy of b with p written at off.
func overwrite(b []byte, off int, p []byte) []byte {
	b = bytes.Clone(b)
	copy(b[off:], p)
	return b
}

// pageOffset is the byte offset of page id.
func (l *salvLayout) pageOffset(id uint64) int { return int(id) * l.ps }

// salvCase is one damage of the fixture's page file and what the report must say of it.
type salvCase struct {
	name   string
	damage func(fx *salvFixture, b []byte) []byte
	// lost, if set, checks the report's lost ranges.
	lost func(t *testing.T, fx *salvFixture, rep *SalvageReport)
}

// requireLostRange asserts that the report lists page id of bucket as lost with range [lo, hi).
func requireLostRange(t *testing.T, rep *SalvageReport, bucket string, n salvNode) {
	t.Helper()
	for _, r := range rep.Lost {
		if !r.Catalog && string(r.Bucket) == bucket && r.Page == n.id {
			require.Equal(t, n.lo, r.Low, "low bound of lost page %d", n.id)
			require.Equal(t, n.hi, r.High, "high bound of lost page %d", n.id)
			require.ErrorIs(t, r.Err, ErrCorrupt)
			return
		}
	}
	t.Fatalf("page %d of bucket %q is not reported lost: %+v", n.id, bucket, rep.Lost)
}

var salvCases = []salvCase{
	{name: "intact", damage: func(_ *salvFixture, b []byte) []byte { return b },
		lost: func(t *testing.T, _ *salvFixture, rep *SalvageReport) {
			require.Empty(t, rep.Lost)
			require.Empty(t, rep.Unreadable)
			require.Empty(t, rep.LostValues)
			require.Zero(t, rep.OrphanPages)
		}},
	{name: "truncated-to-half", damage: func(_ *salvFixture, b []byte) []byte { return b[:len(b)/2] }},
	{name: "16KiB-random-in-the-middle", damage: func(_ *salvFixture, b []byte) []byte {
		junk := make([]byte, 16<<10)
		r := rand.New(rand.NewPCG(1, 1))
		for i := range junk {
			junk[i] = byte(r.Uint32())
		}
		return overwrite(b, len(b)/2-5000, junk)
	}},
	{name: "branch", damage: func(fx *salvFixture, b []byte) []byte {
		n := fx.layout.nodesOf("paths", false, 1)[1]
		return overwrite(b, fx.layout.pageOffset(n.id)+200, []byte("damage"))
	}, lost: func(t *testing.T, fx *salvFixture, rep *SalvageReport) {
		requireLostRange(t, rep, "paths", fx.layout.nodesOf("paths", false, 1)[1])
	}},
	{name: "root", damage: func(fx *salvFixture, b []byte) []byte {
		return overwrite(b, fx.layout.pageOffset(fx.layout.meta.Root)+300, []byte("damage"))
	}, lost: func(t *testing.T, fx *salvFixture, rep *SalvageReport) {
		requireLostRange(t, rep, "", fx.layout.nodesOf("", false, 0)[0])
	}},
	{name: "leaf", damage: func(fx *salvFixture, b []byte) []byte {
		n := fx.layout.nodesOf("", true, -1)[5]
		return overwrite(b, fx.layout.pageOffset(n.id)+1000, []byte("damage"))
	}, lost: func(t *testing.T, fx *salvFixture, rep *SalvageReport) {
		requireLostRange(t, rep, "", fx.layout.nodesOf("", true, -1)[5])
	}},
	{name: "bucket-leaf-zeroed", damage: func(fx *salvFixture, b []byte) []byte {
		n := fx.layout.nodesOf("users", true, -1)[0]
		return overwrite(b, fx.layout.pageOffset(n.id), make([]byte, fx.layout.ps))
	}, lost: func(t *testing.T, fx *salvFixture, rep *SalvageReport) {
		requireLostRange(t, rep, "users", fx.layout.nodesOf("users", true, -1)[0])
	}},
	{name: "overflow", damage: func(fx *salvFixture, b []byte) []byte {
		o := fx.layout.overflow[0]
		return overwrite(b, fx.layout.pageOffset(o.id+o.n-1)+100, []byte("damage"))
	}, lost: func(t *testing.T, fx *salvFixture, rep *SalvageReport) {
		o := fx.layout.overflow[0]
		require.Len(t, rep.LostValues, 1)
		require.Equal(t, o.keys[0], string(rep.LostValues[0].Key))
		require.Equal(t, o.bucket, string(rep.LostValues[0].Bucket))
		require.Equal(t, o.id, rep.LostValues[0].Page)
		require.Empty(t, rep.Lost)
	}},
	{name: "meta-current", damage: func(fx *salvFixture, b []byte) []byte {
		slot := fx.layout.meta.Seq % 2
		return overwrite(b, int(slot)*fx.layout.ps+40, []byte{0xff})
	}},
	{name: "meta-both", damage: func(fx *salvFixture, b []byte) []byte {
		return overwrite(overwrite(b, 30, []byte{0xff}), fx.layout.ps+30, []byte{0xff})
	}, lost: func(t *testing.T, _ *salvFixture, rep *SalvageReport) {
		require.True(t, rep.PageSizeGuessed)
		require.Equal(t, -1, rep.MetaUsed)
	}},
	{name: "meta-both-and-a-leaf", damage: func(fx *salvFixture, b []byte) []byte {
		n := fx.layout.nodesOf("", true, -1)[3]
		b = overwrite(b, fx.layout.pageOffset(n.id)+100, []byte("damage"))
		return overwrite(overwrite(b, 0, make([]byte, 100)), fx.layout.ps, make([]byte, 100))
	}},
	{name: "catalog-leaf", damage: func(fx *salvFixture, b []byte) []byte {
		return overwrite(b, fx.layout.pageOffset(fx.layout.meta.Catalog)+50, []byte("damage"))
	}, lost: func(t *testing.T, fx *salvFixture, rep *SalvageReport) {
		require.True(t, slices.ContainsFunc(rep.Lost, func(r SalvageRange) bool { return r.Catalog && r.Page == fx.layout.meta.Catalog }))
	}},
}

func TestSalvage(t *testing.T) {
	fx := buildSalvFixture(t, 0)
	for _, c := range salvCases {
		t.Run(c.name, func(t *testing.T) {
			path := fx.copyTo(t)
			dmg := c.damage(fx, fx.files["db"])
			require.NoError(t, os.WriteFile(path, dmg, 0o600))
			got, rep := runSalvage(t, path, nil)
			res := checkSalvaged(t, fx, dmg, fx.truth(), got, rep, c.name == "catalog-leaf")
			if c.lost != nil {
				c.lost(t, fx, rep)
			}
			t.Logf("%s: %d of %d keys salvaged; %d keys on intact pages, all exact; %d in lost ranges, %d from orphan pages, %d in lost+found; %d lost ranges, %d lost values",
				c.name, rep.Keys, fx.truth().count(), res.intact, rep.InLost, rep.FromOrphans, res.lostAndFound, len(rep.Lost), len(rep.LostValues))
		})
	}
}

// walRecordOffsets returns the segment file (base name) of the fixture holding the WAL's records
// and their offsets, read with package wal.
func walRecordOffsets(t *testing.T, fx *salvFixture) (string, []int64) {
	for _, name := range []string{"db-wal", "db-wal2"} {
		b := fx.files[name]
		var offs []int64
		_, err := wal.ScanPrefix(bytes.NewReader(b), int64(len(b)), 0, func(r wal.RecordInfo) error {
			offs = append(offs, r.Offset)
			return nil
		})
		require.NoError(t, err)
		if len(offs) > 0 {
			return name, offs
		}
	}
	t.Fatal("no WAL record")
	return "", nil
}

// TestSalvageWAL: the WAL's valid records are applied over what the pages hold, up to the first
// that is not valid, as recovery applies them: all of them, all but a torn last one, those before
// a damaged one that later batches follow (the report says why it stopped), none with IgnoreWAL;
// and with a damaged leaf as well.
func TestSalvageWAL(t *testing.T) {
	fx := buildSalvFixture(t, 3)
	seg, offs := walRecordOffsets(t, fx)
	require.Len(t, offs, 3)
	cases := []struct {
		name      string
		wal       func([]byte) []byte
		db        func([]byte) []byte
		ignore    bool
		applied   int
		stopped   bool
		truthFrom int // WAL commits in the model
	}{
		{name: "intact", applied: 3, truthFrom: 3},
		{name: "torn-tail", wal: func(b []byte) []byte { return overwrite(b, int(offs[2])+30, []byte{0xff}) }, applied: 2, truthFrom: 2},
		{name: "middle-record", wal: func(b []byte) []byte { return overwrite(b, int(offs[1])+30, []byte{0xff}) }, applied: 1, stopped: true, truthFrom: 1},
		{name: "ignored", ignore: true, applied: 0, truthFrom: 0},
		{name: "and-a-leaf", applied: 3, truthFrom: 3, db: func(b []byte) []byte {
			n := fx.layout.nodesOf("", true, -1)[2]
			return overwrite(b, fx.layout.pageOffset(n.id)+500, []byte("damage"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fx.copyTo(t)
			dmg := fx.files["db"]
			if c.db != nil {
				dmg = c.db(dmg)
				require.NoError(t, os.WriteFile(path, dmg, 0o600))
			}
			if c.wal != nil {
				require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), seg), c.wal(fx.files[seg]), 0o600))
			}
			got, rep := runSalvage(t, path, &SalvageOptions{IgnoreWAL: c.ignore})
			require.Equal(t, c.applied, rep.WAL.Applied)
			require.Equal(t, c.stopped, rep.WAL.Stopped != nil, "Stopped: %v", rep.WAL.Stopped)
			if c.stopped {
				require.ErrorIs(t, rep.WAL.Stopped, ErrCorrupt)
			}
			if c.applied > 0 {
				require.Equal(t, fx.layout.meta.LSN+1, rep.WAL.First)
				require.Equal(t, fx.layout.meta.LSN+uint64(c.applied), rep.WAL.Last)
			}
			checkSalvaged(t, fx, dmg, fx.truths[c.truthFrom], got, rep, false)
		})
	}
}

// corpusFixture makes a salvFixture of the damaged-file corpus's base (testdata/damaged): its
// files, its layout read by hand, the model after 0 to 3 of its WAL commits, and every value its
// keys had (buildDamagedBase).
func corpusFixture(t *testing.T) *salvFixture {
	fx := &salvFixture{files: map[string][]byte{}, history: map[string]map[string]map[string]bool{"": {}}}
	for _, name := range []string{"db", "db-wal"} {
		b, err := os.ReadFile(filepath.Join(damagedDir, "base."+name))
		require.NoError(t, err)
		fx.files[name] = b
	}
	for n := range 4 {
		fx.truths = append(fx.truths, salvModel{"": damagedWant(n)})
	}
	hist := func(k, v string) {
		if fx.history[""][k] == nil {
			fx.history[""][k] = map[string]bool{}
		}
		fx.history[""][k][v] = true
	}
	for i := range 90 {
		hist(fmt.Sprintf("key%03d", i), strings.Repeat(string(rune('a'+i%26)), 40))
	}
	hist("big", strings.Repeat("B", 5000))
	for _, m := range fx.truths {
		for k, v := range m[""] {
			hist(k, v)
		}
	}
	fx.layout = readSalvLayout(t, fx.files["db"])
	return fx
}

// damagedWalApplied is how many of the base's three WAL commits each case of the corpus keeps
// valid (the others have the base's WAL, or an empty one).
var damagedWalApplied = map[string]int{
	"base": 3, "page-file-truncated": 3, "page-file-cut-inside-meta": 3, "wal-truncated": 2,
	"meta-older-flipped": 3, "meta-current-flipped": 3, "meta-both-flipped": 3, "meta-current-zeroed": 3,
	"branch-flipped-with-wal": 3, "freelist-flipped": 3, "tree-pages-zeroed": 3, "wal-middle-record-flipped": 1,
	"wal-last-record-flipped": 2, "branch-points-to-itself-with-wal": 3,
}

// TestSalvageDamagedCorpus salvages every case of the damaged-file corpus (and the base): every
// key whose pages are intact in the case's page file (compared with the base's, page by page) is
// salvaged with its newest value, nothing is invented, what is missing is reported, and nothing
// is written.
func TestSalvageDamagedCorpus(t *testing.T) {
	fx := corpusFixture(t)
	for _, c := range append([]damagedCase{{name: "base"}}, damagedCases...) {
		t.Run(c.name, func(t *testing.T) {
			path := damagedFiles(t, c.name)
			dmg, err := os.ReadFile(path)
			require.NoError(t, err)
			got, rep := runSalvage(t, path, nil)
			require.Equal(t, damagedWalApplied[c.name], rep.WAL.Applied, "WAL records applied (stopped: %v)", rep.WAL.Stopped)
			res := checkSalvaged(t, fx, dmg, fx.truths[rep.WAL.Applied], got, rep, false)
			t.Logf("%s: %d keys salvaged (%d in the model); %d on intact pages, all exact; %d in lost ranges; %d lost ranges, %d lost values; %d WAL records",
				c.name, rep.Keys, fx.truths[rep.WAL.Applied].count(), res.intact, rep.InLost, len(rep.Lost), len(rep.LostValues), rep.WAL.Applied)
		})
	}
}

// damagedWant is what the corpus's base holds after its two checkpoints and walTxs of its three
// WAL commits (buildDamagedBase).
func damagedWant(walTxs int) map[string]string {
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

// TestSalvageRandomDamage damages copies of the fixture at random (bytes flipped in a few pages,
// pages zeroed or filled with random bytes, two pages swapped, the file cut) and salvages each:
// no panic, nothing written, and the properties of checkSalvaged, relaxed: a key whose pages are
// intact may be found in lost+found when damage to several trees hides its key space. It runs on
// the fixture of TestSalvage (with two commits in the WAL) and on that of TestSalvageSharedKeys,
// 40 rounds each (10 under -short). The seed is printed; -salvage.seed replays it.
func TestSalvageRandomDamage(t *testing.T) {
	seed := *salvageSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	t.Logf("seed %d (replay: go test -run TestSalvageRandomDamage -salvage.seed=%d .)", seed, seed)
	for i, fx := range []*salvFixture{buildSalvFixture(t, 2), buildSharedKeysFixture(t)} {
		damageAtRandom(t, fx, rand.New(rand.NewPCG(seed, uint64(i))), rounds)
	}
}

// damageAtRandom runs rounds of random damage to copies of fx (see TestSalvageRandomDamage).
func damageAtRandom(t *testing.T, fx *salvFixture, rng *rand.Rand, rounds int) {
	ps := fx.layout.ps
	for round := range rounds {
		b := bytes.Clone(fx.files["db"])
		pages := len(b) / ps
		var what []string
		for range 1 + rng.IntN(4) {
			id := 2 + rng.IntN(pages-2)
			switch rng.IntN(6) {
			case 0:
				b[id*ps+rng.IntN(ps)] ^= byte(1 + rng.IntN(255))
				what = append(what, fmt.Sprintf("flip in page %d", id))
			case 1:
				clear(b[id*ps : (id+1)*ps])
				what = append(what, fmt.Sprintf("zero page %d", id))
			case 2:
				for i := id * ps; i < (id+1)*ps; i++ {
					b[i] = byte(rng.Uint32())
				}
				what = append(what, fmt.Sprintf("random page %d", id))
			case 3:
				o := 2 + rng.IntN(pages-2)
				tmp := bytes.Clone(b[id*ps : (id+1)*ps])
				copy(b[id*ps:], b[o*ps:(o+1)*ps])
				copy(b[o*ps:], tmp)
				what = append(what, fmt.Sprintf("swap pages %d and %d", id, o))
			case 4:
				b = b[:ps*2+rng.IntN(len(b)-ps*2)]
				what = append(what, fmt.Sprintf("cut at %d", len(b)))
				pages = len(b) / ps
				if pages <= 3 {
					break
				}
			case 5:
				b[rng.IntN(2)*ps+rng.IntN(84)] ^= 0x40
				what = append(what, "flip in a meta page")
			}
			if pages <= 3 {
				break
			}
		}
		ok := t.Run(fmt.Sprint(round), func(t *testing.T) {
			path := fx.copyTo(t)
			require.NoError(t, os.WriteFile(path, b, 0o600))
			got, rep := runSalvage(t, path, nil)
			checkSalvaged(t, fx, b, fx.truth(), got, rep, true)
		})
		if !ok {
			if *salvageDump != "" {
				require.NoError(t, os.MkdirAll(*salvageDump, 0o755))
				for name, data := range fx.files {
					require.NoError(t, os.WriteFile(filepath.Join(*salvageDump, name), data, 0o644))
				}
				require.NoError(t, os.WriteFile(filepath.Join(*salvageDump, "damaged.db"), b, 0o644))
			}
			t.Fatalf("round %d (%s) failed (-salvage.dump=DIR writes the files of a failing round)", round, strings.Join(what, ", "))
		}
	}
}

var (
	salvageSeed = flag.Uint64("salvage.seed", 0, "seed of TestSalvageRandomDamage (0: from the clock)")
	salvageDump = flag.String("salvage.dump", "", "directory where TestSalvageRandomDamage writes the files of a failing round")
)

// FuzzSalvage feeds arbitrary bytes as a page file and a WAL: Salvage must never panic, write to
// them, nor fail but with ErrCorrupt (nothing found); the keys it emits are valid and ascend in
// each key space. With reseal, the meta pages and every extent whose header looks valid get
// correct checksums first, so that the structure behind them is explored. The seeds are the
// files of the damaged-file corpus.
func FuzzSalvage(f *testing.F) {
	entries, err := os.ReadDir(damagedDir)
	require.NoError(f, err)
	wal0, err := os.ReadFile(filepath.Join(damagedDir, "base.db-wal"))
	require.NoError(f, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".db") {
			b, err := os.ReadFile(filepath.Join(damagedDir, e.Name()))
			require.NoError(f, err)
			f.Add(b, wal0, false)
			f.Add(b, []byte(nil), true)
		}
	}
	f.Fuzz(func(t *testing.T, db, walFile []byte, reseal bool) {
		if reseal {
			resealPageFile(db)
		}
		fsys := vfs.NewMem()
		require.NoError(t, fsys.WriteFile("/d/db", db))
		if walFile != nil {
			require.NoError(t, fsys.WriteFile("/d/db-wal", walFile))
		}
		var prev []byte
		var bucket []byte
		first := true
		rep, err := Salvage("/d/db", &SalvageOptions{fs: fsys}, func(b, k, v []byte) error {
			if first || !bytes.Equal(b, bucket) {
				bucket, prev, first = bytes.Clone(b), nil, false
			}
			require.NotEmpty(t, k)
			require.LessOrEqual(t, len(k), MaxKeySize)
			require.LessOrEqual(t, len(v), MaxValueSize)
			require.True(t, prev == nil || bytes.Compare(prev, k) < 0, "keys not ascending")
			prev = bytes.Clone(k)
			return nil
		})
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
		} else {
			require.NotNil(t, rep)
		}
		after, err := fsys.ReadFile("/d/db")
		require.NoError(t, err)
		require.Equal(t, db, after, "Salvage wrote to the page file")
		if walFile != nil {
			after, err := fsys.ReadFile("/d/db-wal")
			require.NoError(t, err)
			require.Equal(t, walFile, after, "Salvage wrote to the WAL")
		}
	})
}

// buildSharedKeysFixture builds a database whose default key space and three buckets hold the
// same keys (with other values), over ten rounds of commits, each changing the default key space
// and one bucket and ending with a checkpoint: a page of one key space lies among the keys of the
// others, which salvage must not take for their older pages.
func buildSharedKeysFixture(t *testing.T) *salvFixture {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	fx := &salvFixture{dir: dir, history: map[string]map[string]map[string]bool{}}
	model := salvModel{"": {}}
	db, err := Open(path, nil)
	require.NoError(t, err)
	put := func(b, k, v string) {
		if model[b] == nil {
			model[b] = map[string]string{}
		}
		if fx.history[b] == nil {
			fx.history[b] = map[string]map[string]bool{}
		}
		if fx.history[b][k] == nil {
			fx.history[b][k] = map[string]bool{}
		}
		model[b][k], fx.history[b][k][v] = v, true
	}
	for round := range 10 {
		bucket := fmt.Sprint("b", round%3)
		require.NoError(t, db.Update(func(tx *Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte(bucket))
			if err != nil {
				return err
			}
			for i := round * 300; i < round*300+300; i++ {
				k := fmt.Sprintf("key%06d", i)
				dv, bv := fmt.Sprintf("default %d %s", round, k), fmt.Sprintf("%s %d %s", bucket, round, k)
				if err := tx.Put([]byte(k), []byte(dv)); err != nil {
					return err
				}
				if err := b.Put([]byte(k), []byte(bv)); err != nil {
					return err
				}
				put("", k, dv)
				put(bucket, k, bv)
			}
			return nil
		}))
		require.NoError(t, db.Checkpoint(t.Context()))
	}
	require.NoError(t, db.Close())
	fx.truths = []salvModel{model}
	fx.files = map[string][]byte{}
	for _, name := range []string{"db", "db-wal", "db-wal2"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		fx.files[name] = b
	}
	fx.layout = readSalvLayout(t, fx.files["db"])
	return fx
}

// TestSalvageSharedKeys: key spaces that hold the same keys are salvaged apart, with both meta
// pages damaged (every page is then reached from no root), and with a leaf of the default key
// space damaged too: every key on intact pages comes back exact, in its own key space.
func TestSalvageSharedKeys(t *testing.T) {
	fx := buildSharedKeysFixture(t)
	ps := fx.layout.ps
	metas := func(b []byte) []byte { return overwrite(overwrite(b, 30, []byte{0xff}), ps+30, []byte{0xff}) }
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"meta-both", metas},
		{"meta-both-and-a-leaf", func(b []byte) []byte {
			n := fx.layout.nodesOf("", true, -1)[4]
			return overwrite(metas(b), fx.layout.pageOffset(n.id)+300, []byte("damage"))
		}},
		{"a-branch-of-a-bucket", func(b []byte) []byte {
			n := fx.layout.nodesOf("b0", false, 0)[0]
			return overwrite(b, fx.layout.pageOffset(n.id)+300, []byte("damage"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := fx.copyTo(t)
			dmg := c.damage(fx.files["db"])
			require.NoError(t, os.WriteFile(path, dmg, 0o600))
			got, rep := runSalvage(t, path, nil)
			res := checkSalvaged(t, fx, dmg, fx.truth(), got, rep, false)
			require.Zero(t, res.lostAndFound)
			t.Logf("%s: %d of %d keys salvaged, %d on intact pages, all exact", c.name, rep.Keys, fx.truth().count(), res.intact)
		})
	}
}

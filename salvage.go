package cairn

// Salvage reads what it can of a damaged database without writing to it: what sqlite3's
// .recover is to SQLite. Invariant: the page file and both WAL segments are opened O_RDONLY under
// a shared lock and only read; no byte, size or modification time of them changes, whatever
// they hold. Damage is never an error: it is reported in the SalvageReport. Nothing here panics
// on bytes from the files (FuzzSalvage).
//
// Steps (each in its own file):
//  1. meta pages (pager.ReadMetaPages); the page size from a valid one, else guessed;
//  2. a scan of every page of the file (pager.ScanExtents): each extent whose checksum and
//     structure verify is kept as metadata (a leaf's first and last key, a branch's keys and
//     children, a catalog leaf's entries), so that leaves no tree reaches are found too;
//  3. the WAL's valid records after the meta page's LSN (salvage_wal.go);
//  4. the catalog, then the default key space and every bucket, walked from their roots, and
//     the pages no root reaches attached to the tree they belong to (salvage_walk.go); the
//     version of each key is chosen by the rule of salvage_claims.go;
//  5. the WAL's records applied over that, and every key emitted in order.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/cairndb/cairn/btree"
	"github.com/cairndb/cairn/internal/vfs"
	"github.com/cairndb/cairn/pager"
)

// DefaultLostAndFound is the bucket name Salvage gives to keys whose key space it cannot tell.
const DefaultLostAndFound = "lost+found"

// SalvageOptions configure Salvage. The zero value (or a nil *SalvageOptions) gives the defaults.
type SalvageOptions struct {
	// PageSize forces the page size in bytes (a power of two from 4096 to 65536). 0 takes it from
	// a valid meta page, or, if neither is valid, guesses it: the size at which most of the
	// file's first pages carry a valid checksum.
	PageSize int
	// LostAndFound names the bucket that receives the keys of pages that belong to no key space
	// Salvage can name (default DefaultLostAndFound). Pages whose key ranges overlap go to
	// further buckets of the same name followed by "-2", "-3", ... (at most 16), so that a key of
	// one key space never hides the same key of another; a name a bucket of the database has is
	// skipped.
	LostAndFound string
	// IgnoreWAL salvages the page file alone: the WAL segments are not read.
	IgnoreWAL bool

	// fs replaces the file system in tests.
	fs vfs.FS
}

// SalvageReport is what Salvage found. Key and bucket slices in it are copies, the caller's to
// keep.
type SalvageReport struct {
	// FileSize is the size of the page file in bytes; Pages the number of pages scanned (its
	// whole pages, and a last partial one).
	FileSize int64
	Pages    uint64
	// PageSize is the page size used, in bytes; PageSizeGuessed is set when no valid meta page
	// gave it (nor SalvageOptions.PageSize).
	PageSize        int
	PageSizeGuessed bool
	// Meta describes meta pages 0 and 1. MetaUsed is the slot whose trees were walked (the valid
	// one with the higher sequence number), or -1 when neither is valid.
	Meta     [2]SalvageMeta
	MetaUsed int
	// Branches, Leaves, Overflows and Freelists count the extents whose checksum (and, for tree
	// pages, structure) verified, wherever they are.
	Branches, Leaves, Overflows, Freelists int
	// ZeroPages counts the pages that are all zeros (never written, or free).
	ZeroPages uint64
	// Unreadable lists the runs of pages that are neither part of a verified extent nor zeros:
	// damaged pages, or free pages holding garbage. Lost says which of them held keys.
	Unreadable []SalvagePages
	// Lost lists the key ranges whose newest page could not be read, from the separators of the
	// branch above it (or the whole key space, for a root), in the order of the key spaces, the
	// catalog's first; also the whole key space of a bucket named only by an older catalog page,
	// and the ranges that only versions older than the newest found hold. Keys inside them may be
	// missing, or come from an older page and so be stale, or have been deleted since. Keys
	// outside every range are as the newest version found holds them (see also
	// SalvageWAL.MissingFrom).
	Lost []SalvageRange
	// LostValues lists the keys whose value is in an overflow extent that cannot be read: they
	// are not emitted.
	LostValues []SalvageValue
	// Buckets lists every key space emitted, in the order of emission, with its key count.
	Buckets []SalvageBucket
	// KeySpacesUnknown is set when neither a valid meta page nor a catalog page names a tree:
	// the pages cannot be told apart by key space, so the default key space holds the newest
	// subtree of each key range, whichever key space it was of, and lost+found the subtrees it
	// would hide (older versions, or other key spaces').
	KeySpacesUnknown bool
	// Keys is the number of keys emitted; FromOrphans how many of them come from pages that no
	// root reaches (found by the scan), and InLost how many lie inside a Lost range.
	Keys, FromOrphans, InLost int
	// Malformed counts the elements of verified pages whose key is empty or longer than
	// MaxKeySize, or whose value is longer than MaxValueSize: they are skipped.
	Malformed int
	// OrphanPages counts the verified tree pages that no root reaches and that were attached to
	// a key space (their keys count where no newer page outranks them); StalePages those left
	// out: older versions that no key space can take, and pages newer than the meta page whose
	// commits the WAL holds.
	OrphanPages, StalePages int
	// WAL describes the write-ahead log and what of it was applied.
	WAL SalvageWAL
}

// SalvageMeta describes one meta page slot.
type SalvageMeta struct {
	// Valid is set when the page passes every check Open makes; Err says why not otherwise.
	Valid bool
	Err   error
	// Seq, LSN, Root and Catalog are the page's fields (meaningful when Valid).
	Seq, LSN, Root, Catalog uint64
}

// SalvagePages is a run of pages [First, Last] that could not be read, and why (the error of
// the first; it wraps ErrCorrupt).
type SalvagePages struct {
	First, Last uint64
	Err         error
}

// SalvageRange is a key range whose newest page could not be read.
type SalvageRange struct {
	// Bucket is the bucket's name, nil for the default key space. Catalog is set for a range of
	// the bucket catalog: Low and High are then catalog keys (0x01 followed by a bucket name), and
	// the buckets named inside are unknown.
	Bucket  []byte
	Catalog bool
	// Low and High bound the range [Low, High); nil Low: from the first key; nil High: to the
	// last.
	Low, High []byte
	// Page is the page that held the range (0: none known, when no valid meta page names the
	// root, or when only older versions than the newest found hold the range).
	Page uint64
	// Err says why the page cannot be read.
	Err error
	// Keys counts the keys emitted from inside the range (taken from other pages than the lost
	// one; 0 for the catalog); Older how many of them come from pages older than the lost one,
	// which may be stale.
	Keys, Older int
}

// SalvageValue is a key whose overflow value could not be read.
type SalvageValue struct {
	Bucket, Key []byte
	// Page is the first page of the overflow extent; Err why it cannot be read.
	Page uint64
	Err  error
}

// SalvageBucket is one key space emitted.
type SalvageBucket struct {
	// Name is nil for the default key space.
	Name []byte
	// Keys is the number of keys emitted in it.
	Keys int
	// LostAndFound is set for the bucket of keys whose key space is unknown.
	LostAndFound bool
}

// SalvageWAL describes the WAL segments and the records applied.
type SalvageWAL struct {
	// Segments describes PATH-wal and PATH-wal2.
	Segments [2]SalvageSegment
	// After is the LSN after which records are applied: the used meta page's LSN, or, without
	// one, the newest allocation LSN of the tree pages found.
	After uint64
	// Applied is the number of records applied; First and Last their LSNs (0: none).
	Applied     int
	First, Last uint64
	// MissingFrom and MissingTo are the LSNs of the commits that are in neither the used meta
	// page's version nor the WAL, before the first record applied (0: none missing): a
	// checkpoint whose meta page is damaged, or lost records. Pages newer than the meta page
	// stand in for them where they are found (their keys are then as the newest page holds
	// them); elsewhere a key those commits changed is stale or missing, and no lost range says so.
	MissingFrom, MissingTo uint64
	// Stopped says why records after Last were not applied, when some valid-looking ones were
	// left: damage that is not a torn tail, segments that do not continue each other, a record
	// that does not decode. nil when the valid records ran to a torn tail or the end.
	Stopped error
}

// SalvageSegment describes one WAL segment file.
type SalvageSegment struct {
	Path string
	// Missing is set when the file does not exist; Fresh when it holds no WAL yet.
	Missing, Fresh bool
	Size           int64
	Generation     uint32
	// Records is the number of records of its valid prefix; First and Last their LSNs.
	Records     int
	First, Last uint64
	// Err is the damage found (a bad header, another database's segment, damage after the valid
	// prefix that is not a torn tail), wrapping ErrCorrupt; nil if none.
	Err error
}

// Salvage reads every key it can from the database at path, which may be too damaged to open,
// without writing to it, and calls fn for each, then returns what it found and could not read.
//
// It opens the page file and the WAL segments (path-wal, path-wal2) read-only under a shared
// lock: no byte, size or modification time of them changes. It reads the meta pages it can (if
// neither is valid it still goes on), scans every page of the file for extents whose checksum
// and structure verify, walks the default key space, the bucket catalog and every bucket from
// their roots, and attaches the leaves no root reaches (under a damaged branch, or left by older
// versions) to the tree and key range they belong to. Where pages disagree on a key, the newest
// version wins: a page reachable from the newest valid meta page outranks older pages, and among
// pages that no root reaches, the one written by the newer commit (docs/RELIABILITY.md,
// "Salvage"). Then it applies the WAL's valid records after the meta page's LSN, up to the first
// record that is not valid, as recovery does.
//
// fn is called once per key: first the default key space (bucket nil), then each bucket in
// ascending name order, then the lost-and-found buckets (SalvageOptions.LostAndFound) with the
// keys of pages whose key space cannot be told; keys ascend within each. The bucket, key and
// value slices are valid only during the call: fn must copy what it keeps, and must not modify
// them. A nil fn only builds the report. If fn returns an error, Salvage stops and returns it
// as it is, with the report so far.
//
// Errors: the page file cannot be opened (an error wrapping fs.ErrNotExist if it is missing),
// ErrLocked while a process has the database open for writing, a read error of a file, the
// error of fn, and an error wrapping ErrCorrupt when nothing in the files is cairn data: no
// valid meta page, no verified page and no WAL record. Damage is not an error: it is in the
// report, which is non-nil whenever the files could be read.
func Salvage(path string, opts *SalvageOptions, fn func(bucket, key, value []byte) error) (*SalvageReport, error) {
	s := &salvager{path: path, fsys: vfs.OS, rep: &SalvageReport{MetaUsed: -1}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.fs != nil {
		s.fsys = s.opts.fs
	}
	if s.opts.LostAndFound == "" {
		s.opts.LostAndFound = DefaultLostAndFound
	}
	if s.opts.PageSize != 0 && !pager.ValidPageSize(s.opts.PageSize) {
		return nil, fmt.Errorf("cairn: salvage: page size %d is not a power of two from %d to %d", s.opts.PageSize, pager.MinPageSize, pager.MaxPageSize)
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	defer s.close()
	for _, step := range []func() error{s.readMeta, s.scan, s.readWAL} {
		if err := step(); err != nil {
			return s.rep, err
		}
	}
	if len(s.metas) == 0 && len(s.ext) == 0 && s.rep.Leaves+s.rep.Overflows+s.rep.Freelists == 0 && len(s.records) == 0 {
		return s.rep, fmt.Errorf("cairn: salvage %s: no valid meta page, no page with a valid checksum and no WAL record: not a cairn database, or nothing of it is left: %w", path, ErrCorrupt)
	}
	s.buildTrees()
	return s.rep, s.emit(fn)
}

// salvager is the state of one Salvage.
type salvager struct {
	path string
	opts SalvageOptions
	fsys vfs.FS
	lock io.Closer
	f    vfs.File
	rep  *SalvageReport
	size int64
	ps   int
	// pages is the number of whole pages in the file.
	pages uint64
	// metas are the valid meta pages, the newest first; both is set when both slots are valid.
	metas []pager.Meta
	both  bool

	// ext holds the verified tree pages by id; other the verified overflow and free-list extents.
	ext   map[uint64]*salvExtent
	other map[uint64]byte
	// freelist is the newest free-list extent found that decodes.
	freelist salvFreelist
	// runs are the zero and unreadable pages, ascending.
	runs []pageRun

	// seen records which walk claimed each page (salvage_walk.go).
	seen     map[uint64]salvVisit
	walks    int
	order    int
	trees    map[string]*salvageTree
	def, cat *salvageTree
	// lostFound holds the layers of lost+found; lfMarker is what decide returns for it.
	lostFound []*lfLayer
	lfMarker  *salvageTree
	// namedUntil is the time up to which the catalog names every bucket (math.MaxUint64: all
	// the time): when a catalog page is lost, a bucket created after the older page standing in
	// for it is unknown.
	namedUntil uint64
	// lostFoundNewest is the newest time of the pages sent to lost+found (0: none).
	lostFoundNewest uint64
	// blind is set when neither a valid meta page nor a catalog page names any tree: subtrees
	// cannot be told apart by key space, so the default key space takes the newest subtree of
	// each key range (blindDefault records them) and lost+found the ones it would hide.
	blind        bool
	blindDefault lfLayer

	// WAL state (salvage_wal.go): the records to apply, in LSN order; cover is the newest LSN
	// whose state they reproduce from the meta page on (the meta page's LSN if records are
	// missing); fresh is set when the meta page used is known to be the newest checkpoint.
	records []walRecord
	cover   uint64
	fresh   bool
	overlay map[string]*walSpace
}

// open takes the shared lock and opens the page file read-only.
func (s *salvager) open() (err error) {
	if s.lock, err = s.fsys.LockShared(s.path); err != nil {
		if errors.Is(err, vfs.ErrLocked) {
			return fmt.Errorf("cairn: salvage %s: %w", s.path, ErrLocked)
		}
		return fmt.Errorf("cairn: salvage: %w", err)
	}
	if s.f, err = s.fsys.OpenFile(s.path, os.O_RDONLY, 0); err != nil {
		s.lock.Close()
		return fmt.Errorf("cairn: salvage: %w", err)
	}
	if s.size, err = s.f.Size(); err != nil {
		s.close()
		return fmt.Errorf("cairn: salvage %s: size: %w", s.path, err)
	}
	s.rep.FileSize = s.size
	return nil
}

// close releases the page file and the lock.
func (s *salvager) close() {
	s.f.Close()
	s.lock.Close()
}

// readMeta reads both meta pages and sets the page size.
func (s *salvager) readMeta() error {
	slots, err := pager.ReadMetaPages(s.f, s.size)
	if err != nil {
		return fmt.Errorf("cairn: salvage %s: %w", s.path, err)
	}
	for i, p := range slots.Pages {
		m := &s.rep.Meta[i]
		m.Valid, m.Err = p.Err == nil, p.Err
		if m.Valid {
			m.Seq, m.LSN, m.Root, m.Catalog = p.Seq, p.LSN, p.Root, p.Catalog
		}
	}
	s.rep.MetaUsed = slots.Current
	if slots.Current >= 0 {
		s.metas = append(s.metas, slots.Pages[slots.Current].Meta)
		if o := slots.Pages[1-slots.Current]; o.Err == nil {
			s.metas = append(s.metas, o.Meta)
			s.both = true
		}
	}
	switch {
	case s.opts.PageSize != 0:
		s.ps = s.opts.PageSize
	case len(s.metas) > 0:
		s.ps = int(s.metas[0].PageSize)
	default:
		ps, err := s.guessPageSize(slots.Pages[0].PageSize)
		if err != nil {
			return err
		}
		s.ps, s.rep.PageSizeGuessed = ps, true
	}
	s.rep.PageSize = s.ps
	s.pages = uint64(s.size) / uint64(s.ps)
	s.rep.Pages = s.pages
	if uint64(s.size)%uint64(s.ps) != 0 {
		s.rep.Pages++
	}
	return nil
}

// guessSample is the number of pages guessPageSize looks at per candidate size.
const guessSample = 256

var errEnough = errors.New("enough")

// guessPageSize returns the page size at which the most of the file's first pages verify,
// trying field (slot 0's page size field, if valid) first, then every size from the smallest.
func (s *salvager) guessPageSize(field uint32) (int, error) {
	var sizes []int
	if pager.ValidPageSize(int(field)) {
		sizes = append(sizes, int(field))
	}
	for ps := pager.MinPageSize; ps <= pager.MaxPageSize; ps *= 2 {
		if ps != int(field) {
			sizes = append(sizes, ps)
		}
	}
	best, bestN := pager.DefaultPageSize, 0
	for _, ps := range sizes {
		n, seen := 0, 0
		err := pager.ScanExtents(s.f, s.size, ps, func(p pager.ScannedPage) error {
			if p.Extent != nil {
				n++
			}
			if seen++; seen >= guessSample {
				return errEnough
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return 0, fmt.Errorf("cairn: salvage %s: %w", s.path, err)
		}
		if n > bestN {
			best, bestN = ps, n
		}
	}
	return best, nil
}

// pageRun is a run of pages [first, last] that are all zeros (err nil) or unreadable.
type pageRun struct {
	first, last uint64
	err         error  // of the first page
	reason      string // err's text without the page id, to merge runs
}

// addRun records page id as zero (err nil) or unreadable, merging it into the last run when it
// continues it for the same reason.
func (s *salvager) addRun(id uint64, err error) {
	reason := ""
	if err != nil {
		reason = errReason(err, id)
	}
	if n := len(s.runs); n > 0 {
		r := &s.runs[n-1]
		if r.last+1 == id && (r.err == nil) == (err == nil) && sameKind(r.reason, reason) {
			r.last = id
			return
		}
	}
	s.runs = append(s.runs, pageRun{first: id, last: id, err: err, reason: reason})
}

// errReason returns the text of err without the mention of page id.
func errReason(err error, id uint64) string {
	msg := err.Error()
	for _, p := range []string{fmt.Sprintf("pager: page %d: ", id), fmt.Sprintf("btree: page %d: ", id)} {
		if i := strings.Index(msg, p); i >= 0 {
			return msg[:i] + msg[i+len(p):]
		}
	}
	return msg
}

// sameKind reports whether two reasons (errReason) differ at most in their numbers, so that a
// run of pages of garbage is one entry of the report.
func sameKind(a, b string) bool {
	shape := func(s string) string {
		var out []byte
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				out = append(out, s[i])
			} else if len(out) == 0 || out[len(out)-1] != '#' {
				out = append(out, '#')
			}
		}
		return string(out)
	}
	return shape(a) == shape(b)
}

// runAt returns the run holding page id, or nil.
func (s *salvager) runAt(id uint64) *pageRun {
	i, ok := slices.BinarySearchFunc(s.runs, id, func(r pageRun, id uint64) int {
		switch {
		case r.last < id:
			return -1
		case r.first > id:
			return 1
		}
		return 0
	})
	if !ok {
		return nil
	}
	return &s.runs[i]
}

// scan reads every page of the file and keeps what the verified extents hold.
func (s *salvager) scan() error {
	s.ext = make(map[uint64]*salvExtent)
	s.other = make(map[uint64]byte)
	err := pager.ScanExtents(s.f, s.size, s.ps, func(p pager.ScannedPage) error {
		switch {
		case p.Zero:
			s.rep.ZeroPages++
			s.addRun(p.ID, nil)
		case p.Extent == nil:
			s.addRun(p.ID, p.Err)
		default:
			s.keepExtent(p.ID, p.Extent)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cairn: salvage %s: %w", s.path, err)
	}
	for _, r := range s.runs {
		if r.err != nil {
			s.rep.Unreadable = append(s.rep.Unreadable, SalvagePages{First: r.first, Last: r.last, Err: r.err})
		}
	}
	return nil
}

// keepExtent records the verified extent p at id.
func (s *salvager) keepExtent(id uint64, p []byte) {
	typ := pager.Type(p)
	switch typ {
	case pager.PageOverflow:
		s.rep.Overflows++
		s.other[id] = typ
		return
	case pager.PageFreelist:
		s.rep.Freelists++
		s.other[id] = typ
		if a := pager.AllocLSN(p); s.freelist.id == 0 || a > s.freelist.alloc {
			m := pager.Meta{PageSize: uint32(s.ps), PageCount: s.pages, FreelistID: id, FreelistPages: uint64(len(p) / s.ps)}
			if ids, err := pager.DecodeFreelist(p, m); err == nil {
				s.freelist = salvFreelist{id: id, alloc: a, ids: ids}
			}
		}
		return
	}
	els, err := btree.Elements(id, p)
	if err != nil {
		s.addRun(id, err)
		return
	}
	e := &salvExtent{id: id, alloc: pager.AllocLSN(p), leaf: typ == pager.PageLeaf}
	if e.leaf {
		s.rep.Leaves++
		e.catalog = len(els) > 0
		for _, el := range els {
			name, root, ok := catalogEntry(el)
			e.catalog = e.catalog && ok
			if ok && name != nil {
				e.entries = append(e.entries, catEntry{name: bytes.Clone(name), root: root})
			}
		}
		if len(els) > 0 {
			e.first, e.last = bytes.Clone(els[0].Key), bytes.Clone(els[len(els)-1].Key)
		}
	} else {
		s.rep.Branches++
		e.keys = make([][]byte, len(els))
		e.children = make([]uint64, len(els))
		for i, el := range els {
			e.keys[i], e.children[i] = bytes.Clone(el.Key), el.Child
		}
		e.first, e.last = e.keys[0], e.keys[len(e.keys)-1]
	}
	s.ext[id] = e
}

// salvFreelist is a free-list extent: the ids free in the checkpoint written at LSN alloc.
type salvFreelist struct {
	id, alloc uint64
	ids       []uint64 // ascending
}

// freeBefore reports whether extent e is listed free in the newest free list found and was
// written before it: a page of no version since that checkpoint (a page reused after it was
// written after it).
func (s *salvager) freeBefore(e *salvExtent) bool {
	_, listed := slices.BinarySearch(s.freelist.ids, e.id)
	return listed && e.alloc < s.freelist.alloc
}

// reason says why page id cannot be read as a tree page.
func (s *salvager) reason(id uint64) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("page %d: %s: %w", id, fmt.Sprintf(format, a...), ErrCorrupt)
	}
	switch {
	case id < pager.MetaPages:
		return bad("a meta page where a tree page is referenced")
	case id >= s.pages:
		return bad("beyond the end of the file (%d pages)", s.pages)
	}
	if typ, ok := s.other[id]; ok {
		return bad("%s extent where a tree page is referenced", pager.TypeName(typ))
	}
	if r := s.runAt(id); r != nil {
		if r.err == nil {
			return bad("zeros where a tree page is referenced")
		}
		return fmt.Errorf("page %d: %s: %w", id, strings.TrimSuffix(r.reason, ": "+ErrCorrupt.Error()), ErrCorrupt)
	}
	return bad("inside another extent")
}

// salvagedKeySpace is a key space to emit: its tree and the WAL's changes to it.
type salvagedKeySpace struct {
	name []byte
	tree *salvageTree // nil: created by the WAL only
	wal  *walSpace    // nil: no record changed it
	lf   bool
}

// emit calls fn for every key of every key space and fills the report.
func (s *salvager) emit(fn func(bucket, key, value []byte) error) error {
	var spaces []salvagedKeySpace
	names := map[string]bool{}
	add := func(name []byte, t *salvageTree) {
		if names[string(name)] {
			return
		}
		names[string(name)] = true
		ws := s.overlay[string(name)]
		if name != nil && ws != nil && ws.deleted {
			return
		}
		if t == nil && ws == nil {
			return
		}
		spaces = append(spaces, salvagedKeySpace{name: name, tree: t, wal: ws})
	}
	s.reportLost(s.cat, nil)
	add(nil, s.def)
	var bucketNames [][]byte
	for _, t := range s.trees {
		if t.kind == treeBucket && t.emit {
			bucketNames = append(bucketNames, t.name)
		}
	}
	for name, ws := range s.overlay {
		if name != "" && !ws.deleted && (ws.created || len(ws.keys) > 0) {
			bucketNames = append(bucketNames, []byte(name))
		}
	}
	slices.SortFunc(bucketNames, bytes.Compare)
	for _, name := range bucketNames {
		add(name, s.trees[bucketTreeKey(name)])
	}
	next := 1 // lost+found, lost+found-2, ...: the names no key space has
	for _, l := range s.lostFound {
		name := []byte(s.opts.LostAndFound)
		for ; names[string(name)]; next++ {
			name = fmt.Appendf(nil, "%s-%d", s.opts.LostAndFound, next+1)
		}
		names[string(name)] = true
		spaces = append(spaces, salvagedKeySpace{name: name, tree: l.tree, lf: true})
	}
	for _, sp := range spaces {
		n, err := s.emitSpace(sp, fn)
		if n > 0 || !sp.lf {
			s.rep.Buckets = append(s.rep.Buckets, SalvageBucket{Name: bytes.Clone(sp.name), Keys: n, LostAndFound: sp.lf})
		}
		s.rep.Keys += n
		if err != nil {
			return err
		}
	}
	return nil
}

// emitSpace emits the keys of one key space in order: its pages' keys merged with the WAL's
// changes. It returns the number of keys emitted.
func (s *salvager) emitSpace(sp salvagedKeySpace, fn func(bucket, key, value []byte) error) (int, error) {
	var pending [][]byte // the WAL's keys, ascending
	if sp.wal != nil {
		for k := range sp.wal.keys {
			pending = append(pending, []byte(k))
		}
		slices.SortFunc(pending, bytes.Compare)
	}
	n := 0
	call := func(k, v []byte) error {
		n++
		if fn == nil {
			return nil
		}
		return fn(sp.name, k, v)
	}
	// flushBelow emits the WAL's puts of keys below k (all of them if k is nil).
	flushBelow := func(k []byte) error {
		for len(pending) > 0 && (k == nil || bytes.Compare(pending[0], k) < 0) {
			if wv := sp.wal.keys[string(pending[0])]; !wv.del {
				if err := call(pending[0], wv.v); err != nil {
					return err
				}
			}
			pending = pending[1:]
		}
		return nil
	}
	if sp.tree != nil && (sp.wal == nil || !sp.wal.dropped) {
		err := s.treeKeys(sp.tree, sp.name, func(k []byte, value func() ([]byte, error)) (bool, error) {
			if err := flushBelow(k); err != nil {
				return false, err
			}
			if len(pending) > 0 && bytes.Equal(pending[0], k) {
				return false, flushBelow(append(bytes.Clone(k), 0))
			}
			v, err := value()
			if err != nil || v == nil {
				return false, err
			}
			return true, call(k, v)
		})
		if err != nil {
			return n, err
		}
	}
	return n, flushBelow(nil)
}

// treeKeys calls fn for every key of tree t, in order, with a function returning its value (nil
// value and nil error: the value is lost, and reported); fn reports whether it emitted the page's
// value. It then reports the tree's lost ranges.
func (s *salvager) treeKeys(t *salvageTree, name []byte, fn func(k []byte, value func() ([]byte, error)) (bool, error)) error {
	counts := make([]int, len(t.pieces))
	defer func() { s.reportLost(t, counts) }()
	var cached *salvLeaf
	for i, p := range t.pieces {
		if p.win == nil || p.win.kind != claimLeaf {
			continue
		}
		if cached == nil || cached.id != p.win.page {
			l, err := s.readLeaf(p.win.page)
			if err != nil {
				return err
			}
			cached = l
		}
		if cached.err != nil {
			continue
		}
		for _, el := range cached.els {
			if bytes.Compare(el.Key, p.lo) < 0 || !belowHigh(el.Key, p.hi, p.inf) {
				continue
			}
			if len(el.Key) == 0 || len(el.Key) > MaxKeySize || el.ValueSize > MaxValueSize {
				s.rep.Malformed++
				continue
			}
			value := func() ([]byte, error) { return s.value(name, cached, el) }
			emitted, err := fn(el.Key, value)
			if err != nil {
				return err
			}
			if emitted {
				counts[i]++
			}
			if emitted && (p.lost != nil || t.named != nil) {
				s.rep.InLost++
			}
			if emitted && p.win.orphan {
				s.rep.FromOrphans++
			}
		}
	}
	return nil
}

// salvLeaf is a leaf read back for emission; err is set if it no longer verifies.
type salvLeaf struct {
	id    uint64
	alloc uint64
	els   []btree.Element
	err   error
}

// readLeaf reads leaf id back from the file and verifies it again.
func (s *salvager) readLeaf(id uint64) (*salvLeaf, error) {
	l := &salvLeaf{id: id}
	p, err := pager.ReadExtentAt(s.f, s.ps, s.pages, id)
	if err == nil {
		err = pager.VerifyExtent(id, p, s.ps)
	}
	if err == nil {
		l.els, err = btree.Elements(id, p)
		l.alloc = pager.AllocLSN(p)
	}
	if err != nil && !errors.Is(err, ErrCorrupt) {
		return nil, fmt.Errorf("cairn: salvage %s: %w", s.path, err)
	}
	l.err = err
	return l, nil
}

// value returns the value of element el of leaf l (of key space name), reading its overflow
// extent if it has one; a value that cannot be read is reported and nil returned.
func (s *salvager) value(name []byte, l *salvLeaf, el btree.Element) ([]byte, error) {
	if el.Value != nil {
		return el.Value, nil
	}
	v, err := s.overflow(el.Overflow, el.ValueSize, l.alloc)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		return nil, fmt.Errorf("cairn: salvage %s: %w", s.path, err)
	}
	if err != nil {
		s.rep.LostValues = append(s.rep.LostValues, SalvageValue{Bucket: bytes.Clone(name), Key: bytes.Clone(el.Key), Page: el.Overflow, Err: err})
		return nil, nil
	}
	return v, nil
}

// overflow reads the overflow value of size bytes at page id, referenced by a leaf written at
// LSN alloc. It checks the extent's length before reading it whole, so a damaged reference
// cannot make it read or allocate more than the value needs.
func (s *salvager) overflow(id uint64, size uint32, alloc uint64) ([]byte, error) {
	if id < pager.MetaPages || id >= s.pages {
		return nil, fmt.Errorf("page %d: overflow extent outside the file (%d pages): %w", id, s.pages, ErrCorrupt)
	}
	first := make([]byte, s.ps)
	if _, err := s.f.ReadAt(first, int64(id)*int64(s.ps)); err != nil {
		return nil, fmt.Errorf("read page %d: %w", id, err)
	}
	h, _ := pager.DecodeHeader(first)
	want := (uint64(pager.HeaderSize) + uint64(size) + uint64(s.ps) - 1) / uint64(s.ps)
	switch {
	case h.Type != pager.PageOverflow:
		return nil, fmt.Errorf("page %d: type %d (%s) where an overflow value is referenced: %w", id, h.Type, pager.TypeName(h.Type), ErrCorrupt)
	case h.Pages != want:
		return nil, fmt.Errorf("page %d: overflow extent of %d pages, a value of %d bytes needs %d: %w", id, h.Pages, size, want, ErrCorrupt)
	case h.AllocLSN > alloc:
		return nil, fmt.Errorf("page %d: written at LSN %d, after the leaf that references it (LSN %d): the page was reused: %w", id, h.AllocLSN, alloc, ErrCorrupt)
	}
	p, err := pager.ReadExtentAt(s.f, s.ps, s.pages, id)
	if err == nil {
		err = pager.VerifyExtent(id, p, s.ps)
	}
	if err != nil {
		return nil, err
	}
	return btree.OverflowValue(id, p, size)
}

// reportLost adds the lost ranges of tree t to the report: the range of every unreadable page
// that some newer readable page does not make irrelevant (matters), and the runs of pieces that
// only versions older than the tree's newest hold. counts are the keys emitted from each piece
// (nil: not counted).
func (s *salvager) reportLost(t *salvageTree, counts []int) {
	if t == nil || !(t.emit || t.kind == treeCatalog) {
		return
	}
	// keysIn returns the keys emitted from pieces [from, to), and those of them whose piece's
	// newest unreadable claim is c (older than c: maybe stale).
	keysIn := func(from, to int, c *salvClaim) (n, older int) {
		for k := from; k < to && counts != nil; k++ {
			n += counts[k]
			if t.pieces[k].lost == c {
				older += counts[k]
			}
		}
		return n, older
	}
	add := func(lo, hi []byte, inf bool, c *salvClaim, keys, older int) {
		r := SalvageRange{Low: bytes.Clone(lo), Catalog: t.kind == treeCatalog, Page: c.page, Err: c.err, Keys: keys, Older: older}
		if !inf {
			r.High = bytes.Clone(hi)
		}
		if t.kind == treeBucket {
			r.Bucket = bytes.Clone(t.name)
		}
		s.rep.Lost = append(s.rep.Lost, r)
	}
	type lostKey struct {
		page   uint64
		lo, hi string
		inf    bool
	}
	from := len(s.rep.Lost)
	if t.named != nil {
		c := *t.named
		c.err = fmt.Errorf("the catalog page naming this bucket cannot be read; its tree is the one an older catalog page names, and may be older: %w", ErrCorrupt)
		n, _ := keysIn(0, len(t.pieces), nil)
		add(nil, nil, true, &c, n, n)
	}
	done := make(map[lostKey]bool)
	for _, c := range t.claims {
		k := lostKey{c.page, string(c.lo), string(c.hi), c.inf}
		if c.kind != claimLost || c.prio < t.top || done[k] {
			continue // not lost, an older version's page, or listed already
		}
		first, last, matters := t.piecesIn(c)
		if !matters {
			continue
		}
		done[k] = true
		n, older := keysIn(first, last, c)
		add(c.lo, c.hi, c.inf, c, n, older)
	}
	for i := 0; i < len(t.pieces); { // runs of pieces only older versions hold
		if t.pieces[i].lost == nil || t.pieces[i].lost != t.older {
			i++
			continue
		}
		j := i + 1
		for j < len(t.pieces) && t.pieces[j].lost == t.older && !t.pieces[j-1].inf && bytes.Equal(t.pieces[j-1].hi, t.pieces[j].lo) {
			j++
		}
		n, older := keysIn(i, j, t.older)
		add(t.pieces[i].lo, t.pieces[j-1].hi, t.pieces[j-1].inf, t.older, n, older)
		i = j
	}
	slices.SortStableFunc(s.rep.Lost[from:], func(a, b SalvageRange) int { return bytes.Compare(a.Low, b.Low) })
}

// piecesIn returns the pieces [first, last) of t inside the range of claim c, and whether c
// matters: some point of its range has no readable claim at least as new.
func (t *salvageTree) piecesIn(c *salvClaim) (first, last int, matters bool) {
	first = salvPieceAt(t.pieces, c.lo)
	last = first
	for ; last < len(t.pieces) && (c.inf || bytes.Compare(t.pieces[last].lo, c.hi) < 0); last++ {
		p := t.pieces[last]
		matters = matters || p.win == nil || !outranks(p.win, c)
	}
	return first, last, matters
}

// isMissing reports whether err says a file does not exist.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }

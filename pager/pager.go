package pager

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/invariants"
	"github.com/cairndb/cairn/internal/vfs"
)

// growChunk bounds how far the file is extended at once: it grows by its own size, at least
// 1 MiB and at most 64 MiB, so growth costs few truncate calls and little slack.
const (
	minGrow = 1 << 20
	maxGrow = 64 << 20
)

// Pager gives page-id access to the database file.
//
// Concurrency: Page may be called from any goroutine at any time. Allocate, Free, Reclaim and
// Checkpoint are called by one goroutine at a time (the holder of the database's writer slot).
type Pager struct {
	f        vfs.File
	pageSize int
	table    pageTable
	// pageCount is the high-water mark: ids [0, pageCount) are allocated in the file.
	pageCount atomic.Uint64
	// cacheLimit caps cached bytes; clean frames are evicted past it (0: no limit).
	cacheLimit int64
	// misses and evictions are counted without p.mu: the read path never waits for a checkpoint.
	misses, evictions atomic.Uint64
	validate          func(id uint64, data []byte) error
	cachedBytes       atomic.Int64
	evictMu           sync.Mutex
	clockHand         uint64 // guarded by evictMu

	// trusted is set when the page accounting is known sound: this Pager created its file, or
	// a full check found it sound (see invariants.go).
	trusted atomic.Bool

	mu       sync.Mutex // guards the fields below
	fileSize int64
	free     freeList
	dirty    map[uint64]dirtyExtent // live extents not yet written, by first page id
	// dirtyPages counts the pages of dirty; read without mu by DirtyBytes.
	dirtyPages atomic.Int64
	durable    Meta // the newest durable meta page
	// shrunk is set by Shrink and cleared by Checkpoint: the page count may be below the durable
	// meta page's until the next checkpoint records it.
	shrunk bool
	// metaDamaged is set when Open found a meta page that failed its checks.
	metaDamaged bool
	stats       Stats
	// reclaimBuf is Reclaim's reused list of ready ids (Reclaim runs on one goroutine at a time).
	reclaimBuf []uint64
	// pool holds single-page buffers of frames that Reclaim dropped, for Allocate to reuse, at
	// most maxPoolBytes of them. They are not counted as cached.
	pool [][]byte
	// poison is Options.Poison.
	poison bool
}

// maxPoolBytes bounds the page buffers kept for reuse (Pager.pool), and so does an eighth of
// the cache's cap when that is smaller (poolBytes). 32 MiB holds the buffers of the leaves a
// transaction of 10,000 random inserts rewrites on a large tree, which the next one reuses.
const maxPoolBytes = 32 << 20

// poolBytes is the bound of p.pool: maxPoolBytes, or an eighth of the cache's cap if smaller.
func (p *Pager) poolBytes() int {
	if p.cacheLimit > 0 && p.cacheLimit/8 < maxPoolBytes {
		return int(p.cacheLimit / 8)
	}
	return maxPoolBytes
}

// dirtyExtent is an extent allocated since the last checkpoint: its length in pages and the LSN
// of the commit that allocated it.
type dirtyExtent struct {
	pages uint64
	alloc uint64
}

// Stats are counters of the pager; see cairn.Stats for their meaning.
type Stats struct {
	PageCount    uint64
	FreePages    int
	PendingPages int
	DirtyPages   int
	CachedBytes  int64
	CacheMisses  uint64
	Evictions    uint64
	Checkpoints  uint64
}

// Options configure a Pager.
type Options struct {
	// PageSize in bytes for a new file (a power of two in [MinPageSize, MaxPageSize]).
	PageSize int
	// CacheBytes caps the bytes of cached clean extents; 0 means no cap.
	CacheBytes int64
	// Validate, if set, checks every extent read from the file after its checksum matched.
	Validate func(id uint64, data []byte) error
	// Poison makes Reclaim fill the buffer of every cached extent it drops with poisonByte (a
	// debug mode: bytes kept past their transaction then visibly change).
	Poison bool
}

// poisonByte is the byte Options.Poison fills dropped buffers with.
const poisonByte = 0xdb

// Open opens the page file f. A file of size 0 is initialised as a new, empty database with
// o.PageSize (created reports this). Otherwise the newest valid meta page is used and o.PageSize
// is ignored. Errors wrap errs.ErrCorrupt when the file is a damaged database; the error is
// errs.ErrNotDatabase itself when no meta page starts with the magic (see readMeta).
func Open(f vfs.File, o Options) (p *Pager, created bool, err error) {
	size, err := f.Size()
	if err != nil {
		return nil, false, fmt.Errorf("pager: stat: %w", err)
	}
	p = &Pager{f: f, cacheLimit: o.CacheBytes, validate: o.Validate, dirty: make(map[uint64]dirtyExtent), poison: o.Poison}
	if size == 0 {
		return p, true, p.initialise(o.PageSize)
	}
	m, damaged, err := readMeta(f, size)
	if err != nil {
		return nil, false, err
	}
	p.metaDamaged = damaged
	p.pageSize = int(m.PageSize)
	p.fileSize = size
	if m.PageCount > uint64(size)/uint64(m.PageSize) { // not PageCount*PageSize: it may overflow
		return nil, false, fmt.Errorf("pager: file is %d bytes, meta page needs %d pages of %d: truncated: %w",
			size, m.PageCount, m.PageSize, errs.ErrCorrupt)
	}
	p.durable = m
	p.pageCount.Store(m.PageCount)
	if err := p.loadFreelist(m); err != nil {
		return nil, false, err
	}
	return p, false, nil
}

func (p *Pager) initialise(pageSize int) error {
	if !ValidPageSize(pageSize) {
		return fmt.Errorf("pager: page size %d is not a power of two in [%d, %d]", pageSize, MinPageSize, MaxPageSize)
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	p.pageSize = pageSize
	m := Meta{PageSize: uint32(pageSize), DBID: binary.LittleEndian.Uint64(id[:]) | 1, PageCount: MetaPages}
	buf := make([]byte, MetaPages*pageSize)
	for slot := range uint64(MetaPages) {
		m.Seq = slot
		m.encode(buf[slot*uint64(pageSize):])
	}
	if _, err := p.f.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("pager: write meta pages: %w", err)
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("pager: sync: %w", err)
	}
	p.fileSize = int64(len(buf))
	p.durable = m
	p.pageCount.Store(MetaPages)
	p.trusted.Store(true)
	return nil
}

// readMeta finds the newest valid meta page and reports whether the other one is damaged. Meta
// page 0 gives the page size; if it is damaged, meta page 1 is looked for at every page size. A
// read error is returned as it is: a page that could not be read is not known to be damaged, and
// it may be the newest one. So is an intact meta page of an older format version, in either
// slot: the file was written, or last upgraded, by a development build, and its tree pages may
// be in a layout this build does not read. A file in which neither meta page (at any page size)
// starts with the magic, nor the first bytes of a file too short for one, is not a cairn
// database: errs.ErrNotDatabase.
func readMeta(f vfs.File, size int64) (Meta, bool, error) {
	buf := make([]byte, metaSize)
	var best Meta
	var firstErr, readErr, versionErr error
	found, sawMagic := false, false
	try := func(off int64, wantSize uint32) {
		if off+metaSize > size || readErr != nil {
			return
		}
		if _, err := f.ReadAt(buf, off); err != nil {
			readErr = fmt.Errorf("pager: read meta page at offset %d: %w", off, ioErr(err))
			return
		}
		sawMagic = sawMagic || string(buf[:len(metaMagic)]) == metaMagic
		m, err := decodeMeta(buf)
		if err == nil && wantSize != 0 && m.PageSize != wantSize {
			err = fmt.Errorf("pager: meta page 1 page size mismatch: %w", errs.ErrCorrupt)
		}
		var ve *errs.VersionError
		if errors.As(err, &ve) {
			versionErr = cmpErr(versionErr, err)
		}
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			return
		}
		if !found || m.Seq > best.Seq {
			best, found = m, true
		}
	}
	try(0, 0)
	if found {
		try(int64(best.PageSize), best.PageSize)
	} else {
		for ps := MinPageSize; ps <= MaxPageSize; ps *= 2 {
			try(int64(ps), uint32(ps))
		}
	}
	if readErr != nil {
		return Meta{}, false, readErr
	}
	if versionErr != nil {
		return Meta{}, false, versionErr
	}
	if !found && !sawMagic {
		head := buf[:min(size, int64(len(metaMagic)))]
		if _, err := f.ReadAt(head, 0); err != nil {
			return Meta{}, false, fmt.Errorf("pager: read meta page at offset 0: %w", ioErr(err))
		}
		if !strings.HasPrefix(metaMagic, string(head)) {
			return Meta{}, false, errs.ErrNotDatabase
		}
	}
	if !found && firstErr == nil {
		firstErr = fmt.Errorf("pager: file of %d bytes is too small to be a cairn database: %w", size, errs.ErrCorrupt)
	}
	if !found {
		return Meta{}, true, fmt.Errorf("pager: no valid meta page: %w", firstErr)
	}
	return best, firstErr != nil, nil
}

// MetaDamaged reports whether Open found one meta page damaged (and used the other). A crash
// during a checkpoint's meta write does that; so does damage to the newest meta page, after which
// the version it described may be lost: the caller decides with the WAL (see cairn's recover).
func (p *Pager) MetaDamaged() bool { return p.metaDamaged }

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// PageSize returns the page size in bytes.
func (p *Pager) PageSize() int { return p.pageSize }

// Durable returns the newest durable meta page.
func (p *Pager) Durable() Meta {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.durable
}

// Page returns the extent at page id: its bytes are immutable and stay valid as long as the
// caller holds them. The caller must hold a version that references id. Reading from the file
// verifies the checksum; errors wrap errs.ErrCorrupt for damaged pages.
func (p *Pager) Page(id uint64) ([]byte, error) {
	if data := p.table.get(id, p.pageSize); data != nil {
		return data, nil
	}
	return p.readPage(id)
}

// CachedAddr returns the address of the cached extent at id without reading it, or nil: for a
// prefetch hint, which may not dereference it (the extent may be evicted meanwhile; its memory
// stays valid for the garbage collector's sake only while referenced).
func (p *Pager) CachedAddr(id uint64) unsafe.Pointer {
	return p.table.addr(id)
}

func (p *Pager) readPage(id uint64) ([]byte, error) {
	data, err := p.readExtent(id, p.pageCount.Load())
	if err != nil {
		return nil, err
	}
	p.misses.Add(1)
	fr := &frame{data: data}
	if got := p.table.install(id, fr); got != fr {
		return got.data, nil
	}
	p.cachedBytes.Add(int64(len(data)))
	p.maybeEvict()
	return data, nil
}

// readExtent reads the extent at id from the file and verifies it; the extent must end at or
// before page limit, which bounds what a damaged header can make it allocate. It takes no lock.
func (p *Pager) readExtent(id, limit uint64) ([]byte, error) {
	if id < MetaPages || id >= limit {
		return nil, fmt.Errorf("pager: page id %d outside [%d, %d): %w", id, MetaPages, limit, errs.ErrCorrupt)
	}
	ps := uint64(p.pageSize)
	first := make([]byte, ps)
	if _, err := p.f.ReadAt(first, int64(id*ps)); err != nil {
		return nil, fmt.Errorf("pager: read page %d: %w", id, ioErr(err))
	}
	n := extentPages(first)
	if n > limit-id {
		return nil, fmt.Errorf("pager: page %d: extent of %d pages passes the end: %w", id, n, errs.ErrCorrupt)
	}
	data := first
	if n > 1 {
		data = make([]byte, n*ps)
		copy(data, first)
		if _, err := p.f.ReadAt(data[ps:], int64((id+1)*ps)); err != nil {
			return nil, fmt.Errorf("pager: read page %d: %w", id, ioErr(err))
		}
	}
	return data, p.verifyExtent(id, data)
}

// ioErr marks a short read (the file ends inside a page the meta page says exists) as corruption.
func ioErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("file ends early: %w", errs.ErrCorrupt)
	}
	return err
}

// Allocate returns a new zeroed extent of n pages for the commit with LSN lsn, and its first page
// id. The extent is dirty until a checkpoint writes it. The caller fills it and calls Seal before
// publishing it.
func (p *Pager) Allocate(n int, lsn uint64) (uint64, []byte) {
	return p.allocate(n, lsn, true)
}

// AllocateForOverwrite is Allocate for a caller that writes every byte of the extent: its bytes
// may be those of a page that no version reaches any more, not zeros, which saves clearing it.
func (p *Pager) AllocateForOverwrite(n int, lsn uint64) (uint64, []byte) {
	return p.allocate(n, lsn, false)
}

func (p *Pager) allocate(n int, lsn uint64, zero bool) (uint64, []byte) {
	p.mu.Lock()
	id := p.free.take(uint64(n))
	if id == 0 {
		id = p.pageCount.Load()
		p.pageCount.Store(id + uint64(n))
	}
	p.setDirty(id, dirtyExtent{pages: uint64(n), alloc: lsn})
	data := p.takePooled(n, zero)
	p.mu.Unlock()
	fr := &frame{data: data}
	fr.dirty.Store(true)
	old := p.table.replace(id, fr)
	delta := int64(len(data))
	if old != nil {
		delta -= int64(len(old.data))
	}
	p.cachedBytes.Add(delta)
	return id, data
}

// Free records that the extent of n pages at id, allocated by the commit with LSN alloc (0 if
// unknown), is not part of the version with LSN lsn and later ones. The id is reused only under
// the rules of free.go.
func (p *Pager) Free(id uint64, n int, lsn, alloc uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.dirty[id]; ok {
		if invariants.Enabled {
			assertFreeOrder(p.free.fresh, "fresh", lsn, id)
		}
		p.clearDirty(id)
		p.free.fresh = pushPending(p.free.fresh, lsn, d.alloc, id, uint64(n))
		return
	}
	if invariants.Enabled {
		assertFreeOrder(p.free.durable, "durable", lsn, id)
	}
	p.free.durable = pushPending(p.free.durable, lsn, alloc, id, uint64(n))
}

// Unallocate returns an extent that was allocated but never published (a failed commit).
func (p *Pager) Unallocate(id uint64, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearDirty(id)
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = id + uint64(i)
	}
	p.free.add(ids)
}

// Reclaim makes reusable every freed id whose rules (free.go) hold for readers. REQUIRES:
// readers.Published was loaded before readers.Pinned was collected (see package txn).
//
// The cached content of those ids is dropped and its single-page buffers kept for Allocate: no
// version can reach them, so only a caller that kept a page's bytes (a value, a key) past the end
// of its transaction could see them change, which the API's lifetimes forbid (as bbolt's do).
// With Options.Poison the dropped buffers are filled with poisonByte first, so that such a
// caller sees them change at once.
func (p *Pager) Reclaim(readers Readers) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ready := p.free.reclaim(p.reclaimBuf[:0], readers, p.durable.LSN)
	p.reclaimBuf = ready[:0]
	for _, id := range ready {
		s := p.table.slot(id)
		if fr := s.fr.Load(); fr != nil && s.drop(fr) {
			p.cachedBytes.Add(-int64(len(fr.data)))
			if p.poison {
				fill(fr.data, poisonByte)
			}
			p.keepPooled(fr.data)
		}
	}
}

// fill sets every byte of b to c.
func fill(b []byte, c byte) {
	if len(b) == 0 {
		return
	}
	b[0] = c
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// takePooled returns a buffer for an extent of n pages, a pooled one if it can; a pooled one is
// zeroed if zero is set. REQUIRES: p.mu.
func (p *Pager) takePooled(n int, zero bool) []byte {
	if n != 1 || len(p.pool) == 0 {
		return make([]byte, n*p.pageSize)
	}
	b := p.pool[len(p.pool)-1]
	p.pool[len(p.pool)-1] = nil
	p.pool = p.pool[:len(p.pool)-1]
	if zero {
		clear(b) // no stale bytes of another page reach the file
	}
	return b
}

// keepPooled keeps the buffer of a dropped frame for reuse if it is one whole page and the pool
// has room. REQUIRES: p.mu, and that no version can reach the frame.
func (p *Pager) keepPooled(b []byte) {
	if len(b) == p.pageSize && cap(b) == p.pageSize && (len(p.pool)+1)*p.pageSize <= p.poolBytes() {
		p.pool = append(p.pool, b)
	}
}

// Stats returns a snapshot of the counters.
func (p *Pager) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.PageCount = p.pageCount.Load()
	s.FreePages = len(p.free.ids)
	s.PendingPages = p.free.pendingCount()
	s.DirtyPages = len(p.dirty)
	s.CachedBytes = p.cachedBytes.Load()
	s.CacheMisses, s.Evictions = p.misses.Load(), p.evictions.Load()
	return s
}

// dirtyIDs returns the ids of the live dirty extents in ascending order.
func (p *Pager) dirtyIDs() []uint64 {
	ids := make([]uint64, 0, len(p.dirty))
	for id := range p.dirty {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Accounting returns every page id the pager does not consider in use by the tree: reusable ids,
// ids freed and waiting for reuse, and the extent of the durable meta page's free list. With the
// ids the newest version's tree references, they partition [MetaPages, PageCount()).
// REQUIRES: no commit in progress.
func (p *Pager) Accounting() (reusable, pending, freelist []uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	reusable = slices.Clone(p.free.ids)
	pending = p.free.pending(nil)
	return reusable, pending, extentIDs(p.durable.FreelistID, p.durable.FreelistPages)
}

// PageCount returns the high-water mark: ids [0, PageCount()) are allocated.
func (p *Pager) PageCount() uint64 { return p.pageCount.Load() }

// Shrink lowers the page count past the reusable free pages at the end of the file, taking them
// off the free list, and returns how many pages it dropped. The file keeps its size until a
// checkpoint has recorded the smaller count: then Truncate cuts it. REQUIRES: the caller holds
// the writer slot.
func (p *Pager) Shrink() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	count := p.pageCount.Load()
	n := 0
	for n < len(p.free.ids) && p.free.ids[n] == count-1 && count > MetaPages {
		count--
		n++
	}
	p.free.ids = p.free.ids[n:] // ids are descending: the highest come first
	p.pageCount.Store(count)
	p.shrunk = p.shrunk || n > 0
	return uint64(n)
}

// Truncate cuts the file after its last page in use: the larger of the durable meta page's page
// count and the current one (pages allocated since the checkpoint, by commits that ran beside
// it, lie below the current count), and returns the file's size in bytes. A crash before or
// after it leaves a valid file (bytes past the page count are not part of the format).
func (p *Pager) Truncate() (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	want := int64(max(p.durable.PageCount, p.pageCount.Load())) * int64(p.pageSize)
	if p.fileSize <= want {
		return p.fileSize, nil
	}
	if err := p.f.Truncate(want); err != nil {
		return p.fileSize, fmt.Errorf("pager: truncate file to %d bytes: %w", want, err)
	}
	p.fileSize = want
	return want, nil
}

// FileSize returns the size of the database file in bytes as the pager last set it.
func (p *Pager) FileSize() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fileSize
}

// setDirty and clearDirty change the dirty set and its page count. REQUIRES: p.mu.
func (p *Pager) setDirty(id uint64, d dirtyExtent) {
	p.dirty[id] = d
	p.dirtyPages.Add(int64(d.pages))
}

func (p *Pager) clearDirty(id uint64) {
	if d, ok := p.dirty[id]; ok {
		delete(p.dirty, id)
		p.dirtyPages.Add(-int64(d.pages))
	}
}

// DirtyBytes returns the bytes of extents allocated since the last checkpoint and not written
// yet (they stay in memory until then): one atomic load.
func (p *Pager) DirtyBytes() int64 { return p.dirtyPages.Load() * int64(p.pageSize) }

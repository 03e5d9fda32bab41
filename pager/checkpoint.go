package pager

// Checkpoint write-out. Order, each step durable before the next:
//  1. write every live dirty extent at its id (never over a page the durable meta references),
//     and the free list into a newly allocated extent;
//  2. fdatasync;
//  3. write the meta page in the slot of the older meta page (sequence + 1);
//  4. fdatasync.
// Only then is the previous free-list extent reusable and the caller may drop the WAL up to the
// checkpoint's LSN. A crash before step 4 completes leaves the previous meta page current.

import (
	"fmt"
	"slices"

	"github.com/cairndb/cairn/internal/invariants"
)

// Checkpoint makes the version (root, catalog, lsn) durable in the page file: PrepareCheckpoint,
// then WriteCheckpoint, with the requirements of both (no commit may run during the call).
func (p *Pager) Checkpoint(root, catalog, lsn uint64) error {
	return p.WriteCheckpoint(p.PrepareCheckpoint(root, catalog, lsn))
}

// CheckpointPlan is the in-memory part of a checkpoint, decided while no commit runs: the meta
// page to write, the free list of its version (in an extent taken from the free ids) and the
// dirty extents of that version. WriteCheckpoint writes it while commits go on.
type CheckpointPlan struct {
	meta   Meta
	flBuf  []byte   // the free-list extent's bytes, at meta.FreelistID
	extent []uint64 // first ids of the dirty extents to write, ascending
	// prevFreelist and prevFreelistPages are the durable meta page's free-list extent, reusable
	// once meta is durable.
	prevFreelist, prevFreelistPages uint64
}

// PrepareCheckpoint plans the checkpoint of the version (root, catalog, lsn), where every extent
// of that version is either clean or dirty in this pager and lsn is the newest version: no
// commit may run during the call (REQUIRES: the caller holds the writer slot and all commits are
// durable). Its free-list extent is taken from the free ids at once, so no commit gets it. It
// does no I/O. Readers may run.
func (p *Pager) PrepareCheckpoint(root, catalog, lsn uint64) *CheckpointPlan {
	p.mu.Lock()
	defer p.mu.Unlock()
	if invariants.Enabled {
		p.assertFreeList("PrepareCheckpoint")
	}
	c := &CheckpointPlan{prevFreelist: p.durable.FreelistID, prevFreelistPages: p.durable.FreelistPages}
	freeIDs := p.free.onDisk()
	if c.prevFreelist != 0 {
		for i := range c.prevFreelistPages {
			freeIDs = append(freeIDs, c.prevFreelist+i)
		}
		slices.Sort(freeIDs)
	}
	flID, flBuf := p.freelistExtent(freeIDs, lsn)
	c.flBuf, c.extent = flBuf, p.dirtyIDs()
	c.meta = p.durable
	c.meta.Seq++
	c.meta.LSN, c.meta.Root, c.meta.Catalog, c.meta.PageCount = lsn, root, catalog, p.pageCount.Load()
	c.meta.FreelistID, c.meta.FreelistPages = flID, uint64(len(flBuf)/p.pageSize)
	return c
}

// WriteCheckpoint writes plan c (PrepareCheckpoint) in the order at the top of this file. Commits
// may run meanwhile, as during Flush: the extents it writes are those of c's version, which the
// caller keeps pinned, and the ids commits allocate are free in both the durable meta page and
// c's. An extent of c freed by a commit meanwhile is in the file and referenced by the new meta
// page, so it then waits for the next checkpoint (rule 2), as Flush does. REQUIRES: the caller
// pins the version the plan is for and no Flush, Shrink or other checkpoint runs. On error the durable state
// is unchanged and the free-list extent is given back.
func (p *Pager) WriteCheckpoint(c *CheckpointPlan) error {
	p.mu.Lock()
	err := p.growFile()
	p.mu.Unlock()
	if err == nil {
		err = p.writeOut(c.extent, c.meta.FreelistID, c.flBuf)
	}
	if err == nil {
		err = p.writeMeta(c.meta)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.free.add(extentIDs(c.meta.FreelistID, c.meta.FreelistPages))
		return err
	}
	p.durable = c.meta
	p.shrunk = false
	p.stats.Checkpoints++
	p.markWritten(c.extent)
	if c.prevFreelist != 0 {
		p.free.add(extentIDs(c.prevFreelist, c.prevFreelistPages))
	}
	go p.maybeEvict() // written pages are clean now: evictable
	return nil
}

// freelistExtent allocates and fills the extent that lists freeIDs (which it removes from the
// free set if it takes ids from there).
//
//	Free-list extent: page header (type PageFreelist), then
//	| 24 | 8 | number of ids N |
//	| 32 | 8*N | page ids, ascending |
func (p *Pager) freelistExtent(freeIDs []uint64, lsn uint64) (uint64, []byte) {
	if len(freeIDs) == 0 {
		return 0, nil
	}
	n := FreelistPages(len(freeIDs), p.pageSize)
	id := p.free.take(uint64(n))
	if id == 0 {
		id = p.pageCount.Load()
		p.pageCount.Store(id + uint64(n))
	}
	// The extent's own ids may be in freeIDs: drop them from the list it stores.
	list := slices.DeleteFunc(slices.Clone(freeIDs), func(x uint64) bool { return x >= id && x < id+uint64(n) })
	return id, FreelistImage(id, n, list, p.pageSize, lsn)
}

// writeOut writes the dirty extents ids and the free-list extent flBuf at flID, and fdatasyncs.
// The caller grew the file.
func (p *Pager) writeOut(ids []uint64, flID uint64, flBuf []byte) error {
	if _, err := p.writeExtents(ids); err != nil {
		return fmt.Errorf("pager: checkpoint: %w", err)
	}
	if flID != 0 {
		if _, err := p.f.WriteAt(flBuf, int64(flID)*int64(p.pageSize)); err != nil {
			return fmt.Errorf("pager: checkpoint write free list: %w", err)
		}
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("pager: checkpoint sync: %w", err)
	}
	return nil
}

func (p *Pager) writeMeta(m Meta) error {
	buf := make([]byte, p.pageSize)
	m.encode(buf)
	if _, err := p.f.WriteAt(buf, int64(m.Seq%MetaPages)*int64(p.pageSize)); err != nil {
		return fmt.Errorf("pager: checkpoint write meta page: %w", err)
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("pager: checkpoint sync meta page: %w", err)
	}
	return nil
}

// growFile extends the file so that it holds pageCount pages, in chunks.
func (p *Pager) growFile() error {
	need := int64(p.pageCount.Load()) * int64(p.pageSize)
	if need <= p.fileSize {
		return nil
	}
	grow := min(max(p.fileSize, minGrow), maxGrow)
	size := max(need, p.fileSize+grow)
	size = (size + int64(p.pageSize) - 1) / int64(p.pageSize) * int64(p.pageSize)
	if err := p.f.Truncate(size); err != nil {
		return fmt.Errorf("pager: grow file to %d bytes: %w", size, err)
	}
	p.fileSize = size
	return nil
}

// loadFreelist reads the free-list extent of meta m into the reusable set.
func (p *Pager) loadFreelist(m Meta) error {
	if m.FreelistID == 0 {
		return nil
	}
	buf, err := p.readPage(m.FreelistID)
	if err != nil {
		return fmt.Errorf("pager: free list: %w", err)
	}
	ids, err := decodeFreelist(buf, m)
	if err != nil {
		return err
	}
	p.free.add(ids)
	return nil
}

// Offsets in a free-list extent: the id count, then the ids.
const (
	freelistCount = HeaderSize
	freelistIDs   = HeaderSize + 8
)

func extentIDs(id, n uint64) []uint64 {
	if id == 0 {
		return nil
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = id + uint64(i)
	}
	return ids
}

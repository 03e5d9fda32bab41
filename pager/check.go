package pager

// Integrity-check support: reads that bypass the page cache, the meta pages as the file holds
// them, and the checkpoint's free list. The caller (cairn's DB.Check) holds the writer slot, so
// no commit or checkpoint changes the pager's state meanwhile; readers may run.

import (
	"errors"
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
)

// CheckExtent returns the extent at id as the newest version holds it, verified as a cache miss
// is (range, checksum, then the validator) but without using or filling the cache: an extent
// allocated since the last checkpoint (not in the file yet) is verified in memory, any other is
// read from the file. With fileOnly it is always read from the file, and an extent allocated
// since the checkpoint is an error (the caller walks the checkpoint's tree, whose pages must not
// be reused before the next checkpoint). Errors wrap errs.ErrCorrupt for damage.
func (p *Pager) CheckExtent(id uint64, fileOnly bool) ([]byte, error) {
	if fr, dirty := p.dirtyFrame(id); dirty {
		if fileOnly {
			return nil, fmt.Errorf("pager: page %d: referenced by the checkpoint but reallocated since: %w", id, errs.ErrCorrupt)
		}
		if fr == nil {
			return nil, fmt.Errorf("pager: page %d: allocated since the checkpoint but not in memory: %w", id, errs.ErrCorrupt)
		}
		return fr.data, p.verifyExtent(id, fr.data)
	}
	return p.readExtentFile(id)
}

// dirtyFrame reports whether the extent at id was allocated since the last checkpoint, and its
// frame.
func (p *Pager) dirtyFrame(id uint64) (*frame, bool) {
	p.mu.Lock()
	_, dirty := p.dirty[id]
	p.mu.Unlock()
	if !dirty {
		return nil, false
	}
	return p.table.load(id), true
}

// readExtentFile reads and verifies the extent at id from the file, leaving the cache alone. The
// extent must lie inside both the page count and the file.
func (p *Pager) readExtentFile(id uint64) ([]byte, error) {
	p.mu.Lock()
	inFile := uint64(p.fileSize) / uint64(p.pageSize)
	p.mu.Unlock()
	return p.readExtent(id, min(p.pageCount.Load(), inFile))
}

// verifyExtent checks the header, checksum and structure of extent data at id.
func (p *Pager) verifyExtent(id uint64, data []byte) error {
	if len(data) < p.pageSize || extentPages(data)*uint64(p.pageSize) != uint64(len(data)) {
		return fmt.Errorf("pager: page %d: header says %d pages, extent has %d bytes: %w", id, extentPages(data), len(data), errs.ErrCorrupt)
	}
	if !verify(id, data) {
		return fmt.Errorf("pager: page %d: checksum mismatch: %w", id, errs.ErrCorrupt)
	}
	if p.validate != nil {
		return p.validate(id, data)
	}
	return nil
}

// MetaCheck is what CheckMeta found in the meta pages of the file.
type MetaCheck struct {
	// Problems are inconsistencies, each wrapping errs.ErrCorrupt, and errors reading the file,
	// which wrap the read error instead (a page that could not be read is not known to be damaged).
	Problems []error
	// OtherDamaged, if not nil, says why the meta page that is not the current one fails its
	// checks, where that is the state Open accepted (see cairn's damaged-meta rule) and no
	// checkpoint has run since; the next one rewrites that slot. Other damage to that page is a
	// problem.
	OtherDamaged error
	// FileHoldsCount reports that the file holds every page the current meta page counts, so that
	// page counts can size per-page tables.
	FileHoldsCount bool
}

// CheckMeta reads both meta pages from the file and compares them with the pager's newest durable
// meta page: the current slot must hold exactly that page, the other one (if valid) an older
// checkpoint of the same database; the file must hold every page the current one counts, and the
// pager's page count must not be below it.
func (p *Pager) CheckMeta() MetaCheck {
	var r MetaCheck
	bad := func(format string, a ...any) {
		r.Problems = append(r.Problems, fmt.Errorf("pager: %s: %w", fmt.Sprintf(format, a...), errs.ErrCorrupt))
	}
	readFailed := func(err error) bool {
		if err == nil || errors.Is(err, errs.ErrCorrupt) {
			return false
		}
		r.Problems = append(r.Problems, fmt.Errorf("pager: check meta pages: %w", err))
		return true
	}
	d := p.Durable()
	ps := uint64(d.PageSize)
	cur, curErr := p.readMetaSlot(d.Seq % MetaPages)
	switch {
	case readFailed(curErr):
	case curErr != nil:
		bad("current meta page (slot %d, seq %d): %v", d.Seq%MetaPages, d.Seq, curErr)
	case cur != d:
		bad("meta page in slot %d is %+v, the open database uses %+v", d.Seq%MetaPages, cur, d)
	}
	other, err := p.readMetaSlot((d.Seq + 1) % MetaPages)
	switch {
	case readFailed(err):
	case err != nil && p.openedOnDamage():
		r.OtherDamaged = err
	case err != nil:
		bad("meta page in slot %d (the previous checkpoint): %v", (d.Seq+1)%MetaPages, err)
	case other.DBID != d.DBID || other.PageSize != d.PageSize:
		bad("meta page in slot %d belongs to another database (id %#x, page size %d)", (d.Seq+1)%MetaPages, other.DBID, other.PageSize)
	case other.Seq >= d.Seq:
		bad("meta page in slot %d has sequence %d, not older than the current %d", (d.Seq+1)%MetaPages, other.Seq, d.Seq)
	}
	if d.FreelistID == 0 && d.FreelistPages != 0 {
		bad("current meta page: free-list length %d without a free-list extent", d.FreelistPages)
	}
	size, err := p.f.Size()
	switch {
	case err != nil:
		r.Problems = append(r.Problems, fmt.Errorf("pager: check meta pages: stat: %w", err))
	case uint64(size)/ps < d.PageCount:
		bad("file of %d bytes is shorter than the %d pages of %d bytes the meta page counts", size, d.PageCount, ps)
	default:
		r.FileHoldsCount = true
	}
	p.mu.Lock()
	shrunk := p.shrunk
	p.mu.Unlock()
	if n := p.pageCount.Load(); n < d.PageCount && !shrunk {
		bad("page count %d below the checkpoint's %d", n, d.PageCount)
	}
	return r
}

// openedOnDamage reports whether Open found one meta page damaged and no checkpoint has run since:
// the other slot may then still hold what a crash during a meta write left.
func (p *Pager) openedOnDamage() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.metaDamaged && p.stats.Checkpoints == 0
}

// readMetaSlot reads and decodes meta page slot (0 or 1) from the file.
func (p *Pager) readMetaSlot(slot uint64) (Meta, error) {
	buf := make([]byte, metaSize)
	if _, err := p.f.ReadAt(buf, int64(slot)*int64(p.pageSize)); err != nil {
		return Meta{}, fmt.Errorf("read meta page %d: %w", slot, ioErr(err))
	}
	return decodeMeta(buf)
}

// CheckpointFreelist reads the free-list extent of the newest durable meta page from the file
// and returns the ids it lists (nil if there is none). Errors wrap errs.ErrCorrupt for damage.
func (p *Pager) CheckpointFreelist() ([]uint64, error) {
	d := p.Durable()
	if d.FreelistID == 0 {
		return nil, nil
	}
	buf, err := p.CheckExtent(d.FreelistID, true)
	if err != nil {
		return nil, fmt.Errorf("pager: free list: %w", err)
	}
	return decodeFreelist(buf, d)
}

// DirtyExtents returns the first page ids of the extents allocated since the last checkpoint and
// still live (not freed again).
func (p *Pager) DirtyExtents() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dirtyIDs()
}

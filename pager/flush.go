package pager

import "fmt"

// Flush writes the dirty extents allocated by commits up to LSN upTo to their ids and
// fdatasyncs, without writing a meta page, so that the next Checkpoint, which runs while writers
// wait, has only the extents dirtied since to write. It returns the number of pages written.
//
// Safety: every dirty extent was allocated after the newest durable meta page was written, at an
// id that meta page does not reference, so writing it early cannot damage the durable tree; a
// crash leaves those ids free in the durable free list. Flushed extents count as written from
// then on (clean, evictable; if freed, they wait for a checkpoint like any written page).
//
// REQUIRES: the caller pins version upTo (so no extent Flush writes is freed and reused meanwhile)
// and no Checkpoint or other Flush runs. Commits and readers may run.
func (p *Pager) Flush(upTo uint64) (pages int, err error) {
	p.mu.Lock()
	ids := make([]uint64, 0, len(p.dirty))
	for id, d := range p.dirty {
		if d.alloc <= upTo {
			ids = append(ids, id)
		}
	}
	err = p.growFile()
	p.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if pages, err = p.writeExtents(ids); err != nil {
		return 0, fmt.Errorf("pager: flush: %w", err)
	}
	if err := p.f.Sync(); err != nil {
		return 0, fmt.Errorf("pager: flush sync: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.markWritten(ids)
	return pages, nil
}

// writeExtents writes the dirty extents ids at their ids, without syncing, and returns the pages
// written. The caller grew the file and keeps their version pinned.
func (p *Pager) writeExtents(ids []uint64) (pages int, err error) {
	ps := int64(p.pageSize)
	for _, id := range ids {
		fr := p.table.load(id)
		if fr == nil {
			return 0, fmt.Errorf("dirty page %d is not cached (internal error)", id)
		}
		if _, err := p.f.WriteAt(fr.data, int64(id)*ps); err != nil {
			return 0, fmt.Errorf("write page %d: %w", id, err)
		}
		pages += len(fr.data) / p.pageSize
	}
	return pages, nil
}

// markWritten records that the extents ids are in the file now: one still dirty becomes clean
// (evictable); one freed while it was written waits for a checkpoint like any written page
// (rule 2). REQUIRES: p.mu.
func (p *Pager) markWritten(ids []uint64) {
	for _, id := range ids {
		if _, ok := p.dirty[id]; ok {
			p.clearDirty(id)
			p.table.load(id).dirty.Store(false)
			continue
		}
		p.free.moveToDurable(id)
	}
}

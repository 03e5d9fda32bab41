package pager

// maybeEvict drops clean frames with the CLOCK policy while cached bytes exceed the limit. Only
// one goroutine evicts at a time; others go on without waiting. An evicted extent stays valid for
// whoever holds its bytes and is read back from the file on the next miss.
func (p *Pager) maybeEvict() {
	if p.cacheLimit <= 0 || p.cachedBytes.Load() <= p.cacheLimit || !p.evictMu.TryLock() {
		return
	}
	defer p.evictMu.Unlock()
	count := p.pageCount.Load()
	// Two sweeps clear every reference bit once and then evict; stop early when under the limit.
	for scanned := uint64(0); scanned < 2*count && p.cachedBytes.Load() > p.cacheLimit; scanned++ {
		if p.clockHand < MetaPages || p.clockHand >= count {
			p.clockHand = MetaPages
		}
		id := p.clockHand
		p.clockHand++
		s := p.table.slot(id)
		fr := s.fr.Load()
		if fr == nil || fr.dirty.Load() {
			continue
		}
		if s.ref.Load() != 0 {
			s.ref.Store(0)
			continue
		}
		if s.drop(fr) {
			p.cachedBytes.Add(-int64(len(fr.data)))
			p.evictions.Add(1)
		}
	}
}

package wal

import (
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// recoverSegment replays the WAL file f of database dbID and returns a Writer that appends after the last
// valid record, with last, the LSN of that record, or after if no record is newer than after.
//
// after is the LSN up to which the database's page file is already durable (its last
// checkpoint). recoverSegment calls apply, in LSN order, for every valid record with LSN > after; records
// with LSN <= after (left by a crash between a checkpoint and Reset) are checked but skipped. apply
// is called only once the whole file has been validated, so it never sees a record of a log that
// turns out to be corrupt; payload is a fresh slice that apply may keep.
//
// The replayed records form the valid prefix of the log (see the package documentation). If no
// record is newer than after (those records are durable in the page file), recoverSegment starts a new
// generation (Reset) so that they are dropped. Otherwise the Writer appends at the end of the
// prefix, and recoverSegment first overwrites with zeros, and Syncs, every record beyond it that passes
// its check in the current generation with a newer LSN (an intact record of the torn last batch,
// or one read from the page cache of a crashed process but never fsynced), so that it cannot be
// mistaken for durable data later, nor read as the continuation of records written next. The
// returned Writer expects LSN last+1 next.
//
// A file of size 0, of at most HeaderSize zero bytes, or of exactly HeaderSize bytes without a
// valid header copy (a Create interrupted by a crash, see reader.fresh), holds no records:
// recoverSegment creates the log as Create does and returns last = after.
//
// Errors wrapping errs.ErrCorrupt, returned without changing the file:
//   - "wal: header: ...": a file shorter than the header, or a bad magic, checksum or version;
//   - "wal: WAL format version N is not supported ...": an *errs.VersionError, a header of an
//     older version (a development format no build reads any more);
//   - "wal: belongs to another database ...": the header's database id is not dbID;
//   - "wal: first record has LSN ...": the first record is newer than after+1, so records are
//     missing;
//   - "wal: record at offset N (LSN L) is damaged but later batches are intact": see below.
//
// Damage. The valid prefix ends at the first record that is not valid. That is normal after a
// crash when the record belongs to the last batch, whose write was not (completely) made durable:
// a torn tail, dropped silently. Because the committer writes a batch only after the previous
// batch's fdatasync returned, an intact record of a batch that started after the damaged record's
// batch proves that the damaged batch had been acknowledged as durable: that is corruption.
// recoverSegment therefore scans the rest of the file, from the damaged offset D at 8-byte steps, for a
// record R with a legal length, a matching CRC and R.batch <= R.LSN for which either
//   - R.batch > E, where E is the LSN the damaged record should carry (the previous record's LSN +
//     1, or after+1 when the first record is damaged): a batch starting after E started after the
//     damaged record's batch, whose batch LSN is at most E; or
//   - R.LSN == R.batch == E and R lies beyond D: the record E itself, first of its batch, found
//     beyond the place where it should be, so the damage is in an earlier batch;
//
// and whose LSN leaves room, at 24 bytes per record at least, for records E .. R.LSN-1 between D
// and R (this drops most false matches in payload bytes at no risk). Intact records of the damaged
// record's own batch beyond it (sectors of one unsynced write persisted out of order) have
// R.batch <= E and R.LSN > E, so they match neither case: they are part of the torn tail.
//
// Other errors: vfs errors ("wal: read ...", "wal: size: ...", "wal: recover: ...",
// "wal: create: ..."), and an error of apply, wrapped as "wal: apply LSN n: ..." and returned
// without changing the file. If recoverSegment fails, whatever apply built must be discarded.
// recoverSegment allocates at most the size of the file for a payload, whatever the lengths it reads.
func recoverSegment(f vfs.File, dbID uint64, after uint64,
	apply func(lsn uint64, payload []byte) error) (w *Writer, last uint64, err error) {
	s, err := openSegment(f, dbID)
	if err != nil {
		return nil, 0, err
	}
	if s.fresh {
		return recoverFresh(f, dbID, after)
	}
	if err := s.validate(after); err != nil {
		return nil, 0, err
	}
	if err := s.replay(after, apply); err != nil {
		return nil, 0, err
	}
	return finish(s.r, s.h, s.end, s.last, after, s.h.gen+1)
}

// recoverFresh writes a new file as Create does and returns a Writer expecting LSN after+1.
func recoverFresh(f vfs.File, dbID, after uint64) (*Writer, uint64, error) {
	w, err := Create(f, dbID)
	if err != nil {
		return nil, 0, err
	}
	w.next, w.known = after+1, true
	return w, after, nil
}

// finish prepares the file for appending after the valid prefix ending at end (whose last LSN is
// last, 0 if empty) and returns the Writer. Records no newer than after are durable in the page
// file: if the prefix holds only those, a new generation drops them. Otherwise the Writer appends
// at end, and every record beyond end that would pass its check in this generation with a newer
// LSN (an intact record of the torn last batch) is overwritten with zeros and synced first, so
// that it can never be read as the continuation of records written later. Records of the current
// generation beyond end whose LSN is at most last stay: LSNs only grow, so they can never
// continue the log nor pass for a later batch.
//
// A file that starts a new generation takes generation gen.
func finish(r *reader, h fileHeader, end int64, last, after uint64, gen uint32) (*Writer, uint64, error) {
	w := &Writer{f: r.f, dbID: h.dbID, gen: h.gen, seed: h.seed(), size: end, allocated: r.size,
		next: last + 1, known: true, copyAValid: r.copyAValid}
	if last <= after {
		last, w.next = after, after+1
	}
	if end > HeaderSize && last == after {
		if err := w.restart(gen); err != nil {
			return nil, 0, fmt.Errorf("wal: recover: %w", err)
		}
		return w, last, nil
	}
	dirty, err := r.dirtyEnd(end, last)
	if err != nil {
		return nil, 0, err
	}
	if err := zeroRange(r.f, end, dirty); err != nil {
		return nil, 0, fmt.Errorf("wal: recover: %w", err)
	}
	return w, last, nil
}

// dirtyEnd returns the end of the last record beyond from that passes its CRC check in this
// generation with an LSN above last, or from if there is none.
func (r *reader) dirtyEnd(from int64, last uint64) (int64, error) {
	dirty := from
	for off := from; off+recHeaderSize <= r.size; off += alignment {
		h, err := r.header(off)
		if err != nil {
			return 0, err
		}
		if h.lsn <= last || h.batchFirst > h.lsn || !h.fits(off, r.size) {
			continue
		}
		ok, err := r.crcMatches(off, h)
		if err != nil {
			return 0, err
		}
		if ok {
			dirty = max(dirty, off+h.span())
		}
	}
	return dirty, nil
}

// zeroRange writes zeros over [from, to) of f and Syncs it (nothing if the range is empty).
func zeroRange(f vfs.File, from, to int64) error {
	if to <= from {
		return nil
	}
	if err := writeZeros(f, from, to); err != nil {
		return fmt.Errorf("zero the torn tail: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// validPrefix walks the valid records from HeaderSize and returns the offset where they end and
// the LSN of the last one (0 if there is none). If the prefix ends before the end of the file, it
// checks that the damage is a torn tail.
func (r *reader) validPrefix(after uint64) (end int64, last uint64, err error) {
	off, have := int64(HeaderSize), false
	for {
		h, ok, err := r.valid(off)
		if err != nil {
			return 0, 0, err
		}
		if !ok || h.batchFirst > h.lsn || (have && h.lsn != last+1) {
			break
		}
		if !have && h.lsn > after && h.lsn-after > 1 {
			return 0, 0, fmt.Errorf("wal: first record has LSN %d but the page file ends at LSN %d: "+
				"records %d..%d are missing: %w", h.lsn, after, after+1, h.lsn-1, errs.ErrCorrupt)
		}
		last, have = h.lsn, true
		off += h.span()
	}
	if off < r.size {
		expect := after + 1
		if have {
			expect = last + 1
		}
		if err := r.checkTornTail(off, expect); err != nil {
			return 0, 0, err
		}
	}
	return off, last, nil
}

// checkTornTail returns an error wrapping errs.ErrCorrupt if an intact record of a batch later
// than that of the damaged record at from, which should carry LSN expect, lies at or beyond from
// (see recoverSegment for the rule).
func (r *reader) checkTornTail(from int64, expect uint64) error {
	for off := from; off+recHeaderSize <= r.size; off += alignment {
		h, err := r.header(off)
		if err != nil {
			return err
		}
		if !laterBatch(h, off, from, expect) || !h.fits(off, r.size) {
			continue
		}
		ok, err := r.crcMatches(off, h)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("wal: record at offset %d (LSN %d) is damaged but later batches are intact "+
				"(offset %d holds LSN %d of batch %d): %w", from, expect, off, h.lsn, h.batchFirst, errs.ErrCorrupt)
		}
	}
	return nil
}

// laterBatch reports whether the record header h at off, beyond or at the damaged offset from where
// LSN expect should be, claims a batch that started after the damaged record's batch (before its
// CRC is checked).
func laterBatch(h recHeader, off, from int64, expect uint64) bool {
	switch {
	case h.batchFirst > h.lsn:
		return false
	case h.batchFirst == expect && h.lsn == expect:
		return off > from
	case h.batchFirst <= expect:
		return false
	}
	// Records expect .. h.lsn-1 lie between from and off, each at least recHeaderSize bytes long.
	return h.lsn-expect <= uint64(off-from)/recHeaderSize
}

// replay calls apply for every record with LSN > after in the valid prefix [HeaderSize, end).
func (r *reader) replay(end int64, after uint64, apply func(lsn uint64, payload []byte) error) error {
	for off := int64(HeaderSize); off < end; {
		h, err := r.header(off)
		if err != nil {
			return err
		}
		if h.lsn > after {
			p, err := r.payload(off, h)
			if err != nil {
				return err
			}
			if err := apply(h.lsn, p); err != nil {
				return fmt.Errorf("wal: apply LSN %d: %w", h.lsn, err)
			}
		}
		off += h.span()
	}
	return nil
}

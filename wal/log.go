package wal

// Invariants of a Log (two segment files written in turn):
//   - every header written takes a generation above both segments' (maxGen+1), so that
//     generations never repeat and order the segments: the older holds the earlier records;
//   - batches go to the current segment only; the other one is the spare;
//   - the spare is ready when its generation is the highest and it holds no valid record (its old
//     records fail their CRC in the new generation), so that Rotate needs no I/O. A segment is
//     made a spare only once every record it holds is durable in the page file (the caller's
//     checkpoint covers its last LSN);
//   - a rotation keeps LSNs consecutive: the first record of the new current segment continues
//     the last of the old one, so recovery replays the older segment, then the newer.

import (
	"fmt"
	"sync"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// Log is the WAL of a database: two segment files of the format the package documentation
// describes, one current and one spare. Batches are appended to the current segment. A
// checkpoint calls Rotate (the spare becomes current, with no I/O), makes every record of the old
// segment durable in the page file while batches go on into the new one, and then calls
// PrepareSpare, which starts a new generation in the old segment. So a checkpoint never waits for
// the log to be emptied, nor makes writers wait for it. The idea is that of log segments in
// PostgreSQL or the WAL files of RocksDB and Pebble, reduced to two recycled files.
//
// Concurrency: WriteBatch, Rotate, Shrink and Reset need exclusive use of the current segment (the
// Committer runs them one at a time, Rotate and Shrink through Committer.Do). PrepareSpare may run
// at the same time as batches: it writes only the spare segment.
type Log struct {
	segs [2]*Writer
	cur  int // index of the current segment; written only by Rotate, under mu and Committer.Do

	mu         sync.Mutex // serializes Rotate, PrepareSpare, Reset and Shrink
	maxGen     uint32     // highest generation of either segment's header
	spareReady bool
}

// CreateLog makes f0 and f1 an empty Log of database dbID: f0 becomes the current segment
// (generation 1), f1 a ready spare (generation 2); both are written as Create does. Creating the
// directory entries durably (FS.SyncDir) is the caller's job. Errors are those of Create.
func CreateLog(f0, f1 vfs.File, dbID uint64) (*Log, error) {
	w0, err := createGen(f0, dbID, 1)
	if err != nil {
		return nil, err
	}
	w1, err := createGen(f1, dbID, 2)
	if err != nil {
		return nil, err
	}
	return newLog([2]*Writer{w0, w1}, 0, 2, true), nil
}

// newLog returns a Log over segs, current cur, whose segments grow ahead of the writer.
func newLog(segs [2]*Writer, cur int, maxGen uint32, spareReady bool) *Log {
	for _, w := range segs {
		w.ahead = true
	}
	return &Log{segs: segs, cur: cur, maxGen: maxGen, spareReady: spareReady}
}

// WriteBatch appends recs to the current segment (see Writer.WriteBatch).
func (l *Log) WriteBatch(recs []Record) error { return l.segs[l.cur].WriteBatch(recs) }

// Size returns the logical end offset of the current segment in bytes (Writer.Size): HeaderSize
// when nothing was written to it since it became current.
func (l *Log) Size() int64 { return l.segs[l.cur].Size() }

// SetSync sets Writer.SetSync on both segments.
func (l *Log) SetSync(sync bool) {
	for _, w := range l.segs {
		w.SetSync(sync)
	}
}

// SyncStats returns the fdatasync counters of both segments' batches, summed (see
// Writer.SyncStats); it may be called from any goroutine.
func (l *Log) SyncStats() SyncStats {
	a, b := l.segs[0].SyncStats(), l.segs[1].SyncStats()
	a.Syncs += b.Syncs
	a.Total += b.Total
	for i := range a.Histogram {
		a.Histogram[i] += b.Histogram[i]
	}
	return a
}

// failure returns the sticky error of the current segment.
func (l *Log) failure() error { return l.segs[l.cur].err }

// NeedsReset reports whether the caller must checkpoint everything RecoverLog replayed and then
// call Reset before writing: both segments hold records newer than the page file, so neither can
// be made a spare before a checkpoint.
func (l *Log) NeedsReset() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.spareReady
}

// Rotate makes the ready spare the current segment, at no I/O cost: later batches go to it, with
// LSNs continuing those of the old segment, which keeps its records until PrepareSpare. It
// returns an error if the spare is not ready (a caller's bug: call PrepareSpare after each
// checkpoint). Run it between batches (Committer.Do).
func (l *Log) Rotate() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.spareReady {
		return fmt.Errorf("wal: rotate: the spare segment is not ready (internal error)")
	}
	old, next := l.segs[l.cur], l.segs[1-l.cur]
	next.next, next.known, next.noSync = old.next, old.known, old.noSync
	next.buf, old.buf = old.buf, nil // the encode buffer moves with the batches
	l.cur = 1 - l.cur
	l.spareReady = false
	return nil
}

// PrepareSpare makes the segment that is not current a ready spare: it starts a new generation
// in it (two header writes, each fdatasynced; Writer.Reset), after which its records never
// validate again. REQUIRES: every record of that segment is durable in the page file (a
// checkpoint covered its last LSN). It does nothing if the spare is ready already. Batches may be
// written meanwhile. Errors are those of Writer.Reset; after one the spare stays unready and
// Rotate fails.
func (l *Log) PrepareSpare() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.prepareSpareLocked()
}

func (l *Log) prepareSpareLocked() error {
	if l.spareReady {
		return nil
	}
	sp := l.segs[1-l.cur]
	if err := sp.restart(l.maxGen + 1); err != nil {
		return err
	}
	l.maxGen, l.spareReady = sp.gen, true
	return nil
}

// Reset drops every record of both segments: it starts a new generation in the current segment
// and then prepares the spare. REQUIRES: everything the Log holds is durable in the page file
// (see NeedsReset), and no batch runs. Errors are those of Writer.Reset; the current segment's
// make the Log failed.
func (l *Log) Reset() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.segs[l.cur]
	if err := cur.restart(l.maxGen + 1); err != nil {
		return err
	}
	l.maxGen = cur.gen
	l.spareReady = false
	return l.prepareSpareLocked()
}

// Shrink cuts the current segment, if it is empty, and a ready spare back to InitialSize bytes
// (Writer.Shrink). Run it between batches (Committer.Do).
func (l *Log) Shrink() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.segs[l.cur].Shrink(); err != nil {
		return err
	}
	if l.spareReady {
		return l.segs[1-l.cur].Shrink()
	}
	return nil
}

// WaitGrowth waits until no segment is being grown ahead of the writer (Writer.growAhead): call
// it before closing the files (after the Committer's Close, or when abandoning the Log).
func (l *Log) WaitGrowth() {
	for _, w := range l.segs {
		w.waitGrowth()
	}
}

// RecoverLog replays the two segment files f0 and f1 of database dbID, as recoverSegment does for one
// file, and returns a Log that appends after the last valid record, with last, the LSN of that
// record, or after if no record is newer than after.
//
// The segments are ordered by their header's generation (a file that holds no WAL yet, as
// recoverSegment defines it, counts as an empty segment older than any other); the valid prefix of
// the older one is checked with after, that of the newer one with the older's last LSN (or
// after, if larger), as recoverSegment checks one file, and both are validated before apply sees a
// record. The newer segment is current if it holds a record, else the older one is. The other
// becomes a ready spare (PrepareSpare) unless it holds records newer than after: then NeedsReset
// reports true and the caller must checkpoint and Reset. The current segment is finished as
// recoverSegment finishes its file (torn tail zeroed, or a new generation if it holds nothing newer than
// after); two empty files are created as CreateLog does.
//
// Errors are those of recoverSegment, prefixed with the segment's index, and these, wrapping
// errs.ErrCorrupt: two segments with the same generation; two segments that both hold records
// but do not continue each other (the newer one's first LSN is not the older one's last + 1:
// records of the older one were lost).
func RecoverLog(f0, f1 vfs.File, dbID, after uint64,
	apply func(lsn uint64, payload []byte) error) (l *Log, last uint64, err error) {
	var s [2]*segScan
	for i, f := range [2]vfs.File{f0, f1} {
		if s[i], err = openSegment(f, dbID); err != nil {
			return nil, 0, fmt.Errorf("segment %d: %w", i, err)
		}
	}
	if s[0].fresh && s[1].fresh {
		l, err := CreateLog(f0, f1, dbID)
		if err != nil {
			return nil, 0, err
		}
		l.segs[0].next, l.segs[0].known = after+1, true
		return l, after, nil
	}
	o, n, err := orderSegments([2]int64{s[0].rank(), s[1].rank()})
	if err != nil {
		return nil, 0, err
	}
	last, err = validateSegments(s[o], s[n], o, n, after)
	if err != nil {
		return nil, 0, err
	}
	if err := s[o].replay(after, apply); err != nil {
		return nil, 0, err
	}
	if err := s[n].replay(max(after, s[o].last), apply); err != nil {
		return nil, 0, err
	}
	cur := n
	if s[o].have && !s[n].have {
		cur = o
	}
	return finishLog(s, cur, last, after)
}

// validateSegments checks the valid prefixes of the older segment o and the newer n (indexes io
// and in), and that they continue each other; it returns the last valid LSN, or after.
func validateSegments(o, n *segScan, io, in int, after uint64) (uint64, error) {
	if err := o.validate(after); err != nil {
		return 0, fmt.Errorf("segment %d: %w", io, err)
	}
	if err := n.validate(max(after, o.last)); err != nil {
		return 0, fmt.Errorf("segment %d: %w", in, err)
	}
	if err := checkContinues(io, in, o.have && n.have, o.last, n.first); err != nil {
		return 0, err
	}
	return max(after, o.last, n.last), nil
}

// orderSegments returns the indexes of the older and the newer segment from their ranks
// (segmentRank). Two segments with a header and the same generation are damage (ErrCorrupt):
// their order is unknown.
func orderSegments(rank [2]int64) (older, newer int, err error) {
	older, newer = 0, 1
	if rank[1] < rank[0] {
		older, newer = 1, 0
	}
	if rank[0] == rank[1] && rank[0] >= 0 {
		return older, newer, fmt.Errorf("wal: both segments have generation %d: %w", rank[0], errs.ErrCorrupt)
	}
	return older, newer, nil
}

// checkContinues reports damage (ErrCorrupt) when two segments that both hold records (both) do
// not continue each other: the newer one's first LSN must be the older one's last + 1, else
// records of the older one, which the newer ones prove durable, are lost.
func checkContinues(older, newer int, both bool, olderLast, newerFirst uint64) error {
	if both && newerFirst != olderLast+1 {
		return fmt.Errorf("wal: segment %d ends at LSN %d but the newer segment %d starts at LSN %d: %w",
			older, olderLast, newer, newerFirst, errs.ErrCorrupt)
	}
	return nil
}

// finishLog finishes segment cur for appending after last and makes the other one a ready spare,
// unless it holds records newer than after.
func finishLog(s [2]*segScan, cur int, last, after uint64) (*Log, uint64, error) {
	maxGen := max(s[0].h.gen, s[1].h.gen)
	w, last, err := finish(s[cur].r, s[cur].h, s[cur].end, last, after, maxGen+1)
	if err != nil {
		return nil, 0, err
	}
	var segs [2]*Writer
	segs[cur], segs[1-cur] = w, s[1-cur].writer()
	l := newLog(segs, cur, max(maxGen, w.gen), false)
	sp := s[1-cur]
	if sp.have && sp.last > after {
		return l, last, nil // NeedsReset: the caller checkpoints first
	}
	if err := l.prepareSpareLocked(); err != nil {
		return nil, 0, fmt.Errorf("wal: recover: %w", err)
	}
	return l, last, nil
}

// segScan is what recovery learnt of one segment file before changing anything.
type segScan struct {
	r     *reader
	dbID  uint64
	h     fileHeader // zero for a fresh file
	fresh bool       // no header, no record (reader.fresh)
	end   int64      // end of the valid prefix of records
	have  bool       // the valid prefix holds a record
	first uint64     // LSN of the first record of the valid prefix, if have
	last  uint64     // LSN of the last record of the valid prefix, if have
}

// openSegment reads the header of segment file f and checks its database id.
func openSegment(f vfs.File, dbID uint64) (*segScan, error) {
	size, err := f.Size()
	if err != nil {
		return nil, fmt.Errorf("wal: size: %w", err)
	}
	s := &segScan{r: newReader(f, size, 0), dbID: dbID}
	if s.fresh, err = s.r.fresh(); err != nil || s.fresh {
		return s, err
	}
	if s.h, err = s.r.readHeader(); err != nil {
		return nil, err
	}
	if err := s.h.checkDBID(dbID); err != nil {
		return nil, err
	}
	s.end = HeaderSize
	return s, nil
}

// rank orders segments (segmentRank).
func (s *segScan) rank() int64 { return segmentRank(s.fresh, s.h.gen) }

// segmentRank is the order in which recovery reads segments: a file without a WAL yet first,
// then by generation, the older first.
func segmentRank(fresh bool, gen uint32) int64 {
	if fresh {
		return -1
	}
	return int64(gen)
}

// OlderNewer returns the indexes of the older and the newer of two segments as Scan described
// them, in the order RecoverLog and ScanLog read them (a file without a WAL yet is the older).
func OlderNewer(info [2]ScanInfo) (older, newer int) {
	older, newer, _ = orderSegments([2]int64{
		segmentRank(info[0].Fresh, info[0].Generation), segmentRank(info[1].Fresh, info[1].Generation)})
	return older, newer
}

// validate walks the valid prefix of the segment's records for a page file durable up to LSN
// after (Reader.validPrefix).
func (s *segScan) validate(after uint64) error {
	if s.fresh {
		return nil
	}
	end, last, err := s.r.validPrefix(after)
	if err != nil {
		return err
	}
	s.end, s.have = end, end > HeaderSize
	if s.have {
		h, err := s.r.header(HeaderSize)
		if err != nil {
			return err
		}
		s.first, s.last = h.lsn, last
	}
	return nil
}

// replay calls apply for the records of the valid prefix newer than after.
func (s *segScan) replay(after uint64, apply func(lsn uint64, payload []byte) error) error {
	if !s.have {
		return nil
	}
	return s.r.replay(s.end, after, apply)
}

// writer returns a Writer over the segment as it is, not to be written to before a Reset (the
// spare: PrepareSpare or Log.Reset start a new generation in it first).
func (s *segScan) writer() *Writer {
	return &Writer{f: s.r.f, dbID: s.dbID, gen: s.h.gen, seed: s.h.seed(), size: s.end,
		allocated: s.r.size, copyAValid: s.r.copyAValid}
}

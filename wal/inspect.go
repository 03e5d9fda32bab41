package wal

import (
	"errors"
	"fmt"
	"io"

	"github.com/cairndb/cairn/internal/errs"
)

// RecordInfo is one record of a WAL file as Scan read it.
type RecordInfo struct {
	// Offset is the file offset of the record's header.
	Offset int64
	// LSN is the record's log sequence number; Batch the LSN of the first record of its batch.
	LSN, Batch uint64
	// Payload is a fresh copy of the record's payload (the redo payload of one transaction).
	Payload []byte
}

// ScanInfo describes the WAL file that Scan read.
type ScanInfo struct {
	// Fresh is set when the file holds no WAL yet (see recoverSegment: size 0, at most HeaderSize zero
	// bytes, or a torn creation): there is no header and no record, and the other fields are
	// zero but Size.
	Fresh bool
	// Version, DBID and Generation are the format version, database id and generation of the
	// header (of its current copy).
	Version    uint32
	DBID       uint64
	Generation uint32
	// Size is the file size in bytes.
	Size int64
	// End is the offset where the valid prefix of records ends (HeaderSize if it is empty).
	// Bytes from End to Size are a torn tail (or, if Scan returned a corruption error, damage).
	End int64
	// Records is the number of records in the valid prefix; Skipped how many of them have an
	// LSN at or below after (already in the page file) and were not passed to fn.
	Records, Skipped int
	// First and Last are the LSNs of the first and last record of the valid prefix (0 if none).
	First, Last uint64
}

// Scan reads the WAL file r, size bytes long, for inspection, without writing to it. It checks
// the header (size, magic, checksum, version; any database id is accepted and returned in
// ScanInfo.DBID), walks the valid prefix of records exactly as recoverSegment does for a page file
// checkpointed at LSN after, and calls fn, in LSN order, for every record of the prefix with
// LSN > after. An error of fn stops the scan and is returned as it is.
//
// Errors wrapping errs.ErrCorrupt are those recoverSegment returns without changing the file: a bad
// header, a first record newer than after+1 (records missing), or damage before the end of the
// file that is not a torn tail. In the last case fn has already seen every record of the valid
// prefix and the ScanInfo is filled in. Other errors are read errors of r. Scan allocates at most
// the size of the file for a payload, whatever lengths it reads.
func Scan(r io.ReaderAt, size int64, after uint64, fn func(RecordInfo) error) (ScanInfo, error) {
	info := ScanInfo{Size: size, End: HeaderSize}
	rd := newReader(readOnlyFile{r}, size, 0)
	fresh, err := rd.fresh()
	if err != nil || fresh {
		info.Fresh = fresh
		return info, err
	}
	h, err := rd.readHeader()
	if err != nil {
		return info, err
	}
	info.Version, info.DBID, info.Generation = h.version, h.dbID, h.gen
	return info, rd.scan(&info, after, fn)
}

// scan walks the valid prefix from HeaderSize, as validPrefix does, calling fn for the records
// newer than after, then checks that what follows the prefix is a torn tail.
func (r *reader) scan(info *ScanInfo, after uint64, fn func(RecordInfo) error) error {
	off := int64(HeaderSize)
	for {
		h, ok, err := r.valid(off)
		if err != nil {
			return err
		}
		if !ok || h.batchFirst > h.lsn || (info.Records > 0 && h.lsn != info.Last+1) {
			break
		}
		if info.Records == 0 && h.lsn > after && h.lsn-after > 1 {
			return fmt.Errorf("wal: first record has LSN %d but the page file ends at LSN %d: "+
				"records %d..%d are missing: %w", h.lsn, after, after+1, h.lsn-1, errs.ErrCorrupt)
		}
		if err := r.visit(info, off, h, after, fn); err != nil {
			return err
		}
		off += h.span()
		info.End = off
	}
	if off >= r.size {
		return nil
	}
	expect := after + 1
	if info.Records > 0 {
		expect = info.Last + 1
	}
	return r.checkTornTail(off, expect)
}

// visit counts the valid record at off with header h and passes it to fn if it is newer than
// after.
func (r *reader) visit(info *ScanInfo, off int64, h recHeader, after uint64, fn func(RecordInfo) error) error {
	if info.Records == 0 {
		info.First = h.lsn
	}
	info.Records++
	info.Last = h.lsn
	if h.lsn <= after {
		info.Skipped++
		return nil
	}
	p, err := r.payload(off, h)
	if err != nil {
		return err
	}
	return fn(RecordInfo{Offset: off, LSN: h.lsn, Batch: h.batchFirst, Payload: p})
}

// readOnlyFile lets the recovery reader, which reads through a vfs.File, read an io.ReaderAt.
// Its writing methods fail: Scan never writes.
type readOnlyFile struct{ io.ReaderAt }

var errReadOnly = errors.New("wal: scan: the file is read-only")

func (readOnlyFile) WriteAt([]byte, int64) (int, error) { return 0, errReadOnly }
func (readOnlyFile) Sync() error                        { return errReadOnly }
func (readOnlyFile) Truncate(int64) error               { return errReadOnly }
func (readOnlyFile) Size() (int64, error)               { return 0, errReadOnly }
func (readOnlyFile) Close() error                       { return nil }

// Segment is one segment file of a Log for ScanLog: its reader and size in bytes.
type Segment struct {
	R    io.ReaderAt
	Size int64
}

// ScanLog is Scan over the two segment files of a Log, without writing to them: it orders them
// by generation as RecoverLog does (a fresh file first), scans the older with after and the newer
// with the older's last LSN (or after, if larger), calling fn for the records newer than after in
// LSN order, and returns the ScanInfo of each segment in the order given. Errors are those of
// Scan, prefixed with the segment's index, and those of RecoverLog that wrap errs.ErrCorrupt
// (two segments of one generation; segments that do not continue each other).
func ScanLog(segs [2]Segment, after uint64, fn func(RecordInfo) error) ([2]ScanInfo, error) {
	var info [2]ScanInfo
	var rank [2]int64
	for i, s := range segs {
		fresh, h, err := peekHeader(s)
		if err != nil {
			return info, fmt.Errorf("segment %d: %w", i, err)
		}
		rank[i] = segmentRank(fresh, h.gen)
	}
	o, n, err := orderSegments(rank)
	if err != nil {
		return info, err
	}
	if info[o], err = Scan(segs[o].R, segs[o].Size, after, fn); err != nil {
		return info, fmt.Errorf("segment %d: %w", o, err)
	}
	if info[n], err = Scan(segs[n].R, segs[n].Size, max(after, info[o].Last), fn); err != nil {
		return info, fmt.Errorf("segment %d: %w", n, err)
	}
	return info, checkContinues(o, n, info[o].Records > 0 && info[n].Records > 0, info[o].Last, info[n].First)
}

// peekHeader reads the header of segment s: fresh is set for a file that holds no WAL yet.
func peekHeader(s Segment) (fresh bool, h fileHeader, err error) {
	rd := newReader(readOnlyFile{s.R}, s.Size, 0)
	if fresh, err = rd.fresh(); err != nil || fresh {
		return fresh, h, err
	}
	h, err = rd.readHeader()
	return false, h, err
}

package wal

import "io"

// ScanPrefix is Scan for salvage: it reads the WAL file r, size bytes long, without writing to
// it, and calls fn, in LSN order, for every record of the valid prefix with LSN > after. Unlike
// Scan it accepts a prefix whose first record is newer than after+1 (records missing between the
// page file and the WAL): the caller sees ScanInfo.First and decides what the gap means. The
// prefix ends, as in recoverSegment, at the first record that is not valid (bad length, checksum or
// batch LSN) or whose LSN does not follow the previous one.
//
// Errors wrapping errs.ErrCorrupt: a bad header (size, magic, checksum, version), and damage after
// the prefix that is not a torn tail (an intact record of a later batch follows it: see recoverSegment);
// in the last case fn has seen every record of the prefix and the ScanInfo is filled in. Other
// errors are read errors of r and errors of fn, returned as they are. It allocates at most the
// size of the file for a payload.
func ScanPrefix(r io.ReaderAt, size int64, after uint64, fn func(RecordInfo) error) (ScanInfo, error) {
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
	info.Version, info.DBID, info.Generation, info.End = h.version, h.dbID, h.gen, HeaderSize
	off := int64(HeaderSize)
	for {
		h, ok, err := rd.valid(off)
		if err != nil {
			return info, err
		}
		if !ok || h.batchFirst > h.lsn || (info.Records > 0 && h.lsn != info.Last+1) {
			break
		}
		if err := rd.visit(&info, off, h, after, fn); err != nil {
			return info, err
		}
		off += h.span()
		info.End = off
	}
	if off >= size {
		return info, nil
	}
	expect := after + 1
	if info.Records > 0 {
		expect = info.Last + 1
	}
	return info, rd.checkTornTail(off, expect)
}

package wal

import (
	"fmt"
	"hash/crc32"
	"io"

	"github.com/cairndb/cairn/internal/vfs"
)

// windowSize is the size in bytes of the read-ahead window used by recovery.
const windowSize = 64 << 10

// reader reads a WAL file through a read-ahead window, so that scanning small records costs one
// ReadAt per window rather than one per record.
type reader struct {
	f    vfs.File
	size int64
	seed uint32
	// copyAValid is set by readHeader when the header copy at offset 0 is valid.
	copyAValid bool
	buf        []byte // windowSize bytes of storage
	win        []byte // the bytes of the file at winOff, a prefix of buf
	winOff     int64
}

func newReader(f vfs.File, size int64, seed uint32) *reader {
	return &reader{f: f, size: size, seed: seed, buf: make([]byte, windowSize)}
}

// at returns the n bytes at off (n <= windowSize, off+n <= r.size). The slice is valid until the
// next call.
func (r *reader) at(off int64, n int) ([]byte, error) {
	if off >= r.winOff && off+int64(n) <= r.winOff+int64(len(r.win)) {
		i := off - r.winOff
		return r.win[i : i+int64(n)], nil
	}
	m := min(int64(len(r.buf)), r.size-off)
	r.win = nil
	if err := readFull(r.f, r.buf[:m], off); err != nil {
		return nil, err
	}
	r.win, r.winOff = r.buf[:m], off
	return r.win[:n], nil
}

// header reads and decodes the record header at off (off+recHeaderSize <= r.size).
func (r *reader) header(off int64) (recHeader, error) {
	b, err := r.at(off, recHeaderSize)
	if err != nil {
		return recHeader{}, err
	}
	return parseRecHeader(b), nil
}

// valid reports whether the record at off has a legal length, lies inside the file and has a
// matching CRC. It does not look at LSNs.
func (r *reader) valid(off int64) (recHeader, bool, error) {
	if off+recHeaderSize > r.size {
		return recHeader{}, false, nil
	}
	h, err := r.header(off)
	if err != nil || !h.fits(off, r.size) {
		return h, false, err
	}
	ok, err := r.crcMatches(off, h)
	return h, ok, err
}

// crcMatches computes the CRC of the record at off with header h (which must fit in the file),
// reading bytes [off+4, off+24+length) a window at a time, and compares it with the stored one.
func (r *reader) crcMatches(off int64, h recHeader) (bool, error) {
	crc := r.seed
	pos, n := off+4, int64(recHeaderSize-4)+int64(h.length)
	for n > 0 {
		k := min(n, windowSize)
		b, err := r.at(pos, int(k))
		if err != nil {
			return false, err
		}
		crc = crc32.Update(crc, castagnoli, b)
		pos, n = pos+k, n-k
	}
	return crc == h.crc, nil
}

// payload returns a fresh copy of the payload of the record at off with header h.
func (r *reader) payload(off int64, h recHeader) ([]byte, error) {
	p := make([]byte, h.length)
	pos := off + recHeaderSize
	if len(p) == 0 {
		return p, nil
	}
	if len(p) > windowSize {
		return p, readFull(r.f, p, pos)
	}
	b, err := r.at(pos, len(p))
	if err != nil {
		return nil, err
	}
	copy(p, b)
	return p, nil
}

// readFull fills p from f at off.
func readFull(f vfs.File, p []byte, off int64) error {
	n, err := f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("wal: read %d bytes at offset %d: %w", len(p), off, err)
}

package wal

import (
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
)

// readHeader reads the file header: in a version 2 file, the valid copy with the higher
// generation (a torn write of one copy during Reset leaves the other); in a version 1 file, its
// only copy. It sets the reader's CRC seed. Errors wrap errs.ErrCorrupt, but for read errors.
func (r *reader) readHeader() (fileHeader, error) {
	if r.size < headerCopySize {
		return fileHeader{}, fmt.Errorf("wal: header: file of %d bytes is shorter than the %d-byte header: %w",
			r.size, headerCopySize, errs.ErrCorrupt)
	}
	b, err := r.at(0, headerCopySize)
	if err != nil {
		return fileHeader{}, err
	}
	a, errA := decodeHeaderCopy(b)
	r.copyAValid = errA == nil
	if errA == nil && a.version == formatVersion1 {
		r.seed, r.start = a.seed(), a.start
		return a, nil
	}
	h, err := r.copyB()
	switch {
	case err != nil && errA != nil:
		return fileHeader{}, errA
	case err != nil || (errA == nil && a.gen >= h.gen):
		h = a
	}
	r.seed, r.start = h.seed(), h.start
	return h, nil
}

// copyB reads the second header copy of a version 2 file.
func (r *reader) copyB() (fileHeader, error) {
	if r.size < headerCopyB+headerCopySize {
		return fileHeader{}, fmt.Errorf("wal: header: no second copy: %w", errs.ErrCorrupt)
	}
	b, err := r.at(headerCopyB, headerCopySize)
	if err != nil {
		return fileHeader{}, err
	}
	h, err := decodeHeaderCopy(b)
	if err == nil && h.version != formatVersion && h.version != formatVersion2 {
		return fileHeader{}, fmt.Errorf("wal: header: second copy of version %d: %w", h.version, errs.ErrCorrupt)
	}
	return h, err
}

// fresh reports whether the file holds no WAL yet: it is empty, or it is at most HeaderSize
// bytes that are all zero, or exactly HeaderSize bytes of which no header copy is valid. The last
// two are a creation (Create, or a spare segment started in an empty file) interrupted by a
// crash: creation writes the header region at once into an empty file and syncs it before it
// extends the file, so a torn header write leaves exactly HeaderSize bytes, possibly garbage in
// both copies' sectors, and nothing was ever written after them. A longer file without a valid
// header is damage. (A version 1 file of exactly HeaderSize bytes whose header is damaged would
// read as fresh too: version 1 is read only, and such a file has never been seen.)
func (r *reader) fresh() (bool, error) {
	if r.size == 0 {
		return true, nil
	}
	if r.size > HeaderSize {
		return false, nil
	}
	b, err := r.at(0, int(r.size))
	if err != nil {
		return false, err
	}
	if r.size == HeaderSize && !anyValidHeaderCopy(b) {
		return true, nil
	}
	for _, c := range b {
		if c != 0 {
			return false, nil
		}
	}
	return true, nil
}

// anyValidHeaderCopy reports whether the header region b holds a valid header copy (either copy
// of version 2 or 3, or a version 1 header).
func anyValidHeaderCopy(b []byte) bool {
	_, errA := decodeHeaderCopy(b[:headerCopySize])
	_, errB := decodeHeaderCopy(b[headerCopyB : headerCopyB+headerCopySize])
	return errA == nil || errB == nil
}

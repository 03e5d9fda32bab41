package wal

import (
	"errors"
	"fmt"

	"github.com/cairndb/cairn/internal/errs"
)

// readHeader reads the file header: the valid copy with the higher generation (a torn write of
// one copy during Reset leaves the other). It sets the reader's CRC seed. Errors wrap
// errs.ErrCorrupt, but for read errors; a header of an older version is an *errs.VersionError.
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
	h, errB := r.copyB()
	switch {
	case errB != nil && errA != nil:
		if isVersionError(errB) && !isVersionError(errA) {
			return fileHeader{}, errB
		}
		return fileHeader{}, errA
	case errB != nil || (errA == nil && a.gen >= h.gen):
		h = a
	}
	r.seed = h.seed()
	return h, nil
}

// isVersionError reports whether err is an *errs.VersionError.
func isVersionError(err error) bool {
	var v *errs.VersionError
	return errors.As(err, &v)
}

// copyB reads the second header copy.
func (r *reader) copyB() (fileHeader, error) {
	if r.size < headerCopyB+headerCopySize {
		return fileHeader{}, fmt.Errorf("wal: header: no second copy: %w", errs.ErrCorrupt)
	}
	b, err := r.at(headerCopyB, headerCopySize)
	if err != nil {
		return fileHeader{}, err
	}
	return decodeHeaderCopy(b)
}

// fresh reports whether the file holds no WAL yet: it is empty, or it is at most HeaderSize
// bytes that are all zero, or exactly HeaderSize bytes of which no header copy is valid. The last
// two are a creation (Create, or a spare segment started in an empty file) interrupted by a
// crash: creation writes the header region at once into an empty file and syncs it before it
// extends the file, so a torn header write leaves exactly HeaderSize bytes, possibly garbage in
// both copies' sectors, and nothing was ever written after them. A longer file without a valid
// header is damage.
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

// anyValidHeaderCopy reports whether the header region b holds a valid header copy, or an intact
// one of an older version: such a file is refused (readHeader), not taken for a torn creation.
func anyValidHeaderCopy(b []byte) bool {
	for _, c := range [][]byte{b[:headerCopySize], b[headerCopyB : headerCopyB+headerCopySize]} {
		if _, err := decodeHeaderCopy(c); err == nil || isVersionError(err) {
			return true
		}
	}
	return false
}

package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/cairndb/cairn/internal/errs"
)

// HeaderSize is the size in bytes of the header region of a WAL file (two copies of the header,
// in different sectors); the first record starts at this offset.
const HeaderSize = 1024

// MaxRecordSize is the largest payload, in bytes, that a record may carry.
const MaxRecordSize = 1 << 30

const (
	magic = "cairnWAL"
	// formatVersion is the only version this build reads and writes: segments of a two-file log.
	// Older versions are refused (errs.VersionError).
	formatVersion  = 3
	headerCopySize = 32
	// headerCopyB is the offset of the second header copy: another 512-byte sector.
	headerCopyB   = 512
	recHeaderSize = 24 // bytes before a record's payload
	alignment     = 8  // records start at offsets that are multiples of this
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one logical redo record: its log sequence number and its opaque payload.
type Record struct {
	LSN     uint64
	Payload []byte
}

// recHeader is the decoded fixed part of a record.
type recHeader struct {
	crc        uint32
	length     uint32
	lsn        uint64
	batchFirst uint64
}

// recordSeed is the CRC32C initial value for the records of database dbID written in generation
// gen of the file: records of an earlier generation left in a recycled file never match it.
func recordSeed(dbID uint64, gen uint32) uint32 {
	return uint32(dbID) ^ uint32(dbID>>32) ^ gen*0x9E3779B1
}

// RecordSpan is the number of bytes in the file that a record with a payload of n bytes takes,
// header and padding included.
func RecordSpan(n int) int64 { return recordSpan(int64(n)) }

// recordSpan is the number of bytes a record with a payload of n bytes occupies, padding included.
func recordSpan(n int64) int64 {
	return (recHeaderSize + n + alignment - 1) &^ (alignment - 1)
}

// encodeHeaderCopy returns one copy of the version 3 file header for dbID in generation gen.
func encodeHeaderCopy(dbID uint64, gen uint32) []byte {
	b := make([]byte, headerCopySize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], formatVersion)
	binary.LittleEndian.PutUint32(b[12:], gen)
	binary.LittleEndian.PutUint64(b[16:], dbID)
	binary.LittleEndian.PutUint32(b[24:], crc32.Checksum(b[:24], castagnoli))
	return b
}

// fileHeader is the decoded header of a WAL file.
type fileHeader struct {
	version uint32
	gen     uint32
	dbID    uint64
}

func (h fileHeader) seed() uint32 { return recordSeed(h.dbID, h.gen) }

// decodeHeaderCopy decodes and checks one header copy (magic, checksum, version). Errors wrap
// errs.ErrCorrupt; an intact copy of an older version is an *errs.VersionError.
func decodeHeaderCopy(b []byte) (fileHeader, error) {
	if string(b[:8]) != magic {
		return fileHeader{}, fmt.Errorf("wal: header: bad magic %q: %w", b[:8], errs.ErrCorrupt)
	}
	if got, want := binary.LittleEndian.Uint32(b[24:]), crc32.Checksum(b[:24], castagnoli); got != want {
		return fileHeader{}, fmt.Errorf("wal: header: checksum %#08x, want %#08x: %w", got, want, errs.ErrCorrupt)
	}
	h := fileHeader{version: binary.LittleEndian.Uint32(b[8:]), gen: binary.LittleEndian.Uint32(b[12:]),
		dbID: binary.LittleEndian.Uint64(b[16:])}
	switch {
	case h.version != 0 && h.version < formatVersion:
		return fileHeader{}, fmt.Errorf("wal: %w", &errs.VersionError{File: "WAL", Found: h.version, Reads: formatVersion})
	case h.version != formatVersion:
		return fileHeader{}, fmt.Errorf("wal: header: unsupported format version %d: %w", h.version, errs.ErrCorrupt)
	}
	return h, nil
}

// checkDBID reports a header of another database. Errors wrap errs.ErrCorrupt.
func (h fileHeader) checkDBID(dbID uint64) error {
	if h.dbID != dbID {
		return fmt.Errorf("wal: belongs to another database (id %#016x, want %#016x): %w",
			h.dbID, dbID, errs.ErrCorrupt)
	}
	return nil
}

// putRecord encodes r as a record of the batch starting at LSN batchFirst into b, which must hold
// recordSpan(len(r.Payload)) bytes, and returns that span.
func putRecord(b []byte, seed uint32, r Record, batchFirst uint64) int {
	end := recHeaderSize + len(r.Payload)
	span := int(recordSpan(int64(len(r.Payload))))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(r.Payload)))
	binary.LittleEndian.PutUint64(b[8:], r.LSN)
	binary.LittleEndian.PutUint64(b[16:], batchFirst)
	copy(b[recHeaderSize:], r.Payload)
	clear(b[end:span])
	binary.LittleEndian.PutUint32(b[0:], crc32.Update(seed, castagnoli, b[4:end]))
	return span
}

// parseRecHeader decodes the first recHeaderSize bytes of b.
func parseRecHeader(b []byte) recHeader {
	return recHeader{
		crc:        binary.LittleEndian.Uint32(b[0:]),
		length:     binary.LittleEndian.Uint32(b[4:]),
		lsn:        binary.LittleEndian.Uint64(b[8:]),
		batchFirst: binary.LittleEndian.Uint64(b[16:]),
	}
}

// span is the number of bytes the record occupies, padding included.
func (h recHeader) span() int64 { return recordSpan(int64(h.length)) }

// fits reports whether a record with header h at offset off has a legal length and lies, up to
// the end of its payload, inside a file of size bytes.
func (h recHeader) fits(off, size int64) bool {
	return h.length <= MaxRecordSize && off+recHeaderSize+int64(h.length) <= size
}

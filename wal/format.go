package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/cairndb/cairn/internal/errs"
)

// HeaderSize is the size in bytes of the file header; the first record starts at this offset.
const HeaderSize = 32

// MaxRecordSize is the largest payload, in bytes, that a record may carry.
const MaxRecordSize = 1 << 30

const (
	magic         = "cairnWAL"
	formatVersion = 1
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

// crcSeed is the CRC32C initial value for the records of database dbID.
func crcSeed(dbID uint64) uint32 { return uint32(dbID) ^ uint32(dbID>>32) }

// RecordSpan is the number of bytes in the file that a record with a payload of n bytes takes,
// header and padding included.
func RecordSpan(n int) int64 { return recordSpan(int64(n)) }

// recordSpan is the number of bytes a record with a payload of n bytes occupies, padding included.
func recordSpan(n int64) int64 {
	return (recHeaderSize + n + alignment - 1) &^ (alignment - 1)
}

// encodeHeader returns the file header for dbID.
func encodeHeader(dbID uint64) []byte {
	b := make([]byte, HeaderSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], formatVersion)
	binary.LittleEndian.PutUint64(b[16:], dbID)
	binary.LittleEndian.PutUint32(b[24:], crc32.Checksum(b[:24], castagnoli))
	return b
}

// checkHeader validates the file header b (HeaderSize bytes) against dbID. Errors wrap
// errs.ErrCorrupt.
func checkHeader(b []byte, dbID uint64) error {
	if string(b[:8]) != magic {
		return fmt.Errorf("wal: header: bad magic %q: %w", b[:8], errs.ErrCorrupt)
	}
	if got, want := binary.LittleEndian.Uint32(b[24:]), crc32.Checksum(b[:24], castagnoli); got != want {
		return fmt.Errorf("wal: header: checksum %#08x, want %#08x: %w", got, want, errs.ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != formatVersion {
		return fmt.Errorf("wal: header: unsupported format version %d: %w", v, errs.ErrCorrupt)
	}
	if id := binary.LittleEndian.Uint64(b[16:]); id != dbID {
		return fmt.Errorf("wal: belongs to another database (id %#016x, want %#016x): %w",
			id, dbID, errs.ErrCorrupt)
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

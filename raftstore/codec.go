package raftstore

// The log record: how one raft.Log is stored as the value of its key in the log bucket. This file
// owns the layout (docs/FORMAT.md, "raftstore"); a record that does not follow it is reported as
// an error wrapping cairn.ErrCorrupt, never a panic.
//
//	offset  size  field
//	0       1     format version, recordVersion (1)
//	1       1     raft.LogType
//	2       1     flags: bit 0 set when AppendedAt is present; bits 1-7 are zero
//	3       var   Index, uvarint (equal to the record's key)
//	.       var   Term, uvarint
//	.       var   if flag bit 0: AppendedAt as Unix seconds (signed varint), then nanoseconds
//	              within the second (uvarint, below 1e9)
//	.       var   len(Data), uvarint, then Data
//	.       var   len(Extensions), uvarint, then Extensions; the record ends here
//
// Keys of the log bucket are the 8-byte big-endian indexes, so the bucket's order is log order.

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cairndb/cairn"
	"github.com/hashicorp/raft"
)

// recordVersion is the on-disk format version of a log record (its first byte).
const recordVersion = 1

// flagAppendedAt is the flags bit that says the record carries AppendedAt.
const flagAppendedAt = 1

// logKey returns the key of index: 8 bytes, big-endian.
func logKey(index uint64) [8]byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], index)
	return k
}

// keyIndex decodes a key of the log bucket.
func keyIndex(k []byte) (uint64, error) {
	if len(k) != 8 {
		return 0, fmt.Errorf("raftstore: log key of %d bytes, not 8: %w", len(k), cairn.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(k), nil
}

// recordSize returns the length of l's record.
func recordSize(l *raft.Log) int {
	n := 3 + uvarintLen(l.Index) + uvarintLen(l.Term) +
		uvarintLen(uint64(len(l.Data))) + len(l.Data) +
		uvarintLen(uint64(len(l.Extensions))) + len(l.Extensions)
	if !l.AppendedAt.IsZero() {
		n += varintLen(l.AppendedAt.Unix()) + uvarintLen(uint64(l.AppendedAt.Nanosecond()))
	}
	return n
}

// appendRecord appends l's record to buf.
func appendRecord(buf []byte, l *raft.Log) []byte {
	var flags byte
	if !l.AppendedAt.IsZero() {
		flags |= flagAppendedAt
	}
	buf = append(buf, recordVersion, byte(l.Type), flags)
	buf = binary.AppendUvarint(buf, l.Index)
	buf = binary.AppendUvarint(buf, l.Term)
	if flags&flagAppendedAt != 0 {
		buf = binary.AppendVarint(buf, l.AppendedAt.Unix())
		buf = binary.AppendUvarint(buf, uint64(l.AppendedAt.Nanosecond()))
	}
	buf = binary.AppendUvarint(buf, uint64(len(l.Data)))
	buf = append(buf, l.Data...)
	buf = binary.AppendUvarint(buf, uint64(len(l.Extensions)))
	return append(buf, l.Extensions...)
}

// decodeRecord decodes the record rec of the key index into l, overwriting every field. Data and
// Extensions are copies (one allocation for both), nil when empty; AppendedAt is in the local
// time zone, or the zero time when the record has none. A record that does not follow the layout,
// or whose index is not its key's, is an error wrapping cairn.ErrCorrupt.
func decodeRecord(index uint64, rec []byte, l *raft.Log) error {
	bad := func(what string) error {
		return fmt.Errorf("raftstore: log %d: %s: %w", index, what, cairn.ErrCorrupt)
	}
	if len(rec) < 3 {
		return bad(fmt.Sprintf("record of %d bytes", len(rec)))
	}
	if rec[0] != recordVersion {
		return bad(fmt.Sprintf("record format version %d (this build reads %d)", rec[0], recordVersion))
	}
	typ, flags := raft.LogType(rec[1]), rec[2]
	if flags&^flagAppendedAt != 0 {
		return bad(fmt.Sprintf("unknown flags %#x", flags))
	}
	r := reader{b: rec[3:]}
	idx, term := r.uvarint(), r.uvarint()
	var at time.Time
	if flags&flagAppendedAt != 0 {
		sec, nsec := r.varint(), r.uvarint()
		if nsec >= 1e9 {
			r.fail()
		}
		at = time.Unix(sec, int64(nsec))
	}
	data, ext := r.bytes(), r.bytes()
	switch {
	case r.bad:
		return bad("truncated or malformed record")
	case len(r.b) != 0:
		return bad(fmt.Sprintf("%d bytes after the record", len(r.b)))
	case idx != index:
		return bad(fmt.Sprintf("record holds index %d", idx))
	}
	*l = raft.Log{Index: idx, Term: term, Type: typ, AppendedAt: at}
	if n := len(data) + len(ext); n > 0 {
		buf := make([]byte, n)
		copy(buf, data)
		copy(buf[len(data):], ext)
		if len(data) > 0 {
			l.Data = buf[:len(data):len(data)]
		}
		if len(ext) > 0 {
			l.Extensions = buf[len(data):]
		}
	}
	return nil
}

// reader reads varints and length-prefixed byte strings from b; after the first failure it sets
// bad and returns zeros.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) fail() { r.bad, r.b = true, nil }

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes returns a length-prefixed byte string, a slice of the record.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func varintLen(v int64) int {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	return uvarintLen(u)
}

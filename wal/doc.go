// Package wal is cairn's write-ahead log: two preallocated, recycled segment files of logical redo
// records (Log), appended in group-committed batches (one write and one fdatasync per batch) and
// replayed by RecoverLog after a crash.
//
// It is an internal layer of cairn without a compatibility promise: only the root package,
// github.com/cairndb/cairn, is a public API.
//
// # Segments
//
// A Log writes to one segment (a Writer over one file) until a checkpoint switches it to the
// other; see Log for the invariants and RecoverLog for how two segments are read back. Each
// segment file has the format below.
//
// # File format (version 3)
//
// All integers are little-endian. The file starts with a 1024-byte header region holding two
// copies of a 32-byte header, at offsets 0 and 512 (different disk sectors), the rest zero:
//
//	| Offset | Size | Field                                                        |
//	|--------|------|--------------------------------------------------------------|
//	|      0 |    8 | magic "cairnWAL"                                             |
//	|      8 |    4 | format version, 3                                            |
//	|     12 |    4 | generation: above both segments' at each header write        |
//	|     16 |    8 | database id (the random id stored in the database meta page) |
//	|     24 |    4 | CRC32C (Castagnoli) of bytes [0, 24)                         |
//	|     28 |    4 | reserved, written as 0, ignored on read                      |
//
// The valid copy with the higher generation is current. Reset writes the copy at 512, syncs, then
// the copy at 0, syncs: a torn header write always leaves one valid copy.
//
// Records follow from offset 1024. Every record starts at an offset that is a multiple of 8:
//
//	| Offset | Size   | Field                                                                   |
//	|--------|--------|-------------------------------------------------------------------------|
//	|      0 |      4 | CRC32C of bytes [4, 24+length), seeded (see below)                      |
//	|      4 |      4 | payload length in bytes, at most MaxRecordSize                          |
//	|      8 |      8 | LSN (log sequence number): +1 per record, never reused                  |
//	|     16 |      8 | batch LSN: the LSN of the first record of the same batch                |
//	|     24 | length | payload (opaque), then zero padding up to a multiple of 8               |
//
// The seed is the initial value passed to crc32.Update: uint32(id) ^ uint32(id>>32) ^
// generation*0x9E3779B1 (uint32 arithmetic). So a record of another database, or of an earlier
// generation of this file, never passes the check. Padding bytes are not covered by the CRC.
//
// The file is preallocated: Create writes the header region, syncs, then zeros up to InitialSize
// (256 KiB); once the records fill three quarters of the file, a goroutine zero-fills it to double
// its size (by at most 64 MiB) ahead of the writer (Writer.growAhead), and a batch that still does
// not fit first zero-fills the file itself; the batch's fdatasync covers that growth. Reset
// (after a checkpoint) starts a new generation instead of truncating, so the file keeps its size
// and later batches overwrite the records of earlier generations: in steady state a batch's write
// lands in allocated space and its fdatasync has no file size to persist.
//
// A batch is the set of records written by one WriteAt and made durable by the following fdatasync.
// A batch is only written after the previous batch's fdatasync returned, so at most the last batch
// of the file can be incomplete after a crash (a torn tail).
//
// # Versions
//
// This build reads version 3 only. A header of an older version (1 and 2, development formats
// written before the two-segment log) is refused with an *errs.VersionError, which wraps
// errs.ErrCorrupt as a header of an unknown newer version does; see docs/FORMAT.md, "Versions
// and compatibility".
//
// # Validity
//
// The record at an offset is valid when its 24-byte header lies inside the file, its length is at
// most MaxRecordSize, its header and payload lie inside the file, its CRC matches, its LSN is the
// LSN expected next (the previous record's LSN + 1; for the first record, any LSN up to after+1,
// see recoverSegment), and its batch LSN is not larger than its LSN. Recovery replays the longest valid
// prefix of records; see recoverSegment for how damage that is not a torn tail is told apart and reported
// as corruption, and for how the intact records of a torn batch are erased so that they can never
// be read as the continuation of records written later.
package wal

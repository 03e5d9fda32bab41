// Package wal is cairn's write-ahead log: one file of logical redo records, appended in group-committed
// batches (one write and one fdatasync per batch) and replayed by Recover after a crash.
//
// # File format
//
// All integers are little-endian. The file starts with a 32-byte header:
//
//	| Offset | Size | Field                                                        |
//	|--------|------|--------------------------------------------------------------|
//	|      0 |    8 | magic "cairnWAL"                                             |
//	|      8 |    4 | format version, 1                                            |
//	|     12 |    4 | reserved, written as 0, ignored on read                      |
//	|     16 |    8 | database id (the random id stored in the database meta page) |
//	|     24 |    4 | CRC32C (Castagnoli) of bytes [0, 24)                         |
//	|     28 |    4 | reserved, written as 0, ignored on read                      |
//
// Records follow from offset 32. Every record starts at an offset that is a multiple of 8:
//
//	| Offset | Size   | Field                                                                   |
//	|--------|--------|-------------------------------------------------------------------------|
//	|      0 |      4 | CRC32C of bytes [4, 24+length), seeded with uint32(id) ^ uint32(id>>32) |
//	|      4 |      4 | payload length in bytes, at most MaxRecordSize                          |
//	|      8 |      8 | LSN (log sequence number): +1 per record, never reused                  |
//	|     16 |      8 | batch LSN: the LSN of the first record of the same batch                |
//	|     24 | length | payload (opaque), then zero padding up to a multiple of 8               |
//
// The seed is the initial value passed to crc32.Update, so a record from another database's log never
// passes the check. Padding bytes are not covered by the CRC.
//
// A batch is the set of records written by one WriteAt and made durable by the following fdatasync.
// A batch is only written after the previous batch's fdatasync returned, so at most the last batch
// of the file can be incomplete after a crash (a torn tail).
//
// # Validity
//
// The record at an offset is valid when its 24-byte header lies inside the file, its length is at
// most MaxRecordSize, its header and payload lie inside the file, its CRC matches, its LSN is the
// LSN expected next (the previous record's LSN + 1; for the first record, any LSN up to after+1,
// see Recover), and its batch LSN is not larger than its LSN. Recovery replays the longest valid
// prefix of records and truncates the file after it; see Recover for how damage that is not a torn
// tail is told apart and reported as corruption.
package wal

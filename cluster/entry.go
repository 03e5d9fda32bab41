package cluster

// A Raft log entry of the cluster is one batch of a leader's commits: their redo records, as the
// leader's cairn WAL writes them, with the LSN of the first. Layout (all integers uvarint):
//
//	kind (1 byte: entryRecords) | first LSN | count | count × (length | record bytes)
//
// Decoding never panics: a short or inconsistent entry is an error wrapping cairn.ErrCorrupt.

import (
	"encoding/binary"
	"fmt"

	"github.com/cairndb/cairn"
)

// entryRecords is the kind byte of an entry holding a batch of redo records.
const entryRecords = 1

// encodeEntry returns the entry of the records of the commits at LSNs first, first+1, ....
func encodeEntry(first uint64, records [][]byte) []byte {
	n := 1 + 2*binary.MaxVarintLen64
	for _, r := range records {
		n += binary.MaxVarintLen64 + len(r)
	}
	b := make([]byte, 0, n)
	b = append(b, entryRecords)
	b = binary.AppendUvarint(b, first)
	b = binary.AppendUvarint(b, uint64(len(records)))
	for _, r := range records {
		b = binary.AppendUvarint(b, uint64(len(r)))
		b = append(b, r...)
	}
	return b
}

// decodeEntry returns the first LSN and the records of an entry; the records are slices of data.
func decodeEntry(data []byte) (first uint64, records [][]byte, err error) {
	bad := func(what string) (uint64, [][]byte, error) {
		return 0, nil, fmt.Errorf("cluster: log entry: %s: %w", what, cairn.ErrCorrupt)
	}
	if len(data) == 0 || data[0] != entryRecords {
		return bad("unknown kind")
	}
	b := data[1:]
	first, w := binary.Uvarint(b)
	if w <= 0 || first == 0 {
		return bad("bad first LSN")
	}
	b = b[w:]
	count, w := binary.Uvarint(b)
	if w <= 0 || count == 0 || count > uint64(len(b)) {
		return bad("bad record count")
	}
	b = b[w:]
	records = make([][]byte, 0, count)
	for range count {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return bad("bad record length")
		}
		records = append(records, b[w:w+int(n):w+int(n)])
		b = b[w+int(n):]
	}
	if len(b) != 0 {
		return bad("trailing bytes")
	}
	return first, records, nil
}

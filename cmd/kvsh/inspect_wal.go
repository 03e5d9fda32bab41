package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"text/tabwriter"

	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/wal"
)

// The redo payload of a WAL record (internal/ondisk, docs/FORMAT.md):
// a record type byte, then operations, each an op byte, a uvarint length and the key (or bucket
// name), and for a put a uvarint value length and the value. Puts and deletes apply to the key
// space the last select chose (the default key space at the start of each record). The codes
// are those of package internal/ondisk, which the library writes with. kvsh shows an op it does
// not know (a newer format) as "op 0xNN (N bytes)", N being the bytes from that op to the end of
// the record, which it cannot decode further.

// bucketOps names the operations on buckets, by op code.
var bucketOps = map[byte]string{ondisk.RedoSelect: "select bucket", ondisk.RedoCreateBucket: "create bucket", ondisk.RedoDeleteBucket: "delete bucket"}

// cmdWAL prints the records of the WAL segments written since the last checkpoint, decoded,
// then a summary of each segment file.
func cmdWAL(sh *shell, ctx context.Context, _ [][]byte) error {
	return sh.inspect(func(pf *pageFile) error {
		paths := [2]string{sh.filePath() + "-wal", sh.filePath() + "-wal2"}
		var segs [2]wal.Segment
		for i, path := range paths {
			f, size, err := openSized(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // read as an empty segment
			}
			if err != nil {
				return err
			}
			defer f.Close()
			segs[i] = wal.Segment{R: f, Size: size}
		}
		after := pf.meta.LSN // 0 without a valid meta page: every record is shown
		info, err := wal.ScanLog(segs, after, func(r wal.RecordInfo) error {
			if ctx.Err() != nil {
				return errInterrupted
			}
			printRecord(sh.out, r)
			return nil
		})
		if errors.Is(err, errInterrupted) {
			return err
		}
		roles := segmentRoles(info)
		for i, path := range paths {
			printWALSummary(sh.out, path, info[i], pf.meta.DBID, after)
			if roles[i] != "" {
				fmt.Fprintf(sh.out, "role     %s\n", roles[i])
			}
		}
		return err
	})
}

// segmentRoles names what each segment is for, from what ScanLog read (DESIGN.md, "The WAL"):
// a newer segment without records is the spare, and the older one receives the commits; a newer
// segment with records receives them, and the older one is what a checkpoint in progress
// switched away from, recycled when it ends. Empty for a file without a header.
func segmentRoles(info [2]wal.ScanInfo) (roles [2]string) {
	older, newer := wal.OlderNewer(info)
	const (
		current  = "current: commits are appended here"
		spare    = "spare: the next checkpoint switches to it"
		previous = "previous: recycled when the checkpoint in progress ends"
	)
	switch {
	case info[newer].Fresh: // no WAL yet
	case info[newer].Records > 0:
		roles[newer] = current
		if !info[older].Fresh {
			roles[older] = previous
		}
	case info[older].Fresh:
		roles[newer] = current
	default:
		roles[older], roles[newer] = current, spare
	}
	return roles
}

// printRecord prints one WAL record: its header line, then one line per operation.
func printRecord(out io.Writer, r wal.RecordInfo) {
	fmt.Fprintf(out, "LSN %d  batch %d  offset %d  %d bytes\n", r.LSN, r.Batch, r.Offset, len(r.Payload))
	for _, line := range describeRedo(r.Payload) {
		fmt.Fprintf(out, "  %s\n", line)
	}
}

// printWALSummary prints the lines after the records: what the file holds and where its valid
// records end.
func printWALSummary(out io.Writer, path string, info wal.ScanInfo, dbID, after uint64) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	if info.Fresh {
		fmt.Fprintf(tw, "file\t%s, %d bytes: no header yet, no records\n", path, info.Size)
		return
	}
	owner := "the page file's"
	if info.DBID != dbID {
		owner = fmt.Sprintf("not the page file's %#016x", dbID)
	}
	fmt.Fprintf(tw, "file\t%s, %d bytes, format version %d, generation %d, database id %#016x (%s)\n",
		path, info.Size, info.Version, info.Generation, info.DBID, owner)
	shown := info.Records - info.Skipped
	span := ""
	if shown > 0 {
		span = fmt.Sprintf(" (LSN %d..%d)", info.Last-uint64(shown)+1, info.Last)
	}
	fmt.Fprintf(tw, "records\t%d after the checkpoint at LSN %d%s\n", shown, after, span)
	if info.Skipped > 0 {
		fmt.Fprintf(tw, "older\t%d records up to LSN %d are in the page file already (not shown)\n",
			info.Skipped, info.First+uint64(info.Skipped)-1)
	}
	if info.End < info.Size {
		fmt.Fprintf(tw, "free\t%d bytes after offset %d: preallocated (zeros, or records of earlier generations)\n", info.Size-info.End, info.End)
	}
}

// describeRedo renders the operations of a redo payload, one line each. Damage (possible only
// in a record whose checksum matched) is described, not returned as an error.
func describeRedo(p []byte) []string {
	switch {
	case len(p) == 0:
		return []string{"empty payload"}
	case p[0] != ondisk.RedoTxn:
		return []string{fmt.Sprintf("record type 0x%02x (%d bytes)", p[0], len(p))}
	}
	var lines []string
	for b := p[1:]; len(b) > 0; {
		var line string
		line, b = describeOp(b)
		lines = append(lines, line)
	}
	return lines
}

// describeOp renders the operation at the start of b and returns the bytes after it (nil when
// the operation cannot be decoded).
func describeOp(b []byte) (string, []byte) {
	op := b[0]
	if op < ondisk.RedoPut || op > ondisk.RedoDeleteBucket {
		return fmt.Sprintf("op 0x%02x (%d bytes)", op, len(b)), nil
	}
	key, rest, ok := lengthPrefixed(b[1:])
	switch {
	case !ok:
		return fmt.Sprintf("op 0x%02x: bad key length (%d bytes left)", op, len(b)), nil
	case op == ondisk.RedoSelect && len(key) == 0:
		return "select the default key space", rest
	case bucketOps[op] != "":
		return bucketOps[op] + " " + quoteName(key), rest
	case op == ondisk.RedoDelete:
		return "delete key=" + formatCut(key, maxInspectField), rest
	}
	value, rest, ok := lengthPrefixed(rest)
	if !ok {
		return fmt.Sprintf("put key=%s: bad value length", formatCut(key, maxInspectField)), nil
	}
	return fmt.Sprintf("put key=%s, value %d bytes", formatCut(key, maxInspectField), len(value)), rest
}

// lengthPrefixed splits a uvarint length and that many bytes off the start of b.
func lengthPrefixed(b []byte) (field, rest []byte, ok bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, false
	}
	end := w + int(n)
	return b[w:end], b[end:], true
}

// quoteName renders a bucket name of a WAL operation: Go-quoted, cut after maxInspectField
// bytes and followed by its size if longer.
func quoteName(name []byte) string {
	if len(name) <= maxInspectField {
		return strconv.Quote(string(name))
	}
	return fmt.Sprintf("%s … (%d bytes)", strconv.Quote(string(name[:maxInspectField])), len(name))
}

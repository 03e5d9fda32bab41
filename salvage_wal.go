package cairn

// Salvage's WAL: the valid records after the meta page's LSN, read from both segments without
// writing to them, and their effect on each key space, kept apart from the pages (walSpace) and
// merged in when the keys are emitted. Invariant: records are applied in LSN order, whole or not
// at all, up to the first one that is not valid or does not decode, as recovery applies them.

import (
	"errors"
	"fmt"
	"os"

	"github.com/cairndb/cairn/internal/ondisk"
	"github.com/cairndb/cairn/wal"
)

// walRecord is one record to apply.
type walRecord struct {
	lsn     uint64
	payload []byte
}

// walVal is the WAL's last word on a key: its value, or deleted.
type walVal struct {
	v   []byte
	del bool
}

// walSpace is what the applied records did to one key space.
type walSpace struct {
	// dropped: a record deleted the bucket, so its keys in the pages are gone; deleted: it is
	// deleted at the end; created: a record created it (after deleting it, if dropped).
	dropped, deleted, created bool
	keys                      map[string]walVal
}

// readWAL reads both segments, chooses the records to apply and applies them to the overlay.
func (s *salvager) readWAL() error {
	after := uint64(0)
	if len(s.metas) > 0 {
		after = s.metas[0].LSN
	} else {
		for _, e := range s.ext {
			after = max(after, e.alloc)
		}
	}
	s.rep.WAL.After, s.cover, s.fresh = after, after, s.both
	s.overlay = make(map[string]*walSpace)
	if s.opts.IgnoreWAL {
		return nil
	}
	var info [2]wal.ScanInfo
	var recs [2][]walRecord
	var damage [2]error // damage after a valid prefix: what follows it is lost
	for i := range info {
		seg := &s.rep.WAL.Segments[i]
		seg.Path = walPath(s.path, i)
		f, err := s.fsys.OpenFile(seg.Path, os.O_RDONLY, 0)
		if isMissing(err) {
			seg.Missing, seg.Fresh, info[i].Fresh = true, true, true
			continue
		} else if err != nil {
			return fmt.Errorf("cairn: salvage: %w", err)
		}
		size, err := f.Size()
		if err == nil {
			info[i], err = wal.ScanPrefix(f, size, after, func(r wal.RecordInfo) error {
				recs[i] = append(recs[i], walRecord{lsn: r.LSN, payload: r.Payload})
				return nil
			})
		}
		f.Close()
		seg.Size, seg.Fresh, seg.Generation = size, info[i].Fresh, info[i].Generation
		switch {
		case err != nil && !errors.Is(err, ErrCorrupt):
			return fmt.Errorf("cairn: salvage %s: %w", seg.Path, err)
		case err != nil && info[i].Version == 0: // the header: no record can be read
			seg.Err, recs[i] = err, nil
		case err != nil:
			seg.Err, damage[i] = err, err
		}
		if len(s.metas) > 0 && info[i].Version != 0 && info[i].DBID != s.metas[0].DBID {
			seg.Err = fmt.Errorf("wal: belongs to another database (id %#x, the page file's is %#x): %w", info[i].DBID, s.metas[0].DBID, ErrCorrupt)
			recs[i], damage[i], info[i] = nil, nil, wal.ScanInfo{Fresh: true}
		}
		seg.Records, seg.First, seg.Last = info[i].Records, info[i].First, info[i].Last
	}
	o, n := wal.OlderNewer(info)
	if len(s.metas) == 0 && info[o].Version != 0 && info[n].Version != 0 && info[o].DBID != info[n].DBID {
		s.rep.WAL.Segments[o].Err = fmt.Errorf("wal: another database's segment (id %#x) than the newer one's (%#x): %w", info[o].DBID, info[n].DBID, ErrCorrupt)
		recs[o], damage[o], info[o] = nil, nil, wal.ScanInfo{Fresh: true}
	}
	apply, stop := recs[o], damage[o]
	earliest := info[o].First
	switch {
	case stop != nil || info[n].Records == 0:
	case info[o].Records > 0 && info[n].First != info[o].Last+1:
		stop = fmt.Errorf("wal: segment %d ends at LSN %d but the newer segment %d starts at LSN %d: %w", o, info[o].Last, n, info[n].First, ErrCorrupt)
	default:
		apply, stop = append(apply, recs[n]...), damage[n]
		if info[o].Records == 0 {
			earliest = info[n].First
		}
	}
	s.rep.WAL.Stopped = stop
	if info[o].Records+info[n].Records == 0 {
		return nil
	}
	if earliest > after+1 {
		s.rep.WAL.MissingFrom, s.rep.WAL.MissingTo = after+1, earliest-1
	} else {
		s.fresh = s.fresh || len(s.metas) > 0
	}
	for _, r := range apply {
		if err := s.applyRecord(r.payload); err != nil {
			s.rep.WAL.Stopped = fmt.Errorf("wal: record LSN %d: %w", r.lsn, err)
			break
		}
		s.records = append(s.records, r)
		if s.rep.WAL.Applied == 0 {
			s.rep.WAL.First = r.lsn
		}
		s.rep.WAL.Applied++
		s.rep.WAL.Last = r.lsn
	}
	if earliest <= after+1 {
		s.cover = max(after, s.rep.WAL.Last)
	}
	return nil
}

// redoOp is one decoded operation of a redo payload.
type redoOp struct {
	op         byte
	key, value []byte
}

// applyRecord decodes a redo payload whole, checks it, and applies it to the overlay. A record
// that does not decode, or that writes into a bucket an earlier record deleted, is refused
// (ErrCorrupt), as recovery refuses it; an operation on a bucket the pages may hold is accepted.
func (s *salvager) applyRecord(payload []byte) error {
	if len(payload) == 0 {
		return nil
	}
	if payload[0] != ondisk.RedoTxn {
		return fmt.Errorf("redo record: unknown type %d: %w", payload[0], ErrCorrupt)
	}
	var ops []redoOp
	for b := payload[1:]; len(b) > 0; {
		op := redoOp{op: b[0]}
		var err error
		if op.key, b, err = readBytes(b[1:]); err != nil {
			return err
		}
		if op.op == ondisk.RedoPut {
			if op.value, b, err = readBytes(b); err != nil {
				return err
			}
		}
		switch {
		case op.op < ondisk.RedoPut || op.op > ondisk.RedoDeleteBucket:
			return fmt.Errorf("redo record: unknown operation %d: %w", op.op, ErrCorrupt)
		case op.op != ondisk.RedoSelect && (len(op.key) == 0 || len(op.key) > MaxKeySize):
			return fmt.Errorf("redo record: operation %d with a key or name of %d bytes: %w", op.op, len(op.key), ErrCorrupt)
		case len(op.value) > MaxValueSize:
			return fmt.Errorf("redo record: value of %d bytes: %w", len(op.value), ErrCorrupt)
		}
		ops = append(ops, op)
	}
	// Check the record against the buckets the WAL deleted before applying any of it.
	deleted := make(map[string]bool) // as this record leaves them so far
	isDeleted := func(name string) bool {
		if d, ok := deleted[name]; ok {
			return d
		}
		ws := s.overlay[name]
		return ws != nil && ws.deleted
	}
	cur := ""
	for _, op := range ops {
		switch op.op {
		case ondisk.RedoSelect:
			cur = string(op.key)
		case ondisk.RedoPut, ondisk.RedoDelete:
			if cur != "" && isDeleted(cur) {
				return fmt.Errorf("redo record: write into the deleted bucket %q: %w", cur, ErrCorrupt)
			}
		case ondisk.RedoDeleteBucket:
			deleted[string(op.key)] = true
		case ondisk.RedoCreateBucket:
			deleted[string(op.key)] = false
		}
	}
	cur = ""
	for _, op := range ops {
		switch op.op {
		case ondisk.RedoSelect:
			cur = string(op.key)
		case ondisk.RedoPut:
			s.space(cur).keys[string(op.key)] = walVal{v: op.value}
		case ondisk.RedoDelete:
			s.space(cur).keys[string(op.key)] = walVal{del: true}
		case ondisk.RedoCreateBucket:
			ws := s.space(string(op.key))
			ws.deleted, ws.created = false, true
		case ondisk.RedoDeleteBucket:
			ws := s.space(string(op.key))
			ws.dropped, ws.deleted, ws.created = true, true, false
			ws.keys = make(map[string]walVal)
		}
	}
	return nil
}

// space returns the overlay of key space name ("": the default one), creating it.
func (s *salvager) space(name string) *walSpace {
	ws := s.overlay[name]
	if ws == nil {
		ws = &walSpace{keys: make(map[string]walVal)}
		s.overlay[name] = ws
	}
	return ws
}

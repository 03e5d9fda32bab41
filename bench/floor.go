package bench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// floorFileSize is the size of the preallocated, zero-filled file the floor writes into; writes
// wrap around to its start.
const floorFileSize = 64 << 20

// floorFile is a preallocated, zero-filled file written at increasing offsets: the cheapest way to
// make bytes durable, since fdatasync has no file size or block allocation to record.
type floorFile struct {
	f    *os.File
	fd   int
	off  int64
	path string
}

func openFloorFile(dir string) (*floorFile, error) {
	path := filepath.Join(dir, "floor")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	ff := &floorFile{f: f, fd: int(f.Fd()), path: path}
	if err := ff.zeroFill(); err != nil {
		f.Close()
		return nil, err
	}
	return ff, nil
}

func (ff *floorFile) zeroFill() error {
	zeros := make([]byte, 1<<20)
	for off := int64(0); off < floorFileSize; off += int64(len(zeros)) {
		if _, err := ff.f.WriteAt(zeros, off); err != nil {
			return err
		}
	}
	return ff.f.Sync()
}

// writeSync writes buf with one pwrite and makes it durable with one fdatasync.
func (ff *floorFile) writeSync(buf []byte) error {
	if ff.off+int64(len(buf)) > floorFileSize {
		ff.off = 0
	}
	if _, err := ff.f.WriteAt(buf, ff.off); err != nil {
		return err
	}
	ff.off += int64(len(buf))
	return unix.Fdatasync(ff.fd)
}

// Size returns the bytes of the files in the floor's directory (the preallocated file).
func (ff *floorFile) Size() (int64, error) { return dirSize(filepath.Dir(ff.path)) }

// Close closes the file.
func (ff *floorFile) Close() error { return ff.f.Close() }

// appendRecord appends a log record of kvs as a WAL would: a 24-byte header (zero here), then
// per pair an op byte, uvarint lengths, key and value, padded to 8 bytes.
func appendRecord(buf []byte, kvs []KV) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, 24)...)
	for _, kv := range kvs {
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(len(kv.Key)))
		buf = append(buf, kv.Key...)
		buf = binary.AppendUvarint(buf, uint64(len(kv.Value)))
		buf = append(buf, kv.Value...)
	}
	binary.LittleEndian.PutUint32(buf[start+4:], uint32(len(buf)-start))
	for (len(buf)-start)%8 != 0 {
		buf = append(buf, 0)
	}
	return buf
}

// Floor is the single-writer reference: each Write is one pwrite of the record and one
// fdatasync. It is not safe for concurrent use.
type Floor struct {
	*floorFile
	buf []byte
}

// OpenFloor creates the preallocated file of a Floor in dir.
func OpenFloor(dir string) (*Floor, error) {
	ff, err := openFloorFile(dir)
	if err != nil {
		return nil, err
	}
	return &Floor{floorFile: ff}, nil
}

// Write makes the record of kvs durable.
func (f *Floor) Write(kvs []KV) error {
	f.buf = appendRecord(f.buf[:0], kvs)
	return f.writeSync(f.buf)
}

// GroupFloor is the many-writer reference: a bare group commit. Writers append their records to
// a shared batch; one committer goroutine writes each batch with one pwrite and one fdatasync
// and wakes its writers.
type GroupFloor struct {
	*floorFile
	mu      sync.Mutex
	wake    *sync.Cond
	cur     *floorBatch
	spare   []byte // the buffer of the last written batch, reused by the next one
	closed  bool
	done    chan struct{}
	batches atomic.Uint64
}

// floorBatch is the records of the writers waiting for the same fdatasync.
type floorBatch struct {
	buf     []byte
	durable chan struct{}
	err     error
}

// OpenGroupFloor creates the preallocated file of a GroupFloor in dir and starts its committer.
func OpenGroupFloor(dir string) (*GroupFloor, error) {
	ff, err := openFloorFile(dir)
	if err != nil {
		return nil, err
	}
	g := &GroupFloor{floorFile: ff, done: make(chan struct{})}
	g.wake = sync.NewCond(&g.mu)
	g.cur = &floorBatch{durable: make(chan struct{})}
	go g.commitLoop()
	return g, nil
}

// Write queues the record of kvs and returns once its batch is durable.
func (g *GroupFloor) Write(kvs []KV) error {
	g.mu.Lock()
	b := g.cur
	b.buf = appendRecord(b.buf, kvs)
	durable := b.durable
	g.wake.Signal()
	g.mu.Unlock()
	<-durable
	return b.err
}

func (g *GroupFloor) commitLoop() {
	defer close(g.done)
	for {
		b := g.take()
		if b == nil {
			return
		}
		b.err = g.writeSync(b.buf)
		g.batches.Add(1)
		g.spare = b.buf[:0]
		close(b.durable)
	}
}

// take waits for a non-empty batch, starts the next one on the spare buffer and returns it (nil
// once closed).
func (g *GroupFloor) take() *floorBatch {
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.cur.buf) == 0 && !g.closed {
		g.wake.Wait()
	}
	if len(g.cur.buf) == 0 {
		return nil
	}
	b := g.cur
	g.cur = &floorBatch{buf: g.spare, durable: make(chan struct{})}
	g.spare = nil
	return b
}

// syncs returns the batches written so far (each one pwrite and one fdatasync).
func (g *GroupFloor) syncs() uint64 { return g.batches.Load() }

// Close stops the committer after the last batch and closes the file.
func (g *GroupFloor) Close() error {
	g.mu.Lock()
	g.closed = true
	g.wake.Signal()
	g.mu.Unlock()
	<-g.done
	return g.floorFile.Close()
}

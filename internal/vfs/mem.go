package vfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
)

// sectorSize is the unit in which CrashOptions.Garble tears an unsynced write.
const sectorSize = 512

var errNegativeOffset = errors.New("negative offset")

// MemFS is an in-memory FS that models what survives a power loss. Each file keeps its current
// bytes, its durable bytes (the content at its last successful File.Sync) and the list of writes
// and truncates made since then. A directory entry (the creation or removal of a name) becomes
// durable only when FS.SyncDir is called on filepath.Dir of the name. Files keep living while
// open after Remove, as on POSIX. Directories are implicit: any parent path is accepted.
// CrashClone produces the post-crash state. MemFS is safe for concurrent use; the zero value is
// not usable, call NewMem.
type MemFS struct {
	mu      sync.Mutex
	names   map[string]*memNode // current directory entries
	durable map[string]*memNode // entries as of the last SyncDir of their parent
	locks   map[string]int      // -1: held exclusively; n > 0: n shared holders
}

// memNode is one file (an inode): it may be reachable from names, durable, both or neither.
type memNode struct {
	data    []byte  // current content
	synced  []byte  // content as of the last Sync
	pending []memOp // writes and truncates since the last Sync, in order
	perm    os.FileMode
}

// memOp is one unsynced change: a write of data at off, or (trunc) a truncate to size.
type memOp struct {
	trunc bool
	off   int64
	size  int64
	data  []byte
}

// CrashOptions chooses, for CrashClone, the fate of each write or truncate not yet covered by a
// File.Sync. Each one is kept with probability KeepProb; otherwise it is dropped, or, if Garble
// is set, with even odds dropped or torn (garbled). Rand supplies the randomness; nil means a
// fixed seed, so the clone is reproducible.
type CrashOptions struct {
	// Rand is the source of the choices; nil uses a generator with a fixed seed.
	Rand *rand.Rand
	// KeepProb is the chance that an unsynced write or truncate survives intact: 0 drops all of
	// them, 1 keeps all of them.
	KeepProb float64
	// Garble lets a write that is not kept be torn instead of dropped: each 512-byte sector it
	// covers ends up with the new bytes, the old bytes or random garbage, and at least one
	// sector is garbage. Bytes outside the write's range are never touched. Truncates are only
	// kept or dropped.
	Garble bool
}

// NewMem returns an empty MemFS.
func NewMem() *MemFS {
	return &MemFS{
		names:   make(map[string]*memNode),
		durable: make(map[string]*memNode),
		locks:   make(map[string]int),
	}
}

// OpenFile opens name like os.OpenFile. It honours os.O_CREATE, os.O_EXCL, os.O_TRUNC,
// os.O_APPEND (WriteAt then fails, as with os.File) and the access modes os.O_RDONLY,
// os.O_WRONLY and os.O_RDWR. perm is recorded but not enforced. A missing name without
// os.O_CREATE fails with an error matching fs.ErrNotExist; an existing name with
// os.O_CREATE|os.O_EXCL fails with one matching fs.ErrExist. A created name is not durable until
// SyncDir of its directory; os.O_TRUNC counts as an unsynced truncate to 0.
func (m *MemFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name, flag, perm)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	if flag&os.O_TRUNC != 0 {
		n.truncate(0)
	}
	mode := flag & (os.O_WRONLY | os.O_RDWR)
	return &memFile{
		fs:     m,
		node:   n,
		name:   name,
		read:   mode != os.O_WRONLY,
		write:  mode != os.O_RDONLY,
		append: flag&os.O_APPEND != 0,
	}, nil
}

// lookup finds or creates the node for name according to flag. Callers hold m.mu.
func (m *MemFS) lookup(name string, flag int, perm os.FileMode) (*memNode, error) {
	n, ok := m.names[name]
	switch {
	case ok && flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return nil, fs.ErrExist
	case ok:
		return n, nil
	case flag&os.O_CREATE == 0:
		return nil, fs.ErrNotExist
	}
	n = &memNode{perm: perm}
	m.names[name] = n
	return n, nil
}

// Remove deletes the name; open handles keep working on the file. The removal is not durable
// until SyncDir of its directory. A missing name fails with an error matching fs.ErrNotExist.
func (m *MemFS) Remove(name string) error {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.names[name]; !ok {
		return &os.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.names, name)
	return nil
}

// SyncDir makes durable every creation and removal of a name whose parent is dir. It never
// fails: directories are implicit.
func (m *MemFS) SyncDir(dir string) error {
	dir = filepath.Clean(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, n := range m.names {
		if filepath.Dir(name) == dir {
			m.durable[name] = n
		}
	}
	for name := range m.durable {
		if _, ok := m.names[name]; !ok && filepath.Dir(name) == dir {
			delete(m.durable, name)
		}
	}
	return nil
}

// Lock takes the exclusive lock on name, creating the file if missing (like the OS
// implementation, which locks a separate lock file). It fails with ErrLocked while any holder,
// through any handle, has not yet closed the returned io.Closer. Closing twice fails with an
// error matching os.ErrClosed.
func (m *MemFS) Lock(name string) (io.Closer, error) {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locks[name] != 0 {
		return nil, ErrLocked
	}
	if _, ok := m.names[name]; !ok {
		m.names[name] = &memNode{perm: 0o600}
	}
	m.locks[name] = -1
	return &memLock{fs: m, name: name}, nil
}

// LockShared takes a shared lock on name, which must exist: it fails with ErrLocked while an
// exclusive holder has not closed its lock.
func (m *MemFS) LockShared(name string) (io.Closer, error) {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.names[name]; !ok {
		return nil, &os.PathError{Op: "lock", Path: name, Err: os.ErrNotExist}
	}
	if m.locks[name] < 0 {
		return nil, ErrLocked
	}
	m.locks[name]++
	return &memLock{fs: m, name: name}, nil
}

// memLock is a held lock; Close releases it.
type memLock struct {
	fs       *MemFS
	name     string
	released bool // guarded by fs.mu
}

func (l *memLock) Close() error {
	l.fs.mu.Lock()
	defer l.fs.mu.Unlock()
	if l.released {
		return &os.PathError{Op: "unlock", Path: l.name, Err: os.ErrClosed}
	}
	l.released = true
	if n := l.fs.locks[l.name]; n > 1 {
		l.fs.locks[l.name] = n - 1
	} else {
		delete(l.fs.locks, l.name)
	}
	return nil
}

// CrashClone returns a new, independent MemFS holding what the disk would hold after a power
// loss at this instant. Only durable names exist (a name created without a later SyncDir is
// gone; a name removed without a later SyncDir is back). Each file starts from its durable
// bytes, then the writes and truncates since its last Sync are replayed in order, each kept,
// dropped or torn as opt decides. In the clone everything is durable and no lock is held.
func (m *MemFS) CrashClone(opt CrashOptions) *MemFS {
	r := opt.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(0, 0))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := NewMem()
	names := make([]string, 0, len(m.durable))
	for name := range m.durable {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic use of r
	for _, name := range names {
		n := m.durable[name]
		data := n.crashContent(r, opt)
		cn := &memNode{data: data, synced: bytes.Clone(data), perm: n.perm}
		c.names[name] = cn
		c.durable[name] = cn
	}
	return c
}

// crashContent replays the unsynced changes of n over its durable bytes as opt decides.
func (n *memNode) crashContent(r *rand.Rand, opt CrashOptions) []byte {
	data := bytes.Clone(n.synced)
	for _, op := range n.pending {
		keep := r.Float64() < opt.KeepProb
		switch {
		case keep && op.trunc:
			data = resize(data, op.size)
		case keep:
			data = writeInto(data, op.off, op.data)
		case opt.Garble && !op.trunc && r.IntN(2) == 0:
			data = garbleInto(r, data, op.off, op.data)
		}
	}
	return data
}

// garbleInto applies a torn write of b at off: each sector the write covers gets the new bytes,
// keeps the old ones, or gets garbage; at least one sector gets garbage. The file is extended
// to off+len(b) (old bytes there are zeros).
func garbleInto(r *rand.Rand, data []byte, off int64, b []byte) []byte {
	end := off + int64(len(b))
	if int64(len(data)) < end {
		data = resize(data, end)
	}
	first, last := off/sectorSize, (end-1)/sectorSize
	forced := first + r.Int64N(last-first+1)
	for s := first; s <= last; s++ {
		lo, hi := max(s*sectorSize, off), min((s+1)*sectorSize, end)
		choice := r.IntN(3)
		if s == forced {
			choice = 2
		}
		switch choice {
		case 0:
			copy(data[lo:hi], b[lo-off:hi-off])
		case 2:
			fillGarbage(r, data[lo:hi], b[lo-off:hi-off])
		}
	}
	return data
}

// fillGarbage overwrites dst with random bytes that differ from both dst and want at each index.
func fillGarbage(r *rand.Rand, dst, want []byte) {
	for i := range dst {
		g := byte(r.Uint32())
		for g == dst[i] || g == want[i] {
			g = byte(r.Uint32())
		}
		dst[i] = g
	}
}

// writeInto copies b into data at off, growing data with zeros as needed.
func writeInto(data []byte, off int64, b []byte) []byte {
	if end := off + int64(len(b)); int64(len(data)) < end {
		data = resize(data, end)
	}
	copy(data[off:], b)
	return data
}

// resize shrinks data to size or grows it with zeros.
func resize(data []byte, size int64) []byte {
	if size <= int64(len(data)) {
		return data[:size]
	}
	return append(data, make([]byte, size-int64(len(data)))...)
}

func (n *memNode) write(off int64, b []byte) {
	if len(b) == 0 {
		return
	}
	n.pending = append(n.pending, memOp{off: off, data: bytes.Clone(b)})
	n.data = writeInto(n.data, off, b)
}

func (n *memNode) truncate(size int64) {
	n.pending = append(n.pending, memOp{trunc: true, size: size})
	n.data = resize(n.data, size)
}

// sync makes the current content durable by applying the pending changes to synced, in order:
// the cost is that of the bytes changed since the last Sync, not of the file. synced never shares
// memory with data.
func (n *memNode) sync() {
	for _, op := range n.pending {
		if op.trunc {
			n.synced = resize(n.synced, op.size)
		} else {
			n.synced = writeInto(n.synced, op.off, op.data)
		}
	}
	n.pending = nil
}

// ReadFile returns a copy of the current content of name, or an error matching fs.ErrNotExist.
func (m *MemFS) ReadFile(name string) ([]byte, error) {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.names[name]
	if !ok {
		return nil, &os.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(n.data), nil
}

// WriteFile sets the content of name to a copy of b, creating it if missing, and makes both the
// content and the name durable at once (no Sync or SyncDir needed). Open handles of an existing
// name see the new content. It is meant for building fixtures, such as corrupt files; it
// always returns nil.
func (m *MemFS) WriteFile(name string, b []byte) error {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.names[name]
	if !ok {
		n = &memNode{perm: 0o644}
		m.names[name] = n
	}
	n.data, n.synced, n.pending = bytes.Clone(b), bytes.Clone(b), nil
	m.durable[name] = n
	return nil
}

// Size returns the current size of name in bytes, or an error matching fs.ErrNotExist.
func (m *MemFS) Size(name string) (int64, error) {
	name = filepath.Clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.names[name]
	if !ok {
		return 0, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return int64(len(n.data)), nil
}

// memFile is an open handle on a memNode. All state is guarded by fs.mu.
type memFile struct {
	fs                  *MemFS
	node                *memNode
	name                string
	read, write, append bool
	closed              bool
}

// check returns the error for op on f if f is closed or was not opened for op (allowed false).
func (f *memFile) check(op string, allowed bool, notAllowed error) error {
	switch {
	case f.closed:
		return &os.PathError{Op: op, Path: f.name, Err: os.ErrClosed}
	case !allowed:
		return &os.PathError{Op: op, Path: f.name, Err: notAllowed}
	}
	return nil
}

func (f *memFile) ReadAt(b []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("read", f.read, syscall.EBADF); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, &os.PathError{Op: "readat", Path: f.name, Err: errNegativeOffset}
	}
	if len(b) == 0 {
		return 0, nil
	}
	if off >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(b, f.node.data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) WriteAt(b []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("write", f.write, syscall.EBADF); err != nil {
		return 0, err
	}
	if f.append {
		return 0, errors.New("os: invalid use of WriteAt on file opened with O_APPEND")
	}
	if off < 0 {
		return 0, &os.PathError{Op: "writeat", Path: f.name, Err: errNegativeOffset}
	}
	f.node.write(off, b)
	return len(b), nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("sync", true, nil); err != nil {
		return err
	}
	f.node.sync()
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("truncate", f.write && size >= 0, syscall.EINVAL); err != nil {
		return err
	}
	f.node.truncate(size)
	return nil
}

func (f *memFile) Size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("stat", true, nil); err != nil {
		return 0, err
	}
	return int64(len(f.node.data)), nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("close", true, nil); err != nil {
		return err
	}
	f.closed = true
	return nil
}

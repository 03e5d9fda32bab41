package cairn

// Error injection at every I/O call site (issue 6).
//
// TestFaultSites runs one representative workload through the public API: Open of a new database,
// Updates (multi-key transactions, a multi-page value, overwrites, deletes), concurrent writers, an
// explicit Checkpoint, reads with a cache small enough to miss, a checkpoint started by
// CheckpointBytes, Close, Open, more Updates, a simulated kill, Open with WAL replay, Check and
// Close. A first run, without faults, records every call the workload makes to the file system,
// with the workload's phase, the file (page file, WAL or directory) and the code that made it (the
// call site). Then, for each case, the workload runs again on a fresh MemFS with one call failing:
// the k-th call of one operation (write, sync, read, truncate, open, remove, syncdir: what
// vfs.ErrFS can fail) within one phase, as an I/O error, a short write, or ENOSPC on a short
// write that stays (every later write fails too). By default the cases are the first call of every
// call site; -faults.all runs every k of every phase. Each case checks:
//
//  1. no panic, no hang (a watchdog per case dumps every goroutine and panics);
//  2. the error reaches the caller of the public API (Open, Update, View, Checkpoint, Check,
//     Close), in the phase where it was injected, wraps the injected error (errors.Is), and
//     carries context ("cairn: ...");
//  3. a failed write, fdatasync or truncate with the database open fails it: the error wraps
//     ErrFailed, later Updates and Checkpoints fail with ErrFailed wrapping the cause, and reads
//     see exactly the acknowledged commits. A failed read does not: the next Update succeeds and
//     Check passes;
//  4. with the fault removed, the database reopens, from the same MemFS, from a crash clone of it
//     that drops every unsynced write, and from one that keeps, drops or tears each (seeded by the
//     case name), with every acknowledged commit and its values, no
//     transaction partly visible (each writes three keys per group it touches, and some several
//     groups), nothing invented, and Check finds nothing.
//
//	go test -run 'TestFaultSites$' -v .                      # one case per call site (CI)
//	go test -run 'TestFaultSites$' -faults.all -v .          # every call index
//	go test -run 'TestFaultSites$' -faults.case='close/write#3/short' -v .   # replay one case
//
// The workload is deterministic (no random choices); the concurrent phase and the background
// eviction may move a call index by a few calls between runs, so each case reports the call site
// its fault actually hit.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/vfs"
	"github.com/stretchr/testify/require"
)

var (
	faultsAll     = flag.Bool("faults.all", false, "TestFaultSites: inject at every call index of every phase, not only at the first call of each call site")
	faultsCase    = flag.String("faults.case", "", "TestFaultSites: run only the cases whose name contains this string")
	faultsTimeout = flag.Duration("faults.timeout", 60*time.Second, "TestFaultSites: a case running longer is a hang")
)

// The injectable operations, in report order.
var faultOps = []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRead, vfs.OpTruncate, vfs.OpOpen, vfs.OpRemove, vfs.OpSyncDir}

// Fault modes: how the chosen call fails.
const (
	modeErr    = "err"    // EIO, once
	modeShort  = "short"  // half the bytes written, then EIO, once
	modeENOSPC = "enospc" // half the bytes written, then ENOSPC, and every later write fails too
)

func faultModes(op vfs.Op) []string {
	if op == vfs.OpWrite {
		return []string{modeErr, modeShort, modeENOSPC}
	}
	return []string{modeErr}
}

// faultCase fails the k-th call (from 1) of op within phase, in mode.
type faultCase struct {
	phase string
	op    vfs.Op
	k     int
	mode  string
	site  string // the call site the counting run saw at that index
}

func (c faultCase) name() string { return fmt.Sprintf("%s/%s#%d/%s", c.phase, c.op, c.k, c.mode) }

func (c faultCase) rule() vfs.Rule {
	r := vfs.Rule{Op: c.op, After: c.k - 1, Err: syscall.EIO}
	switch c.mode {
	case modeShort:
		r.ShortWrite = true
	case modeENOSPC:
		r.ShortWrite, r.Err, r.Sticky = true, syscall.ENOSPC, true
	}
	return r
}

// fatal reports whether a failure of op with the database open must put it in the failed state.
func (c faultCase) fatal() bool {
	return c.op == vfs.OpWrite || c.op == vfs.OpSync || c.op == vfs.OpTruncate
}

// siteCall is one call to the file system as the recording layer saw it.
type siteCall struct {
	phase string
	op    vfs.Op
	k     int    // index of the call among the calls of op in phase, from 1
	file  string // "db", "wal" or "dir"
	where string // the function and line that made the call
}

func (s siteCall) site() string { return fmt.Sprintf("%s %s %s %s", s.phase, s.op, s.file, s.where) }

// siteFS sits above a vfs.ErrFS: it numbers the calls per phase and operation, records where
// each one came from, and notes the calls that the ErrFS failed.
type siteFS struct {
	inner vfs.FS
	mu    sync.Mutex
	phase string
	n     map[string]int // phase + op -> calls so far
	calls []siteCall     // every call (kept only when record is set)
	hits  []siteCall     // calls that returned an injected error
	// record keeps every call (the counting run).
	record bool
}

func newSiteFS(inner vfs.FS, record bool) *siteFS {
	return &siteFS{inner: inner, n: map[string]int{}, record: record, phase: "setup"}
}

func (s *siteFS) setPhase(p string) {
	s.mu.Lock()
	s.phase = p
	s.mu.Unlock()
}

func (s *siteFS) injected() []siteCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits)
}

// do runs one call of op on name through fn and records it.
func (s *siteFS) do(op vfs.Op, name string, fn func() error) {
	file := "db"
	switch {
	case strings.Contains(name, "-wal"):
		file = "wal"
	case op == vfs.OpSyncDir:
		file = "dir"
	}
	s.mu.Lock()
	key := s.phase + "\x00" + op.String()
	s.n[key]++
	c := siteCall{phase: s.phase, op: op, k: s.n[key], file: file}
	s.mu.Unlock()
	if s.record {
		c.where = callerSite()
	}
	err := fn()
	if errors.Is(err, vfs.ErrInjected) || s.record {
		if c.where == "" {
			c.where = callerSite()
		}
		s.mu.Lock()
		if s.record {
			s.calls = append(s.calls, c)
		}
		if errors.Is(err, vfs.ErrInjected) {
			s.hits = append(s.hits, c)
		}
		s.mu.Unlock()
	}
}

// callerSite names the first function outside the file-system layers on the stack, with its line.
func callerSite() string {
	pc := make([]uintptr, 16)
	frames := runtime.CallersFrames(pc[:runtime.Callers(3, pc)])
	for {
		f, more := frames.Next()
		fn := f.Function
		if !strings.Contains(fn, "/internal/vfs.") && !strings.Contains(fn, "cairn.(*siteFS)") &&
			!strings.Contains(fn, "cairn.(*siteFile)") {
			fn = strings.TrimPrefix(strings.TrimPrefix(fn, "github.com/cairndb/cairn/"), "github.com/cairndb/")
			return fmt.Sprintf("%s:%d", fn, f.Line)
		}
		if !more {
			return "?"
		}
	}
}

func (s *siteFS) OpenFile(name string, flag int, perm os.FileMode) (f vfs.File, err error) {
	s.do(vfs.OpOpen, name, func() error { f, err = s.inner.OpenFile(name, flag, perm); return err })
	if err != nil {
		return nil, err
	}
	return &siteFile{File: f, fs: s, name: name}, nil
}

func (s *siteFS) Remove(name string) (err error) {
	s.do(vfs.OpRemove, name, func() error { err = s.inner.Remove(name); return err })
	return err
}

func (s *siteFS) SyncDir(dir string) (err error) {
	s.do(vfs.OpSyncDir, dir, func() error { err = s.inner.SyncDir(dir); return err })
	return err
}

func (s *siteFS) Lock(name string) (io.Closer, error)       { return s.inner.Lock(name) }
func (s *siteFS) LockShared(name string) (io.Closer, error) { return s.inner.LockShared(name) }

type siteFile struct {
	vfs.File
	fs   *siteFS
	name string
}

func (f *siteFile) ReadAt(b []byte, off int64) (n int, err error) {
	f.fs.do(vfs.OpRead, f.name, func() error { n, err = f.File.ReadAt(b, off); return err })
	return n, err
}

func (f *siteFile) WriteAt(b []byte, off int64) (n int, err error) {
	f.fs.do(vfs.OpWrite, f.name, func() error { n, err = f.File.WriteAt(b, off); return err })
	return n, err
}

func (f *siteFile) Sync() (err error) {
	f.fs.do(vfs.OpSync, f.name, func() error { err = f.File.Sync(); return err })
	return err
}

func (f *siteFile) Truncate(size int64) (err error) {
	f.fs.do(vfs.OpTruncate, f.name, func() error { err = f.File.Truncate(size); return err })
	return err
}

// The workload's data. A group is three keys written together; a change sets a group to a
// version (0: deleted). A transaction applies several changes at once.
type fsChange struct{ g, v int }

const fsLargeGroup = 6 // its key "b" holds a multi-page value

func fsKey(g int, s byte) []byte { return fmt.Appendf(nil, "g%04d/%c", g, s) }

// fsValue is the value of key s of group g at version v: deterministic bytes, 20,000 for the large
// group's key b, 3,000 (an overflow extent) for the groups of the auto-checkpoint phase, else 40.
func fsValue(g int, s byte, v int) []byte {
	n := 40
	switch {
	case g == fsLargeGroup && s == 'b':
		n = 20000
	case g >= 500 && g < 600 && s == 'a':
		n = 3000
	}
	rng := rand.New(rand.NewPCG(uint64(g), uint64(v)<<8|uint64(s)))
	b := fmt.Appendf(make([]byte, 0, n), "g%d/%c v%d ", g, s, v)
	for len(b) < n {
		b = append(b, byte('a'+rng.IntN(26)))
	}
	return b[:n]
}

var fsSuffixes = []byte{'a', 'b', 'c'}

// faultRun is one run of the workload, with or without a fault.
type faultRun struct {
	t    *testing.T
	mem  *vfs.MemFS
	efs  *vfs.ErrFS
	sfs  *siteFS
	opts Options
	c    *faultCase // nil: the counting run
	db   *DB

	mu       sync.Mutex
	acked    map[int]int   // group -> acknowledged version (0: absent)
	inflight map[int][]int // group -> versions of commits that returned an error

	failPhase string  // phase whose API call returned the first error
	errs      []error // the errors returned in that phase
}

const fsPath = "/d/fault.db"

func newFaultRun(t *testing.T, c *faultCase) *faultRun {
	mem := vfs.NewMem()
	efs := vfs.NewErrFS(mem)
	r := &faultRun{t: t, mem: mem, efs: efs, sfs: newSiteFS(efs, c == nil), c: c,
		acked: map[int]int{}, inflight: map[int][]int{}}
	r.opts = Options{PageSize: 4096, CacheBytes: 16 << 10, CheckpointBytes: 48 << 10, fs: r.sfs}
	return r
}

// commit runs one transaction of changes and records its outcome in the model.
func (r *faultRun) commit(changes ...fsChange) error {
	err := r.db.Update(func(tx *Tx) error {
		for _, ch := range changes {
			for _, s := range fsSuffixes {
				space, err := fsSpace(tx, s)
				if err != nil {
					return err
				}
				if ch.v == 0 {
					err = space.Delete(fsKey(ch.g, s))
				} else {
					err = space.Put(fsKey(ch.g, s), fsValue(ch.g, s, ch.v))
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range changes {
		if err == nil {
			r.acked[ch.g] = ch.v
		} else {
			r.inflight[ch.g] = append(r.inflight[ch.g], ch.v)
		}
	}
	return err
}

// phase runs the API calls of one phase with the fault armed if it is the case's phase. It
// returns false, after recording the errors, if a call failed: the workload stops there.
func (r *faultRun) phase(name string, fn func() []error) bool {
	r.sfs.setPhase(name)
	armed := r.c != nil && r.c.phase == name
	if armed {
		r.efs.Inject(r.c.rule())
	}
	errs := fn()
	hit := len(r.sfs.injected()) > 0
	if armed && !hit {
		r.efs.Clear() // not reached in this run: do not let it fire in a later phase
	}
	if len(errs) > 0 {
		r.failPhase, r.errs = name, errs
		return false
	}
	if hit {
		r.t.Fatalf("%s: the fault hit %v and no API call of phase %q returned an error: the error was swallowed",
			r.c.name(), r.sfs.injected(), name)
	}
	return true
}

func one(err error) []error {
	if err != nil {
		return []error{err}
	}
	return nil
}

// workload runs the phases until one fails; it returns whether all succeeded.
func (r *faultRun) workload() bool {
	open := func() error {
		db, err := Open(fsPath, &r.opts)
		if err == nil {
			r.db = db
		}
		return err
	}
	closeDB := func() error {
		db := r.db
		r.db = nil
		return db.Close()
	}
	seq := func(steps ...func() error) []error {
		for _, s := range steps {
			if err := s(); err != nil {
				return []error{err}
			}
		}
		return nil
	}
	commit := func(changes ...fsChange) func() error {
		return func() error { return r.commit(changes...) }
	}
	view := func() error { _, err := r.scan(r.db); return err }
	// evicted waits (a little) for the background eviction after a checkpoint to bring the cache
	// under its limit, so that the next reads miss and call the file system. It is best effort:
	// an eviction that finds the evictor busy is skipped, and then the reads may hit the cache.
	// It stops when the cache is under its limit, or has not changed for a millisecond (the
	// evictor is done: it leaves the workload's cache a few pages over the limit), or after
	// 100 ms.
	evicted := func() error {
		last, same := r.db.Stats().CachedBytes, 0
		for deadline := time.Now().Add(100 * time.Millisecond); last > r.opts.CacheBytes && same < 10 && time.Now().Before(deadline); {
			time.Sleep(100 * time.Microsecond)
			if now := r.db.Stats().CachedBytes; now == last {
				same++
			} else {
				last, same = now, 0
			}
		}
		return nil
	}
	bulk := func(from, to, v int) []fsChange {
		var cs []fsChange
		for g := from; g < to; g++ {
			cs = append(cs, fsChange{g, v})
		}
		return cs
	}
	return r.phase("create", func() []error { return one(open()) }) &&
		r.phase("update", func() []error {
			return seq(commit(fsChange{0, 1}), commit(fsChange{1, 1}), commit(fsChange{2, 1}, fsChange{3, 1}),
				commit(fsChange{fsLargeGroup, 1}), commit(bulk(100, 130, 1)...), commit(fsChange{1, 2}),
				commit(fsChange{2, 0}), commit(bulk(130, 140, 1)...), commit(fsChange{0, 0}, fsChange{3, 2}))
		}) &&
		r.phase("concurrent", func() []error {
			var mu sync.Mutex
			var errs []error
			var wg sync.WaitGroup
			for w := range 3 {
				wg.Go(func() {
					for i := range 4 {
						g := 200 + 10*w + i
						if err := r.commit(fsChange{g, 1}, fsChange{g + 100, 1}); err != nil {
							mu.Lock()
							errs = append(errs, err)
							mu.Unlock()
							return
						}
					}
				})
			}
			wg.Wait()
			return errs
		}) &&
		r.phase("checkpoint", func() []error { return one(r.db.Checkpoint(context.Background())) }) &&
		r.phase("view", func() []error { return seq(evicted, view) }) &&
		r.phase("update-clean", func() []error {
			return seq(commit(fsChange{105, 2}, fsChange{125, 2}), commit(fsChange{fsLargeGroup, 0}),
				commit(bulk(110, 118, 0)...), commit(fsChange{1, 3}))
		}) &&
		r.phase("auto-checkpoint", func() []error { return r.autoCheckpoint() }) &&
		r.phase("close", func() []error { return one(closeDB()) }) &&
		r.phase("reopen", func() []error { return one(open()) }) &&
		r.phase("update-reopened", func() []error {
			return seq(commit(fsChange{120, 3}), commit(fsChange{4, 1}, fsChange{135, 0}), view)
		}) &&
		r.phase("kill", func() []error { r.db.abandon(); r.db = nil; return nil }) &&
		r.phase("replay", func() []error { return one(open()) }) &&
		r.phase("check", func() []error { return one(r.db.Check()) }) &&
		r.phase("close-final", func() []error { return one(closeDB()) })
}

// autoCheckpoint commits until the WAL passes CheckpointBytes, waits for the background
// checkpoint that starts, and commits once more (which returns a failure of that checkpoint).
func (r *faultRun) autoCheckpoint() []error {
	before := r.db.Stats()
	g := 500
	// Stop at the commit that passes the threshold; the checkpoint it starts may have reset the
	// WAL already.
	for s := before; s.WALBytes <= r.opts.CheckpointBytes && s.Checkpoints == before.Checkpoints &&
		s.CheckpointErr == before.CheckpointErr; s = r.db.Stats() {
		if err := r.commit(fsChange{g, 1}); err != nil {
			return []error{err}
		}
		g++
	}
	deadline := time.Now().Add(*faultsTimeout)
	for {
		s := r.db.Stats()
		if s.Checkpoints > before.Checkpoints || s.CheckpointErr > before.CheckpointErr {
			break
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no background checkpoint started after the WAL reached %d bytes", s.WALBytes)
		}
		time.Sleep(100 * time.Microsecond)
	}
	r.db.checkpointMu.Lock() // wait for the end of the checkpoint that counted
	r.db.checkpointMu.Unlock()
	return one(r.commit(fsChange{g, 1}))
}

// scan reads every key of db in one read transaction.
func (r *faultRun) scan(db *DB) (map[string][]byte, error) {
	got := map[string][]byte{}
	err := db.View(func(tx *Tx) error {
		for k, v := range tx.Range(nil, nil) {
			got[string(k)] = bytes.Clone(v)
		}
		b, err := tx.Bucket(fsBucket)
		if errors.Is(err, ErrBucketNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		for k, v := range b.Range(nil, nil) {
			got[string(k)] = bytes.Clone(v)
		}
		return tx.Err()
	})
	return got, err
}

// fsBucket holds the keys with suffix 'c': every commit changes a bucket and the default key
// space together, so a state with one and not the other shows as a partial group.
var fsBucket = []byte("fs")

// fsSpace returns where the key with suffix s lives: bucket fsBucket for 'c', else the default
// key space.
func fsSpace(tx *Tx, s byte) (keySpace, error) {
	if s == 'c' {
		return spaceOf(tx, fsBucket)
	}
	return spaceOf(tx, nil)
}

// groupState returns the version every key of group g has in got (0: none of them), or an error
// for a partial or unknown state.
func groupState(got map[string][]byte, g int, candidates []int) (int, error) {
	present := 0
	for _, s := range fsSuffixes {
		if _, ok := got[string(fsKey(g, s))]; ok {
			present++
		}
	}
	if present == 0 {
		return 0, nil
	}
	for _, v := range candidates {
		if v == 0 {
			continue
		}
		ok := true
		for _, s := range fsSuffixes {
			if !bytes.Equal(got[string(fsKey(g, s))], fsValue(g, s, v)) {
				ok = false
			}
		}
		if ok {
			return v, nil
		}
	}
	return -1, fmt.Errorf("group %d: %d of 3 keys present, values of no version in %v (partial or damaged transaction)", g, present, candidates)
}

// requireState checks that got holds every acknowledged group version, and for groups with a
// failed commit either the acknowledged version or (if allowInflight) a failed commit's version;
// nothing else, and no group partly.
func (r *faultRun) requireState(got map[string][]byte, allowInflight bool, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	known := map[string]bool{}
	groups := slices.Collect(maps.Keys(r.acked))
	for g := range r.inflight {
		if _, ok := r.acked[g]; !ok {
			groups = append(groups, g)
		}
	}
	slices.Sort(groups)
	for _, g := range groups {
		for _, s := range fsSuffixes {
			known[string(fsKey(g, s))] = true
		}
		allowed := []int{r.acked[g]}
		if allowInflight {
			allowed = append(allowed, r.inflight[g]...)
		}
		v, err := groupState(got, g, allowed)
		require.NoError(r.t, err, "%s: %s", r.name(), what)
		require.Contains(r.t, allowed, v, "%s: %s: group %d has version %d, acknowledged %d, failed commits %v",
			r.name(), what, g, v, r.acked[g], r.inflight[g])
	}
	for k := range got {
		require.True(r.t, known[k], "%s: %s: key %q was never written", r.name(), what, k)
	}
}

func (r *faultRun) name() string {
	if r.c == nil {
		return "no fault"
	}
	return r.c.name()
}

// reopen opens the database on fs (without faults) and checks its content, Check, and Close.
func (r *faultRun) reopen(fs vfs.FS, allowInflight bool, what string) {
	opts := r.opts
	opts.fs = fs
	db, err := Open(fsPath, &opts)
	require.NoError(r.t, err, "%s: %s: open", r.name(), what)
	got, err := r.scan(db)
	require.NoError(r.t, err, "%s: %s: read", r.name(), what)
	r.requireState(got, allowInflight, what)
	require.NoError(r.t, db.Check(), "%s: %s: Check", r.name(), what)
	require.NoError(r.t, db.Close(), "%s: %s: close", r.name(), what)
}

// afterFailure checks the error the workload stopped on and what the database does next.
func (r *faultRun) afterFailure() {
	t, c := r.t, r.c
	hits := r.sfs.injected()
	require.NotEmpty(t, hits, "%s: an API call failed but no fault was injected: %v", c.name(), r.errs)
	require.Equal(t, c.phase, r.failPhase, "%s: the fault hit %v, the error came in phase %s", c.name(), hits, r.failPhase)
	for _, err := range r.errs {
		require.ErrorIs(t, err, vfs.ErrInjected, "%s: the API error does not wrap the injected error", c.name())
		require.True(t, hasContext(err), "%s: error without context: %v", c.name(), err)
		require.NotErrorIs(t, err, ErrCorrupt, "%s: an I/O error reported as corruption", c.name())
		if c.mode == modeENOSPC {
			require.ErrorIs(t, err, syscall.ENOSPC, c.name())
		} else {
			require.ErrorIs(t, err, syscall.EIO, c.name())
		}
	}
	if r.db != nil { // the error came from Update, View, Checkpoint or Check
		r.failedDB(hits)
		clone, torn := r.crashClones()
		err := r.db.Close()
		if c.fatal() {
			require.ErrorIs(t, err, ErrFailed, "%s: Close returns the failure", c.name())
			require.ErrorIs(t, err, vfs.ErrInjected, "%s: Close returns the failure", c.name())
		} else {
			require.NoError(t, err, "%s: close after a failed read", c.name())
		}
		r.db = nil
		r.efs.Clear()
		r.reopen(r.mem, c.fatal(), "reopened on the same files")
		r.reopen(clone, c.fatal(), "reopened after a crash that dropped unsynced writes")
		r.reopen(torn, c.fatal(), "reopened after a crash that kept, dropped or tore unsynced writes")
		return
	}
	// The error came from Open or Close.
	clone, torn := r.crashClones()
	r.efs.Clear()
	r.reopen(r.mem, true, "reopened on the same files")
	r.reopen(clone, true, "reopened after a crash that dropped unsynced writes")
	r.reopen(torn, true, "reopened after a crash that kept, dropped or tore unsynced writes")
}

// crashClones returns what a power loss right after the failure would leave: every unsynced
// write dropped, and each one kept, dropped or torn (with a seed derived from the case name).
func (r *faultRun) crashClones() (dropped, torn *vfs.MemFS) {
	h := fnv.New64a()
	h.Write([]byte(r.c.name()))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0))
	return r.mem.CrashClone(vfs.CrashOptions{KeepProb: 0}),
		r.mem.CrashClone(vfs.CrashOptions{Rand: rng, KeepProb: 0.5, Garble: true})
}

// hasContext reports whether err says what failed beyond the file system's own message: it starts
// with the name of a cairn package. Errors of Tx.Put and Tx.Delete come from the pager as they
// are ("pager: read page 5: ..."); the others start with "cairn: ".
func hasContext(err error) bool {
	for _, p := range []string{"cairn: ", "pager: ", "wal: ", "btree: "} {
		if strings.HasPrefix(err.Error(), p) {
			return true
		}
	}
	return false
}

// failedDB checks an open database after a failed call: failed after a write, sync or truncate
// error (later writes fail, reads see every acknowledged commit), working after a read error.
func (r *faultRun) failedDB(hits []siteCall) {
	t, c := r.t, r.c
	if c.fatal() {
		for _, err := range r.errs {
			require.ErrorIs(t, err, ErrFailed, "%s: a failed %s must fail the database (hit %v)", c.name(), c.op, hits)
		}
		err := r.commit(fsChange{900, 1})
		require.ErrorIs(t, err, ErrFailed, "%s: Update after the failure", c.name())
		require.ErrorIs(t, err, vfs.ErrInjected, "%s: Update after the failure must wrap the cause", c.name())
		err = r.db.Checkpoint(context.Background())
		require.ErrorIs(t, err, ErrFailed, "%s: Checkpoint after the failure", c.name())
		require.ErrorIs(t, err, vfs.ErrInjected, "%s: Checkpoint after the failure must wrap the cause", c.name())
		require.ErrorIs(t, r.db.Check(), ErrFailed, "%s: Check after the failure", c.name())
	} else {
		for _, err := range r.errs {
			require.NotErrorIs(t, err, ErrFailed, "%s: a failed %s must not fail the database", c.name(), c.op)
		}
		require.NoError(t, r.commit(fsChange{900, 1}), "%s: Update after a failed read", c.name())
		require.NoError(t, r.db.Check(), "%s: Check after a failed read", c.name())
	}
	got, err := r.scan(r.db)
	require.NoError(t, err, "%s: reads after the failure", c.name())
	r.requireState(got, false, "reads of the published version after the failure")
}

// faultCount is the number of calls of one operation in one phase, for the report.
type faultCount struct {
	calls map[string]map[vfs.Op]int // phase -> op -> calls
	sites map[string]siteCall       // site -> its first call
	order []string                  // sites in first-call order
	all   []siteCall
}

// countCalls runs the workload without faults, checks its result, and returns its calls.
func countCalls(t *testing.T) faultCount {
	r := newFaultRun(t, nil)
	require.True(t, r.workload(), "the workload without faults failed in phase %s: %v", r.failPhase, r.errs)
	r.reopen(r.mem, false, "after the workload")
	fc := faultCount{calls: map[string]map[vfs.Op]int{}, sites: map[string]siteCall{}, all: r.sfs.calls}
	for _, c := range r.sfs.calls {
		if fc.calls[c.phase] == nil {
			fc.calls[c.phase] = map[vfs.Op]int{}
		}
		fc.calls[c.phase][c.op]++
		if _, ok := fc.sites[c.site()]; !ok {
			fc.sites[c.site()] = c
			fc.order = append(fc.order, c.site())
		}
	}
	return fc
}

// cases returns the cases to run: the first call of every site, or every call with all.
func (fc faultCount) cases(all bool) []faultCase {
	var calls []siteCall
	if all {
		calls = fc.all
	} else {
		for _, s := range fc.order {
			calls = append(calls, fc.sites[s])
		}
	}
	var cs []faultCase
	for _, call := range calls {
		if call.phase == "kill" || call.phase == "setup" {
			continue // not an API call
		}
		for _, m := range faultModes(call.op) {
			cs = append(cs, faultCase{phase: call.phase, op: call.op, k: call.k, mode: m, site: call.file + " " + call.where})
		}
	}
	return cs
}

func TestFaultSites(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fails every file system call site in turn")
	}
	t.Parallel()
	start := time.Now()
	fc := countCalls(t)
	var phases []string
	for _, c := range fc.all {
		if len(phases) == 0 || phases[len(phases)-1] != c.phase {
			phases = append(phases, c.phase)
		}
	}
	for _, p := range phases {
		var parts []string
		for _, op := range faultOps {
			if n := fc.calls[p][op]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", op, n))
			}
		}
		t.Logf("calls in phase %-16s %s", p, strings.Join(parts, ", "))
	}
	t.Logf("%d call sites (phase, operation, file, code):", len(fc.order))
	for _, s := range fc.order {
		t.Logf("  %s", s)
	}

	cases := fc.cases(*faultsAll || *faultsCase != "") // a case to replay may come from -faults.all
	perOp := map[vfs.Op]int{}
	ran, moved, missed := 0, 0, 0
	for _, c := range cases {
		if *faultsCase != "" && !strings.Contains(c.name(), *faultsCase) {
			continue
		}
		t.Run(c.name(), func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("case %s (site %s); replay: go test -run 'TestFaultSites$' -faults.case='%s' -v .", c.name(), c.site, c.name())
				}
			})
			perOp[c.op]++
			ran++
			hits := runFaultCase(t, c)
			switch {
			case len(hits) == 0:
				missed++
				t.Logf("not reached: phase %s made fewer than %d %s calls in this run", c.phase, c.k, c.op)
			case hits[0].file+" "+hits[0].where != c.site && !*faultsAll:
				moved++
				t.Logf("hit %s %s instead of %s (call order differs between runs)", hits[0].file, hits[0].where, c.site)
			}
		})
	}
	var parts []string
	for _, op := range faultOps {
		if perOp[op] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", op, perOp[op]))
		}
	}
	t.Logf("%d cases (%s) in %v; %d hit another site than in the counting run, %d not reached",
		ran, strings.Join(parts, ", "), time.Since(start).Round(time.Millisecond), moved, missed)
}

// runFaultCase runs the workload with the fault of c and checks the outcome; it returns the calls
// the fault hit. A watchdog ends the test binary, with every goroutine's stack, if it hangs.
func runFaultCase(t *testing.T, c faultCase) []siteCall {
	watchdog := time.AfterFunc(*faultsTimeout, func() {
		fmt.Fprintf(os.Stderr, "TestFaultSites: case %s hung for %v; goroutines:\n", c.name(), *faultsTimeout)
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		panic("TestFaultSites: case " + c.name() + " hung")
	})
	defer watchdog.Stop()
	r := newFaultRun(t, &c)
	if r.workload() {
		// Not reached (the phase made fewer calls this time): the workload must have ended well.
		require.Empty(t, r.sfs.injected(), "%s: the workload succeeded although a fault was injected", c.name())
		r.reopen(r.mem, false, "after the workload")
		return nil
	}
	r.afterFailure()
	return r.sfs.injected()
}

// TestFaultSitesCallerSite keeps the site names meaningful: a call made by the pager is
// attributed to the pager, not to the recording layers.
func TestFaultSitesCallerSite(t *testing.T) {
	t.Parallel()
	r := newFaultRun(t, nil)
	r.sfs.setPhase("p")
	db, err := Open(fsPath, &r.opts)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	var wheres []string
	for _, c := range r.sfs.calls {
		wheres = append(wheres, c.where)
	}
	require.True(t, slices.ContainsFunc(wheres, func(w string) bool { return strings.HasPrefix(w, "pager.(*Pager).initialise:") }), "%v", wheres)
	require.True(t, slices.ContainsFunc(wheres, func(w string) bool { return strings.HasPrefix(w, "wal.(*Writer).initialize:") }), "%v", wheres)
}

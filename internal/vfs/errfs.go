package vfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Op names a kind of call that ErrFS counts and can make fail.
type Op int

// The operations ErrFS can fail. File operations match on the name the file was opened with;
// OpSyncDir matches on the directory. The zero Op is none of them.
const (
	OpWrite    Op = iota + 1 // File.WriteAt
	OpSync                   // File.Sync
	OpRead                   // File.ReadAt
	OpTruncate               // File.Truncate
	OpOpen                   // FS.OpenFile
	OpRemove                 // FS.Remove
	OpSyncDir                // FS.SyncDir
	opEnd
)

var opNames = [...]string{"", "write", "sync", "read", "truncate", "open", "remove", "syncdir"}

// String returns the lower-case name of o, such as "write".
func (o Op) String() string {
	if o <= 0 || o >= opEnd {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}

// ErrInjected is wrapped by every error that ErrFS injects, whatever Rule.Err says, but for a
// Plain rule's.
var ErrInjected = errors.New("vfs: injected error")

// Rule tells ErrFS which call to fail and how.
type Rule struct {
	// Op is the kind of call the rule applies to.
	Op Op
	// Path must be a substring of the call's path; "" matches every path.
	Path string
	// After is how many matching calls succeed before the rule fires.
	After int
	// Err is wrapped by the injected error (besides ErrInjected); nil means ErrInjected alone.
	Err error
	// ShortWrite, for OpWrite, writes the first half of the bytes through to the inner file
	// before returning the injected error (with that count).
	ShortWrite bool
	// Sticky keeps the rule firing on every later matching call; otherwise it fires once and
	// is removed.
	Sticky bool
	// Plain returns Err as it is, without the "vfs: op path:" prefix and without ErrInjected:
	// to imitate an error of the OS exactly (an *fs.PathError, say). It needs a non-nil Err.
	Plain bool
}

// ErrFS wraps an FS and makes chosen calls fail, by Rule, to test error paths. Calls that no
// rule fires on pass through to the inner FS. FS.Lock, File.Size and File.Close are never
// failed. ErrFS is safe for concurrent use.
type ErrFS struct {
	inner FS
	mu    sync.Mutex
	rules []*ruleState
	calls [opEnd]int
}

// ruleState is an injected rule with the count of matching calls it has seen.
type ruleState struct {
	Rule
	seen int
}

// NewErrFS returns an ErrFS over inner with no rules.
func NewErrFS(inner FS) *ErrFS {
	return &ErrFS{inner: inner}
}

// Inject adds rule; rules are consulted in the order added. Every matching rule counts a call,
// but at most one fires per call (the earliest due one); a due rule that did not fire stays due.
// It panics if rule.Op is not one of the Op constants.
func (e *ErrFS) Inject(rule Rule) {
	if rule.Op <= 0 || rule.Op >= opEnd {
		panic(fmt.Sprintf("vfs: ErrFS.Inject: invalid %v", rule.Op))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rules = append(e.rules, &ruleState{Rule: rule})
}

// Clear removes every rule. The call counters are kept.
func (e *ErrFS) Clear() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rules = nil
}

// Calls reports how many calls of op went through e so far, whether they failed or not.
func (e *ErrFS) Calls(op Op) int {
	if op <= 0 || op >= opEnd {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[op]
}

// check counts a call of op on path and returns the injected error, if a rule fires, and
// whether that rule asks for a short write.
func (e *ErrFS) check(op Op, path string) (short bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls[op]++
	var hit *ruleState
	for _, r := range e.rules {
		if r.Op != op || !strings.Contains(path, r.Path) {
			continue
		}
		r.seen++
		if hit == nil && r.seen > r.After {
			hit = r
		}
	}
	if hit == nil {
		return false, nil
	}
	if !hit.Sticky {
		e.rules = deleteRule(e.rules, hit)
	}
	if hit.Plain && hit.Err != nil {
		return hit.ShortWrite, hit.Err
	}
	return hit.ShortWrite, injectedError(op, path, hit.Err)
}

func deleteRule(rules []*ruleState, r *ruleState) []*ruleState {
	for i := range rules {
		if rules[i] == r {
			return append(rules[:i:i], rules[i+1:]...)
		}
	}
	return rules
}

func injectedError(op Op, path string, err error) error {
	if err == nil || err == ErrInjected {
		return fmt.Errorf("vfs: %s %s: %w", op, path, ErrInjected)
	}
	return fmt.Errorf("vfs: %s %s: %w: %w", op, path, ErrInjected, err)
}

// OpenFile fails if an OpOpen rule fires on name, else opens name on the inner FS and wraps
// the file so its ReadAt, WriteAt, Sync and Truncate can fail too.
func (e *ErrFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	if _, err := e.check(OpOpen, name); err != nil {
		return nil, err
	}
	f, err := e.inner.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &errFile{fs: e, f: f, name: name}, nil
}

// Remove fails if an OpRemove rule fires on name, else removes name on the inner FS.
func (e *ErrFS) Remove(name string) error {
	if _, err := e.check(OpRemove, name); err != nil {
		return err
	}
	return e.inner.Remove(name)
}

// SyncDir fails if an OpSyncDir rule fires on dir, else syncs dir on the inner FS.
func (e *ErrFS) SyncDir(dir string) error {
	if _, err := e.check(OpSyncDir, dir); err != nil {
		return err
	}
	return e.inner.SyncDir(dir)
}

// Lock passes through to the inner FS; it is never failed.
func (e *ErrFS) Lock(name string) (io.Closer, error) {
	return e.inner.Lock(name)
}

// LockShared passes through to the inner FS; it is never failed.
func (e *ErrFS) LockShared(name string) (io.Closer, error) {
	return e.inner.LockShared(name)
}

// errFile is a file opened through ErrFS.
type errFile struct {
	fs   *ErrFS
	f    File
	name string
}

func (f *errFile) ReadAt(b []byte, off int64) (int, error) {
	if _, err := f.fs.check(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.f.ReadAt(b, off)
}

func (f *errFile) WriteAt(b []byte, off int64) (int, error) {
	short, err := f.fs.check(OpWrite, f.name)
	if err == nil {
		return f.f.WriteAt(b, off)
	}
	if !short {
		return 0, err
	}
	n, werr := f.f.WriteAt(b[:len(b)/2], off)
	if werr != nil {
		return n, werr
	}
	return n, err
}

func (f *errFile) Sync() error {
	if _, err := f.fs.check(OpSync, f.name); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *errFile) Truncate(size int64) error {
	if _, err := f.fs.check(OpTruncate, f.name); err != nil {
		return err
	}
	return f.f.Truncate(size)
}

func (f *errFile) Size() (int64, error) { return f.f.Size() }

func (f *errFile) Close() error { return f.f.Close() }

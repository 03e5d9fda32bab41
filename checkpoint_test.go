package cairn

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/vfs"
)

// gateFS holds the first write to a meta page of the page file (offset below two pages) made
// after arm, until release: the moment a checkpoint has switched the WAL and planned its pages.
type gateFS struct {
	vfs.FS
	mu      sync.Mutex
	armed   bool
	entered chan struct{}
	release chan struct{}
}

func (g *gateFS) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.entered, g.release = true, make(chan struct{}), make(chan struct{})
}

func (g *gateFS) OpenFile(name string, flag int, perm os.FileMode) (vfs.File, error) {
	f, err := g.FS.OpenFile(name, flag, perm)
	if err != nil || strings.Contains(name, "-wal") {
		return f, err
	}
	return &gateFile{File: f, g: g}, nil
}

type gateFile struct {
	vfs.File
	g *gateFS
}

func (f *gateFile) WriteAt(p []byte, off int64) (int, error) {
	f.g.mu.Lock()
	hold := f.g.armed && off < 2*4096
	var entered, release chan struct{}
	if hold {
		f.g.armed = false
		entered, release = f.g.entered, f.g.release
	}
	f.g.mu.Unlock()
	if hold {
		close(entered)
		<-release
	}
	return f.File.WriteAt(p, off)
}

// TestCommitsRunWhileCheckpointWrites holds a checkpoint in its meta page write, after it
// switched the WAL to the spare segment, and requires that durable commits and reads go on
// meanwhile: only the switch holds the writer slot. Then it crashes (abandons the database)
// before and after the checkpoint ends, and requires every acknowledged commit after reopening.
func TestCommitsRunWhileCheckpointWrites(t *testing.T) {
	t.Parallel()
	mem := vfs.NewMem()
	g := &gateFS{FS: mem}
	db, path := openMem(t, &Options{PageSize: 4096, fs: g})
	put := func(i int) error {
		return db.Update(func(tx *Tx) error { return tx.Put(fmt.Appendf(nil, "k%05d", i), fmt.Appendf(nil, "v%d", i)) })
	}
	for i := range 500 {
		require.NoError(t, put(i))
	}
	g.arm()
	done := make(chan error, 1)
	go func() { done <- db.Checkpoint(t.Context()) }()
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the checkpoint never wrote its meta page")
	}
	committed := make(chan error, 1)
	go func() {
		for i := 500; i < 700; i++ {
			if err := put(i); err != nil {
				committed <- err
				return
			}
		}
		committed <- nil
	}()
	select {
	case err := <-committed:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		close(g.release)
		t.Fatal("commits waited for the checkpoint's meta page write")
	}
	requireKeyCount(t, db, 700)
	// A power loss now: the commits are in both WAL segments, the checkpoint's meta page is not
	// written. Every acknowledged commit must be there.
	crashed := mem.CrashClone(vfs.CrashOptions{})
	cdb, err := Open(path, &Options{PageSize: 4096, fs: crashed})
	require.NoError(t, err)
	requireKeyCount(t, cdb, 700)
	require.NoError(t, cdb.Check())
	require.NoError(t, cdb.Close())
	close(g.release)
	require.NoError(t, <-done)
	require.NoError(t, put(700))
	require.NoError(t, db.Check())
	db.abandon()

	db, err = Open(path, &Options{PageSize: 4096, fs: g.FS})
	require.NoError(t, err)
	requireKeyCount(t, db, 701)
	require.NoError(t, db.Close())
}

package cairn

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/vfs"
)

// tornMetaFS tears the first meta-page write of the page file once armed: it writes the page
// with one byte flipped and fails, as a power loss in the middle of that write would leave it.
type tornMetaFS struct {
	vfs.FS
	armed bool
}

func (t *tornMetaFS) OpenFile(name string, flag int, perm os.FileMode) (vfs.File, error) {
	f, err := t.FS.OpenFile(name, flag, perm)
	if err != nil || strings.Contains(name, "-wal") {
		return f, err
	}
	return &tornMetaFile{File: f, fs: t}, nil
}

type tornMetaFile struct {
	vfs.File
	fs *tornMetaFS
}

var errPowerLoss = errors.New("power loss")

func (f *tornMetaFile) WriteAt(p []byte, off int64) (int, error) {
	if f.fs.armed && off < 2*4096 {
		f.fs.armed = false
		b := append([]byte(nil), p...)
		b[40] ^= 0xff // a torn sector
		f.File.WriteAt(b, off)
		return 0, errPowerLoss
	}
	return f.File.WriteAt(p, off)
}

// setWALVersion2 rewrites both header copies of a WAL file as version 2 (the one-file layout).
func setWALVersion2(t *testing.T, mem *vfs.MemFS, name string) {
	b, err := mem.ReadFile(name)
	require.NoError(t, err)
	tab := crc32.MakeTable(crc32.Castagnoli)
	for _, off := range []int{0, 512} {
		h := b[off : off+32]
		binary.LittleEndian.PutUint32(h[8:], 2)
		binary.LittleEndian.PutUint32(h[24:], crc32.Checksum(h[:24], tab))
	}
	require.NoError(t, mem.WriteFile(name, b))
}

// TestUpgradeOfCleanOneFileWALWritesNoMetaPage opens a cleanly closed database of the one-file
// layout (a version 2 PATH-wal with nothing after the checkpoint, no PATH-wal2). Open must start
// the two segments without writing a meta page: one for the version already durable, torn by a
// power loss, would leave a damaged meta page and a WAL with nothing after the other, which the
// damaged-meta rule refuses for good. (Found by review, 2026-11-24.)
func TestUpgradeOfCleanOneFileWALWritesNoMetaPage(t *testing.T) {
	mem := vfs.NewMem()
	path := "/d/db"
	db, err := Open(path, &Options{PageSize: 4096, fs: mem})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
	require.NoError(t, db.Close())
	setWALVersion2(t, mem, path+"-wal")
	require.NoError(t, mem.Remove(path+"-wal2"))
	require.NoError(t, mem.SyncDir("/d"))

	tfs := &tornMetaFS{FS: mem, armed: true}
	db, err = Open(path, &Options{PageSize: 4096, fs: tfs})
	require.NoError(t, err, "Open wrote a meta page although it replayed nothing")
	require.True(t, tfs.armed, "Open wrote a meta page although it replayed nothing")
	crashed := mem.CrashClone(vfs.CrashOptions{})
	db.abandon()
	db, err = Open(path, &Options{PageSize: 4096, fs: crashed})
	require.NoError(t, err)
	requireKeyCount(t, db, 1)
	require.NoError(t, db.Close())
}

// TestMissingSegmentIsRefused removes one WAL segment file of a database whose log has been
// through a checkpoint (as a copy made for the one-file layout would): Open must refuse it
// (ErrCorrupt) rather than replay the other segment alone and lose the commits of the missing
// one.
func TestMissingSegmentIsRefused(t *testing.T) {
	for i := range 2 {
		mem := vfs.NewMem()
		path := "/d/db"
		db, err := Open(path, &Options{PageSize: 4096, fs: mem})
		require.NoError(t, err)
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("a"), []byte("1")) }))
		require.NoError(t, db.Checkpoint(t.Context()))
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("b"), []byte("2")) }))
		db.abandon()
		require.NoError(t, mem.Remove(walPath(path, i)))
		require.NoError(t, mem.SyncDir("/d"))
		_, err = Open(path, &Options{PageSize: 4096, fs: mem})
		require.ErrorIs(t, err, ErrCorrupt, "segment %d removed", i)
		require.ErrorContains(t, err, "is missing")
		_, err = Open(path, &Options{ReadOnly: true, fs: mem})
		require.ErrorIs(t, err, ErrCorrupt, "segment %d removed, read-only", i)
	}
}

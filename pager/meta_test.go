package pager

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
	"github.com/cairndb/cairn/internal/vfs"
)

// setMetaVersion writes format version v into the meta page at off of file, with a matching
// checksum: an intact meta page of that version.
func setMetaVersion(file []byte, off int, v uint32) {
	binary.LittleEndian.PutUint32(file[off+8:], v)
	binary.LittleEndian.PutUint32(file[off+80:], crc32.Checksum(file[off:off+80], castagnoli))
}

// openBytes opens a pager over a copy of file.
func openBytes(t *testing.T, file []byte) (*Pager, error) {
	fs := vfs.NewMem()
	require.NoError(t, fs.WriteFile("/db", slices.Clone(file)))
	f, err := fs.OpenFile("/db", os.O_RDWR, 0)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	p, _, err := Open(f, Options{PageSize: 4096})
	return p, err
}

// TestOpenRefusesDroppedVersions: a page file with an intact meta page of format version 2 or 3
// (development formats), in either slot or both, is refused with an *errs.VersionError that names
// the version found and the version this build reads, and wraps ErrCorrupt. A newer version is
// still read as a damaged meta page.
func TestOpenRefusesDroppedVersions(t *testing.T) {
	file := make([]byte, 20*4096)
	m := seedMeta
	m.encode(file[4096:8192]) // the current meta page, slot 1
	m.Seq--
	m.encode(file[:4096])
	fl := freelistBuf(1, 2, 3, 7, 19)
	Seal(12, fl)
	copy(file[12*4096:], fl)
	_, err := openBytes(t, file)
	require.NoError(t, err)

	for _, v := range []uint32{2, 3} {
		for name, slots := range map[string][]int{"both": {0, 4096}, "older": {0}, "current": {4096}} {
			t.Run(fmt.Sprintf("version %d, %s", v, name), func(t *testing.T) {
				b := slices.Clone(file)
				for _, off := range slots {
					setMetaVersion(b, off, v)
				}
				_, err := openBytes(t, b)
				require.ErrorIs(t, err, errs.ErrCorrupt)
				var ve *errs.VersionError
				require.ErrorAs(t, err, &ve)
				require.Equal(t, errs.VersionError{File: "page file", Found: v, Reads: FormatVersion}, *ve)
				require.EqualError(t, err, fmt.Sprintf("pager: page file format version %d is not supported "+
					"(this build reads version 4); it was written by a development build", v))
			})
		}
	}

	b := slices.Clone(file)
	setMetaVersion(b, 0, FormatVersion+1)
	p, err := openBytes(t, b)
	require.NoError(t, err, "a newer version in the older slot is a damaged meta page")
	require.True(t, p.MetaDamaged())
	setMetaVersion(b, 4096, FormatVersion+1)
	_, err = openBytes(t, b)
	require.ErrorIs(t, err, errs.ErrCorrupt)
	require.ErrorContains(t, err, "pager: no valid meta page: pager: meta page: format version 5, this build reads 4")
	var ve *errs.VersionError
	require.False(t, errors.As(err, &ve))
}

package cairn

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db, err := Open(path, nil)
	require.NoError(t, err)
	for i := range 5000 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			return tx.Put(fmt.Appendf(nil, "k%06d", i), fmt.Appendf(nil, "v%d", i))
		}))
	}
	require.NoError(t, db.Close())
	db, err = Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *Tx) error {
		n := 0
		for k, v := range tx.Range(nil, nil) {
			require.Equal(t, fmt.Sprintf("k%06d", n), string(k))
			require.Equal(t, fmt.Sprintf("v%d", n), string(v))
			n++
		}
		require.Equal(t, 5000, n)
		return nil
	}))
	require.NoError(t, db.Close())
}

package cairn

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHandleSet checks the set past its inline array: every handle is found by name, the
// sorted order is the names' order, and reset empties it.
func TestHandleSet(t *testing.T) {
	var h handleSet
	names := []string{"m", "b", "zz", "a", "c", "long bucket name past the inline copy", "k", "\x00sql/t/1"}
	for i, n := range names {
		require.Nil(t, h.get([]byte(n)))
		b := newHandle(&Tx{}, []byte(n))
		h.add(b)
		require.Equal(t, i+1, h.len())
		for _, m := range names[:i+1] {
			require.Equal(t, m, string(h.get([]byte(m)).Name()), "after %d adds", i+1)
		}
	}
	var got []string
	for _, b := range h.sorted(nil) {
		got = append(got, string(b.Name()))
	}
	require.Equal(t, []string{"\x00sql/t/1", "a", "b", "c", "k", "long bucket name past the inline copy", "m", "zz"}, got)
	h.reset()
	require.Zero(t, h.len())
	require.Nil(t, h.get([]byte("a")))
}

// TestNewHandleCopiesName checks that a handle keeps its own copy of the name, short or long.
func TestNewHandleCopiesName(t *testing.T) {
	for _, n := range []int{1, shortName, shortName + 1} {
		name := []byte(fmt.Sprintf("%0*d", n, 7))
		b := newHandle(&Tx{}, name)
		name[0] = 'x'
		require.Equal(t, fmt.Sprintf("%0*d", n, 7), string(b.Name()))
		if n <= shortName {
			require.Len(t, b.Name(), cap(b.Name()), "appending to a name must not write into the handle")
		}
	}
}

// TestReadTxBucketAllocs pins the allocations of a read transaction that opens one bucket and
// reads a key: a regression here is a regression of every SQL point query.
func TestReadTxBucketAllocs(t *testing.T) {
	db, _ := openTemp(t, nil)
	require.NoError(t, db.Update(func(tx *Tx) error {
		b, err := tx.CreateBucket([]byte("\x00sql/t/1"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	}))
	allocs := testing.AllocsPerRun(100, func() {
		tx, err := db.Begin(false)
		require.NoError(t, err)
		b, err := tx.Bucket([]byte("\x00sql/t/1"))
		require.NoError(t, err)
		_, err = b.Get([]byte("k"))
		require.NoError(t, err)
		require.NoError(t, tx.Rollback())
	})
	require.LessOrEqual(t, allocs, 1.0, "the Tx, which holds the bucket handle")
}

// TestBeginReadInto runs read transactions one after another in one Tx: each sees the
// newest commit, none allocates, an open transaction is refused, and so is a closed database.
func TestBeginReadInto(t *testing.T) {
	db, _ := openTemp(t, nil)
	put := func(v string) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("\x00sql/t/1"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte(v))
		}))
	}
	var mem Tx
	read := func() (n int) {
		tx, err := db.BeginReadInto(&mem)
		require.NoError(t, err)
		require.Same(t, &mem, tx)
		b, err := tx.Bucket([]byte("\x00sql/t/1"))
		require.NoError(t, err)
		v, err := b.Get([]byte("k"))
		require.NoError(t, err)
		n = len(v)
		require.NoError(t, tx.Rollback())
		return n
	}
	put("one")
	require.Equal(t, 3, read())
	put("three")
	require.Equal(t, 5, read())

	allocs := testing.AllocsPerRun(100, func() { _ = read() })
	require.Zero(t, allocs, "a read transaction of one bucket in reused memory")

	tx, err := db.BeginReadInto(&mem)
	require.NoError(t, err)
	_, err = db.BeginReadInto(tx)
	require.ErrorIs(t, err, ErrTxOpen)
	require.NoError(t, tx.Rollback())
	w, err := db.Begin(true)
	require.NoError(t, err)
	_, err = db.BeginReadInto(w)
	require.ErrorIs(t, err, ErrTxOpen)
	require.NoError(t, w.Rollback())
	tx, err = db.BeginReadInto(w) // an ended write transaction's memory serves too
	require.NoError(t, err)
	require.False(t, tx.Writable())
	require.NoError(t, tx.Rollback())

	require.NoError(t, db.Close())
	_, err = db.BeginReadInto(&mem)
	require.ErrorIs(t, err, ErrClosed)
}

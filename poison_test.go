package cairn

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// keepValuesPastView writes a small value (in a leaf page) and a large one (an overflow extent),
// gets both in a View and keeps them past its end, against the rule of Get. Then it overwrites
// them and checkpoints, once per round, and after each round begins a write transaction (which
// reclaims the pages no version reaches) and rolls it back, until seen reports true or rounds
// run out. It returns the values kept and the rounds run.
func keepValuesPastView(t *testing.T, poison bool, rounds int, seen func(small, big []byte) bool) (small, big []byte, ran int) {
	db, _ := newTestDB(t, &Options{PoisonFreedPages: poison, Sync: SyncNone})
	put := func(small, big byte) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			require.NoError(t, tx.Put([]byte("small"), bytes.Repeat([]byte{small}, 100)))
			return tx.Put([]byte("big"), bytes.Repeat([]byte{big}, 10000))
		}))
		require.NoError(t, db.Checkpoint(t.Context()))
	}
	put('s', 'b')
	require.NoError(t, db.View(func(tx *Tx) error {
		var err error
		if small, err = tx.Get([]byte("small")); err != nil {
			return err
		}
		big, err = tx.Get([]byte("big"))
		return err // small and big are kept: the misuse under test
	}))
	require.Equal(t, bytes.Repeat([]byte("s"), 100), small)
	require.Equal(t, bytes.Repeat([]byte("b"), 10000), big)
	for ran < rounds && !seen(small, big) {
		ran++
		put('S', 'B')
		tx, err := db.Begin(true)
		require.NoError(t, err)
		require.NoError(t, tx.Rollback())
	}
	return small, big, ran
}

// TestPoisonFreedPages: with Options.PoisonFreedPages a value kept past its transaction reads as
// 0xdb bytes once its page is reclaimed; without it, it still reads as it was at that point (and
// would change silently when the buffer is reused).
func TestPoisonFreedPages(t *testing.T) {
	poisoned := func(b []byte) bool { return bytes.Equal(b, bytes.Repeat([]byte{0xdb}, len(b))) }
	small, big, rounds := keepValuesPastView(t, true, 10, func(small, big []byte) bool {
		return poisoned(small) && poisoned(big)
	})
	require.True(t, poisoned(small), "the small value kept past its View: %q...", small[:8])
	require.True(t, poisoned(big), "the large value kept past its View: %q...", big[:8])
	t.Logf("poisoned after %d rounds", rounds)

	small, big, _ = keepValuesPastView(t, false, rounds, func([]byte, []byte) bool { return false })
	require.Equal(t, bytes.Repeat([]byte("s"), 100), small, "without the debug mode nothing shows the misuse yet")
	require.Equal(t, bytes.Repeat([]byte("b"), 10000), big)
}

// TestPoisonFreedPagesKeepsTheDatabaseIntact: the debug mode changes no byte a transaction may
// read: many rounds of overwrites, deletes and reuse read back and check clean, also after a
// reopen.
func TestPoisonFreedPagesKeepsTheDatabaseIntact(t *testing.T) {
	db, path := newTestDB(t, &Options{PoisonFreedPages: true, Sync: SyncNone})
	want := map[string][]byte{}
	for round := range 30 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for i := range 50 {
				k := []byte{byte(i)}
				if (i+round)%7 == 0 {
					delete(want, string(k))
					if err := tx.Delete(k); err != nil {
						return err
					}
					continue
				}
				v := bytes.Repeat([]byte{byte(round)}, 50+(i*round*37)%6000)
				want[string(k)] = v
				if err := tx.Put(k, v); err != nil {
					return err
				}
			}
			return nil
		}))
		if round%5 == 0 {
			require.NoError(t, db.Checkpoint(t.Context()))
		}
	}
	check := func(db *DB) {
		got := map[string][]byte{}
		require.NoError(t, db.View(func(tx *Tx) error {
			for k, v := range tx.Range(nil, nil) {
				got[string(k)] = bytes.Clone(v)
			}
			return nil
		}))
		require.Equal(t, want, got)
		require.NoError(t, db.Check())
	}
	check(db)
	require.NoError(t, db.Close())
	db, err := Open(path, nil)
	require.NoError(t, err)
	defer db.Close()
	check(db)
}

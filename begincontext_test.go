package cairn

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// holdWriter begins a write transaction and returns it: the writer slot is taken until it ends.
func holdWriter(t *testing.T, db *DB) *Tx {
	t.Helper()
	tx, err := db.Begin(true)
	require.NoError(t, err)
	require.NoError(t, tx.Put([]byte("held"), []byte("1")))
	return tx
}

func TestBeginContextUncontended(t *testing.T) {
	db, _ := newTestDB(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []context.Context{ctx, context.Background(), nil} {
		tx, err := db.BeginContext(c, true)
		require.NoError(t, err)
		require.True(t, tx.Writable())
		require.NoError(t, tx.Put([]byte("k"), []byte("v")))
		require.NoError(t, tx.Commit())
		rtx, err := db.BeginContext(c, false)
		require.NoError(t, err)
		require.False(t, rtx.Writable())
		v, err := rtx.Get([]byte("k"))
		require.NoError(t, err)
		require.Equal(t, "v", string(v))
		require.NoError(t, rtx.Rollback())
	}
}

func TestBeginContextDoneBeforeBegin(t *testing.T) {
	db, _ := newTestDB(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, writable := range []bool{true, false} {
		tx, err := db.BeginContext(ctx, writable)
		require.ErrorIs(t, err, context.Canceled, "writable=%v", writable)
		require.Nil(t, tx)
	}
	// Nothing was taken: a writer begins at once.
	tx, err := db.Begin(true)
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
}

func TestBeginContextGivesUpWhenDone(t *testing.T) {
	db, _ := newTestDB(t, nil)
	held := holdWriter(t, db)

	// A deadline: DeadlineExceeded after it, not long after.
	const timeout = 60 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	tx, err := db.BeginContext(ctx, true)
	waited := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Nil(t, tx)
	require.GreaterOrEqual(t, waited, timeout)
	require.Less(t, waited, timeout+2*time.Second)

	// A cancellation while waiting: Canceled.
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel2)
	_, err = db.BeginContext(ctx2, true)
	require.ErrorIs(t, err, context.Canceled)

	// Readers do not wait for the writer.
	rtx, err := db.BeginContext(ctx2Background(t), false)
	require.NoError(t, err)
	require.NoError(t, rtx.Rollback())

	// The waiters that gave up hold nothing: once the holder commits, a writer begins at once
	// (Begin would hang here if a waiter had kept the slot).
	require.NoError(t, held.Commit())
	done := make(chan error, 1)
	go func() {
		tx, err := db.Begin(true)
		if err == nil {
			err = tx.Rollback()
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the writer slot was left taken by a BeginContext that gave up")
	}
}

// ctx2Background returns a context that can be cancelled and is not (it polls, if it waits).
func ctx2Background(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

func TestBeginContextGetsTheSlotWhenFreed(t *testing.T) {
	db, _ := newTestDB(t, nil)
	held := holdWriter(t, db)
	got := make(chan *Tx, 1)
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		tx, err := db.BeginContext(ctx, true)
		if err != nil {
			errc <- err
			return
		}
		got <- tx
	}()
	select {
	case <-got:
		t.Fatal("BeginContext began while another writer held the slot")
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, held.Commit())
	select {
	case tx := <-got:
		// The waiter sees the holder's commit.
		v, err := tx.Get([]byte("held"))
		require.NoError(t, err)
		require.Equal(t, "1", string(v))
		require.NoError(t, tx.Rollback())
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("BeginContext did not begin after the slot was freed")
	}
}

// TestBeginContextExcludesWriters runs read-modify-write increments of one counter from
// goroutines that begin with BeginContext (cancellable: polling), Begin and Update at once: no
// increment may be lost, which holds only if the slot admits one writer at a time.
func TestBeginContextExcludesWriters(t *testing.T) {
	db, _ := newTestDB(t, &Options{Sync: SyncNone})
	key := []byte("counter")
	incr := func(tx *Tx) error {
		var n uint64
		v, err := tx.Get(key)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return err
		default:
			n = binary.BigEndian.Uint64(v)
		}
		return tx.Put(key, binary.BigEndian.AppendUint64(nil, n+1))
	}
	const perWorker = 200
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 6 {
		wg.Go(func() {
			for range perWorker {
				var err error
				switch w % 3 {
				case 0, 1:
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					var tx *Tx
					if tx, err = db.BeginContext(ctx, true); err == nil {
						if err = incr(tx); err == nil {
							err = tx.Commit()
						} else {
							tx.Rollback()
						}
					}
					cancel()
				case 2:
					err = db.Update(incr)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		v, err := tx.Get(key)
		require.NoError(t, err)
		require.Equal(t, uint64(6*perWorker), binary.BigEndian.Uint64(v))
		return nil
	}))
}

func TestBeginContextErrors(t *testing.T) {
	db, path := newTestDB(t, nil)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }))
	ctx := ctx2Background(t)

	// A waiter gives up with ErrClosed when the database closes under it.
	held := holdWriter(t, db)
	errc := make(chan error, 1)
	go func() {
		_, err := db.BeginContext(ctx, true)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }() // waits for the held transaction
	select {
	case err := <-errc:
		require.ErrorIs(t, err, ErrClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not see the database close")
	}
	require.NoError(t, held.Rollback())
	require.NoError(t, <-closed)

	_, err := db.BeginContext(ctx, true)
	require.ErrorIs(t, err, ErrClosed)
	_, err = db.BeginContext(ctx, false)
	require.ErrorIs(t, err, ErrClosed)

	ro, err := Open(path, &Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	_, err = ro.BeginContext(ctx, true)
	require.ErrorIs(t, err, ErrReadOnly)
	rtx, err := ro.BeginContext(ctx, false)
	require.NoError(t, err)
	require.NoError(t, rtx.Rollback())
}

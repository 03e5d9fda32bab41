package cairn

// Tests of what Update, View and Begin say about calls nested in a transaction: a writer waits for
// the write transaction running, however long, so a goroutine holding one waits for itself; a
// View never waits.

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// waitForBlockedBegin waits until a goroutine started by the test is blocked in Begin(true) on the
// writer slot's mutex (as its stack shows), and fails the test if none is after a generous
// deadline.
func waitForBlockedBegin(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "cairn.(*DB).beginWrite") && strings.Contains(g, "sync.(*Mutex).Lock") &&
				strings.Contains(g, "cairn."+t.Name()+".func") {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no goroutine is blocked in Begin(true)")
}

// TestBeginWriteWaitsForItself: a goroutine that holds a write transaction and calls Begin(true)
// again waits, for as long as the first transaction is open; here the test ends that one from
// another goroutine, which nothing does in a program that nests them: it would hang forever.
func TestBeginWriteWaitsForItself(t *testing.T) {
	db, _ := newTestDB(t, nil)
	first := make(chan *Tx)
	done := make(chan error, 1)
	go func() {
		tx, err := db.Begin(true)
		if err != nil {
			close(first)
			done <- err
			return
		}
		first <- tx
		tx2, err := db.Begin(true) // the same goroutine holds tx: this waits until tx ends
		if err == nil {
			err = tx2.Rollback()
		}
		done <- err
	}()
	tx := <-first
	require.NotNil(t, tx)
	waitForBlockedBegin(t)
	select {
	case err := <-done:
		t.Fatalf("the second Begin(true) returned while the first transaction was open: %v", err)
	default:
	}
	require.NoError(t, tx.Rollback())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the second Begin(true) still waits after the first transaction ended")
	}
}

// TestUpdateInsideUpdateWaitsForTheOuter: an Update called while another one's fn runs waits for
// that transaction to end. Called from inside fn on the same goroutine it would wait forever (the
// outer transaction ends only when fn returns); here it runs on another goroutine, so the outer
// one can end, after which the inner one runs and sees its changes. A View inside fn does not
// wait, and does not see fn's changes.
func TestUpdateInsideUpdateWaitsForTheOuter(t *testing.T) {
	db, _ := newTestDB(t, nil)
	inner := make(chan error, 1)
	require.NoError(t, db.Update(func(tx *Tx) error {
		if err := tx.Put([]byte("outer"), []byte("1")); err != nil {
			return err
		}
		go func() {
			inner <- db.Update(func(tx *Tx) error {
				v, err := tx.Get([]byte("outer"))
				if err != nil || string(v) != "1" {
					return fmt.Errorf("the inner Update ran before the outer one committed: %q, %v", v, err)
				}
				return tx.Put([]byte("inner"), []byte("2"))
			})
		}()
		waitForBlockedBegin(t)
		select {
		case err := <-inner:
			return fmt.Errorf("the inner Update returned while the outer one ran: %v", err)
		default:
		}
		return db.View(func(rtx *Tx) error {
			_, err := rtx.Get([]byte("outer"))
			require.ErrorIs(t, err, ErrNotFound, "a View inside fn sees the state before fn")
			return nil
		})
	}))
	select {
	case err := <-inner:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the inner Update still waits after the outer one ended")
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		v, err := tx.Get([]byte("inner"))
		require.Equal(t, "2", string(v))
		return err
	}))
}

// TestUpdateInsideView: a View's fn may call Update (nothing waits for readers); the View keeps
// its snapshot.
func TestUpdateInsideView(t *testing.T) {
	db, _ := newTestDB(t, nil)
	done := make(chan error, 1)
	go func() {
		done <- db.View(func(tx *Tx) error {
			if err := db.Update(func(w *Tx) error { return w.Put([]byte("k"), []byte("v")) }); err != nil {
				return err
			}
			if _, err := tx.Get([]byte("k")); err != ErrNotFound {
				return fmt.Errorf("the View's snapshot changed: %v", err)
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Update inside View hangs")
	}
}

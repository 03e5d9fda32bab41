package wal

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/errs"
)

// durableLog records the LSNs passed to onDurable.
type durableLog struct {
	mu   sync.Mutex
	lsns []uint64
}

func (d *durableLog) add(lsn uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lsns = append(d.lsns, lsn)
}

func (d *durableLog) get() []uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]uint64(nil), d.lsns...)
}

// newTestCommitter creates a WAL in a wrapped temporary file and starts a Committer over it.
func newTestCommitter(t *testing.T, syncDelay time.Duration) (*Committer, *testFile, *durableLog) {
	f, _ := openFile(t)
	tf := &testFile{File: f, syncDelay: syncDelay}
	w, err := Create(tf, testDB)
	require.NoError(t, err)
	d := &durableLog{}
	c := NewCommitter(w, d.add)
	t.Cleanup(func() { c.Close() })
	return c, tf, d
}

func TestCommitterConcurrent(t *testing.T) {
	const writers, perWriter = 16, 100
	c, tf, d := newTestCommitter(t, 200*time.Microsecond)
	syncs0 := tf.syncs.Load()

	var mu sync.Mutex // the root package's writer lock: LSN order == Submit order
	var next uint64 = 1
	var wg sync.WaitGroup
	errc := make(chan error, writers*perWriter)
	for range writers {
		wg.Go(func() {
			for range perWriter {
				mu.Lock()
				lsn := next
				next++
				tk := c.Submit(lsn, payloadFor(lsn, int(lsn%50)))
				mu.Unlock()
				errc <- tk.Wait()
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		require.NoError(t, err)
	}
	require.NoError(t, c.Close())

	const total = writers * perWriter
	lsns := d.get()
	require.NotEmpty(t, lsns)
	for i := 1; i < len(lsns); i++ {
		require.Less(t, lsns[i-1], lsns[i], "onDurable LSNs must increase")
	}
	require.Equal(t, uint64(total), lsns[len(lsns)-1])
	batches := tf.syncs.Load() - syncs0
	require.Equal(t, int64(len(lsns)), batches, "one sync per batch")
	require.Less(t, batches, int64(total), "group commit must batch")
	t.Logf("%d records in %d batches", total, batches)

	got, _, last, err := recoverAll(tf.File, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(total), last)
	for i, r := range got {
		lsn := uint64(i + 1)
		require.Equal(t, lsn, r.LSN)
		require.Equal(t, payloadFor(lsn, int(lsn%50)), r.Payload)
	}
}

func TestCommitterSyncFailure(t *testing.T) {
	c, tf, d := newTestCommitter(t, 0)
	require.NoError(t, c.Submit(1, []byte("one")).Wait())

	injected := errors.New("injected EIO")
	entered, gate := make(chan struct{}), make(chan struct{})
	tf.failSyncs(injected, entered, gate)
	writes := tf.writes.Load()
	first := c.Submit(2, []byte("two"))
	<-entered // the batch of LSN 2 is in its failing Sync; queue more behind it
	var queued []*Ticket
	for lsn := uint64(3); lsn < 10; lsn++ {
		queued = append(queued, c.Submit(lsn, []byte("queued")))
	}
	close(gate)

	for _, tk := range append([]*Ticket{first}, queued...) {
		err := tk.Wait()
		require.ErrorIs(t, err, errs.ErrFailed)
		require.ErrorIs(t, err, injected)
	}
	require.Equal(t, writes+1, tf.writes.Load(), "nothing written after the failure")
	require.Equal(t, []uint64{1}, d.get(), "onDurable called for a failed batch")

	later := c.Submit(10, []byte("later")).Wait()
	require.ErrorIs(t, later, errs.ErrFailed)
	require.ErrorIs(t, later, injected)
	require.ErrorIs(t, c.Err(), injected)
	require.ErrorIs(t, c.Close(), injected)
	require.ErrorIs(t, c.Submit(11, nil).Wait(), errs.ErrFailed)
}

func TestCommitterClose(t *testing.T) {
	c, tf, d := newTestCommitter(t, time.Millisecond)
	var tickets []*Ticket
	for lsn := uint64(1); lsn <= 20; lsn++ {
		tickets = append(tickets, c.Submit(lsn, payloadFor(lsn, 3)))
	}
	require.NoError(t, c.Close()) // drains the queue
	for _, tk := range tickets {
		require.NoError(t, tk.Wait())
	}
	lsns := d.get()
	require.Equal(t, uint64(20), lsns[len(lsns)-1])

	err := c.Submit(21, nil).Wait()
	require.ErrorIs(t, err, errs.ErrFailed)
	require.ErrorContains(t, err, "wal: committer closed")
	require.NoError(t, c.Close())

	got, _, _, err := recoverAll(tf.File, 0)
	require.NoError(t, err)
	require.Len(t, got, 20)
}

func TestCommitterDoReset(t *testing.T) {
	c, tf, _ := newTestCommitter(t, 0)
	for lsn := uint64(1); lsn <= 5; lsn++ {
		require.NoError(t, c.Submit(lsn, payloadFor(lsn, 10)).Wait())
	}
	var size int64
	require.NoError(t, c.Do(func(w *Writer) error { size = w.Size(); return nil }))
	require.Equal(t, HeaderSize+5*recordSpan(10), size)
	require.NoError(t, c.Do(func(w *Writer) error { return w.Reset() }))

	for lsn := uint64(6); lsn <= 8; lsn++ {
		require.NoError(t, c.Submit(lsn, payloadFor(lsn, 10)).Wait())
	}
	require.NoError(t, c.Close())
	got, _, last, err := recoverAll(tf.File, 5)
	require.NoError(t, err)
	require.Equal(t, uint64(8), last)
	requireRecords(t, flatten(makeBatches(6, [][]int{{10, 10, 10}})), got)

	fnErr := errors.New("fn")
	require.Equal(t, fnErr, c.Do(func(*Writer) error { return fnErr }))
}

func TestCommitterResetFailureFails(t *testing.T) {
	c, tf, _ := newTestCommitter(t, 0)
	require.NoError(t, c.Submit(1, []byte("a")).Wait())
	injected := errors.New("injected")
	tf.failSyncs(injected, nil, nil)
	require.ErrorIs(t, c.Do(func(w *Writer) error { return w.Reset() }), injected)
	require.ErrorIs(t, c.Err(), errs.ErrFailed)
	require.ErrorIs(t, c.Submit(2, nil).Wait(), injected)
}

func TestCommitterAllocs(t *testing.T) {
	f, _ := openFile(t)
	tf := &testFile{File: f, noSync: true}
	w, err := Create(tf, testDB)
	require.NoError(t, err)
	c := NewCommitter(w, func(uint64) {})
	defer c.Close()
	payload := make([]byte, 64)
	lsn := uint64(0)
	commit := func() {
		lsn++
		if err := c.Submit(lsn, payload).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 { // warm up: grow the buffers
		commit()
	}
	allocs := testing.AllocsPerRun(1000, commit)
	t.Logf("%.2f allocs per Submit+Wait", allocs)
	require.LessOrEqual(t, allocs, 1.5)
}

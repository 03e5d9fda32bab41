package wal

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
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
	d := &durableLog{}
	c, tf := newCommitterOn(t, &testFile{syncDelay: syncDelay}, 0, d.add)
	return c, tf, d
}

// newCommitterOn creates a WAL in tf, wrapping a new temporary file, and starts a Committer over
// it with the given bound and onDurable.
func newCommitterOn(t *testing.T, tf *testFile, maxBatch int64, onDurable func(uint64)) (*Committer, *testFile) {
	tf.File, _ = openFile(t)
	w, err := Create(tf, testDB)
	require.NoError(t, err)
	c := NewCommitter(logOf(t, w), maxBatch, onDurable, nil)
	t.Cleanup(func() { c.Close() })
	return c, tf
}

// requireClosedWithRecords closes c and checks that the WAL in tf holds LSNs 1 to n.
func requireClosedWithRecords(t *testing.T, c *Committer, tf *testFile, n int) {
	t.Helper()
	require.NoError(t, c.Close())
	got, _, last, err := recoverAll(tf.File, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(n), last)
	require.Len(t, got, n)
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

// TestCommitterLeaders checks who writes a batch: a lone waiter writes its own on its goroutine,
// a record nobody waits for goes with a later record's batch, and records queued behind a running
// batch are written by the committer's goroutine when that batch ends, though nobody waits.
func TestCommitterLeaders(t *testing.T) {
	var mu sync.Mutex
	writtenBy := map[uint64]string{} // last LSN of a batch -> stack of the goroutine that wrote it
	c, tf := newCommitterOn(t, &testFile{}, 0, func(lsn uint64) {
		buf := make([]byte, 16<<10)
		buf = buf[:runtime.Stack(buf, false)]
		mu.Lock()
		defer mu.Unlock()
		writtenBy[lsn] = string(buf)
	})
	stackOf := func(lsn uint64) string {
		mu.Lock()
		defer mu.Unlock()
		return writtenBy[lsn]
	}
	const leader, goroutine = "wal.(*Ticket).Wait", "wal.(*Committer).run"

	// A goroutine just started takes whatever is queued before it parks: let it park first (the
	// test failed about once in 200 runs under -race without this).
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.Submit(1, []byte("lone")).Wait())
	require.Contains(t, stackOf(1), leader)
	require.NotContains(t, stackOf(1), goroutine)

	syncs := tf.syncs.Load()
	unwaited := c.Submit(2, []byte("nobody waits"))
	require.NoError(t, c.Submit(3, []byte("waits")).Wait())
	require.NoError(t, unwaited.Wait())
	require.Equal(t, syncs+1, tf.syncs.Load(), "LSNs 2 and 3 in one batch")
	require.Empty(t, stackOf(2))
	require.Contains(t, stackOf(3), leader)

	entered, gate := make(chan struct{}), make(chan struct{})
	tf.holdSync(entered, gate)
	running := make(chan error, 1)
	go func() { running <- c.Submit(4, []byte("leads")).Wait() }()
	<-entered
	queued := c.Submit(5, []byte("queued behind")) // nobody waits on it
	close(gate)
	require.NoError(t, <-running)
	require.Eventually(t, func() bool { return stackOf(5) != "" }, 10*time.Second, time.Millisecond)
	require.Contains(t, stackOf(5), goroutine)
	require.NoError(t, queued.Wait())
	requireClosedWithRecords(t, c, tf, 5)
}

// TestCommitterMaxBatch checks the bound on one batch: records queued behind a running batch go
// in batches of at most maxBatch bytes, and a record larger than the bound goes alone.
func TestCommitterMaxBatch(t *testing.T) {
	d := &durableLog{}
	c, tf := newCommitterOn(t, &testFile{}, 2*RecordSpan(10), d.add)

	entered, gate := make(chan struct{}), make(chan struct{})
	tf.holdSync(entered, gate)
	first := make(chan error, 1)
	go func() { first <- c.Submit(1, payloadFor(1, 10)).Wait() }()
	<-entered // batch {1} is syncing; queue 2..6 behind it, and 7 larger than the bound
	var queued []*Ticket
	for lsn := uint64(2); lsn <= 6; lsn++ {
		queued = append(queued, c.Submit(lsn, payloadFor(lsn, 10)))
	}
	queued = append(queued, c.Submit(7, payloadFor(7, 100)))
	close(gate)
	require.NoError(t, <-first)
	for _, tk := range queued {
		require.NoError(t, tk.Wait())
	}
	require.Equal(t, []uint64{1, 3, 5, 6, 7}, d.get(), "batches {1} {2,3} {4,5} {6} {7}")
	requireClosedWithRecords(t, c, tf, 7)
}

func TestCommitterSyncFailure(t *testing.T) {
	c, tf, d := newTestCommitter(t, 0)
	require.NoError(t, c.Submit(1, []byte("one")).Wait())

	injected := errors.New("injected EIO")
	entered, gate := make(chan struct{}), make(chan struct{})
	tf.failSyncs(injected, entered, gate)
	writes := tf.writes.Load()
	first := c.Submit(2, []byte("two"))
	firstErr := make(chan error, 1)
	go func() { firstErr <- first.Wait() }() // leads the batch of LSN 2
	<-entered                                // that batch is in its failing Sync; queue more behind it
	var queued []*Ticket
	for lsn := uint64(3); lsn < 10; lsn++ {
		queued = append(queued, c.Submit(lsn, []byte("queued")))
	}
	close(gate)

	require.ErrorIs(t, <-firstErr, injected)
	for _, tk := range queued {
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
	require.NoError(t, c.Do(func(l *Log) error { size = l.Size(); return nil }))
	require.Equal(t, HeaderSize+5*recordSpan(10), size)
	require.NoError(t, c.Do(func(l *Log) error { return l.Reset() }))

	for lsn := uint64(6); lsn <= 8; lsn++ {
		require.NoError(t, c.Submit(lsn, payloadFor(lsn, 10)).Wait())
	}
	require.NoError(t, c.Close())
	got, _, last, err := recoverAll(tf.File, 5)
	require.NoError(t, err)
	require.Equal(t, uint64(8), last)
	requireRecords(t, flatten(makeBatches(6, [][]int{{10, 10, 10}})), got)

	fnErr := errors.New("fn")
	require.Equal(t, fnErr, c.Do(func(*Log) error { return fnErr }))
}

func TestCommitterResetFailureFails(t *testing.T) {
	c, tf, _ := newTestCommitter(t, 0)
	require.NoError(t, c.Submit(1, []byte("a")).Wait())
	injected := errors.New("injected")
	tf.failSyncs(injected, nil, nil)
	require.ErrorIs(t, c.Do(func(l *Log) error { return l.Reset() }), injected)
	require.ErrorIs(t, c.Err(), errs.ErrFailed)
	require.ErrorIs(t, c.Submit(2, nil).Wait(), injected)
}

func TestCommitterAllocs(t *testing.T) {
	f, _ := openFile(t)
	tf := &testFile{File: f, noSync: true}
	w, err := Create(tf, testDB)
	require.NoError(t, err)
	c := NewCommitter(logOf(t, w), 0, func(uint64) {}, nil)
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

// TestCommitterPrepare checks the prepare hook: it runs once per batch before the write, what it
// returns runs while the batch's fdatasync runs, the batch is reported durable only after both,
// and an error of either fails the batch and the Committer.
func TestCommitterPrepare(t *testing.T) {
	w, tf := newTestWriter(t)
	d := &durableLog{}
	var prepared atomic.Int64
	var prepareErr error
	var during func() error
	c := NewCommitter(logOf(t, w), 0, d.add, func() (func() error, error) {
		prepared.Add(1)
		return during, prepareErr
	})
	defer c.Close()

	require.NoError(t, c.Submit(1, []byte("inline")).Wait())
	require.Equal(t, int64(1), prepared.Load())

	entered, gate := make(chan struct{}), make(chan struct{})
	tf.holdSync(entered, gate)
	ran := make(chan struct{})
	during = func() error {
		<-entered // the batch's fdatasync has started
		if len(d.get()) != 1 {
			return errors.New("the batch was reported durable before the function ended")
		}
		close(ran)
		close(gate)
		return nil
	}
	require.NoError(t, c.Submit(2, []byte("beside the sync")).Wait())
	<-ran
	require.Equal(t, []uint64{1, 2}, d.get())

	injected := errors.New("injected failure of the function")
	during = func() error { return injected }
	require.ErrorIs(t, c.Submit(3, []byte("three")).Wait(), injected)
	require.Equal(t, []uint64{1, 2}, d.get(), "a failed batch is not reported durable")
	require.ErrorIs(t, c.Submit(4, []byte("four")).Wait(), errs.ErrFailed, "the Committer stays failed")
}

func TestCommitterPrepareFails(t *testing.T) {
	w, tf := newTestWriter(t)
	injected := errors.New("injected prepare failure")
	c := NewCommitter(logOf(t, w), 0, nil, func() (func() error, error) { return nil, injected })
	defer c.Close()
	writes := tf.writes.Load()
	require.ErrorIs(t, c.Submit(1, []byte("one")).Wait(), injected)
	require.Equal(t, writes, tf.writes.Load(), "nothing written")
}

// TestCommitterReplicate checks the replicate hook: it sees a batch's own records in LSN order
// before their write, not those of SubmitReplicated; a batch of replicated records alone does
// not call it; a refusal keeps the batch out of the Log and fails the Committer; a batch that
// interleaves own and replicated records is refused.
func TestCommitterReplicate(t *testing.T) {
	type call struct {
		first uint64
		n     int
	}
	var calls []call
	var refuse error
	c, tf := newCommitterOn(t, &testFile{}, 0, nil)
	c.SetReplicate(func(first uint64, payloads [][]byte) error {
		for i, p := range payloads {
			require.Equal(t, payloadFor(first+uint64(i), 10), p)
		}
		calls = append(calls, call{first, len(payloads)})
		return refuse
	})
	submit := func(lsn uint64, replicated bool) *Ticket {
		if replicated {
			return c.SubmitReplicated(lsn, payloadFor(lsn, 10))
		}
		return c.Submit(lsn, payloadFor(lsn, 10))
	}
	// Nothing waits before the last Submit of each group, so each group is one batch.
	submit(1, false)
	require.NoError(t, submit(2, false).Wait())
	submit(3, true)
	require.NoError(t, submit(4, true).Wait())
	submit(5, true)
	require.NoError(t, submit(6, false).Wait())
	require.Equal(t, []call{{1, 2}, {6, 1}}, calls)

	submit(7, false)
	submit(8, true)
	err := submit(9, false).Wait()
	require.ErrorIs(t, err, errs.ErrFailed)
	require.ErrorContains(t, err, "interleaves")
	require.Len(t, calls, 2, "an interleaved batch is refused before the hook")
	require.ErrorIs(t, c.Close(), errs.ErrFailed)
	got, _, last, err := recoverAll(tf.File, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(6), last, "the refused batch is not in the Log")
	require.Len(t, got, 6)
}

// TestCommitterReplicateRefused: a refused batch is not written, and the Committer fails.
func TestCommitterReplicateRefused(t *testing.T) {
	c, tf := newCommitterOn(t, &testFile{}, 0, nil)
	refuse := errors.New("no quorum")
	c.SetReplicate(func(first uint64, _ [][]byte) error {
		if first == 3 {
			return refuse
		}
		return nil
	})
	require.NoError(t, c.Submit(1, payloadFor(1, 10)).Wait())
	require.NoError(t, c.Submit(2, payloadFor(2, 10)).Wait())
	err := c.Submit(3, payloadFor(3, 10)).Wait()
	require.ErrorIs(t, err, refuse)
	require.ErrorIs(t, err, errs.ErrFailed)
	require.ErrorIs(t, c.Submit(4, payloadFor(4, 10)).Wait(), errs.ErrFailed)
	require.ErrorIs(t, c.Close(), refuse)
	got, _, last, err := recoverAll(tf.File, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(2), last)
	require.Len(t, got, 2)
}

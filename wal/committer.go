package wal

import (
	"fmt"
	"sync"

	"github.com/cairndb/cairn/internal/errs"
)

// errClosed is the error of a Submit after Close.
var errClosed = fmt.Errorf("%w: wal: committer closed", errs.ErrFailed)

// Ticket tracks one submitted record until it is durable or has failed.
type Ticket struct {
	c       *Committer
	lsn     uint64
	payload []byte
	// replicated marks a record that came from the replication log (SubmitReplicated): the
	// replicate hook does not see it again.
	replicated bool
	err        error          // set before done is released
	done       sync.WaitGroup // released when the record's batch is finished
}

// Wait blocks until the record is durable and returns nil, or until its batch (or an earlier one)
// failed and returns an error wrapping errs.ErrFailed and the cause (such as the fdatasync error).
// If no batch is being written and the record is still queued, the calling goroutine writes the
// batch itself (it leads): a lone writer pays no hand-over to another goroutine. It may be called
// any number of times, from any goroutine.
func (t *Ticket) Wait() error {
	if t.c != nil {
		t.c.lead(t.lsn)
	}
	t.done.Wait()
	return t.err
}

// Committer writes submitted records to a Log in batches (group commit): each batch is what
// was queued when it started (up to a bound in bytes), written with one WriteAt and one Sync, and
// batches never overlap. A lone record is written at once, never delayed to wait for company.
// After a failed batch the Committer is failed for good: every waiting and later record fails.
//
// Who writes a batch (leader/follower, as in MySQL's binlog group commit): a goroutine waiting on
// a queued record while no batch runs writes the batch on its own goroutine; its followers, the
// writers queued behind a running batch, sleep until it ends, and the one that ends it hands what
// is queued to the Committer's goroutine, which keeps writing batches while records keep coming.
// So a lone writer's commit costs no goroutine wake-up, and a busy one costs what a dedicated
// committer goroutine costs.
type Committer struct {
	w         *Log
	maxBatch  int64 // bytes of records (RecordSpan) a batch takes at most, beyond its first record
	onDurable func(lastLSN uint64)
	prepare   func() (func() error, error)
	// replicate, if set (SetReplicate), sees each batch's records before they are written.
	replicate func(first uint64, payloads [][]byte) error
	repl      [][]byte // the payloads passed to replicate; used only while busy
	// prepared carries the function prepare returned to the helper goroutine, which runs it
	// while the batch is written and synced and answers on preparedDone.
	prepared     chan func() error
	preparedDone chan error
	wmu          sync.Mutex // exclusive use of w: held for a batch's write, and by Do

	mu       sync.Mutex
	wake     sync.Cond // signalled when a batch ends with records queued, or closed is set
	queue    []*Ticket // submitted, not yet taken by a batch
	recycled []*Ticket // a finished batch's slice, reused as the next queue
	busy     bool      // a batch is being written (by a leader or the goroutine)
	err      error     // sticky failure, wraps errs.ErrFailed
	closed   bool

	recs    []Record      // batch being written; used only while busy
	stopped chan struct{} // closed when the goroutine returns
}

// NewCommitter starts the committer goroutine over w. A batch takes queued records in LSN order
// while their encoded sizes (RecordSpan) add up to at most maxBatchBytes, and always at least one
// record; the rest wait for the next batch. maxBatchBytes <= 0 means DefaultMaxBatchBytes.
// onDurable (may be nil) runs on the goroutine that wrote the batch (the committer's or a leading
// writer's), after the batch's Sync succeeded and before its tickets are released, with the LSN
// of the batch's last record; calls are in LSN order. It is never called for a failed batch.
//
// prepare (may be nil) runs on the goroutine that writes a batch, once it has taken the batch
// and before it writes it, with no lock of the Committer held. It may return a function, which a
// helper goroutine runs while the batch is written and synced; the batch is reported durable
// (onDurable, the tickets) only after both ended, and an error of either fails the batch and the
// Committer (records already written stay in the file: they were never acknowledged). The root
// package uses it to materialize, once per batch, the versions of the records it writes, in
// parallel with the fdatasync (DESIGN.md, "Held commits").
func NewCommitter(w *Log, maxBatchBytes int64, onDurable func(lastLSN uint64), prepare func() (func() error, error)) *Committer {
	if maxBatchBytes <= 0 {
		maxBatchBytes = DefaultMaxBatchBytes
	}
	c := &Committer{w: w, maxBatch: maxBatchBytes, onDurable: onDurable, prepare: prepare,
		stopped: make(chan struct{})}
	c.wake.L = &c.mu
	if prepare != nil {
		c.prepared, c.preparedDone = make(chan func() error), make(chan error)
		go c.runPrepared()
	}
	go c.run()
	return c
}

// runPrepared is the helper goroutine that runs what prepare returned, until run closes
// prepared.
func (c *Committer) runPrepared() {
	for fn := range c.prepared {
		c.preparedDone <- fn()
	}
}

// SetReplicate installs fn, called on the goroutine that writes a batch, after prepare (while
// what prepare returned runs) and before anything of the batch is written, with the
// payloads of the batch's records in LSN order (first is the LSN of payloads[0]; the others
// follow one by one), leaving out the records submitted with SubmitReplicated; it is not called
// when no record is left. An error of fn fails the batch and the Committer, and nothing of the
// batch reaches the Log: so a record is in the Log only once fn accepted it. fn must not keep
// payloads beyond the call. SetReplicate must be called before the first Submit.
func (c *Committer) SetReplicate(fn func(first uint64, payloads [][]byte) error) {
	c.replicate = fn
}

// SubmitReplicated is Submit for a record that came from the replication log (a replica
// applying another database's commits): the replicate hook is not called for it.
func (c *Committer) SubmitReplicated(lsn uint64, payload []byte) *Ticket {
	return c.submit(&Ticket{c: c, lsn: lsn, payload: payload, replicated: true})
}

// Submit enqueues the record (lsn, payload) for the next batch and returns its Ticket. Records
// must be submitted in LSN order with consecutive LSNs (callers serialize Submit, e.g. under their
// writer lock); they may wait on the Ticket after releasing that lock. payload must not be
// modified until the Ticket is done. After a failure or Close the Ticket is already done with an
// error wrapping errs.ErrFailed. Submit allocates only the Ticket.
//
// Submit starts no write: the record is written by the running batch's successor, or by the
// batch of the first Wait on it or a later record, or at Close. A caller that needs the record
// durable waits on its Ticket.
func (c *Committer) Submit(lsn uint64, payload []byte) *Ticket {
	return c.submit(&Ticket{c: c, lsn: lsn, payload: payload})
}

// submit enqueues t, or completes it at once with the failure after Close or a failed batch.
func (c *Committer) submit(t *Ticket) *Ticket {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		t.err = errClosed
	case c.err != nil:
		t.err = c.err
	default:
		t.done.Add(1)
		c.queue = append(c.queue, t)
	}
	return t
}

// DefaultMaxBatchBytes is the default bound on the bytes of one batch (see NewCommitter): the
// size of the encode buffer a Writer keeps between batches.
const DefaultMaxBatchBytes = maxKeptBuffer

// lead writes batches on the calling goroutine while no other batch is running and the record
// lsn is still queued; it returns once the record's batch is written, or at once if another
// goroutine is writing a batch (which then hands the record on).
func (c *Committer) lead(lsn uint64) {
	for {
		c.mu.Lock()
		if c.busy || len(c.queue) == 0 || c.queue[0].lsn > lsn {
			c.mu.Unlock()
			return
		}
		batch := c.takeLocked()
		c.mu.Unlock()
		c.commit(batch)
		c.finish(batch)
	}
}

// takeLocked marks a batch running and returns the next batch: the queued records up to the
// maxBatch bound. c.mu is held.
func (c *Committer) takeLocked() []*Ticket {
	c.busy = true
	n := c.batchLen()
	if n == len(c.queue) { // the common case: everything queued, no copy
		batch := c.queue
		c.queue, c.recycled = c.recycled, nil
		return batch
	}
	batch := append(c.recycled[:0], c.queue[:n]...)
	rest := copy(c.queue, c.queue[n:])
	clear(c.queue[rest:])
	c.queue, c.recycled = c.queue[:rest], nil
	return batch
}

// batchLen returns how many queued records the next batch takes: at least one, and more while
// their record sizes add up to at most maxBatch. c.mu is held; the queue is not empty.
func (c *Committer) batchLen() int {
	size := RecordSpan(len(c.queue[0].payload))
	n := 1
	for n < len(c.queue) {
		size += RecordSpan(len(c.queue[n].payload))
		if size > c.maxBatch {
			break
		}
		n++
	}
	return n
}

// finish ends the running batch: it recycles the batch's slice and, if records were queued
// meanwhile or Close is waiting, wakes the goroutine to take over.
func (c *Committer) finish(batch []*Ticket) {
	clear(batch) // drop references to finished tickets
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	c.recycled = batch[:0]
	if len(c.queue) > 0 || c.closed {
		c.wake.Signal()
	}
}

// Do runs fn with exclusive use of the Log, between batches, and returns fn's error. It is
// meant for Log.Rotate at a checkpoint and Log.Shrink at Close. If fn leaves the current segment
// failed, the Committer fails too.
func (c *Committer) Do(fn func(l *Log) error) error {
	c.wmu.Lock()
	err := fn(c.w)
	werr := c.w.failure()
	c.wmu.Unlock()
	if werr != nil {
		c.fail(werr)
	}
	return err
}

// Err returns the sticky failure (wrapping errs.ErrFailed and its cause), or nil.
func (c *Committer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close writes the records already submitted, waits for a running batch, stops the goroutine and
// returns the sticky failure, if any. Later Submits fail with an error wrapping errs.ErrFailed
// ("wal: committer closed"). Close does not close the file; it may be called more than once.
func (c *Committer) Close() error {
	c.mu.Lock()
	c.closed = true
	c.wake.Signal()
	c.mu.Unlock()
	<-c.stopped
	return c.Err()
}

// run is the committer goroutine: it writes the batches no waiting writer leads.
func (c *Committer) run() {
	defer close(c.stopped)
	if c.prepared != nil {
		defer close(c.prepared) // no batch runs any more: Close waits for run
	}
	for {
		batch := c.take()
		if batch == nil {
			return
		}
		c.commit(batch)
		c.finish(batch)
	}
}

// take waits until records are queued and no batch runs, and takes them as the next batch. It
// returns nil once the Committer is closed, no batch runs and the queue is empty.
func (c *Committer) take() []*Ticket {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.busy || len(c.queue) == 0 {
		if c.closed && !c.busy && len(c.queue) == 0 {
			return nil
		}
		c.wake.Wait()
	}
	return c.takeLocked()
}

// commit prepares batch, replicates and writes it (running what prepare returned meanwhile),
// reports it durable and releases its tickets.
func (c *Committer) commit(batch []*Ticket) {
	var during func() error
	var err error
	if c.prepare != nil && c.Err() == nil {
		during, err = c.prepare()
	}
	if err == nil {
		if during != nil {
			c.prepared <- during
		}
		err = c.replicateBatch(batch)
		if err == nil {
			err = c.write(batch)
		}
		if during != nil {
			if perr := <-c.preparedDone; perr != nil && err == nil {
				err = perr
			}
		}
	}
	if err != nil {
		err = c.fail(err)
	}
	if err == nil && c.onDurable != nil {
		c.onDurable(batch[len(batch)-1].lsn)
	}
	for _, t := range batch {
		t.err, t.payload = err, nil
		t.done.Done()
	}
}

// replicateBatch passes the batch's own records (not those of SubmitReplicated) to the replicate
// hook, if any. Its records must have consecutive LSNs: a batch that interleaves its own records
// with replicated ones is refused, as no single call could describe it.
func (c *Committer) replicateBatch(batch []*Ticket) error {
	if c.replicate == nil {
		return nil
	}
	if err := c.Err(); err != nil {
		return err
	}
	var first uint64
	for _, t := range batch {
		switch {
		case t.replicated:
			continue
		case len(c.repl) == 0:
			first = t.lsn
		case t.lsn != first+uint64(len(c.repl)):
			c.repl = c.repl[:0]
			return fmt.Errorf("wal: batch interleaves local commits (LSN %d) with replicated ones", t.lsn)
		}
		c.repl = append(c.repl, t.payload)
	}
	if len(c.repl) == 0 {
		return nil
	}
	err := c.replicate(first, c.repl)
	clear(c.repl) // drop references to payloads
	c.repl = c.repl[:0]
	return err
}

// write writes batch as one Log batch, failing the Committer on error.
func (c *Committer) write(batch []*Ticket) error {
	if err := c.Err(); err != nil {
		return err
	}
	for _, t := range batch {
		c.recs = append(c.recs, Record{LSN: t.lsn, Payload: t.payload})
	}
	c.wmu.Lock()
	err := c.w.WriteBatch(c.recs)
	c.wmu.Unlock()
	clear(c.recs) // drop references to payloads
	c.recs = c.recs[:0]
	if err != nil {
		return c.fail(err)
	}
	return nil
}

// fail records cause as the sticky failure, unless there already is one, and returns the failure.
func (c *Committer) fail(cause error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = fmt.Errorf("%w: %w", errs.ErrFailed, cause)
	}
	return c.err
}

// SyncStats returns the fdatasync counters of the Log (see Log.SyncStats), from any
// goroutine.
func (c *Committer) SyncStats() SyncStats { return c.w.SyncStats() }

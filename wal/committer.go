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
	lsn     uint64
	payload []byte
	err     error          // set before done is released
	done    sync.WaitGroup // released when the record's batch is finished
}

// Wait blocks until the record is durable and returns nil, or until its batch (or an earlier one)
// failed and returns an error wrapping errs.ErrFailed and the cause (such as the fdatasync error).
// It may be called any number of times, from any goroutine.
func (t *Ticket) Wait() error {
	t.done.Wait()
	return t.err
}

// Committer is the single goroutine that writes submitted records to a Writer in batches (group
// commit): each batch is everything submitted since the previous batch started, written with one
// WriteAt and one Sync. A lone record is written at once, never delayed to wait for company.
// After a failed batch the Committer is failed for good: every waiting and later record fails.
type Committer struct {
	w         *Writer
	onDurable func(lastLSN uint64)
	wmu       sync.Mutex // exclusive use of w: held for a batch's write, and by Do

	mu     sync.Mutex
	wake   sync.Cond // signalled when queue becomes non-empty or closed is set
	queue  []*Ticket // submitted, not yet taken by the committer
	spare  []*Ticket // the previous batch's slice, reused as the next queue
	err    error     // sticky failure, wraps errs.ErrFailed
	closed bool

	recs    []Record      // batch being written; committer goroutine only
	stopped chan struct{} // closed when the goroutine returns
}

// NewCommitter starts the committer goroutine over w. onDurable (may be nil) runs on that goroutine
// after each batch's Sync succeeded and before the batch's tickets are released, with the LSN of the
// batch's last record; calls are in LSN order. It is never called for a failed batch.
func NewCommitter(w *Writer, onDurable func(lastLSN uint64)) *Committer {
	c := &Committer{w: w, onDurable: onDurable, stopped: make(chan struct{})}
	c.wake.L = &c.mu
	go c.run()
	return c
}

// Submit enqueues the record (lsn, payload) for the next batch and returns its Ticket. Records
// must be submitted in LSN order with consecutive LSNs (callers serialize Submit, e.g. under their
// writer lock); they may wait on the Ticket after releasing that lock. payload must not be
// modified until the Ticket is done. After a failure or Close the Ticket is already done with an
// error wrapping errs.ErrFailed. Submit allocates only the Ticket.
func (c *Committer) Submit(lsn uint64, payload []byte) *Ticket {
	t := &Ticket{lsn: lsn, payload: payload}
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
		if len(c.queue) == 1 {
			c.wake.Signal()
		}
	}
	return t
}

// Do runs fn with exclusive use of the Writer, between batches, and returns fn's error. It is
// meant for Writer.Reset after a checkpoint and for Writer.Size. If fn leaves the Writer failed
// (a failed Reset), the Committer fails too.
func (c *Committer) Do(fn func(w *Writer) error) error {
	c.wmu.Lock()
	err := fn(c.w)
	werr := c.w.err
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

// Close writes the records already submitted, stops the goroutine and returns the sticky failure,
// if any. Later Submits fail with an error wrapping errs.ErrFailed ("wal: committer closed"). Close
// does not close the file; it may be called more than once.
func (c *Committer) Close() error {
	c.mu.Lock()
	c.closed = true
	c.wake.Signal()
	c.mu.Unlock()
	<-c.stopped
	return c.Err()
}

// run is the committer goroutine.
func (c *Committer) run() {
	defer close(c.stopped)
	var batch []*Ticket
	for {
		batch = c.take(batch)
		if batch == nil {
			return
		}
		c.commit(batch)
	}
}

// take recycles the previous batch's slice and waits for the next batch: everything queued. It
// returns nil once the Committer is closed and the queue is empty.
func (c *Committer) take(prev []*Ticket) []*Ticket {
	clear(prev) // drop references to finished tickets
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev != nil {
		c.spare = prev[:0]
	}
	for len(c.queue) == 0 {
		if c.closed {
			return nil
		}
		c.wake.Wait()
	}
	batch := c.queue
	c.queue, c.spare = c.spare, nil
	return batch
}

// commit writes batch, reports it durable and releases its tickets.
func (c *Committer) commit(batch []*Ticket) {
	err := c.write(batch)
	if err == nil && c.onDurable != nil {
		c.onDurable(batch[len(batch)-1].lsn)
	}
	for _, t := range batch {
		t.err, t.payload = err, nil
		t.done.Done()
	}
}

// write writes batch as one Writer batch, failing the Committer on error.
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

// SyncStats returns the fdatasync counters of the Writer (see Writer.SyncStats), from any
// goroutine.
func (c *Committer) SyncStats() SyncStats { return c.w.SyncStats() }
